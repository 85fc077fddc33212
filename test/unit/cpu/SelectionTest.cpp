//===- SelectionTest.cpp - argmax, argmin, topk, gather_elements, mod -------===//
//
// Expected values from numpy (np.argmax / np.argmin, reversed for select_last_index,
// np.take_along_axis, np.mod, np.fmod) or derived by hand where noted.
//
//===----------------------------------------------------------------------===//
#include "KernelTestUtil.h"

#include <limits>

using namespace mm::rt;
using namespace mm::rt::cpu::test;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor arg(const char *op, const Tensor &x, int64_t axis, bool keepdims, bool last) {
  return OpRun(op)
      .in(x)
      .attr("axis", axis)
      .attr("keepdims", int64_t(keepdims))
      .attr("select_last_index", int64_t(last))
      .out(DType::i64)
      .run1();
}

TEST(ArgMax, TiesKeepdimsAndLastIndex) {
  for (DType t : {DType::f32, DType::i32, DType::bf16}) {
    Tensor x = makeTensor(t, {3, 4}, {2, 7, 7, 1, 5, -1, 5, 3, 0, 0, 9, 9});
    expectExact(arg("mm.argmax", x, 1, false, false), DType::i64, {3}, {1, 0, 2},
                dtypeName(t).data());
    expectExact(arg("mm.argmax", x, -1, true, true), DType::i64, {3, 1}, {2, 2, 3});
    expectExact(arg("mm.argmin", x, 0, false, false), DType::i64, {4}, {2, 1, 1, 0});
    expectExact(arg("mm.argmin", x, 1, true, true), DType::i64, {3, 1}, {3, 1, 1});
  }
  // numpy picks the first NaN in both directions.
  Tensor n = makeF32({4}, {1, kNaN, 3, kNaN});
  expectExact(arg("mm.argmax", n, 0, false, false), DType::i64, {}, {1});
  expectExact(arg("mm.argmin", n, 0, false, false), DType::i64, {}, {1});
  expectExact(arg("mm.argmax", n, 0, false, true), DType::i64, {}, {3});
  expectError([&] { arg("mm.argmax", makeF32({2, 0}, {}), 1, true, false); }, "empty dim");
}

Tensor topk(const Tensor &x, int64_t k, int64_t axis, bool largest, std::vector<Tensor> &both) {
  Tensor kt = makeI64({1}, {k});
  both = OpRun("mm.topk")
             .in(x)
             .in(kt)
             .attr("axis", axis)
             .attr("largest", int64_t(largest))
             .out(x.dtype)
             .out(DType::i64)
             .run();
  return both[0];
}

TEST(TopK, LargestSmallestAxesTiesNaN) {
  Tensor x = makeF32({3, 4}, {2, 7, 7, 1, 5, -1, 5, 3, 0, 0, 9, 9});
  std::vector<Tensor> r;
  // Hand-derived: row [2, 7, 7, 1] -> 7 (index 1), 7 (index 2, tie: lower index first), 2.
  topk(x, 3, -1, true, r);
  expectExact(r[0], DType::f32, {3, 3}, {7, 7, 2, 5, 5, 3, 9, 9, 0});
  expectExact(r[1], DType::i64, {3, 3}, {1, 2, 0, 0, 2, 3, 2, 3, 0});
  topk(x, 2, 1, false, r);
  expectExact(r[0], DType::f32, {3, 2}, {1, 2, -1, 3, 0, 0});
  expectExact(r[1], DType::i64, {3, 2}, {3, 0, 1, 3, 0, 1});
  topk(x, 2, 0, true, r);
  expectExact(r[0], DType::f32, {2, 4}, {5, 7, 9, 9, 2, 0, 7, 3});
  expectExact(r[1], DType::i64, {2, 4}, {1, 0, 2, 2, 0, 2, 0, 1});
  topk(x, 0, 1, true, r);
  expectExact(r[0], DType::f32, {3, 0}, {});
  // NaN ranks above every number.
  Tensor n = makeF32({4}, {1, kNaN, 3, kNaN});
  topk(n, 3, 0, true, r);
  expectExact(r[0], DType::f32, {3}, {kNaN, kNaN, 3});
  expectExact(r[1], DType::i64, {3}, {1, 3, 2});
  topk(n, 2, 0, false, r);
  expectExact(r[1], DType::i64, {2}, {0, 2});
  Tensor i = makeI64({5}, {4, -2, 9, 4, 0});
  topk(i, 2, 0, true, r);
  expectExact(r[0], DType::i64, {2}, {9, 4});
  expectExact(r[1], DType::i64, {2}, {2, 0});
  expectError([&] { topk(x, 5, 1, true, r); }, "k 5 out of range");
}

