//===- CudaAttentionTest.cpp - prefill and decode attention vs a double reference -===//
//
// Tolerances: the kernels keep q, k, v, scores, softmax and the output accumulator in
// f32 and round the output once; outputs are convex combinations of v rows in [-1, 1].
// So an output is within one unit roundoff u of the element type plus the f32 error of
// the softmax (exp2f, sums of <= ~1000 positive terms: a few 1e-6 relative). Allowed:
// 2u relative (bf16 2^-7, f16 2^-10) or 1e-4 relative for f32, plus 1e-5 absolute for
// outputs near zero (cancellation among the v rows).
// The tensor-core prefill kernel (f16/bf16) also rounds each probability p_t to the
// element type before P V (relative error <= u each), which moves an output by at most
// u * sum_t p_t |v_t| / sum_t p_t (the reference's `mass`; it need not be small relative
// to the output when the v rows cancel). Its bound adds 1.1 u * mass: u for that rounding,
// 10 % for the f32 exp2 and sums.
//
//===----------------------------------------------------------------------===//
#include "CudaTestUtil.h"

#include "runtime/cuda/Attention.h"
#include "runtime/cuda/AttentionPrefillMma.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace mm::rt::cuda::test {
namespace {

double rtolFor(DType t) { return t == DType::f32 ? 1e-4 : 2.0 * unitRoundoff(t); }
constexpr double kAtol = 1e-5;

/// Visible-and-bias of key t for (b, h, s): returns false when masked, else adds the
/// additive mask to `bias`.
using MaskFn = std::function<bool(int64_t b, int64_t h, int64_t s, int64_t t, double &bias)>;

/// out[b, h, s, :] = softmax_t(scale q.k + bias) v; q(b,h,s,d), k(b,hk,t,d), v likewise.
/// Rows with no visible key are zero.
void refAttention(int64_t B, int64_t Hq, int64_t Hkv, int64_t S, int64_t D,
                  const std::function<int64_t(int64_t b)> &keysOf,
                  const std::function<double(int64_t, int64_t, int64_t, int64_t)> &q,
                  const std::function<double(int64_t, int64_t, int64_t, int64_t)> &k,
                  const std::function<double(int64_t, int64_t, int64_t, int64_t)> &v,
                  double scale, const MaskFn &visible,
                  const std::function<double &(int64_t, int64_t, int64_t, int64_t)> &out,
                  const std::function<double &(int64_t, int64_t, int64_t, int64_t)> *mass =
                      nullptr) {
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h) {
      const int64_t hk = h / (Hq / Hkv), T = keysOf(b);
      for (int64_t s = 0; s < S; ++s) {
        std::vector<double> sc(T);
        std::vector<bool> ok(T);
        double mx = -INFINITY;
        for (int64_t t = 0; t < T; ++t) {
          double bias = 0.0;
          ok[t] = visible(b, h, s, t, bias);
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += q(b, h, s, d) * k(b, hk, t, d);
          sc[t] = scale * dot + bias;
          if (ok[t] && sc[t] == -INFINITY)
            ok[t] = false;
          if (ok[t])
            mx = std::max(mx, sc[t]);
        }
        double sum = 0;
        for (int64_t t = 0; t < T; ++t)
          sum += ok[t] ? std::exp(sc[t] - mx) : 0.0;
        for (int64_t d = 0; d < D; ++d) {
          double acc = 0, absAcc = 0;
          for (int64_t t = 0; t < T; ++t)
            if (ok[t]) {
              acc += std::exp(sc[t] - mx) * v(b, hk, t, d);
              absAcc += std::exp(sc[t] - mx) * std::fabs(v(b, hk, t, d));
            }
          out(b, h, s, d) = sum > 0 ? acc / sum : 0.0;
          if (mass)
            (*mass)(b, h, s, d) = sum > 0 ? absAcc / sum : 0.0;
        }
      }
    }
}

struct PrefillCase {
  int64_t B, Hq, Hkv, S, T, D;
  bool causal;
  MaskKind mask;
};

class CudaAttentionTest : public CudaTest {};

