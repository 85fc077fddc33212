//===- ScatterTest.cpp - scatter_nd, scatter_elements, nonzero, cumprod ------===//
//
// The edges the ONNX node tests do not reach: negative and out-of-range indices, bool
// data, integer wrap-around of the reductions, indices smaller than data, NonZero of 0-D,
// all-zero and NaN inputs, CumProd over integers. Expected values are hand-computed.
//
//===----------------------------------------------------------------------===//
#include "KernelTestUtil.h"

#include <limits>

using namespace mm::rt;
using namespace mm::rt::cpu;
using namespace mm::rt::cpu::test;

namespace {

TEST(Scatter, NDNegativeIndicesAndErrors) {
  Tensor data = makeF32({3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor idx = makeI64({2, 1}, {-1, 0});
  Tensor upd = makeF32({2, 2}, {10, 20, 30, 40});
  auto run = [&](const Tensor &i, int64_t reduction) {
    return OpRun("mm.scatter_nd")
        .in(data)
        .in(i)
        .in(upd)
        .attr("reduction", reduction)
        .out(DType::f32)
        .run1();
  };
  expectExact(run(idx, 0), DType::f32, {3, 2}, {30, 40, 3, 4, 10, 20});
  expectExact(run(idx, 2), DType::f32, {3, 2}, {30, 80, 3, 4, 50, 120});
  expectError(
      [&] {
        run(makeI64({2, 1}, {3, 0}), 0);
      },
      "index 3 is out of range for dim 0 of size 3");
  expectError([&] { run(makeI64({2, 3}, {0, 0, 0, 0, 0, 0}), 0); }, "must be in [1, 2]");
  Tensor b = makeTensor(DType::boolean, {3}, {0, 0, 0});
  Tensor bu = makeTensor(DType::boolean, {1}, {1});
  Tensor bi = makeI64({1, 1}, {1});
  expectExact(OpRun("mm.scatter_nd").in(b).in(bi).in(bu).out(DType::boolean).run1(), DType::boolean,
              {3}, {0, 1, 0});
  expectError(
      [&] {
        OpRun("mm.scatter_nd")
            .in(b)
            .in(bi)
            .in(bu)
            .attr("reduction", int64_t(1))
            .out(DType::boolean)
            .run1();
      },
      "reductions need a number dtype");
}

TEST(Scatter, ElementsPartialIndicesAndWrap) {
  // indices [1, 2] into data [2, 3] along axis 1: only row 0 changes.
  Tensor data = makeTensor(DType::i8, {2, 3}, {100, 1, 2, 3, 4, 5});
  Tensor idx = makeTensor(DType::i32, {1, 2}, {0, -1});
  Tensor upd = makeTensor(DType::i8, {1, 2}, {100, 7});
  expectExact(OpRun("mm.scatter_elements")
                  .in(data)
                  .in(idx)
                  .in(upd)
                  .attr("axis", int64_t(1))
                  .attr("reduction", int64_t(1))
                  .out(DType::i8)
                  .run1(),
              DType::i8, {2, 3}, {-56, 1, 9, 3, 4, 5}); // 100 + 100 wraps to -56
  expectError(
      [&] {
        OpRun("mm.scatter_elements")
            .in(data)
            .in(makeTensor(DType::i32, {1, 2}, {0, 3}))
            .in(upd)
            .attr("axis", int64_t(1))
            .out(DType::i8)
            .run1();
      },
      "index 3 is out of range for dim 1");
}

TEST(NonZero, ScalarsEmptyAndNan) {
  expectExact(OpRun("mm.nonzero").in(makeF32({}, {2})).out(DType::i64).run1(), DType::i64, {1, 1},
              {0});
  expectExact(OpRun("mm.nonzero").in(makeF32({2, 2}, {0, 0, 0, 0})).out(DType::i64).run1(),
              DType::i64, {2, 0}, {});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expectExact(OpRun("mm.nonzero").in(makeF32({2, 2}, {0, nan, -1, 0})).out(DType::i64).run1(),
              DType::i64, {2, 2}, {0, 1, 1, 0});
}

TEST(CumProd, ExclusiveReverseIntegers) {
  auto run = [&](const Tensor &t, int64_t axis, bool excl, bool rev) {
    return OpRun("mm.cumprod")
        .in(t)
        .attr("axis", axis)
        .attr("exclusive", int64_t(excl))
        .attr("reverse", int64_t(rev))
        .out(t.dtype)
        .run1();
  };
  Tensor x = makeF32({2, 3}, {1, 2, 3, 4, 5, 6});
  expectExact(run(x, 1, false, false), DType::f32, {2, 3}, {1, 2, 6, 4, 20, 120});
  expectExact(run(x, 0, true, false), DType::f32, {2, 3}, {1, 1, 1, 1, 2, 3});
  expectExact(run(x, 1, true, true), DType::f32, {2, 3}, {6, 3, 1, 30, 6, 1});
  Tensor i = makeTensor(DType::i16, {3}, {-300, 200, 1});
  expectExact(run(i, 0, false, false), DType::i16, {3}, {-300, 5536, 5536}); // wraps mod 2^16
}

} // namespace
