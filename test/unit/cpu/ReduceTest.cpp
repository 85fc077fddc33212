//===- ReduceTest.cpp - reductions, softmax, cumsum -------------------------===//
#include "KernelTestUtil.h"

#include <cmath>
#include <limits>

using namespace mm::rt;
using namespace mm::rt::cpu::test;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

enum class Kind { sum, mean, max };

/// Naive reduction: visit every input element, add it to its output slot.
std::vector<double> naiveReduce(const Shape &in, const std::vector<double> &v,
                                std::vector<int64_t> axes, bool keepdims, Kind kind,
                                Shape &outShape) {
  int64_t r = static_cast<int64_t>(in.size());
  std::vector<bool> red(in.size(), axes.empty());
  for (int64_t a : axes)
    red[a < 0 ? a + r : a] = true;
  Shape kept;
  outShape.clear();
  for (int64_t d = 0; d < r; ++d) {
    if (!red[d])
      kept.push_back(in[d]);
    if (!red[d] || keepdims)
      outShape.push_back(red[d] ? 1 : in[d]);
  }
  int64_t nOut = numElements(kept), count = numElements(in) / std::max<int64_t>(nOut, 1);
  if (numElements(in) == 0)
    count = 0;
  std::vector<double> acc(nOut, kind == Kind::max ? -kInf : 0.0);
  std::vector<int64_t> idx(in.size(), 0);
  for (int64_t i = 0; i < numElements(in); ++i) {
    int64_t o = 0;
    for (int64_t d = 0; d < r; ++d)
      if (!red[d])
        o = o * in[d] + idx[d];
    acc[o] = kind == Kind::max ? std::max(acc[o], v[i]) : acc[o] + v[i];
    for (int64_t d = r; d-- > 0;)
      if (++idx[d] < in[d])
        break;
      else
        idx[d] = 0;
  }
  if (kind == Kind::mean)
    for (double &a : acc)
      a /= static_cast<double>(count);
  return acc;
}

TEST(Reduce, AxesKeepdimsAgainstNaiveLoop) {
  struct Case {
    Shape in;
    std::vector<int64_t> axes;
    bool keepdims;
  };
  std::vector<Case> cases = {
      {{2, 3, 4}, {-1}, true}, {{2, 3, 4}, {1}, false},   {{2, 3, 4}, {0, 2}, true},
      {{2, 3, 4}, {}, false},  {{2, 3, 4}, {}, true},     {{2, 3, 4, 5}, {1, 3}, false},
      {{4, 1, 6}, {1}, true},  {{3, 2}, {-2, -1}, false}, {{64, 33, 40}, {0}, true},
  };
  const std::pair<const char *, Kind> ops[] = {
      {"mm.reduce_sum", Kind::sum}, {"mm.reduce_mean", Kind::mean}, {"mm.reduce_max", Kind::max}};
  unsigned seed = 1;
  for (const Case &c : cases) {
    Tensor x = randomTensor(DType::f32, c.in, seed++);
    for (auto [name, kind] : ops) {
      Shape outShape;
      std::vector<double> want =
          naiveReduce(c.in, toDoubles(x), c.axes, c.keepdims, kind, outShape);
      Tensor y = OpRun(name)
                     .in(x)
                     .attr("axes", c.axes)
                     .attr("keepdims", int64_t(c.keepdims))
                     .out(DType::f32)
                     .run1();
      // f64 accumulation rounded once to f32: 2^-24 relative (plus tiny sums near 0).
      expectClose(y, outShape, want, 6e-8, 1e-7, std::string(name) + " " + shapeString(c.in));
    }
  }
}

TEST(Reduce, EmptySetsAndIntegers) {
  Tensor e = makeF32({2, 0}, {});
  auto run = [&](const char *op, const Tensor &x, std::vector<int64_t> axes) {
    return OpRun(op).in(x).attr("axes", axes).attr("keepdims", int64_t(0)).out(x.dtype).run1();
  };
  // ONNX empty-set rules: sum 0, max -inf; mean is 0/0 = NaN.
  expectExact(run("mm.reduce_sum", e, {1}), DType::f32, {2}, {0, 0});
  expectExact(run("mm.reduce_max", e, {1}), DType::f32, {2}, {-kInf, -kInf});
  expectExact(run("mm.reduce_mean", e, {1}), DType::f32, {2}, {kNaN, kNaN});
  expectExact(run("mm.reduce_sum", e, {0}), DType::f32, {0}, {});
  Tensor i = makeTensor(DType::i64, {2, 3}, {1, 2, 4, -7, 0, 2});
  expectExact(run("mm.reduce_sum", i, {1}), DType::i64, {2}, {7, -5});
  expectExact(run("mm.reduce_mean", i, {1}), DType::i64, {2}, {2, -1}); // 7/3, -5/3 truncated
  expectExact(run("mm.reduce_max", i, {0}), DType::i64, {3}, {1, 2, 4});
  Tensor n = makeF32({3}, {1, kNaN, 2});
  expectExact(run("mm.reduce_max", n, {0}), DType::f32, {}, {kNaN});
  expectError([&] { run("mm.reduce_sum", i, {2}); }, "axis 2 out of range for rank 2");
  expectError([&] { run("mm.reduce_sum", i, {1, -1}); }, "repeated");
}

