//===- MatMulTest.cpp - matmul, linear, conv against naive loops -------------===//
#include "KernelTestUtil.h"

#include <cmath>

using namespace mm::rt;
using namespace mm::rt::cpu::test;

namespace {

/// numpy.matmul written out: rank-1 promotion, broadcast batch dims, double accumulation.
std::vector<double> naiveMatMul(Shape a, const std::vector<double> &av, Shape b,
                                const std::vector<double> &bv, Shape &outShape) {
  bool aVec = a.size() == 1, bVec = b.size() == 1;
  if (aVec)
    a.insert(a.begin(), 1);
  if (bVec)
    b.push_back(1);
  int64_t M = a[a.size() - 2], K = a.back(), N = b.back();
  Shape ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  size_t r = std::max(ab.size(), bb.size());
  ab.insert(ab.begin(), r - ab.size(), 1);
  bb.insert(bb.begin(), r - bb.size(), 1);
  Shape batch(r);
  for (size_t i = 0; i < r; ++i)
    batch[i] = ab[i] == 1 ? bb[i] : ab[i];
  outShape = batch;
  if (!aVec)
    outShape.push_back(M);
  if (!bVec)
    outShape.push_back(N);
  std::vector<double> out;
  std::vector<int64_t> idx(r, 0);
  for (int64_t bi = 0; bi < numElements(batch); ++bi) {
    int64_t ao = 0, bo = 0;
    for (size_t d = 0; d < r; ++d) {
      ao = ao * ab[d] + (ab[d] == 1 ? 0 : idx[d]);
      bo = bo * bb[d] + (bb[d] == 1 ? 0 : idx[d]);
    }
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc += av[ao * M * K + m * K + k] * bv[bo * K * N + k * N + n];
        out.push_back(acc);
      }
    for (size_t d = r; d-- > 0;)
      if (++idx[d] < batch[d])
        break;
      else
        idx[d] = 0;
  }
  return out;
}

// f32 GEMM of K <= 300 products of values in [-1, 1]: the accumulated rounding error is
// below K * 2^-24 * sum|a b| <~ 2e-5 * K / 300 absolute; 1e-5 relative + 2e-5 absolute
// covers it with the blocked summation order OpenBLAS uses.
constexpr double kGemmRtol = 1e-5, kGemmAtol = 2e-5;

TEST(MatMul, BroadcastsBatchesLikeNumpy) {
  struct Case {
    Shape a, b;
  };
  std::vector<Case> cases = {
      {{3, 4}, {4, 5}},             // plain 2-D
      {{2, 3, 4}, {4, 5}},          // batched lhs, shared rhs (folded into one GEMM)
      {{4}, {4, 5}},                // vector lhs
      {{2, 3, 4}, {4}},             // vector rhs
      {{4}, {4}},                   // dot product -> scalar
      {{2, 1, 3, 4}, {5, 4, 2}},    // both batches broadcast
      {{1, 3, 4}, {6, 4, 5}},       // lhs batch broadcast against rhs
      {{2, 3, 0}, {0, 5}},          // K = 0: zeros
      {{0, 4}, {4, 5}},             // M = 0
      {{2, 64, 300}, {2, 300, 70}}, // large enough for OpenBLAS's own blocking
  };
  unsigned seed = 1;
  for (const Case &c : cases) {
    Tensor a = randomTensor(DType::f32, c.a, seed++), b = randomTensor(DType::f32, c.b, seed++);
    Shape outShape;
    std::vector<double> want = naiveMatMul(c.a, toDoubles(a), c.b, toDoubles(b), outShape);
    Tensor y = OpRun("mm.matmul").in(a).in(b).out(DType::f32).run1();
    expectClose(y, outShape, want, kGemmRtol, kGemmAtol,
                shapeString(c.a) + " x " + shapeString(c.b));
    Tensor ad = makeTensor(DType::f64, c.a, toDoubles(a)),
           bd = makeTensor(DType::f64, c.b, toDoubles(b));
    // f64: only the summation order differs from the reference.
    expectClose(OpRun("mm.matmul").in(ad).in(bd).out(DType::f64).run1(), outShape, want, 1e-12,
                1e-12, "f64 " + shapeString(c.a));
  }
}

