//===- StructureTest.cpp - shape, layout, indexing and generator kernels ----===//
//
// Expected values are numpy results (np.reshape, np.take, np.pad, np.triu, ...) computed
// with /usr/bin/python3 and pasted here, or hand-derived where noted.
//
//===----------------------------------------------------------------------===//
#include "KernelTestUtil.h"

#include <numeric>

using namespace mm::rt;
using namespace mm::rt::cpu::test;

namespace {

std::vector<double> iota(int64_t n, double start = 0) {
  std::vector<double> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), start);
  return v;
}

Tensor x234(DType t = DType::f32) { return makeTensor(t, {2, 3, 4}, iota(24)); }

TEST(Reshape, ZeroCopiesMinusOneInfers) {
  Tensor x = x234();
  auto reshape = [&](const std::vector<int64_t> &s, bool allowZero = false,
                     const Tensor *in = nullptr) {
    Tensor shape = makeI64({static_cast<int64_t>(s.size())}, s);
    return OpRun("mm.reshape")
        .in(in ? *in : x)
        .in(shape)
        .attr("allow_zero", int64_t(allowZero))
        .out(DType::f32)
        .run1();
  };
  expectExact(reshape({0, -1}), DType::f32, {2, 12}, iota(24));
  expectExact(reshape({-1, 0, 2}), DType::f32, {4, 3, 2}, iota(24));
  expectExact(reshape({4, 6}), DType::f32, {4, 6}, iota(24));
  Tensor empty = makeF32({0, 3}, {});
  expectExact(reshape({3, 0}, true, &empty), DType::f32, {3, 0}, {}); // literal 0 with allow_zero
  expectExact(reshape({0, 3}, false, &empty), DType::f32, {0, 3}, {});
  expectError([&] { reshape({-1, -1}); }, "more than one -1");
  expectError([&] { reshape({5, -1}); }, "cannot infer");
  expectError([&] { reshape({5, 5}); }, "cannot view [2, 3, 4] as [5, 5]");
  expectError([&] { reshape({0, 0, 0, 0}); }, "copies dim 3");
}

TEST(Shape, SqueezeUnsqueezeFlatten) {
  Tensor x = makeF32({1, 3, 1, 2}, iota(6));
  expectExact(
      OpRun("mm.squeeze").in(x).attr("axes", std::vector<int64_t>{0, -2}).out(DType::f32).run1(),
      DType::f32, {3, 2}, iota(6));
  expectError(
      [&] {
        OpRun("mm.squeeze").in(x).attr("axes", std::vector<int64_t>{1}).out(DType::f32).run1();
      },
      "cannot squeeze dim 1 of size 3");
  Tensor y = makeF32({3, 2}, iota(6));
  expectExact(
      OpRun("mm.unsqueeze").in(y).attr("axes", std::vector<int64_t>{0, -1}).out(DType::f32).run1(),
      DType::f32, {1, 3, 2, 1}, iota(6));
  expectExact(
      OpRun("mm.unsqueeze").in(y).attr("axes", std::vector<int64_t>{1}).out(DType::f32).run1(),
      DType::f32, {3, 1, 2}, iota(6));
  Tensor z = x234();
  for (auto [axis, rows] :
       std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {1, 2}, {-1, 6}, {3, 24}})
    expectExact(OpRun("mm.flatten").in(z).attr("axis", axis).out(DType::f32).run1(), DType::f32,
                {rows, 24 / rows}, iota(24), "axis " + std::to_string(axis));
  expectError([&] { OpRun("mm.flatten").in(z).attr("axis", int64_t(4)).out(DType::f32).run1(); },
              "out of range");
}

TEST(Shape, ShapeStartEndAndDim) {
  Tensor x = makeF32({2, 3, 4, 5}, iota(120));
  auto shape = [&](int64_t start, std::optional<int64_t> end) {
    OpRun r("mm.shape");
    r.in(x).attr("start", start).out(DType::i64);
    if (end)
      r.attr("end", *end);
    return r.run1();
  };
  expectExact(shape(0, std::nullopt), DType::i64, {4}, {2, 3, 4, 5});
  expectExact(shape(1, 3), DType::i64, {2}, {3, 4});
  expectExact(shape(-2, std::nullopt), DType::i64, {2}, {4, 5});
  expectExact(shape(-10, 10), DType::i64, {4}, {2, 3, 4, 5}); // clamped
  expectExact(shape(3, 1), DType::i64, {0}, {});
  expectExact(OpRun("mm.dim").in(x).attr("index", int64_t(2)).out(DType::i64).run1(), DType::i64,
              {1}, {4});
  expectError([&] { OpRun("mm.dim").in(x).attr("index", int64_t(4)).out(DType::i64).run1(); },
              "out of range");
}