TEST_F(CudaAttentionTest, PrefillMatchesReference) {
  std::mt19937 gen(20);
  const PrefillCase cases[] = {
      {2, 4, 2, 37, 37, 64, true, MaskKind::none},      // causal self-attention, GQA 2
      {1, 8, 1, 5, 70, 128, true, MaskKind::none},      // queries are the last 5 of 70 keys, MQA
      {2, 2, 2, 50, 50, 72, false, MaskKind::additive}, // SigLIP head dim, additive mask
      {1, 2, 1, 20, 33, 256, false, MaskKind::boolean}, // Gemma head dim, a fully masked row
      {1, 3, 3, 9, 9, 80, true, MaskKind::none},
      {2, 2, 1, 40, 40, 96, false, MaskKind::none},     // bidirectional (vision encoder)
      // Several 64-row and 64-key tiles with partial last tiles (the tensor-core kernel).
      {1, 4, 2, 150, 150, 128, true, MaskKind::additive},
      {2, 2, 2, 70, 130, 64, false, MaskKind::boolean}, // row 3 fully masked
      {1, 2, 1, 65, 200, 96, true, MaskKind::none},      // 65 queries after 135 cached keys
      {1, 2, 1, 100, 260, 80, false, MaskKind::boolean}, // 5 key tiles, more than the buffers
      {1, 2, 2, 64, 128, 64, false, MaskKind::none},     // whole tiles only
  };
  for (DType dtype : kAllTypes)
    for (const PrefillCase &c : cases) {
      // q and out as [B, S, Hq, D] (the projection's layout), k and v as [B, Hkv, T, D].
      const HostArray q = randomArray(dtype, c.B * c.S * c.Hq * c.D, gen, -2.0, 2.0);
      const HostArray k = randomArray(dtype, c.B * c.Hkv * c.T * c.D, gen, -2.0, 2.0);
      const HostArray v = randomArray(dtype, c.B * c.Hkv * c.T * c.D, gen);
      // Additive mask [B, 1, S, T] (broadcast over heads), with some -inf entries;
      // boolean mask [1, 1, S, T] (broadcast over batch and heads), row 3 all false.
      std::vector<double> addMask(c.B * c.S * c.T);
      std::uniform_real_distribution<double> md(-3.0, 0.0);
      for (size_t i = 0; i < addMask.size(); ++i)
        addMask[i] = (i % 7 == 3) ? -INFINITY : md(gen);
      const HostArray addMaskT(dtype, addMask);
      std::vector<uint8_t> boolMask(c.S * c.T);
      for (int64_t s = 0; s < c.S; ++s)
        for (int64_t t = 0; t < c.T; ++t)
          boolMask[s * c.T + t] = s != 3 && ((s * 31 + t * 17) % 5 != 0);

      DeviceBuffer dq = upload(q), dk = upload(k), dv = upload(v), dam = upload(addMaskT),
                   dbm = uploadVector(boolMask);
      DeviceBuffer dout = poisoned(dtype, c.B * c.S * c.Hq * c.D);
      PrefillAttentionArgs a;
      a.dtype = dtype;
      a.batch = c.B;
      a.qHeads = c.Hq;
      a.kvHeads = c.Hkv;
      a.qLen = c.S;
      a.kvLen = c.T;
      a.headDim = c.D;
      a.q = {dq.get(), c.S * c.Hq * c.D, c.D, c.Hq * c.D};
      a.k = {dk.get(), c.Hkv * c.T * c.D, c.T * c.D, c.D};
      a.v = {dv.get(), c.Hkv * c.T * c.D, c.T * c.D, c.D};
      a.out = dout.get();
      a.outStrideB = c.S * c.Hq * c.D;
      a.outStrideH = c.D;
      a.outStrideS = c.Hq * c.D;
      a.scale = float(1.0 / std::sqrt(double(c.D)));
      a.causal = c.causal;
      a.maskKind = c.mask;
      if (c.mask == MaskKind::additive) {
        a.mask = dam.get();
        a.maskStrideB = c.S * c.T;
        a.maskStrideH = 0;
        a.maskStrideS = c.T;
        a.maskStrideT = 1;
      } else if (c.mask == MaskKind::boolean) {
        a.mask = dbm.get();
        a.maskStrideB = a.maskStrideH = 0;
        a.maskStrideS = c.T;
        a.maskStrideT = 1;
      }
      prefillAttention(stream, a);

      std::vector<double> want(c.B * c.S * c.Hq * c.D), mass(want.size());
      const MaskFn visible = [&](int64_t b, int64_t, int64_t s, int64_t t, double &bias) {
        if (c.causal && t > s + (c.T - c.S))
          return false;
        if (c.mask == MaskKind::additive)
          bias = addMaskT.values[(b * c.S + s) * c.T + t];
        if (c.mask == MaskKind::boolean)
          return boolMask[s * c.T + t] != 0;
        return true;
      };
      const std::function<double &(int64_t, int64_t, int64_t, int64_t)> massAt =
          [&](int64_t b, int64_t h, int64_t s, int64_t d) -> double & {
        return mass[((b * c.S + s) * c.Hq + h) * c.D + d];
      };
      refAttention(
          c.B, c.Hq, c.Hkv, c.S, c.D, [&](int64_t) { return c.T; },
          [&](int64_t b, int64_t h, int64_t s, int64_t d) {
            return q.values[((b * c.S + s) * c.Hq + h) * c.D + d];
          },
          [&](int64_t b, int64_t h, int64_t t, int64_t d) {
            return k.values[((b * c.Hkv + h) * c.T + t) * c.D + d];
          },
          [&](int64_t b, int64_t h, int64_t t, int64_t d) {
            return v.values[((b * c.Hkv + h) * c.T + t) * c.D + d];
          },
          1.0 / std::sqrt(double(c.D)), visible,
          [&](int64_t b, int64_t h, int64_t s, int64_t d) -> double & {
            return want[((b * c.S + s) * c.Hq + h) * c.D + d];
          },
          &massAt);
      const std::string what = std::string("prefill ") + dtypeLabel(dtype) + " B" +
                               std::to_string(c.B) + " H" + std::to_string(c.Hq) + "/" +
                               std::to_string(c.Hkv) + " S" + std::to_string(c.S) + " T" +
                               std::to_string(c.T) + " D" + std::to_string(c.D) +
                               (c.causal ? " causal" : "") + " mask " + std::to_string(int(c.mask));
      // Every kernel variant: automatic (tensor cores where they apply, else the FMA
      // kernel with half the rows for these small grids), then the FMA kernel with its
      // default rows and, where the head dim allows, half of them.
      const int defaultRows = c.D > 128 ? 16 : 32;
      const bool tensorCores = mmaPrefillAttentionSupports(a);
      std::vector<double> atol(want.size(), kAtol);
      if (tensorCores)
        for (size_t i = 0; i < atol.size(); ++i)
          atol[i] += 1.1 * unitRoundoff(dtype) * mass[i];
      expectNear(download(dout, dtype, want.size()), want, rtolFor(dtype), atol,
                 what + (tensorCores ? " (tensor cores)" : " (FMA, automatic rows per block)"));
      const std::vector<double> fmaAtol(want.size(), kAtol);
      for (int rows : {defaultRows, defaultRows / 2}) {
        if (rows != defaultRows && c.D == 72)
          continue; // 72's channel pairs do not split over twice the threads
        a.rowsPerBlock = rows;
        DeviceBuffer dout2 = poisoned(dtype, c.B * c.S * c.Hq * c.D);
        a.out = dout2.get();
        prefillAttention(stream, a);
        expectNear(download(dout2, dtype, want.size()), want, rtolFor(dtype), fmaAtol,
                   what + " (FMA, " + std::to_string(rows) + " rows per block)");
      }
    }
}

