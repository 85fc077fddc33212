//===- NormsTest.cpp - layer_norm and rms_norm ------------------------------===//
#include "KernelTestUtil.h"

#include <cmath>

using namespace mm::rt;
using namespace mm::rt::cpu::test;

namespace {

/// ONNX LayerNormalization from its definition, in f64; scale/bias index the trailing
/// elements of each normalized block (their shapes are suffixes of it).
std::vector<double> naiveLayerNorm(const Tensor &x, const Tensor &g, const Tensor *b, int64_t axis,
                                   double eps) {
  int64_t r = x.rank(), a = axis < 0 ? axis + r : axis, n = 1;
  for (int64_t d = a; d < r; ++d)
    n *= x.shape[d];
  std::vector<double> v = toDoubles(x), out(v.size());
  for (int64_t row = 0; row * n < x.numel(); ++row) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < n; ++i)
      mean += v[row * n + i] / n;
    for (int64_t i = 0; i < n; ++i)
      var += (v[row * n + i] - mean) * (v[row * n + i] - mean) / n;
    for (int64_t i = 0; i < n; ++i)
      out[row * n + i] =
          (v[row * n + i] - mean) / std::sqrt(var + eps) * getElement(g, i % g.numel()) +
          (b ? getElement(*b, i % b->numel()) : 0);
  }
  return out;
}

TEST(LayerNorm, HandComputed) {
  // Row [1, 2, 3, 4]: mean 2.5, biased variance 1.25; eps 0 -> (x - 2.5) / sqrt(1.25).
  Tensor x = makeF32({1, 4}, {1, 2, 3, 4}), g = makeF32({4}, {1, 1, 2, 2}),
         b = makeF32({4}, {0, 0, 0, 1});
  double s = 1 / std::sqrt(1.25);
  expectClose(OpRun("mm.layer_norm").in(x).in(g).in(b).attr("epsilon", 0.0).out(DType::f32).run1(),
              {1, 4}, {-1.5 * s, -0.5 * s, 2 * 0.5 * s, 2 * 1.5 * s + 1}, 2e-7, 0);
}

TEST(LayerNorm, AxesAndOptionalBias) {
  struct Case {
    Shape x, g;
    int64_t axis;
    bool bias;
  };
  std::vector<Case> cases = {{{2, 5, 16}, {16}, -1, true}, {{2, 5, 16}, {16}, 2, false},
                             {{3, 4, 6}, {4, 6}, 1, true}, {{3, 4, 6}, {6}, -2, true},
                             {{64, 768}, {768}, -1, true}, {{2, 3}, {2, 3}, 0, false}};
  unsigned seed = 7;
  for (const Case &c : cases) {
    Tensor x = randomTensor(DType::f32, c.x, seed++, -3, 5),
           g = randomTensor(DType::f32, c.g, seed++);
    Tensor b = randomTensor(DType::f32, c.g, seed++);
    OpRun run("mm.layer_norm");
    run.in(x).in(g).attr("axis", c.axis).attr("epsilon", 1e-5).out(DType::f32);
    if (c.bias)
      run.in(b);
    // f32 normalisation of values of magnitude <~ 3 with f64 statistics: a few ulps.
    expectClose(run.run1(), c.x, naiveLayerNorm(x, g, c.bias ? &b : nullptr, c.axis, 1e-5), 2e-6,
                2e-6, shapeString(c.x) + " axis " + std::to_string(c.axis));
  }
  Tensor x = makeF32({2, 4}, randomValues(8)), bad = makeF32({3}, {1, 1, 1});
  expectError([&] { OpRun("mm.layer_norm").in(x).in(bad).out(DType::f32).run1(); },
              "does not broadcast");
}

TEST(LayerNorm, ConstantRowIsBias) {
  // Zero variance: (x - mean) = 0 exactly, so the result is the bias (no NaN with eps > 0).
  Tensor x = makeF32({1, 3}, {2, 2, 2}), g = makeF32({3}, {5, 5, 5}), b = makeF32({3}, {1, 2, 3});
  expectExact(OpRun("mm.layer_norm").in(x).in(g).in(b).out(DType::f32).run1(), DType::f32, {1, 3},
              {1, 2, 3});
}

std::vector<double> naiveRms(const Tensor &x, const Tensor &g, double eps, double offset) {
  int64_t n = x.shape.back();
  std::vector<double> v = toDoubles(x), out(v.size());
  for (int64_t row = 0; row * n < x.numel(); ++row) {
    double ms = 0;
    for (int64_t i = 0; i < n; ++i)
      ms += v[row * n + i] * v[row * n + i] / n;
    for (int64_t i = 0; i < n; ++i)
      out[row * n + i] = v[row * n + i] / std::sqrt(ms + eps) * (offset + getElement(g, i));
  }
  return out;
}

TEST(RmsNorm, LlamaAndGemmaForms) {
  Tensor x = randomTensor(DType::f32, {3, 7, 64}, 31, -4, 4),
         g = randomTensor(DType::f32, {64}, 32);
  for (double offset : {0.0, 1.0})
    expectClose(OpRun("mm.rms_norm")
                    .in(x)
                    .in(g)
                    .attr("epsilon", 1e-6)
                    .attr("scale_offset", offset)
                    .out(DType::f32)
                    .run1(),
                {3, 7, 64}, naiveRms(x, g, 1e-6, offset), 2e-6, 1e-6,
                "offset " + std::to_string(offset));
  // Hand-computed: [3, 4] has mean square 12.5.
  Tensor h = makeF32({2}, {3, 4}), one = makeF32({2}, {1, 2});
  double s = 1 / std::sqrt(12.5);
  expectClose(OpRun("mm.rms_norm").in(h).in(one).attr("epsilon", 0.0).out(DType::f32).run1(), {2},
              {3 * s, 8 * s}, 2e-7, 0);
}

TEST(RmsNorm, HalfInputsComputeInF32) {
  // bf16 activations with f32 weights (Gemma keeps norms in f32): one bf16 rounding of the
  // f32 result, 2^-8 relative.
  Tensor x = randomTensor(DType::bf16, {4, 32}, 41, -2, 2), g = randomTensor(DType::f32, {32}, 42);
  expectClose(OpRun("mm.rms_norm")
                  .in(x)
                  .in(g)
                  .attr("epsilon", 1e-6)
                  .attr("scale_offset", 1.0)
                  .out(DType::bf16)
                  .run1(),
              {4, 32}, naiveRms(x, g, 1e-6, 1.0), 3.95e-3, 1e-6);
  Tensor xh = randomTensor(DType::f16, {4, 32}, 43, -2, 2), gh = randomTensor(DType::f16, {32}, 44);
  expectClose(OpRun("mm.rms_norm").in(xh).in(gh).attr("epsilon", 1e-6).out(DType::f16).run1(),
              {4, 32}, naiveRms(xh, gh, 1e-6, 0.0), 4.9e-4, 1e-6);
  Tensor bad = makeF32({31}, randomValues(31));
  expectError([&] { OpRun("mm.rms_norm").in(x).in(bad).out(DType::bf16).run1(); }, "last dim");
}

} // namespace