TEST(Shape, ExpandIsBidirectional) {
  // numpy: np.array([[1],[2],[3]]) * np.ones((2,1,1)) -> [2, 3, 1]; Expand keeps input dims
  // where the requested dim is 1 (ONNX Expand example).
  Tensor x = makeTensor(DType::i32, {3, 1}, {1, 2, 3});
  expectExact(OpRun("mm.expand").in(x).in(makeI64({3}, {2, 1, 6})).out(DType::i32).run1(),
              DType::i32, {2, 3, 6}, {1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3,
                                      1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3});
  expectExact(OpRun("mm.expand").in(x).in(makeI64({2}, {1, 1})).out(DType::i32).run1(), DType::i32,
              {3, 1}, {1, 2, 3});
  expectExact(OpRun("mm.expand").in(x).in(makeI64({1}, {0})).out(DType::i32).run1(), DType::i32,
              {3, 0}, {});
  expectError(
      [&] {
        OpRun("mm.expand").in(x).in(makeI64({2}, {4, 1})).out(DType::i32).run1();
      },
      "not broadcastable");
}

TEST(Layout, Transpose) {
  expectExact(OpRun("mm.transpose")
                  .in(x234())
                  .attr("perm", std::vector<int64_t>{2, 0, 1})
                  .out(DType::f32)
                  .run1(),
              DType::f32, {4, 2, 3}, {0, 4, 8,  12, 16, 20, 1, 5, 9,  13, 17, 21,
                                      2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23});
  // A large f16 transpose against index arithmetic ([B, S, H, D] -> [B, H, S, D]).
  Shape s{2, 33, 4, 40};
  Tensor x = makeTensor(DType::f16, s, iota(numElements(s)));
  Tensor y = OpRun("mm.transpose")
                 .in(x)
                 .attr("perm", std::vector<int64_t>{0, 2, 1, 3})
                 .out(DType::f16)
                 .run1();
  std::vector<double> want;
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t h = 0; h < 4; ++h)
      for (int64_t q = 0; q < 33; ++q)
        for (int64_t d = 0; d < 40; ++d)
          want.push_back(toDoubles(makeTensor(
              DType::f16, {1}, {static_cast<double>(((b * 33 + q) * 4 + h) * 40 + d)}))[0]);
  expectExact(y, DType::f16, {2, 4, 33, 40}, want);
  expectError(
      [&] {
        OpRun("mm.transpose")
            .in(x)
            .attr("perm", std::vector<int64_t>{0, 1, 1, 3})
            .out(DType::f16)
            .run1();
      },
      "repeats axis");
}

TEST(Layout, ConcatAndSplit) {
  Tensor a = makeTensor(DType::i64, {2, 2}, {1, 2, 3, 4}),
         b = makeTensor(DType::i64, {2, 1}, {5, 6});
  Tensor e = makeTensor(DType::i64, {2, 0}, {});
  expectExact(OpRun("mm.concat").in(a).in(e).in(b).attr("axis", int64_t(-1)).out(DType::i64).run1(),
              DType::i64, {2, 3}, {1, 2, 5, 3, 4, 6});
  expectExact(OpRun("mm.concat").in(a).in(a).attr("axis", int64_t(0)).out(DType::i64).run1(),
              DType::i64, {4, 2}, {1, 2, 3, 4, 1, 2, 3, 4});
  expectError(
      [&] { OpRun("mm.concat").in(a).in(b).attr("axis", int64_t(0)).out(DType::i64).run1(); },
      "outside axis 0");
  Tensor x = x234();
  std::vector<Tensor> parts = OpRun("mm.split")
                                  .in(x)
                                  .attr("axis", int64_t(2))
                                  .attr("sizes", std::vector<int64_t>{1, 0, 3})
                                  .out(DType::f32)
                                  .out(DType::f32)
                                  .out(DType::f32)
                                  .run();
  ASSERT_EQ(parts.size(), 3u);
  expectExact(parts[0], DType::f32, {2, 3, 1}, {0, 4, 8, 12, 16, 20});
  expectExact(parts[1], DType::f32, {2, 3, 0}, {});
  expectExact(parts[2], DType::f32, {2, 3, 3},
              {1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19, 21, 22, 23});
  expectError(
      [&] {
        OpRun("mm.split")
            .in(x)
            .attr("axis", int64_t(0))
            .attr("sizes", std::vector<int64_t>{1, 2})
            .out(DType::f32)
            .out(DType::f32)
            .run();
      },
      "add up to 3");
}