struct DecodeCase {
  int64_t B, Hq, Hkv, D, cap;
  std::vector<int32_t> lens;
  int32_t lenOffset;
  int maxSplits;
  int headsPerBlock = 0; ///< 0: automatic (1 at batch 1 with 32 heads)
};

/// Scratch for a decode launch, counters zeroed once.
struct DecodeScratch {
  DeviceBuffer partials, counters;
  SplitScratch view;
  DecodeScratch(int64_t B, int64_t Hq, int64_t Hkv, int64_t D, int splits) {
    const ScratchSize s = decodeAttentionScratch(B, Hq, Hkv, D, splits);
    partials = DeviceBuffer(std::max<size_t>(1, s.partialFloats) * sizeof(float));
    counters = DeviceBuffer(std::max<size_t>(1, s.counterCount) * sizeof(unsigned));
    checkCuda(cudaMemset(counters.get(), 0, counters.bytes()), "cudaMemset");
    view = {partials.as<float>(), s.partialFloats, counters.as<unsigned>(), s.counterCount};
  }
};

TEST_F(CudaAttentionTest, DecodeMatchesReference) {
  std::mt19937 gen(21);
  const DecodeCase cases[] = {
      {3, 32, 4, 64, 1100, {1, 130, 1037}, 0, 0}, // llava-1b heads, automatic splits
      {3, 32, 4, 64, 1100, {1, 130, 1037}, 0, 1}, // no split
      {3, 32, 4, 64, 1100, {1, 130, 1037}, 0, 7}, // up to 7 splits
      {1, 32, 4, 64, 4096, {4000}, 0, 0},         // automatic splits, the last one short
      {3, 32, 4, 64, 1100, {1, 130, 1037}, 0, 7, 8}, // 8 heads of the group per block
      {3, 32, 4, 64, 1100, {1, 130, 1037}, 0, 0, 4}, // 4 heads per block
      {1, 32, 4, 64, 4096, {4000}, 0, 16, 2},       // 2 heads per block, 16 splits
      {1, 32, 4, 64, 300, {299}, 1, 128, 1},        // more splits than 64-key chunks
      {2, 8, 8, 128, 300, {63, 298}, 1, 0},       // MHA, the step's row already appended
      {1, 12, 4, 256, 200, {150}, 0, 3},          // group of 3 heads, head dim 256
      {1, 8, 1, 256, 600, {555}, 0, 0},           // Gemma-like: 8 heads on 1 KV head, 3 splits
      {2, 4, 2, 64, 64, {0, 64}, 0, 0},           // an empty sequence and a full cache
  };
  for (DType dtype : kAllTypes)
    for (const DecodeCase &c : cases) {
      const HostArray kc = randomArray(dtype, c.B * c.Hkv * c.cap * c.D, gen, -2.0, 2.0);
      const HostArray vc = randomArray(dtype, c.B * c.Hkv * c.cap * c.D, gen);
      DeviceBuffer dk = upload(kc), dv = upload(vc), dl = uploadVector(c.lens);
      const int splits = c.maxSplits > 0
                             ? c.maxSplits
                             : decodeAttentionDefaultSplits(c.B, c.Hq, c.Hkv, c.D, c.cap);
      DecodeScratch scratch(c.B, c.Hq, c.Hkv, c.D, splits);
      const int64_t qStrideB = c.Hq * c.D + 8; // padded rows: strides are honoured
      for (int rep = 0; rep < 2; ++rep) { // a second launch checks the counters were reset
        const HostArray q = randomArray(dtype, c.B * qStrideB, gen, -2.0, 2.0);
        DeviceBuffer dq = upload(q), dout = poisoned(dtype, c.B * c.Hq * c.D);
        DecodeAttentionArgs a;
        a.dtype = dtype;
        a.batch = c.B;
        a.qHeads = c.Hq;
        a.kvHeads = c.Hkv;
        a.headDim = c.D;
        a.q = dq.get();
        a.qStrideB = qStrideB;
        a.qStrideH = c.D;
        a.out = dout.get();
        a.outStrideB = c.Hq * c.D;
        a.outStrideH = c.D;
        a.cache = {dk.get(), dv.get(), c.B, c.Hkv, c.cap, c.D};
        a.lens = dl.as<int32_t>();
        a.lenOffset = c.lenOffset;
        a.scale = float(1.0 / std::sqrt(double(c.D)));
        a.maxSplits = c.maxSplits;
        a.headsPerBlock = c.headsPerBlock;
        a.scratch = scratch.view;
        decodeAttention(stream, a);

        std::vector<double> want(c.B * c.Hq * c.D);
        refAttention(
            c.B, c.Hq, c.Hkv, 1, c.D,
            [&](int64_t b) { return std::min<int64_t>(c.cap, c.lens[b] + c.lenOffset); },
            [&](int64_t b, int64_t h, int64_t, int64_t d) {
              return q.values[b * qStrideB + h * c.D + d];
            },
            [&](int64_t b, int64_t h, int64_t t, int64_t d) {
              return kc.values[((b * c.Hkv + h) * c.cap + t) * c.D + d];
            },
            [&](int64_t b, int64_t h, int64_t t, int64_t d) {
              return vc.values[((b * c.Hkv + h) * c.cap + t) * c.D + d];
            },
            1.0 / std::sqrt(double(c.D)),
            [](int64_t, int64_t, int64_t, int64_t, double &) { return true; },
            [&](int64_t b, int64_t h, int64_t, int64_t d) -> double & {
              return want[(b * c.Hq + h) * c.D + d];
            });
        expectNear(download(dout, dtype, want.size()), want, rtolFor(dtype), kAtol,
                   std::string("decode ") + dtypeLabel(dtype) + " B" + std::to_string(c.B) +
                       " H" + std::to_string(c.Hq) + "/" + std::to_string(c.Hkv) + " D" +
                       std::to_string(c.D) + " cap" + std::to_string(c.cap) + " splits " +
                       std::to_string(c.maxSplits) + " heads/block " +
                       std::to_string(c.headsPerBlock) + " rep " + std::to_string(rep));
      }
    }
}