TEST(MatMul, HandComputed) {
  Tensor a = makeF32({2, 2}, {1, 2, 3, 4}), b = makeF32({2, 2}, {5, 6, 7, 8});
  expectExact(OpRun("mm.matmul").in(a).in(b).out(DType::f32).run1(), DType::f32, {2, 2},
              {19, 22, 43, 50});
}

TEST(MatMul, IntegersAndHalf) {
  Tensor a = makeTensor(DType::i64, {2, 2, 3}, {1, 2, 3, 4, 5, 6, -1, -2, -3, 7, 8, 9});
  Tensor b = makeTensor(DType::i64, {3, 2}, {1, 0, 0, 1, 2, -1});
  expectExact(OpRun("mm.matmul").in(a).in(b).out(DType::i64).run1(), DType::i64, {2, 2, 2},
              {7, -1, 16, -1, -7, 1, 25, -1});
  Tensor ai = makeTensor(DType::i32, {1, 2}, {3, -4}), bi = makeTensor(DType::i32, {2}, {5, 6});
  expectExact(OpRun("mm.matmul").in(ai).in(bi).out(DType::i32).run1(), DType::i32, {1}, {-9});
  for (DType t : {DType::f16, DType::bf16}) {
    Tensor x = randomTensor(t, {3, 8}, 5), w = randomTensor(t, {8, 4}, 6);
    Shape outShape;
    std::vector<double> want = naiveMatMul({3, 8}, toDoubles(x), {8, 4}, toDoubles(w), outShape);
    Tensor y = OpRun("mm.matmul").in(x).in(w).out(t).run1();
    ASSERT_EQ(y.dtype, t);
    // f32 accumulation, then one rounding to the 16-bit type: half an ulp (2^-11 for f16,
    // 2^-8 for bf16) relative.
    double rtol = t == DType::f16 ? 4.9e-4 : 3.9e-3;
    expectClose(y, outShape, want, rtol, 1e-6, dtypeName(t).data());
  }
}

TEST(MatMul, HalfWeightsStagedInBlocks) {
  // 16-bit rhs matrices are converted to f32 in blocks of 256 rows x 512 columns: shapes
  // with several (partial) blocks in both directions, a vector lhs (gemv path) and a
  // batched lhs folded into M. Reference: f64 products of the rounded inputs; the result
  // is rounded once to the 16-bit type (2^-8 / 2^-11 relative), and f32 accumulation of
  // <= 600 terms adds < 1e-4 absolute.
  struct Case {
    const char *op;
    Shape x, w;
  };
  std::vector<Case> cases = {{"mm.linear", {3, 600}, {600, 1100}},
                             {"mm.linear", {1, 1, 300}, {300, 530}},
                             {"mm.matmul", {2, 3, 257}, {257, 513}}};
  unsigned seed = 60;
  for (DType t : {DType::bf16, DType::f16})
    for (const Case &c : cases) {
      Tensor x = randomTensor(t, c.x, seed++), w = randomTensor(t, c.w, seed++);
      Shape outShape;
      std::vector<double> want = naiveMatMul(c.x, toDoubles(x), c.w, toDoubles(w), outShape);
      Tensor y = OpRun(c.op).in(x).in(w).out(t).run1();
      expectClose(y, outShape, want, t == DType::bf16 ? 3.91e-3 : 4.9e-4, 1e-4,
                  std::string(c.op) + " " + std::string(dtypeName(t)) + " " + shapeString(c.w));
    }
}