TEST(Layout, SliceClampsAndStepsBackwards) {
  Tensor x = x234();
  auto slice = [&](std::vector<int64_t> st, std::vector<int64_t> en, std::vector<int64_t> ax,
                   std::vector<int64_t> sp) {
    int64_t n = static_cast<int64_t>(st.size());
    Tensor a = makeI64({n}, st), b = makeI64({n}, en), c = makeI64({n}, ax), d = makeI64({n}, sp);
    return OpRun("mm.slice").in(x).in(a).in(b).in(c).in(d).out(DType::f32).run1();
  };
  const int64_t big = INT64_MAX, small = INT64_MIN;
  // x[:, 1:3, ::2]
  expectExact(slice({1, 0}, {3, big}, {1, 2}, {1, 2}), DType::f32, {2, 2, 2},
              {4, 6, 8, 10, 16, 18, 20, 22});
  // x[:, ::-1, -1:0:-2]
  expectExact(slice({-1, -1}, {small, 0}, {1, -1}, {-1, -2}), DType::f32, {2, 3, 2},
              {11, 9, 7, 5, 3, 1, 23, 21, 19, 17, 15, 13});
  // x[-5:100]: both ends clamped
  expectExact(slice({-5}, {100}, {0}, {1}), DType::f32, {2, 3, 4}, iota(24));
  // x[:, 10:20]: empty
  expectExact(slice({10}, {20}, {1}, {1}), DType::f32, {2, 0, 4}, {});
  // x[..., 3:-100:-1]: a negative step runs to the front
  expectExact(
      slice({3}, {-100}, {2}, {-1}), DType::f32, {2, 3, 4},
      {3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20});
  // i32 index operands work too.
  Tensor a = makeTensor(DType::i32, {1}, {1}), b = makeTensor(DType::i32, {1}, {2}),
         c = makeTensor(DType::i32, {1}, {0});
  expectExact(OpRun("mm.slice").in(x).in(a).in(b).in(c).in(a).out(DType::f32).run1(), DType::f32,
              {1, 3, 4}, iota(12, 12));
  expectError([&] { slice({0}, {1}, {0}, {0}); }, "step 0");
  expectError([&] { slice({0, 0}, {1, 1}, {1, -2}, {1, 1}); }, "repeated");
}

TEST(Layout, TileAndTrilu) {
  Tensor x = makeTensor(DType::u8, {2, 2}, {1, 2, 3, 4});
  expectExact(OpRun("mm.tile").in(x).in(makeI64({2}, {2, 3})).out(DType::u8).run1(), DType::u8,
              {4, 6}, {1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4});
  expectExact(OpRun("mm.tile").in(x).in(makeI64({2}, {0, 1})).out(DType::u8).run1(), DType::u8,
              {0, 2}, {});
  Tensor m = makeF32({3, 4}, iota(12, 1));
  auto trilu = [&](int64_t k, bool upper) {
    return OpRun("mm.trilu")
        .in(m)
        .attr("k", k)
        .attr("upper", int64_t(upper))
        .out(DType::f32)
        .run1();
  };
  expectExact(trilu(1, true), DType::f32, {3, 4}, {0, 2, 3, 4, 0, 0, 7, 8, 0, 0, 0, 12});
  expectExact(trilu(-1, false), DType::f32, {3, 4}, {0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0});
  expectExact(trilu(0, true), DType::f32, {3, 4}, {1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12});
  expectExact(trilu(2, false), DType::f32, {3, 4}, {1, 2, 3, 0, 5, 6, 7, 8, 9, 10, 11, 12});
  expectExact(trilu(-5, true), DType::f32, {3, 4}, iota(12, 1));
  // Batched boolean causal mask: lower triangle of ones.
  Tensor ones = makeTensor(DType::boolean, {2, 2, 2}, std::vector<double>(8, 1));
  expectExact(OpRun("mm.trilu").in(ones).attr("upper", int64_t(0)).out(DType::boolean).run1(),
              DType::boolean, {2, 2, 2}, {1, 0, 1, 1, 1, 0, 1, 1});
}