/// The decode step as the executor will run it: append the new K/V row at the device
/// length, attend (lenOffset 1), advance the lengths; captured once in a CUDA graph and
/// replayed for 40 steps with new inputs copied into the same buffers each time.
TEST_F(CudaAttentionTest, CapturedDecodeStepServesEveryStep) {
  std::mt19937 gen(22);
  const DType dtype = DType::bf16;
  // Lengths cross 256 and 512 during the replays, so the split count chosen on the
  // device changes under one captured graph.
  const int64_t B = 2, Hq = 8, Hkv = 2, D = 64, cap = 1024, steps = 40;
  std::vector<int32_t> lens = {230, 500};
  HostArray kc = randomArray(dtype, B * Hkv * cap * D, gen, -2.0, 2.0);
  HostArray vc = randomArray(dtype, B * Hkv * cap * D, gen);
  DeviceBuffer dk = upload(kc), dv = upload(vc), dl = uploadVector(lens);
  DeviceBuffer dq(B * Hq * D * 2), dnk(B * Hkv * D * 2), dnv(B * Hkv * D * 2);
  DeviceBuffer dout(B * Hq * D * 2), flag = uploadVector(std::vector<int>{0});
  const int splits = decodeAttentionDefaultSplits(B, Hq, Hkv, D, cap);
  DecodeScratch scratch(B, Hq, Hkv, D, splits);
  const KvCacheView cache{dk.get(), dv.get(), B, Hkv, cap, D};

  DecodeAttentionArgs a;
  a.dtype = dtype;
  a.batch = B;
  a.qHeads = Hq;
  a.kvHeads = Hkv;
  a.headDim = D;
  a.q = dq.get();
  a.qStrideB = Hq * D;
  a.qStrideH = D;
  a.out = dout.get();
  a.outStrideB = Hq * D;
  a.outStrideH = D;
  a.cache = cache;
  a.lens = dl.as<int32_t>();
  a.lenOffset = 1;
  a.scale = 0.125f;
  a.scratch = scratch.view;

  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  checkCuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "begin capture");
  kvCacheAppend(stream, dtype, cache, dnk.get(), dnv.get(), 1, Hkv * D, D, D, dl.as<int32_t>(),
                flag.as<int>());
  decodeAttention(stream, a);
  advanceLengths(stream, dl.as<int32_t>(), B, 1);
  checkCuda(cudaStreamEndCapture(stream, &graph), "end capture");
  checkCuda(cudaGraphInstantiate(&exec, graph, 0), "instantiate");

  for (int64_t step = 0; step < steps; ++step) {
    const HostArray q = randomArray(dtype, B * Hq * D, gen, -2.0, 2.0);
    const HostArray nk = randomArray(dtype, B * Hkv * D, gen, -2.0, 2.0);
    const HostArray nv = randomArray(dtype, B * Hkv * D, gen);
    for (auto [buf, arr] : {std::pair<DeviceBuffer *, const HostArray *>{&dq, &q},
                            {&dnk, &nk}, {&dnv, &nv}}) {
      const std::vector<uint8_t> bytes = arr->bytes();
      checkCuda(cudaMemcpy(buf->get(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice),
                "copy step inputs");
    }
    checkCuda(cudaGraphLaunch(exec, stream), "graph launch");
    // Host model of the step.
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < Hkv; ++h)
        for (int64_t d = 0; d < D; ++d) {
          kc.values[((b * Hkv + h) * cap + lens[b]) * D + d] = nk.values[(b * Hkv + h) * D + d];
          vc.values[((b * Hkv + h) * cap + lens[b]) * D + d] = nv.values[(b * Hkv + h) * D + d];
        }
    std::vector<double> want(B * Hq * D);
    refAttention(
        B, Hq, Hkv, 1, D, [&](int64_t b) { return int64_t(lens[b]) + 1; },
        [&](int64_t b, int64_t h, int64_t, int64_t d) { return q.values[(b * Hq + h) * D + d]; },
        [&](int64_t b, int64_t h, int64_t t, int64_t d) {
          return kc.values[((b * Hkv + h) * cap + t) * D + d];
        },
        [&](int64_t b, int64_t h, int64_t t, int64_t d) {
          return vc.values[((b * Hkv + h) * cap + t) * D + d];
        },
        0.125, [](int64_t, int64_t, int64_t, int64_t, double &) { return true; },
        [&](int64_t b, int64_t h, int64_t, int64_t d) -> double & {
          return want[(b * Hq + h) * D + d];
        });
    for (int32_t &l : lens)
      ++l;
    expectNear(download(dout, dtype, want.size()), want, rtolFor(dtype), kAtol,
               "graph step " + std::to_string(step));
    if (HasFailure())
      break;
  }
  EXPECT_EQ(downloadVector<int32_t>(dl, B), lens);
  EXPECT_EQ(downloadVector<int>(flag, 1)[0], 0);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