TEST(GatherElements, AxesAndNegativeIndices) {
  // ONNX GatherElements examples.
  Tensor d = makeF32({2, 2}, {1, 2, 3, 4});
  expectExact(OpRun("mm.gather_elements")
                  .in(d)
                  .in(makeI64({2, 2}, {0, 0, 1, 0}))
                  .attr("axis", int64_t(1))
                  .out(DType::f32)
                  .run1(),
              DType::f32, {2, 2}, {1, 1, 4, 3});
  Tensor e = makeTensor(DType::i32, {3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  expectExact(OpRun("mm.gather_elements")
                  .in(e)
                  .in(makeI64({2, 3}, {1, 2, 0, 2, 0, 0}))
                  .out(DType::i32)
                  .run1(),
              DType::i32, {2, 3}, {4, 8, 3, 7, 2, 3});
  expectExact(OpRun("mm.gather_elements")
                  .in(e)
                  .in(makeTensor(DType::i32, {2, 2}, {-1, -2, 0, 2}))
                  .attr("axis", int64_t(-1))
                  .out(DType::i32)
                  .run1(),
              DType::i32, {2, 2}, {3, 2, 4, 6});
  expectError(
      [&] {
        OpRun("mm.gather_elements").in(e).in(makeI64({1, 1}, {3})).out(DType::i32).run1();
      },
      "index 3 out of range");
  expectError(
      [&] {
        OpRun("mm.gather_elements").in(e).in(makeI64({1, 4}, {0, 0, 0, 0})).out(DType::i32).run1();
      },
      "exceed data");
}

TEST(Mod, PythonAndCSemantics) {
  Tensor a = makeI64({6}, {-4, 7, 5, 4, -7, 8}), b = makeI64({6}, {2, -3, 8, -2, 3, 5});
  expectExact(OpRun("mm.mod").in(a).in(b).out(DType::i64).run1(), DType::i64, {6},
              {0, -2, 5, 0, 2, 3});
  expectExact(OpRun("mm.mod").in(a).in(b).attr("fmod", int64_t(1)).out(DType::i64).run1(),
              DType::i64, {6}, {0, 1, 5, 0, -1, 3});
  Tensor fa = makeF32({6}, {-4.3, 7.2, 5.0, 4.3, -7.2, 8.0}),
         fb = makeF32({6}, {2.1, -3.4, 8.0, -2.1, 3.4, 5.0});
  expectExact(OpRun("mm.mod").in(fa).in(fb).attr("fmod", int64_t(1)).out(DType::f32).run1(),
              DType::f32, {6},
              {-0.10000038146972656, 0.39999961853027344, 5.0, 0.10000038146972656,
               -0.39999961853027344, 3.0});
  Tensor m = makeI64({2}, {INT64_MIN, 9}), minus1 = makeI64({1}, {-1});
  expectExact(OpRun("mm.mod").in(m).in(minus1).out(DType::i64).run1(), DType::i64, {2}, {0, 0});
  Tensor u = makeTensor(DType::u8, {2}, {250, 7}), v = makeTensor(DType::u8, {1}, {6});
  expectExact(OpRun("mm.mod").in(u).in(v).out(DType::u8).run1(), DType::u8, {2}, {4, 1});
  expectError([&] { OpRun("mm.mod").in(fa).in(fb).out(DType::f32).run1(); },
              "unsupported input dtype f32");
  expectError([&] { OpRun("mm.mod").in(a).in(makeI64({1}, {0})).out(DType::i64).run1(); },
              "division by zero");
}

} // namespace