TEST(Reduce, HalfMeanAccumulatesWide) {
  // 4096 f16 values of 0.1 (0.0999755859375 in f16): an f16 running sum would stall at
  // 256; accumulating in f64 gives the exact mean.
  Tensor x = makeTensor(DType::f16, {4096}, std::vector<double>(4096, 0.1));
  Tensor y =
      OpRun("mm.reduce_mean").in(x).attr("axes", std::vector<int64_t>{0}).out(DType::f16).run1();
  EXPECT_EQ(getElement(y, 0), 0.0999755859375);
}

std::vector<double> naiveSoftmax(const Shape &s, const std::vector<double> &v, int64_t axis) {
  int64_t n = s[axis], inner = 1;
  for (size_t d = axis + 1; d < s.size(); ++d)
    inner *= s[d];
  std::vector<double> out(v.size());
  for (int64_t base = 0; base < static_cast<int64_t>(v.size()); ++base) {
    if ((base / inner) % n != 0)
      continue; // visit each line once, from its first element
    double mx = -kInf, sum = 0;
    for (int64_t k = 0; k < n; ++k)
      mx = std::max(mx, v[base + k * inner]);
    for (int64_t k = 0; k < n; ++k)
      sum += std::exp(v[base + k * inner] - mx);
    for (int64_t k = 0; k < n; ++k)
      out[base + k * inner] = std::exp(v[base + k * inner] - mx) / sum;
  }
  return out;
}

TEST(Softmax, AnyAxisAgainstNaive) {
  Shape s{3, 4, 5};
  Tensor x = randomTensor(DType::f32, s, 5, -10, 10);
  for (int64_t axis : {-1, 0, 1, 2}) {
    int64_t a = axis < 0 ? axis + 3 : axis;
    // f32 exp and division: a few ulps.
    expectClose(OpRun("mm.softmax").in(x).attr("axis", axis).out(DType::f32).run1(), s,
                naiveSoftmax(s, toDoubles(x), a), 1e-6, 1e-9, "axis " + std::to_string(axis));
  }
  // Large logits do not overflow (the max is subtracted); numpy: softmax([1000, 1001, 1002]).
  Tensor big = makeF32({3}, {1000, 1001, 1002});
  expectClose(OpRun("mm.softmax").in(big).out(DType::f32).run1(), {3},
              {0.09003057317038046, 0.24472847105479764, 0.6652409557748219}, 1e-6, 0);
  Tensor h = makeTensor(DType::f16, {2, 3}, {1, 2, 3, -1, 0, 1});
  expectClose(OpRun("mm.softmax").in(h).out(DType::f16).run1(), {2, 3},
              {0.09003057317038046, 0.24472847105479764, 0.6652409557748219, 0.09003057317038046,
               0.24472847105479764, 0.6652409557748219},
              4.9e-4, 0); // one f16 rounding
}

TEST(CumSum, ExclusiveReverseAxes) {
  // numpy: np.cumsum([[1,2,3],[4,5,6]], axis=...) and the ONNX CumSum examples.
  Tensor x = makeF32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto run = [&](const Tensor &t, int64_t axis, bool excl, bool rev) {
    return OpRun("mm.cumsum")
        .in(t)
        .attr("axis", axis)
        .attr("exclusive", int64_t(excl))
        .attr("reverse", int64_t(rev))
        .out(t.dtype)
        .run1();
  };
  expectExact(run(x, 1, false, false), DType::f32, {2, 3}, {1, 3, 6, 4, 9, 15});
  expectExact(run(x, 0, false, false), DType::f32, {2, 3}, {1, 2, 3, 5, 7, 9});
  expectExact(run(x, -1, true, false), DType::f32, {2, 3}, {0, 1, 3, 0, 4, 9});
  expectExact(run(x, 1, false, true), DType::f32, {2, 3}, {6, 5, 3, 15, 11, 6});
  expectExact(run(x, 1, true, true), DType::f32, {2, 3}, {5, 3, 0, 11, 6, 0});
  Tensor i = makeTensor(DType::i32, {5}, {1, 2, 3, 4, 5});
  expectExact(run(i, 0, false, false), DType::i32, {5}, {1, 3, 6, 10, 15});
  expectExact(run(makeF32({0}, {}), 0, false, false), DType::f32, {0}, {});
  expectError([&] { run(i, 1, false, false); }, "axis 1 out of range");
}

} // namespace