struct FusedStepCase {
  int64_t B, Hq, Hkv, D, cap;
  std::vector<int32_t> lens; ///< before the step
  int64_t rotaryDim;         ///< 0: no rotary
  bool interleaved, tableF32, tablePerBatch;
  int maxSplits = 0, headsPerBlock = 0;
};

/// One decode step as a fused launch (DecodeAttentionArgs::newK and rotary) against the
/// separate launches it replaces (rotary of q and k, kvCacheAppend, decodeAttention),
/// which the other tests check against references: the outputs and the whole caches must
/// be equal bit for bit (the fused kernel rounds the rotated q and k to the element type
/// as the rotary launch stores them, and attends over the same keys in the same order).
/// q, k and v are heads of one merged projection row [Hq + 2 Hkv, D] (padded), as in
/// the executor.
TEST_F(CudaAttentionTest, FusedStepMatchesSeparateLaunches) {
  std::mt19937 gen(23);
  const FusedStepCase cases[] = {
      {1, 32, 4, 64, 512, {299}, 64, false, true, false},          // llava-1b-ts, f32 table
      {3, 32, 4, 64, 1100, {0, 130, 1037}, 64, true, false, true, 7}, // interleaved, per batch
      {3, 32, 4, 64, 1100, {1, 130, 1037}, 64, false, false, true, 7, 8}, // 8 heads per block
      {2, 8, 8, 128, 300, {63, 298}, 64, false, true, true},        // partial rotary, MHA
      {1, 8, 1, 256, 600, {555}, 0, false, true, false},            // no rotary: append only
      {2, 8, 2, 64, 64, {0, 63}, 32, false, true, true, 1},         // the step fills the cache
      {1, 32, 4, 64, 4096, {4000}, 64, false, false, false, 0, 2},  // many splits, 2 heads/block
  };
  for (DType dtype : kAllTypes)
    for (const FusedStepCase &c : cases) {
      const size_t es = dtypeSize(dtype);
      const int64_t heads = c.Hq + 2 * c.Hkv, rowStride = heads * c.D + 8;
      const int64_t cacheElems = c.B * c.Hkv * c.cap * c.D;
      const HostArray kc = randomArray(dtype, cacheElems, gen, -2.0, 2.0);
      const HostArray vc = randomArray(dtype, cacheElems, gen);
      const HostArray qkv = randomArray(dtype, c.B * rowStride, gen, -2.0, 2.0);
      const int64_t R = std::max<int64_t>(c.rotaryDim, 16);
      const DType tableType = c.tableF32 ? DType::f32 : dtype;
      const int64_t tableRows = c.tablePerBatch ? c.B : 1;
      const HostArray cosT = randomArray(tableType, tableRows * R, gen);
      const HostArray sinT = randomArray(tableType, tableRows * R, gen);
      DeviceBuffer dqkv = upload(qkv), dcos = upload(cosT), dsin = upload(sinT);
      DeviceBuffer k1 = upload(kc), v1 = upload(vc), k2 = upload(kc), v2 = upload(vc);
      DeviceBuffer dl = uploadVector(c.lens);
      DeviceBuffer rot(c.B * (c.Hq + c.Hkv) * c.D * es);
      DeviceBuffer out1 = poisoned(dtype, c.B * c.Hq * c.D), out2 = poisoned(dtype, c.B * c.Hq * c.D);
      const int splits = c.maxSplits > 0
                             ? c.maxSplits
                             : decodeAttentionDefaultSplits(c.B, c.Hq, c.Hkv, c.D, c.cap);
      DecodeScratch s1(c.B, c.Hq, c.Hkv, c.D, splits), s2(c.B, c.Hq, c.Hkv, c.D, splits);
      char *base = static_cast<char *>(dqkv.get());
      char *kIn = base + c.Hq * c.D * es, *vIn = base + (c.Hq + c.Hkv) * c.D * es;

      DecodeAttentionArgs a;
      a.dtype = dtype;
      a.batch = c.B;
      a.qHeads = c.Hq;
      a.kvHeads = c.Hkv;
      a.headDim = c.D;
      a.outStrideB = c.Hq * c.D;
      a.outStrideH = c.D;
      a.lens = dl.as<int32_t>();
      a.lenOffset = 1;
      a.scale = float(1.0 / std::sqrt(double(c.D)));
      a.maxSplits = c.maxSplits;
      a.headsPerBlock = c.headsPerBlock;

      // Separate launches.
      const void *q1 = base, *newK1 = kIn;
      int64_t q1StrideB = rowStride, k1StrideB = rowStride;
      if (c.rotaryDim > 0) {
        RotaryArgs r;
        r.dtype = dtype;
        r.x = base;
        r.y = rot.get();
        r.batch = c.B;
        r.heads = c.Hq + c.Hkv;
        r.seq = 1;
        r.headDim = c.D;
        r.xStrideB = rowStride;
        r.xStrideH = r.xStrideS = c.D;
        r.yStrideB = (c.Hq + c.Hkv) * c.D;
        r.yStrideH = r.yStrideS = c.D;
        r.rotaryDim = c.rotaryDim;
        r.interleaved = c.interleaved;
        r.cos = dcos.get();
        r.sin = dsin.get();
        r.tableType = tableType;
        r.tableRowStride = R;
        r.tableStrideB = c.tablePerBatch ? 1 : 0;
        rotary(stream, r);
        q1 = rot.get();
        newK1 = static_cast<char *>(rot.get()) + c.Hq * c.D * es;
        q1StrideB = k1StrideB = (c.Hq + c.Hkv) * c.D;
      }
      const KvCacheView cache1{k1.get(), v1.get(), c.B, c.Hkv, c.cap, c.D};
      // Keys and values have different batch strides: one append each (a view naming one
      // buffer twice, as the executor does for a lone slot).
      kvCacheAppend(stream, dtype, {k1.get(), k1.get(), c.B, c.Hkv, c.cap, c.D}, newK1, newK1,
                    1, k1StrideB, c.D, c.D, dl.as<int32_t>(), nullptr);
      kvCacheAppend(stream, dtype, {v1.get(), v1.get(), c.B, c.Hkv, c.cap, c.D}, vIn, vIn, 1,
                    rowStride, c.D, c.D, dl.as<int32_t>(), nullptr);
      DecodeAttentionArgs sep = a;
      sep.q = q1;
      sep.qStrideB = q1StrideB;
      sep.qStrideH = c.D;
      sep.out = out1.get();
      sep.cache = cache1;
      sep.scratch = s1.view;
      decodeAttention(stream, sep);

      // One fused launch.
      DecodeAttentionArgs fused = a;
      fused.q = base;
      fused.qStrideB = rowStride;
      fused.qStrideH = c.D;
      fused.out = out2.get();
      fused.cache = {k2.get(), v2.get(), c.B, c.Hkv, c.cap, c.D};
      fused.scratch = s2.view;
      fused.newK = kIn;
      fused.newV = vIn;
      fused.newKStrideB = fused.newVStrideB = rowStride;
      fused.newKStrideH = fused.newVStrideH = c.D;
      if (c.rotaryDim > 0) {
        fused.rotary.cos = dcos.get();
        fused.rotary.sin = dsin.get();
        fused.rotary.tableType = tableType;
        fused.rotary.rotaryDim = c.rotaryDim;
        fused.rotary.tableRowStride = R;
        fused.rotary.tableStrideB = c.tablePerBatch ? 1 : 0;
        fused.rotary.interleaved = c.interleaved;
      }
      decodeAttention(stream, fused);

      const std::string what = std::string(dtypeLabel(dtype)) + " B" + std::to_string(c.B) +
                               " H" + std::to_string(c.Hq) + "/" + std::to_string(c.Hkv) +
                               " D" + std::to_string(c.D) + " cap" + std::to_string(c.cap) +
                               " rotary " + std::to_string(c.rotaryDim) +
                               (c.interleaved ? " interleaved" : "");
      const size_t outBytes = size_t(c.B * c.Hq * c.D) * es, cacheBytes = size_t(cacheElems) * es;
      EXPECT_EQ(downloadVector<uint8_t>(out1, outBytes), downloadVector<uint8_t>(out2, outBytes))
          << "output, " << what;
      EXPECT_EQ(downloadVector<uint8_t>(k1, cacheBytes), downloadVector<uint8_t>(k2, cacheBytes))
          << "key cache, " << what;
      EXPECT_EQ(downloadVector<uint8_t>(v1, cacheBytes), downloadVector<uint8_t>(v2, cacheBytes))
          << "value cache, " << what;
      const std::vector<double> got = download(out2, dtype, size_t(c.B * c.Hq * c.D));
      EXPECT_TRUE(std::none_of(got.begin(), got.end(), [](double x) { return std::isnan(x); }))
          << "unwritten output, " << what;
    }
}

