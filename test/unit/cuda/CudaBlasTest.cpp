//===- CudaBlasTest.cpp - GEMM (cuBLASLt) and GEMV against a double reference -===//
//
// Tolerances. Inputs are rounded to the element type before the reference sees them,
// so the only differences are (a) the f32 accumulation order over K terms and (b) the
// one rounding of the output (and f32 activation functions). (a) is bounded here by
// 2e-6 * sum_k |x_k w_kn| (about 30 f32 unit roundoffs of the magnitude sum: K <= 5632,
// error grows like sqrt(K) in practice); (b) by 2 unit roundoffs of the element type
// relative to the output (bf16 2^-7, f16 2^-10, f32 2^-23), plus 3e-4 |pre-activation|
// for the tanh-GELU epilogue of cuBLASLt (it may use the hardware tanh approximation,
// relative error ~2^-11, and GELU's error is at most |x|/2 times tanh's), plus, for the
// activations cuBLASLt cannot fuse, the activation's change over one rounding of the
// pre-activation (the GEMM writes it in the element type first, as PyTorch does).
//
//===----------------------------------------------------------------------===//
#include "CudaTestUtil.h"

#include "runtime/cuda/Blas.h"
#include "runtime/cuda/Kernels.h"

#include <algorithm>
#include <cmath>

