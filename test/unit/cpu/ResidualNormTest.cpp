//===- ResidualNormTest.cpp - add_rms_norm and add_layer_norm ---------------===//
//
// The fused ops must equal an mm.add followed by the norm (the sum rounded to the element
// type first), with the sum as the second result.
//
//===----------------------------------------------------------------------===//
#include "KernelTestUtil.h"

using namespace mm::rt;
using namespace mm::rt::cpu::test;

namespace {

TEST(AddRmsNorm, EqualsAddThenNorm) {
  for (DType t : {DType::f32, DType::bf16, DType::f16}) {
    Tensor a = randomTensor(t, {2, 5, 48}, 1, -3, 3), b = randomTensor(t, {2, 5, 48}, 2, -3, 3);
    Tensor g = randomTensor(DType::f32, {48}, 3);
    std::vector<Tensor> fused = OpRun("mm.add_rms_norm")
                                    .in(a)
                                    .in(b)
                                    .in(g)
                                    .attr("epsilon", 1e-6)
                                    .attr("scale_offset", 1.0)
                                    .out(t)
                                    .out(t)
                                    .run();
    ASSERT_EQ(fused.size(), 2u);
    Tensor sum = OpRun("mm.add").in(a).in(b).out(t).run1();
    Tensor norm = OpRun("mm.rms_norm")
                      .in(sum)
                      .in(g)
                      .attr("epsilon", 1e-6)
                      .attr("scale_offset", 1.0)
                      .out(t)
                      .run1();
    // Same arithmetic in the same order: bit-identical.
    expectExact(fused[1], t, sum.shape, toDoubles(sum), "sum " + std::string(dtypeName(t)));
    expectExact(fused[0], t, norm.shape, toDoubles(norm), "norm " + std::string(dtypeName(t)));
  }
}

TEST(AddLayerNorm, EqualsAddThenNorm) {
  Tensor a = randomTensor(DType::f32, {3, 4, 16}, 4), b = randomTensor(DType::f32, {3, 4, 16}, 5);
  Tensor g = randomTensor(DType::f32, {16}, 6), bias = randomTensor(DType::f32, {16}, 7);
  for (bool withBias : {false, true}) {
    OpRun fusedRun("mm.add_layer_norm");
    fusedRun.in(a).in(b).in(g).attr("epsilon", 1e-5).out(DType::f32).out(DType::f32);
    OpRun normRun("mm.layer_norm");
    Tensor sum = OpRun("mm.add").in(a).in(b).out(DType::f32).run1();
    normRun.in(sum).in(g).attr("epsilon", 1e-5).out(DType::f32);
    if (withBias) {
      fusedRun.in(bias);
      normRun.in(bias);
    }
    std::vector<Tensor> fused = fusedRun.run();
    Tensor norm = normRun.run1();
    expectExact(fused[1], DType::f32, sum.shape, toDoubles(sum), "sum");
    expectExact(fused[0], DType::f32, norm.shape, toDoubles(norm),
                withBias ? "with bias" : "no bias");
  }
  Tensor c = randomTensor(DType::f32, {3, 4, 8}, 8);
  expectError(
      [&] { OpRun("mm.add_layer_norm").in(a).in(c).in(g).out(DType::f32).out(DType::f32).run(); },
      "differ");
}

} // namespace