TEST(Layout, PadModes) {
  Tensor a = makeTensor(DType::i64, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto pad = [&](std::vector<int64_t> pads, int64_t mode, const Tensor *value = nullptr) {
    OpRun r("mm.pad");
    r.in(a).attr("pads", pads).attr("mode", mode).out(DType::i64);
    if (value)
      r.in(*value);
    return r.run1();
  };
  Tensor nine = makeI64({}, {9});
  expectExact(pad({1, 2, 0, 1}, 0, &nine), DType::i64, {3, 6},
              {9, 9, 9, 9, 9, 9, 9, 9, 1, 2, 3, 9, 9, 9, 4, 5, 6, 9});
  expectExact(pad({1, 2, 1, 2}, 1), DType::i64, {4, 7},
              {6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1});
  expectExact(pad({0, 2, 1, 1}, 2), DType::i64, {3, 6},
              {1, 1, 1, 2, 3, 3, 4, 4, 4, 5, 6, 6, 4, 4, 4, 5, 6, 6});
  expectExact(pad({1, 1, 0, 3}, 3), DType::i64, {3, 7},
              {6, 4, 5, 6, 4, 5, 6, 3, 1, 2, 3, 1, 2, 3, 6, 4, 5, 6, 4, 5, 6});
  expectExact(pad({0, 1, 0, -2}, 0), DType::i64, {2, 2}, {0, 1, 0, 4}); // negative pad crops
  expectError([&] { pad({0, 0, -3, 0}, 0); }, "below zero");
  expectError([&] { pad({1, 1}, 0); }, "needs 4");
  Tensor f = makeF32({}, {1});
  expectError([&] { pad({0, 0, 0, 0}, 0, &f); }, "one element of the input's dtype");
}

TEST(Indexing, GatherNegativeIndices) {
  Tensor x = x234();
  expectExact(OpRun("mm.gather")
                  .in(x)
                  .in(makeI64({2, 2}, {0, -1, 2, 1}))
                  .attr("axis", int64_t(1))
                  .out(DType::f32)
                  .run1(),
              DType::f32, {2, 2, 2, 4},
              {0,  1,  2,  3,  8,  9,  10, 11, 8,  9,  10, 11, 4,  5,  6,  7,
               12, 13, 14, 15, 20, 21, 22, 23, 20, 21, 22, 23, 16, 17, 18, 19});
  expectExact(OpRun("mm.gather")
                  .in(x)
                  .in(makeTensor(DType::i32, {2}, {-4, 3}))
                  .attr("axis", int64_t(-1))
                  .out(DType::f32)
                  .run1(),
              DType::f32, {2, 3, 2}, {0, 3, 4, 7, 8, 11, 12, 15, 16, 19, 20, 23});
  expectExact(OpRun("mm.gather").in(x).in(makeI64({}, {1})).out(DType::f32).run1(), DType::f32,
              {3, 4}, iota(12, 12));
  // Embedding lookup shape: [vocab, hidden] with [batch, seq] ids.
  Tensor emb = makeTensor(DType::bf16, {5, 2}, iota(10));
  expectExact(OpRun("mm.gather").in(emb).in(makeI64({1, 3}, {4, 0, 4})).out(DType::bf16).run1(),
              DType::bf16, {1, 3, 2}, {8, 9, 0, 1, 8, 9});
  expectError([&] { OpRun("mm.gather").in(x).in(makeI64({1}, {2})).out(DType::f32).run1(); },
              "index 2 out of range for a dim of size 2");
}

TEST(Indexing, GatherNDBatchDims) {
  // ONNX GatherND examples.
  Tensor data = makeTensor(DType::i32, {2, 2, 2}, iota(8));
  expectExact(
      OpRun("mm.gather_nd").in(data).in(makeI64({2, 2}, {0, 1, 1, 0})).out(DType::i32).run1(),
      DType::i32, {2, 2}, {2, 3, 4, 5});
  expectExact(OpRun("mm.gather_nd")
                  .in(data)
                  .in(makeI64({2, 1}, {1, 0}))
                  .attr("batch_dims", int64_t(1))
                  .out(DType::i32)
                  .run1(),
              DType::i32, {2, 2}, {2, 3, 4, 5});
  expectExact(OpRun("mm.gather_nd")
                  .in(data)
                  .in(makeI64({2, 3}, {0, 0, 1, 1, -1, 0}))
                  .out(DType::i32)
                  .run1(),
              DType::i32, {2}, {1, 6});
  expectExact(OpRun("mm.gather_nd").in(data).in(makeI64({1, 1, 2}, {1, 1})).out(DType::i32).run1(),
              DType::i32, {1, 1, 2}, {6, 7});
  expectError(
      [&] {
        OpRun("mm.gather_nd").in(data).in(makeI64({1, 4}, {0, 0, 0, 0})).out(DType::i32).run1();
      },
      "do not fit");
}

TEST(Generators, RangeCounts) {
  auto range = [](DType t, double a, double b, double d) {
    Tensor s = makeTensor(t, {}, {a}), l = makeTensor(t, {}, {b}), e = makeTensor(t, {}, {d});
    return OpRun("mm.range").in(s).in(l).in(e).out(t).run1();
  };
  expectExact(range(DType::i64, 0, 5, 1), DType::i64, {5}, {0, 1, 2, 3, 4});
  expectExact(range(DType::i32, 10, 4, -3), DType::i32, {2}, {10, 7});
  expectExact(range(DType::i64, 1, 8, 3), DType::i64, {3}, {1, 4, 7});
  expectExact(range(DType::i64, 5, 1, 1), DType::i64, {0}, {});
  expectExact(range(DType::f32, 1, 2, 0.25), DType::f32, {4}, {1, 1.25, 1.5, 1.75});
  // ONNX's reference (np.arange on the f32 values, then astype): start + i * delta in f64,
  // rounded once: 3 * 0.3f = 0.90000003576 -> f32 0.90000004.
  expectExact(range(DType::f32, 0, 1, 0.3), DType::f32, {4},
              {0, 0.30000001192092896, 0.6000000238418579, 0.90000003576278687});
  Tensor big = makeI64({}, {INT64_MIN}), top = makeI64({}, {INT64_MAX}),
         step = makeI64({}, {INT64_MAX});
  expectExact(OpRun("mm.range").in(big).in(top).in(step).out(DType::i64).run1(), DType::i64, {3},
              {-9223372036854775808.0, -1, 9223372036854775806.0});
  expectError([&] { range(DType::i64, 0, 5, 0); }, "delta is 0");
}

TEST(Generators, ConstantOfShapeValueAttr) {
  Tensor shape = makeI64({2}, {2, 3});
  // Value stored as a one-element tensor attribute, in the result dtype or converted to it.
  expectExact(OpRun("mm.constant_of_shape")
                  .in(shape)
                  .attr("value", makeI64({1}, {7}))
                  .out(DType::i64)
                  .run1(),
              DType::i64, {2, 3}, std::vector<double>(6, 7));
  expectExact(OpRun("mm.constant_of_shape")
                  .in(shape)
                  .attr("value", makeF32({1}, {0.5}))
                  .out(DType::f16)
                  .run1(),
              DType::f16, {2, 3}, std::vector<double>(6, 0.5));
  Tensor big = makeI64({1}, {(int64_t(1) << 60) + 1}); // exact, not through double
  Tensor y =
      OpRun("mm.constant_of_shape").in(makeI64({1}, {2})).attr("value", big).out(DType::i64).run1();
  EXPECT_EQ(y.as<int64_t>()[1], (int64_t(1) << 60) + 1);
  expectExact(OpRun("mm.constant_of_shape").in(shape).out(DType::f32).run1(), DType::f32, {2, 3},
              std::vector<double>(6, 0));
  expectExact(OpRun("mm.constant_of_shape")
                  .in(makeI64({0}, {}))
                  .attr("value", makeTensor(DType::boolean, {1}, {1}))
                  .out(DType::boolean)
                  .run1(),
              DType::boolean, {}, {1});
  expectError([&] { OpRun("mm.constant_of_shape").in(makeI64({1}, {-2})).out(DType::f32).run1(); },
              "invalid dim -2");
}

TEST(Generators, ConstantCopiesItsValue) {
  Tensor v = makeTensor(DType::i32, {2, 2}, {1, -2, 3, -4});
  expectExact(OpRun("mm.constant").attr("value", v).out(DType::i32).run1(), DType::i32, {2, 2},
              {1, -2, 3, -4});
  expectError([&] { OpRun("mm.constant").attr("value", v).out(DType::f32).run1(); },
              "declared f32");
}

} // namespace