TEST_F(CudaAttentionTest, UnsupportedShapesThrow) {
  PrefillAttentionArgs p;
  p.dtype = DType::bf16;
  p.batch = 1;
  p.qHeads = 3;
  p.kvHeads = 2; // not a divisor
  p.qLen = p.kvLen = 4;
  p.headDim = 64;
  EXPECT_THROW(prefillAttention(stream, p), Error);
  p.kvHeads = 1;
  p.headDim = 48; // unsupported
  EXPECT_THROW(prefillAttention(stream, p), Error);
  // Refused for the rows per block, not for the null operands checked after it.
  auto refusesRows = [&](int64_t headDim, int rows) {
    p.headDim = headDim;
    p.rowsPerBlock = rows;
    try {
      prefillAttention(stream, p);
      ADD_FAILURE() << "rowsPerBlock " << rows << ": no error";
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find("rowsPerBlock"), std::string::npos) << e.what();
    }
  };
  refusesRows(72, 16); // 36 channel pairs do not split over 8 threads per row
  refusesRows(64, 24);
  p.headDim = 64;
  p.rowsPerBlock = 0;
  DecodeAttentionArgs d;
  d.dtype = DType::bf16;
  d.batch = 1;
  d.qHeads = 4;
  d.kvHeads = 4;
  d.headDim = 80; // decode supports 64, 128, 256
  EXPECT_THROW(decodeAttention(stream, d), Error);
  DeviceBuffer buf(4096);
  d.qHeads = 8;
  d.kvHeads = 2;
  d.headDim = 64;
  d.q = d.out = buf.get();
  d.cache = {buf.get(), buf.get(), 1, 2, 4, 64};
  d.lens = buf.as<int32_t>();
  d.headsPerBlock = 3; // not a power of two dividing the group of 4
  EXPECT_THROW(decodeAttention(stream, d), Error);
  d.headsPerBlock = 8; // larger than the group
  EXPECT_THROW(decodeAttention(stream, d), Error);
}