TEST(MatMul, Errors) {
  Tensor a = makeF32({2, 3}, randomValues(6)), b = makeF32({4, 2}, randomValues(8));
  expectError([&] { OpRun("mm.matmul").in(a).in(b).out(DType::f32).run1(); },
              "contraction dims differ");
  Tensor c = makeF32({2, 3, 4}, randomValues(24)), d = makeF32({3, 4, 5}, randomValues(60));
  expectError([&] { OpRun("mm.matmul").in(c).in(d).out(DType::f32).run1(); }, "not broadcastable");
  Tensor bo = makeTensor(DType::boolean, {2, 2}, {1, 0, 0, 1});
  expectError([&] { OpRun("mm.matmul").in(bo).in(bo).out(DType::boolean).run1(); },
              "unsupported input dtype bool");
}

double activate(int64_t act, double x) {
  switch (act) {
  case 1:
    return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  case 2:
    return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  case 3:
    return x / (1 + std::exp(-1.702 * x));
  case 4:
    return x / (1 + std::exp(-x));
  case 5:
    return x > 0 ? x : 0;
  default:
    return x;
  }
}

TEST(Linear, BiasAndEveryActivation) {
  Tensor x = randomTensor(DType::f32, {2, 3, 40}, 21, -2, 2),
         w = randomTensor(DType::f32, {40, 24}, 22);
  Tensor bias = randomTensor(DType::f32, {24}, 23);
  Shape s;
  std::vector<double> xw = naiveMatMul({2, 3, 40}, toDoubles(x), {40, 24}, toDoubles(w), s);
  for (int64_t act = 0; act <= 5; ++act)
    for (bool withBias : {false, true}) {
      OpRun run("mm.linear");
      run.in(x).in(w).attr("activation", act).out(DType::f32);
      if (withBias)
        run.in(bias);
      std::vector<double> want(xw.size());
      for (size_t i = 0; i < xw.size(); ++i)
        want[i] = activate(act, xw[i] + (withBias ? getElement(bias, i % 24) : 0));
      expectClose(run.run1(), {2, 3, 24}, want, kGemmRtol, kGemmAtol * 4,
                  "activation " + std::to_string(act) + (withBias ? " with bias" : ""));
    }
}

TEST(Linear, EdgeShapesAndErrors) {
  // K = 0: the product is zero, so the result is activation(bias).
  Tensor x = makeF32({3, 0}, {}), w = makeF32({0, 2}, {}), b = makeF32({2}, {-1, 2});
  expectExact(
      OpRun("mm.linear").in(x).in(w).in(b).attr("activation", int64_t(5)).out(DType::f32).run1(),
      DType::f32, {3, 2}, {0, 2, 0, 2, 0, 2});
  Tensor v = makeF32({4}, {1, 2, 3, 4}), m = makeF32({4, 1}, {1, 1, 1, 1});
  expectExact(OpRun("mm.linear").in(v).in(m).out(DType::f32).run1(), DType::f32, {1}, {10});
  expectError([&] { OpRun("mm.linear").in(v).in(w).out(DType::f32).run1(); }, "do not match");
  expectError(
      [&] { OpRun("mm.linear").in(v).in(m).attr("activation", int64_t(9)).out(DType::f32).run1(); },
      "unknown activation 9");
  Tensor xb = randomTensor(DType::bf16, {2, 16}, 3), wb = randomTensor(DType::bf16, {16, 8}, 4);
  Shape s;
  std::vector<double> want = naiveMatMul({2, 16}, toDoubles(xb), {16, 8}, toDoubles(wb), s);
  for (double &d : want)
    d = activate(4, d);
  expectClose(
      OpRun("mm.linear").in(xb).in(wb).attr("activation", int64_t(4)).out(DType::bf16).run1(),
      {2, 8}, want, 3.9e-3, 1e-6, "bf16 silu"); // one bf16 rounding
}