namespace mm::rt::cuda::test {
namespace {

const char *actName(Activation a) {
  static const char *names[] = {"none", "gelu", "gelu_tanh", "quick_gelu", "silu", "relu"};
  return names[int(a)];
}

struct LinearCase {
  int64_t m, n, k;
};

/// Runs one linear layer on the device and checks it against the double reference.
void checkLinear(Blas &blas, cudaStream_t stream, DType dtype, LinearCase c, bool withBias,
                 Activation act, Blas::Path path, std::mt19937 &gen) {
  const HostArray x = randomArray(dtype, c.m * c.k, gen);
  const HostArray w = randomArray(dtype, c.k * c.n, gen);
  const HostArray bias = randomArray(dtype, c.n, gen);
  DeviceBuffer dx = upload(x), dw = upload(w), db = upload(bias);
  DeviceBuffer dy = poisoned(dtype, c.m * c.n);
  Blas::LinearArgs a;
  a.dtype = dtype;
  a.x = dx.get();
  a.w = dw.get();
  a.bias = withBias ? db.get() : nullptr;
  a.y = dy.get();
  a.m = c.m;
  a.n = c.n;
  a.k = c.k;
  a.act = act;
  a.path = path;
  a.constantWeight = true; // uploaded above; the GEMV may load it before waiting
  blas.linear(stream, a);
  const std::vector<double> got = download(dy, dtype, c.m * c.n);

  // cuBLASLt fuses bias, tanh-GELU and ReLU; the other activations run after the GEMM.
  const bool unfusedOnGemm = act == Activation::gelu || act == Activation::quickGelu ||
                             act == Activation::silu;
  std::vector<double> want(c.m * c.n), atol(c.m * c.n);
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double s = withBias ? bias.values[j] : 0.0, mag = std::fabs(s);
      for (int64_t kk = 0; kk < c.k; ++kk) {
        const double t = x.values[i * c.k + kk] * w.values[kk * c.n + j];
        s += t;
        mag += std::fabs(t);
      }
      want[i * c.n + j] = referenceActivation(s, act);
      double extra = act == Activation::geluTanh ? 3e-4 * std::fabs(s) : 0.0;
      if (unfusedOnGemm && path != Blas::Path::gemv) {
        // The GEMM's output is rounded to the element type before the activation runs (as
        // in PyTorch): allow the activation's change over one rounding of s.
        const double d = unitRoundoff(dtype) * std::fabs(s);
        extra += std::max(std::fabs(referenceActivation(s + d, act) - want[i * c.n + j]),
                          std::fabs(referenceActivation(s - d, act) - want[i * c.n + j]));
      }
      atol[i * c.n + j] = 2e-6 * mag + extra + 1e-30;
    }
  const double rtol = 2.0 * unitRoundoff(dtype);
  expectNear(got, want, rtol, atol,
             std::string("linear ") + dtypeLabel(dtype) + " [" + std::to_string(c.m) + "x" +
                 std::to_string(c.k) + "]x[" + std::to_string(c.k) + "x" + std::to_string(c.n) +
                 "] bias=" + (withBias ? "yes" : "no") + " act=" + actName(act) + " path=" +
                 (path == Blas::Path::gemv ? "gemv" : path == Blas::Path::cublasLt ? "cublasLt"
                                                                                  : "auto"));
}

class CudaBlasTest : public CudaTest {};

TEST_F(CudaBlasTest, LinearMatchesReferenceForEveryDtypeEpilogueAndPath) {
  Blas blas;
  std::mt19937 gen(1);
  const LinearCase cases[] = {
      {1, 2048, 2048}, // decode q/o projection: GEMV splits K over blocks
      {1, 264, 1000},  // N not a multiple of 64, K not a multiple of 128
      {1, 5632, 64},   // short K: no split
      {1, 40, 5632},   // long K, few columns: 22 splits reduced through scratch
      {1, 11264, 2048}, // fused gate+up: 3 splits reduced through scratch
      {1, 8448, 2048},  // 4 splits of 2 rounds of loads, 528 blocks: through scratch
      {1, 2048, 5632},  // decode down projection: 11 splits, a non-portable cluster
      {1, 4096, 11008}, // the 7B's down projection: 11 splits, the last shorter, through scratch
      {5, 96, 40},     // small GEMM
      {33, 256, 512},  // prefill-like GEMM
  };
  const std::pair<bool, Activation> epilogues[] = {
      {false, Activation::none}, {true, Activation::none},      {true, Activation::geluTanh},
      {true, Activation::gelu},  {false, Activation::quickGelu}, {true, Activation::silu},
      {true, Activation::relu},  {false, Activation::geluTanh}};
  for (DType dtype : kAllTypes)
    for (const LinearCase &c : cases)
      for (auto [bias, act] : epilogues) {
        checkLinear(blas, stream, dtype, c, bias, act, Blas::Path::cublasLt, gen);
        if (c.m == 1)
          checkLinear(blas, stream, dtype, c, bias, act, Blas::Path::gemv, gen);
      }
}

TEST_F(CudaBlasTest, AutomaticPathPicksGemvForNarrowOneRowProducts) {
  Blas blas;
  std::mt19937 gen(2);
  for (DType dtype : kAllTypes)
    for (int64_t n : {int64_t(512), int64_t(8016)})
      checkLinear(blas, stream, dtype, {1, n, 2048}, true, Activation::none,
                  Blas::Path::automatic, gen);
  DeviceBuffer w(2048 * 2048 * 2), x(4096), y(4096);
  Blas::LinearArgs a = oneRowLinear(DType::bf16, x.get(), w.get(), y.get(), 2048, 2048);
  // With programmatic dependent launch (the default) the GEMV takes every one-row product;
  // without, cuBLASLt is as fast from N = 2048 up.
  EXPECT_EQ(blas.choosePath(a), Blas::Path::gemv);
  setProgrammaticDependentLaunch(false);
  EXPECT_EQ(blas.choosePath(a), Blas::Path::cublasLt);
  a.n = 256;
  EXPECT_EQ(blas.choosePath(a), Blas::Path::gemv); // the GEMV is faster for narrow N
  setProgrammaticDependentLaunch(true);
  a.m = 2;
  EXPECT_EQ(blas.choosePath(a), Blas::Path::cublasLt);
  a.m = 1;
  a.n = 252; // not a multiple of 8
  EXPECT_EQ(blas.choosePath(a), Blas::Path::cublasLt);
}

TEST_F(CudaBlasTest, RepeatedSplitGemvLaunchesStayCorrect) {
  // The split-K GEMV's last block resets its counter; a stale counter would make a
  // later launch reduce too early. Three launches with fresh inputs on one object.
  Blas blas;
  std::mt19937 gen(3);
  for (int i = 0; i < 3; ++i)
    checkLinear(blas, stream, DType::bf16, {1, 1024, 4096}, false, Activation::none,
                Blas::Path::gemv, gen);
}

TEST_F(CudaBlasTest, GemvBeyondClusterSplitsReducesThroughScratch) {
  // K > 8 * 8192: more than 8 splits of K, reduced through the global scratch.
  Blas blas;
  std::mt19937 gen(6);
  for (DType dtype : {DType::f32, DType::bf16})
    checkLinear(blas, stream, dtype, {1, 64, 70000}, true, Activation::none, Blas::Path::gemv,
                gen);
}

TEST_F(CudaBlasTest, GemvTakesSwigluInput) {
  // y = W^T round(act(g) * u): the fused input must equal the swiglu kernel's output
  // (rounded to the element type) fed to the unfused GEMV; same tolerance as checkLinear.
  // act: SiLU (SwiGLU), and the erf and tanh GELUs (GeGLU).
  Blas blas;
  std::mt19937 gen(7);
  const LinearCase cases[] = {{1, 2048, 5632}, {1, 40, 2048}};
  auto gate = [](Activation act, double x) {
    if (act == Activation::silu)
      return x / (1.0 + std::exp(-x));
    if (act == Activation::gelu)
      return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  };
  for (Activation act : {Activation::silu, Activation::gelu, Activation::geluTanh})
  for (DType dtype : kAllTypes)
    for (const LinearCase &c : cases) {
      const HostArray g = randomArray(dtype, c.k, gen, -4.0, 4.0), u = randomArray(dtype, c.k, gen);
      const HostArray w = randomArray(dtype, c.k * c.n, gen);
      DeviceBuffer dg = upload(g), du = upload(u), dw = upload(w);
      DeviceBuffer dy = poisoned(dtype, c.n);
      Blas::LinearArgs a = oneRowLinear(dtype, dg.get(), dw.get(), dy.get(), c.k, c.n);
      a.input.up = du.get();
      a.input.gate = act;
      ASSERT_TRUE(blas.gemvTakesInput(a));
      blas.linear(stream, a);
      std::vector<double> h(c.k);
      for (int64_t kk = 0; kk < c.k; ++kk) {
        const double gv = g.values[kk];
        h[kk] = roundTo(dtype, float(float(gate(act, gv)) * u.values[kk]));
      }
      std::vector<double> want(c.n), atol(c.n);
      for (int64_t j = 0; j < c.n; ++j) {
        double s = 0, mag = 0;
        for (int64_t kk = 0; kk < c.k; ++kk) {
          s += h[kk] * w.values[kk * c.n + j];
          mag += std::fabs(h[kk] * w.values[kk * c.n + j]);
        }
        want[j] = s;
        // 2e-6 * mag as in checkLinear, plus one rounding of each h (the device's sigmoid,
        // erf or tanh may round differently from this double reference)
        double hmag = 0;
        for (int64_t kk = 0; kk < c.k; ++kk)
          hmag += unitRoundoff(dtype) * std::fabs(h[kk] * w.values[kk * c.n + j]);
        atol[j] = 2e-6 * mag + hmag + 1e-30;
      }
      expectNear(download(dy, dtype, c.n), want, 2.0 * unitRoundoff(dtype), atol,
                 std::string("gemv with gated input (activation ") + std::to_string(static_cast<int>(act)) +
                     ") " + dtypeLabel(dtype) + " n " +
                     std::to_string(c.n) + " k " + std::to_string(c.k));
      a.m = 2; // not a one-row product: refused
      EXPECT_FALSE(blas.gemvTakesInput(a));
      EXPECT_THROW(blas.linear(stream, a), Error);
    }
}

TEST_F(CudaBlasTest, GemvTakesRmsNormInput) {
  // The fused input must be bit-identical to rmsNorm's output fed to the plain GEMV: both
  // runs on the device, compared exactly; sumOut must equal rmsNorm's sum.
  Blas blas;
  std::mt19937 gen(9);
  const LinearCase cases[] = {{1, 2560, 2048}, {1, 2048, 5632}, {1, 64, 70000}};
  for (DType dtype : kAllTypes)
    for (const LinearCase &c : cases)
      for (bool withResidual : {false, true})
        for (DType scaleType : {dtype, DType::f32}) {
          const HostArray x = randomArray(dtype, c.k, gen, -3.0, 3.0);
          const HostArray r = randomArray(dtype, c.k, gen, -3.0, 3.0);
          const HostArray g = randomArray(scaleType, c.k, gen, 0.5, 1.5);
          const HostArray w = randomArray(dtype, c.k * c.n, gen);
          DeviceBuffer dx = upload(x), dr = upload(r), dg = upload(g), dw = upload(w);
          DeviceBuffer normed = poisoned(dtype, c.k), sum1 = poisoned(dtype, c.k),
                       sum2 = poisoned(dtype, c.k), y1 = poisoned(dtype, c.n),
                       y2 = poisoned(dtype, c.n);
          const void *res = withResidual ? dr.get() : nullptr;
          rmsNorm(stream, dtype, dx.get(), res, withResidual ? sum1.get() : nullptr, dg.get(),
                  scaleType, normed.get(), 1, c.k, 1e-5f, 0.0f);
          Blas::LinearArgs a = oneRowLinear(dtype, normed.get(), dw.get(), y1.get(), c.k, c.n);
          a.path = Blas::Path::gemv; // constantWeight stays false: the GEMV waits, then loads
          blas.linear(stream, a);
          a.x = dx.get();
          a.y = y2.get();
          a.input.rmsNorm = true;
          a.input.residual = res;
          a.input.scale = dg.get();
          a.input.scaleF32 = scaleType == DType::f32;
          a.input.eps = 1e-5f;
          a.input.sumOut = withResidual ? sum2.get() : nullptr;
          ASSERT_TRUE(blas.gemvTakesInput(a));
          blas.linear(stream, a);
          const std::string what = std::string("gemv with rmsNorm input ") + dtypeLabel(dtype) +
                                   " n " + std::to_string(c.n) + " k " + std::to_string(c.k) +
                                   (withResidual ? " +residual" : "") + " scale " +
                                   dtypeLabel(scaleType);
          EXPECT_EQ(download(y2, dtype, c.n), download(y1, dtype, c.n)) << what;
          if (withResidual) {
            EXPECT_EQ(download(sum2, dtype, c.k), download(sum1, dtype, c.k)) << what;
          }
        }
  DeviceBuffer buf(1 << 16);
  Blas::LinearArgs bad = oneRowLinear(DType::bf16, buf.get(), buf.get(), buf.get(),
                                      100 /* not a multiple of 8 */, 64);
  bad.input.rmsNorm = true;
  bad.input.scale = buf.get();
  EXPECT_FALSE(blas.gemvTakesInput(bad));
  EXPECT_THROW(blas.linear(stream, bad), Error);
}

// The GEMV planner needs no GPU: the H200's 132 SMs and Blas's 4M-float scratch.
TEST(GemvPlanTest, UpToAWaveOfBlocksAndChunksOfAtMostFourRounds) {
  const size_t scratch = size_t(4) << 20;
  struct Want {
    int64_t n, k;
    int splits, chunk;
    bool cluster;
  };
  const Want wants[] = {
      // LLaVA-7B: as many splits as fit 4 x 132 = 528 blocks, more where chunks would be
      // longer than 1024 rows.
      {12288, 4096, 4, 1024, false}, // qkv: 192 tiles, 768 blocks
      {4096, 4096, 8, 512, false},   // o_proj: 64 tiles, 512 blocks
      {22016, 4096, 4, 1024, false}, // gate+up: 344 tiles
      {4096, 11008, 11, 1024, false}, // down: the last chunk 768 rows
      {32064, 4096, 4, 1024, false}, // lm_head: 501 tiles
      // llava-1b: short chunks are whole 256-row rounds, clusters in sparse grids.
      {2560, 2048, 8, 256, true},   // qkv: 40 tiles, 320 blocks
      {2048, 2048, 8, 256, true},   // o_proj
      {11264, 2048, 3, 768, false}, // gate+up: 176 tiles
      {2048, 5632, 11, 512, true},  // down: 352 blocks
      {40, 5632, 22, 256, false},   // one tile: 22 splits, beyond a cluster
      {64, 70000, 274, 256, false}, // one tile, long K: a split per round
  };
  for (const Want &w : wants) {
    const GemvPlan p = planGemv(w.n, w.k, scratch, 132);
    EXPECT_EQ(p.tiles, (w.n + 63) / 64) << w.n << " x " << w.k;
    EXPECT_EQ(p.splits, w.splits) << w.n << " x " << w.k;
    EXPECT_EQ(p.chunk, w.chunk) << w.n << " x " << w.k;
    EXPECT_EQ(p.cluster, w.cluster) << w.n << " x " << w.k;
    EXPECT_LE(int64_t(p.splits) * p.chunk - w.k, p.chunk - 1) << "a split with no rows";
  }
  // A scratch too small for the 22 splits: at most as many as fit (10 x 64 floats), which
  // then need no scratch (a cluster of 8).
  const GemvPlan small = planGemv(64, 5632, 10 * 64, 132);
  EXPECT_EQ(small.splits, 8);
  EXPECT_EQ(small.chunk, 768);
  EXPECT_TRUE(small.cluster);
  // No scratch at all: the fewest splits (ceil(K / 8192) = 9), in a cluster.
  const GemvPlan none = planGemv(8, 70000, 0, 132);
  EXPECT_EQ(none.splits, 9);
  EXPECT_TRUE(none.cluster);
  // A long K over one tile stays within CUDA's 65535 blocks along grid.y.
  const GemvPlan tall = planGemv(8, 67108865, scratch, 132);
  EXPECT_LE(tall.splits, 65535);
  EXPECT_EQ(int64_t(tall.splits), (67108865 + tall.chunk - 1) / tall.chunk);
  EXPECT_LE(gemvPlanWithSplits(8, 70000, 2147483647, 1, false).splits, 65535);
  EXPECT_THROW(planGemv(0, 4096, scratch, 132), Error);
  EXPECT_THROW(planGemv(4096, 0, scratch, 132), Error);
  EXPECT_THROW(planGemv(8, int64_t(65535) * 8192 + 1, scratch, 132), Error);
  EXPECT_THROW(gemvPlanWithSplits(4096, 4096, 2, 32, true), Error); // a cluster of 2
  EXPECT_THROW(gemvPlanWithSplits(0, 4096, 2, 32, false), Error);
}

TEST_F(CudaBlasTest, GemvFollowsAGivenPlan) {
  // Plans other than planGemv's (uneven last chunks, a 16-block cluster, scratch with 32-
  // row chunks) give the same products; a plan that does not cover the shape, a cluster
  // of 2, a chunk over 8192 rows or more splits than the scratch holds are refused.
  std::mt19937 gen(9);
  const int64_t n = 1024, k = 4000;
  const HostArray x = randomArray(DType::bf16, k, gen), w = randomArray(DType::bf16, k * n, gen);
  DeviceBuffer dx = upload(x), dw = upload(w), dy = poisoned(DType::bf16, n);
  DeviceBuffer partials(size_t(n) * 64 * 4), counters(64 * 4);
  ASSERT_EQ(cudaMemset(counters.get(), 0, counters.bytes()), cudaSuccess);
  const SplitScratch scratch{partials.as<float>(), size_t(n) * 64, counters.as<unsigned>(), 64};
  std::vector<double> want(n), atol(n);
  for (int64_t j = 0; j < n; ++j) {
    double sum = 0, mag = 0;
    for (int64_t i = 0; i < k; ++i) {
      sum += x.values[i] * w.values[i * n + j];
      mag += std::fabs(x.values[i] * w.values[i * n + j]);
    }
    want[j] = sum;
    atol[j] = 2e-6 * mag + 1e-30; // f32 accumulation over K, as in checkLinear
  }
  for (auto [splits, quantum, cluster] :
       {std::tuple{16, 32, true}, {5, 32, false}, {3, 256, false}, {7, 32, true}, {1, 32, false}}) {
    const GemvPlan p = gemvPlanWithSplits(n, k, splits, quantum, cluster);
    ASSERT_EQ(cudaMemset(dy.get(), 0xff, n * 2), cudaSuccess); // NaN: every column written
    gemv(stream, DType::bf16, dx.get(), dw.get(), nullptr, dy.get(), n, k, Activation::none,
         scratch, {}, true, &p);
    expectNear(download(dy, DType::bf16, n), want, 2.0 * unitRoundoff(DType::bf16), atol,
               "gemv with " + std::to_string(p.splits) + " splits of " +
                   std::to_string(p.chunk) + (cluster ? " in a cluster" : " through scratch"));
  }
  GemvPlan half = gemvPlanWithSplits(n, k, 4, 32, false);
  half.chunk /= 2; // covers half of K
  GemvPlan pair = gemvPlanWithSplits(n, k, 2, 32, false);
  pair.cluster = true; // a cluster of 2 splits
  GemvPlan wide = gemvPlanWithSplits(n, k, 1, 32, false);
  wide.tiles += 1; // a tile past N
  GemvPlan big = gemvPlanWithSplits(n, k, 1, 32, false);
  big.chunk = 8224; // one split, but more x than shared memory holds
  const GemvPlan many = gemvPlanWithSplits(n, k, 125, 32, false); // 125 x 1024 floats
  for (const GemvPlan &bad : {half, pair, wide, big, many})
    EXPECT_THROW(gemv(stream, DType::bf16, dx.get(), dw.get(), nullptr, dy.get(), n, k,
                      Activation::none, scratch, {}, true, &bad),
                 Error);
}

TEST_F(CudaBlasTest, PlansAreCachedPerShape) {
  Blas blas;
  std::mt19937 gen(4);
  checkLinear(blas, stream, DType::bf16, {4, 128, 256}, true, Activation::none,
              Blas::Path::cublasLt, gen);
  const size_t after1 = blas.heuristicQueries();
  EXPECT_GE(after1, 1u); // 2 if cuBLASLt had no bias-epilogue algorithm (plain GEMM retry)
  // Same shape, new buffers (cudaMalloc alignment is 256, so the same key): no query.
  checkLinear(blas, stream, DType::bf16, {4, 128, 256}, true, Activation::none,
              Blas::Path::cublasLt, gen);
  EXPECT_EQ(blas.heuristicQueries(), after1);
  checkLinear(blas, stream, DType::bf16, {4, 128, 512}, true, Activation::none,
              Blas::Path::cublasLt, gen);
  EXPECT_GT(blas.heuristicQueries(), after1);
}

TEST_F(CudaBlasTest, BatchedMatmulWithBroadcastOperand) {
  Blas blas;
  std::mt19937 gen(5);
  const int64_t batch = 3, m = 17, n = 24, k = 40;
  for (DType dtype : kAllTypes)
    for (bool broadcastB : {false, true}) {
      const HostArray a = randomArray(dtype, batch * m * k, gen);
      const HostArray b = randomArray(dtype, (broadcastB ? 1 : batch) * k * n, gen);
      DeviceBuffer da = upload(a), dbuf = upload(b), dc = poisoned(dtype, batch * m * n);
      blas.matmul(stream, dtype, da.get(), m * k, dbuf.get(), broadcastB ? 0 : k * n, dc.get(),
                  m * n, batch, m, n, k);
      const std::vector<double> got = download(dc, dtype, batch * m * n);
      std::vector<double> want(batch * m * n), atol(batch * m * n);
      for (int64_t i = 0; i < batch; ++i)
        for (int64_t r = 0; r < m; ++r)
          for (int64_t c = 0; c < n; ++c) {
            double s = 0, mag = 0;
            for (int64_t kk = 0; kk < k; ++kk) {
              const double t = a.values[(i * m + r) * k + kk] *
                               b.values[(broadcastB ? 0 : i * k * n) + kk * n + c];
              s += t;
              mag += std::fabs(t);
            }
            want[(i * m + r) * n + c] = s;
            atol[(i * m + r) * n + c] = 2e-6 * mag + 1e-30;
          }
      expectNear(got, want, 2.0 * unitRoundoff(dtype), atol,
                 std::string("batched matmul ") + dtypeLabel(dtype) +
                     (broadcastB ? " broadcast B" : ""));
    }
}

TEST_F(CudaBlasTest, BadArgumentsThrowClearErrors) {
  Blas blas;
  DeviceBuffer buf(1 << 16);
  Blas::LinearArgs a;
  a.dtype = DType::i32;
  a.x = a.w = buf.get();
  a.y = buf.get();
  a.m = a.n = a.k = 8;
  a.path = Blas::Path::cublasLt;
  try {
    blas.linear(stream, a);
    ADD_FAILURE() << "expected an error for i32";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("unsupported element type i32"), std::string::npos)
        << e.what();
  }
  a.dtype = DType::bf16;
  a.n = 12; // GEMV needs n % 8 == 0
  a.m = 1;
  a.path = Blas::Path::gemv;
  try {
    blas.linear(stream, a);
    ADD_FAILURE() << "expected an error for n = 12 on the GEMV path";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("cuda gemv"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace mm::rt::cuda::test