/// A valid fused step (new rows and an f32 rotary table) launches; each broken argument
/// is refused with a message naming it.
TEST_F(CudaAttentionTest, FusedStepArgumentErrors) {
  const int64_t Hq = 8, Hkv = 2, D = 64, cap = 4;
  DeviceBuffer q(Hq * D * 2), out(Hq * D * 2), kc(Hkv * cap * D * 2), vc(Hkv * cap * D * 2);
  DeviceBuffer nk(Hkv * D * 2), nv(Hkv * D * 2), lens = uploadVector(std::vector<int32_t>{0});
  DeviceBuffer cosT = uploadVector(std::vector<float>(D, 1.0f)),
               sinT = uploadVector(std::vector<float>(D, 0.0f));
  DecodeAttentionArgs good;
  good.dtype = DType::bf16;
  good.batch = 1;
  good.qHeads = Hq;
  good.kvHeads = Hkv;
  good.headDim = D;
  good.q = q.get();
  good.qStrideH = D;
  good.out = out.get();
  good.outStrideH = D;
  good.cache = {kc.get(), vc.get(), 1, Hkv, cap, D};
  good.lens = lens.as<int32_t>();
  good.lenOffset = 1;
  good.newK = nk.get();
  good.newV = nv.get();
  good.newKStrideH = good.newVStrideH = D;
  good.rotary = {cosT.get(), sinT.get(), DType::f32, D, D, 0, false};
  EXPECT_NO_THROW(decodeAttention(stream, good));
  checkCuda(cudaStreamSynchronize(stream), "fused step");

  auto refused = [&](const char *what, const std::function<void(DecodeAttentionArgs &)> &edit,
                     const char *message) {
    DecodeAttentionArgs d = good;
    edit(d);
    try {
      decodeAttention(stream, d);
      ADD_FAILURE() << what << ": no error";
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos)
          << what << ": " << e.what();
    }
  };
  refused("value rows missing", [](auto &d) { d.newV = nullptr; }, "both the new key and value");
  refused("table without key rows", [](auto &d) { d.newK = d.newV = nullptr; },
          "needs the step's new key rows");
  refused("lenOffset 0", [](auto &d) { d.lenOffset = 0; }, "lenOffset 1");
  refused("misaligned key rows",
          [&](auto &d) { d.newK = static_cast<const char *>(nk.get()) + 2; }, "16-byte aligned");
  refused("odd key head stride", [](auto &d) { d.newKStrideH = 60; }, "multiples of 8");
  refused("sin missing", [](auto &d) { d.rotary.sin = nullptr; }, "must both be given");
  refused("table type", [](auto &d) { d.rotary.tableType = DType::f16; }, "table type f16");
  refused("rotary width 24", [](auto &d) { d.rotary.rotaryDim = 24; }, "multiple of 16");
  refused("rotary width beyond the head", [](auto &d) { d.rotary.rotaryDim = 2 * D; },
          "multiple of 16");
  refused("short table rows", [](auto &d) { d.rotary.tableRowStride = 32; }, "row stride");
  refused("negative batch stride", [](auto &d) { d.rotary.tableStrideB = -1; },
          "batch stride");
}

} // namespace
} // namespace mm::rt::cuda::test