/// Direct convolution from the ONNX definition.
std::vector<double> naiveConv(const Tensor &x, const Tensor &w, const Tensor *b,
                              std::vector<int64_t> st, std::vector<int64_t> pads,
                              std::vector<int64_t> dil, int64_t group, Shape &outShape) {
  int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  int64_t M = w.shape[0], cg = w.shape[1], kH = w.shape[2], kW = w.shape[3];
  int64_t OH = (H + pads[0] + pads[2] - dil[0] * (kH - 1) - 1) / st[0] + 1;
  int64_t OW = (W + pads[1] + pads[3] - dil[1] * (kW - 1) - 1) / st[1] + 1;
  outShape = {N, M, OH, OW};
  std::vector<double> xv = toDoubles(x), wv = toDoubles(w), out;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double acc = b ? getElement(*b, m) : 0;
          int64_t g = m / (M / group);
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t i = 0; i < kH; ++i)
              for (int64_t j = 0; j < kW; ++j) {
                int64_t h = oh * st[0] - pads[0] + i * dil[0],
                        ww = ow * st[1] - pads[1] + j * dil[1];
                if (h < 0 || h >= H || ww < 0 || ww >= W)
                  continue;
                acc += xv[((n * C + g * cg + c) * H + h) * W + ww] *
                       wv[((m * cg + c) * kH + i) * kW + j];
              }
          out.push_back(acc);
        }
  (void)C;
  return out;
}

TEST(Conv, PadsStridesDilationsGroups) {
  struct Case {
    Shape x, w;
    std::vector<int64_t> strides, pads, dil;
    int64_t group;
    bool bias;
  };
  std::vector<Case> cases = {
      {{1, 3, 8, 8}, {4, 3, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1, true},   // same padding
      {{2, 3, 16, 16}, {8, 3, 4, 4}, {4, 4}, {0, 0, 0, 0}, {1, 1}, 1, true}, // ViT patchify
      {{1, 4, 9, 7}, {6, 2, 3, 2}, {2, 1}, {0, 1, 2, 0}, {2, 1}, 2, false},  // asymmetric, groups
      {{1, 4, 5, 5}, {4, 1, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 4, true},   // depthwise
      {{1, 2, 6, 6}, {3, 2, 1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1, false},  // 1x1 direct GEMM
  };
  unsigned seed = 100;
  for (const Case &c : cases) {
    Tensor x = randomTensor(DType::f32, c.x, seed++), w = randomTensor(DType::f32, c.w, seed++);
    Tensor b = randomTensor(DType::f32, {c.w[0]}, seed++);
    OpRun run("mm.conv");
    run.in(x)
        .in(w)
        .attr("strides", c.strides)
        .attr("pads", c.pads)
        .attr("dilations", c.dil)
        .attr("group", c.group)
        .out(DType::f32);
    if (c.bias)
      run.in(b);
    Shape outShape;
    std::vector<double> want =
        naiveConv(x, w, c.bias ? &b : nullptr, c.strides, c.pads, c.dil, c.group, outShape);
    expectClose(run.run1(), outShape, want, kGemmRtol, kGemmAtol,
                shapeString(c.x) + " * " + shapeString(c.w));
  }
}

TEST(Conv, HandComputedAndErrors) {
  // 3x3 input of ones, 2x2 kernel of ones, pad 1 all round: corner sums 1, edges 2, inside 4.
  Tensor x = makeF32({1, 1, 3, 3}, std::vector<double>(9, 1.0)),
         w = makeF32({1, 1, 2, 2}, {1, 1, 1, 1});
  Tensor y = OpRun("mm.conv")
                 .in(x)
                 .in(w)
                 .attr("strides", std::vector<int64_t>{1, 1})
                 .attr("pads", std::vector<int64_t>{1, 1, 1, 1})
                 .attr("dilations", std::vector<int64_t>{1, 1})
                 .out(DType::f32)
                 .run1();
  expectExact(y, DType::f32, {1, 1, 4, 4}, {1, 2, 2, 1, 2, 4, 4, 2, 2, 4, 4, 2, 1, 2, 2, 1});
  Tensor w3 = makeF32({1, 2, 2, 2}, std::vector<double>(8, 1.0));
  expectError([&] { OpRun("mm.conv").in(x).in(w3).out(DType::f32).run1(); }, "inconsistent");
  Tensor big = makeF32({1, 1, 5, 5}, std::vector<double>(25, 1.0));
  expectError([&] { OpRun("mm.conv").in(x).in(big).out(DType::f32).run1(); },
              "larger than the padded input");
}

} // namespace
