//===- CudaKernelBench.cpp - micro-benchmark of the CUDA kernels (not a test) ---===//
//
// For the GPU machine. Prints, for llava-1b's decode shapes (hidden 2048, intermediate
// 5632, 32 query / 4 KV heads, head dim 64, vocab 32064, 22 layers) or LLaVA-1.5-7B's
// (hidden 4096, intermediate 11008, 32 / 32 heads, head dim 128, 32 layers), bf16:
//   1. the device's copy bandwidth (device-to-device memcpy, bytes read + written);
//   2. GEMV (M = 1) time and bandwidth per weight shape, cuBLASLt vs the own kernel;
//   3. all of one decode step's GEMMs (every layer + LM head) captured in a CUDA graph,
//      against the bandwidth roofline (weight bytes / copy bandwidth);
//   4. decode attention per layer at KV length 128..4096 (one graph captured once, the
//      length changed in device memory between replays), split vs not split;
//   5. prefill attention for a few prompt / vision-encoder shapes, tensor cores vs FMA;
//   6. the small decode kernels; 7. one whole decode step in one CUDA graph, fusions on
//      and off; 8. and 9. (`plans` only) GEMV plans side by side per shape, alone and
//      inside the decode step.
// Weights rotate through more memory than the 60 MB L2 so that the numbers are DRAM
// numbers. Times are medians of CUDA-event-timed graph replays.
//
// Usage: cuda_kernel_bench [llava-1b|llava-7b] [plans]   (default llava-1b; `plans` runs
// [1], [8], [7] and [9] only: GEMV plans per shape, alone and inside the decode step)
//
//===----------------------------------------------------------------------===//
#include "CudaTestUtil.h"

#include "runtime/cuda/Attention.h"
#include "runtime/cuda/Blas.h"
#include "runtime/cuda/Kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

using namespace mm::rt;
using namespace mm::rt::cuda;
using namespace mm::rt::cuda::test;

namespace {

/// The decoder shapes a run measures (the first argument picks them).
struct DecoderShape {
  const char *name;
  int64_t hidden, inter, heads, kvHeads, headDim, vocab, layers;
};
constexpr DecoderShape kLlava1b{"llava-1b", 2048, 5632, 32, 4, 64, 32064, 22};
constexpr DecoderShape kLlava7b{"llava-7b", 4096, 11008, 32, 32, 128, 32064, 32};
DecoderShape g = kLlava1b;

/// Median over `reps` of the time of one replay of a graph captured from `body`, in ms.
double graphMs(cudaStream_t s, const std::function<void()> &body, int reps = 15) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  checkCuda(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "begin capture");
  body();
  checkCuda(cudaStreamEndCapture(s, &graph), "end capture");
  checkCuda(cudaGraphInstantiate(&exec, graph, 0), "instantiate");
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 3; ++i)
    checkCuda(cudaGraphLaunch(exec, s), "warm-up replay");
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(a, s);
    checkCuda(cudaGraphLaunch(exec, s), "replay");
    cudaEventRecord(b, s);
    checkCuda(cudaEventSynchronize(b), "replay");
    float t = 0;
    cudaEventElapsedTime(&t, a, b);
    ms.push_back(t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

/// Device buffer of n bf16 values uniform in [-1, 1] (a 16 MiB random block repeated).
DeviceBuffer randomBf16(size_t n, unsigned seed) {
  DeviceBuffer buf(n * 2);
  const size_t block = std::min<size_t>(n, size_t(8) << 20);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint16_t> host(block);
  for (uint16_t &h : host)
    h = floatToBf16Bits(dist(gen));
  for (size_t off = 0; off < n; off += block)
    checkCuda(cudaMemcpy(buf.as<uint16_t>() + off, host.data(), std::min(block, n - off) * 2,
                         cudaMemcpyHostToDevice),
              "fill");
  return buf;
}

/// Copy bandwidth (bytes read + written) of 1 GiB copies, by the copy engines
/// (cudaMemcpyAsync) or by a kernel (copyBytes).
double copyBandwidthGBs(cudaStream_t s, bool kernel) {
  const size_t bytes = size_t(1) << 30;
  DeviceBuffer src(bytes), dst(bytes);
  checkCuda(cudaMemset(src.get(), 1, bytes), "memset");
  const double ms = graphMs(s, [&] {
    for (int i = 0; i < 4; ++i) {
      if (kernel)
        copyBytes(s, dst.get(), src.get(), bytes);
      else
        checkCuda(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, s),
                  "copy");
    }
  });
  return 4.0 * 2.0 * double(bytes) / (ms * 1e-3) / 1e9;
}

/// A [k, n] bf16 weight in as many copies as fill >= 512 MiB (more than the 60 MB L2), an
/// input x [k] and an output y [n]; `launches` per timed graph, each reading the next copy.
struct RotatingWeights {
  size_t wElems, wBytes;
  int copies, launches;
  DeviceBuffer w, x, y;
  RotatingWeights(int64_t k, int64_t n)
      : wElems(size_t(k * n)), wBytes(wElems * 2),
        copies(int(std::max<size_t>(2, ((size_t(512) << 20) + wBytes - 1) / wBytes))),
        launches(std::max(copies, 24)), w(randomBf16(wElems * copies, 7)),
        x(randomBf16(size_t(k), 8)), y(size_t(n) * 2) {}
  const uint16_t *copy(int i) const { return w.as<uint16_t>() + size_t(i % copies) * wElems; }
};

void benchGemv(cudaStream_t s, Blas &blas, double copyBw) {
  struct Shape {
    const char *name;
    int64_t k, n;
  };
  const Shape shapes[] = {{"q_proj / o_proj", g.hidden, g.hidden},
                          {"k_proj / v_proj", g.hidden, g.kvHeads * g.headDim},
                          {"qkv fused", g.hidden, g.hidden + 2 * g.kvHeads * g.headDim},
                          {"gate / up", g.hidden, g.inter},
                          {"gate+up fused", g.hidden, 2 * g.inter},
                          {"down_proj", g.inter, g.hidden},
                          {"lm_head", g.hidden, g.vocab}};
  std::printf("\n[2] GEMV, M = 1, bf16 (weights rotate through >= 512 MiB; median per launch)\n");
  std::printf("%-16s %6s %6s %7s | %9s %8s | %9s %8s | %6s %s\n", "shape", "K", "N", "MiB",
              "cuBLASLt", "GB/s", "own GEMV", "GB/s", "%copy", "auto");
  for (const Shape &sh : shapes) {
    const RotatingWeights r(sh.k, sh.n);
    double us[2];
    for (int p = 0; p < 2; ++p) {
      Blas::LinearArgs a = oneRowLinear(DType::bf16, r.x.get(), r.w.get(), r.y.get(), sh.k, sh.n);
      a.path = p == 0 ? Blas::Path::cublasLt : Blas::Path::gemv;
      a.constantWeight = true;
      blas.linear(s, a); // plan (heuristic) outside the capture
      checkCuda(cudaStreamSynchronize(s), "warm-up");
      const double ms = graphMs(s, [&] {
        for (int i = 0; i < r.launches; ++i) {
          a.w = r.copy(i);
          blas.linear(s, a);
        }
      });
      us[p] = ms * 1e3 / r.launches;
    }
    const bool autoGemv =
        blas.choosePath(oneRowLinear(DType::bf16, r.x.get(), r.w.get(), r.y.get(), sh.k, sh.n)) ==
        Blas::Path::gemv;
    const double gb0 = double(r.wBytes) / (us[0] * 1e-6) / 1e9,
                 gb1 = double(r.wBytes) / (us[1] * 1e-6) / 1e9;
    std::printf("%-16s %6lld %6lld %7.2f | %7.2fus %8.0f | %7.2fus %8.0f | %5.0f%% %s\n",
                sh.name, (long long)sh.k, (long long)sh.n, double(r.wBytes) / (1 << 20), us[0],
                gb0, us[1], gb1, 100.0 * std::max(gb0, gb1) / copyBw,
                autoGemv ? "gemv" : "cublasLt");
  }
}

void benchDecodeGemms(cudaStream_t s, Blas &blas, double copyBw) {
  struct W {
    int64_t k, n;
  };
  std::vector<W> mats;
  for (int l = 0; l < g.layers; ++l)
    for (W w : {W{g.hidden, g.hidden}, W{g.hidden, g.kvHeads * g.headDim}, W{g.hidden, g.kvHeads * g.headDim},
                W{g.hidden, g.hidden}, W{g.hidden, g.inter}, W{g.hidden, g.inter}, W{g.inter, g.hidden}})
      mats.push_back(w);
  mats.push_back({g.hidden, g.vocab});
  size_t total = 0;
  for (W w : mats)
    total += size_t(w.k * w.n);
  DeviceBuffer weights = randomBf16(total, 9);
  DeviceBuffer x = randomBf16(g.inter, 10), y(size_t(g.vocab) * 2);
  std::printf("\n[3] one decode step's GEMMs (%lld layers x 7 + lm_head = %zu launches, %.0f "
              "MiB bf16) in one CUDA graph\n",
              static_cast<long long>(g.layers), mats.size(), double(total) * 2 / (1 << 20));
  const double roofMs = double(total) * 2 / (copyBw * 1e9) * 1e3;
  for (Blas::Path path : {Blas::Path::automatic, Blas::Path::cublasLt}) {
    auto body = [&] {
      size_t off = 0;
      for (W w : mats) {
        Blas::LinearArgs a = oneRowLinear(DType::bf16, x.get(), weights.as<uint16_t>() + off,
                                          y.get(), w.k, w.n);
        a.path = path;
        a.constantWeight = true;
        blas.linear(s, a);
        off += size_t(w.k * w.n);
      }
    };
    body(); // plans outside the capture
    checkCuda(cudaStreamSynchronize(s), "warm-up");
    const double ms = graphMs(s, body, 9);
    std::printf("  %-10s %7.3f ms  (roofline %.3f ms at the copy bandwidth: %.0f%%)\n",
                path == Blas::Path::automatic ? "auto" : "cuBLASLt", ms, roofMs,
                100.0 * roofMs / ms);
  }
}

/// Decode attention arguments for llava-1b's heads (bf16, 32/4 heads, head dim 64, batch
/// 1): q rows `qStrideB` apart, out [32 * 64], scale 1/8.
DecodeAttentionArgs llavaDecodeArgs(const void *q, int64_t qStrideB, void *out,
                                    const KvCacheView &cache, const int32_t *lens,
                                    int maxSplits, const SplitScratch &scratch) {
  DecodeAttentionArgs a;
  a.dtype = DType::bf16;
  a.batch = 1;
  a.qHeads = g.heads;
  a.kvHeads = g.kvHeads;
  a.headDim = g.headDim;
  a.q = q;
  a.qStrideB = qStrideB;
  a.qStrideH = g.headDim;
  a.out = out;
  a.outStrideB = g.heads * g.headDim;
  a.outStrideH = g.headDim;
  a.cache = cache;
  a.lens = lens;
  a.scale = 0.125f;
  a.maxSplits = maxSplits;
  a.scratch = scratch;
  return a;
}

void benchDecodeAttention(cudaStream_t s, double copyBw) {
  const int64_t cap = 4096;
  const size_t perLayer = size_t(g.kvHeads * cap * g.headDim);
  DeviceBuffer k = randomBf16(perLayer * g.layers, 11), v = randomBf16(perLayer * g.layers, 12);
  DeviceBuffer q = randomBf16(size_t(g.heads * g.headDim), 13), out(size_t(g.heads * g.headDim) * 2);
  DeviceBuffer lens = uploadVector(std::vector<int32_t>{128});
  std::printf("\n[4] decode attention, bf16, %lld/%lld heads, head dim %lld, capacity 4096, one "
              "launch per layer (%lld layers' caches), graph captured once per split setting\n",
              static_cast<long long>(g.heads), static_cast<long long>(g.kvHeads),
              static_cast<long long>(g.headDim), static_cast<long long>(g.layers));
  std::printf("%8s | %10s %8s | %10s %8s | %10s %8s\n", "KV len", "auto", "GB/s", "1 head/blk",
              "GB/s", "no split", "GB/s");
  const int autoSplits = decodeAttentionDefaultSplits(1, g.heads, g.kvHeads, g.headDim, cap);
  const int64_t noSplitHeads = std::min<int64_t>(8, g.heads / g.kvHeads); // the whole group
  const std::vector<int64_t> lengths = {128, 256, 512, 1024, 2048, 4096};
  std::vector<std::vector<double>> us(3, std::vector<double>(lengths.size()));
  for (int variant = 0; variant < 3; ++variant) {
    const int splits = variant == 2 ? 1 : autoSplits;
    const ScratchSize need = decodeAttentionScratch(1, g.heads, g.kvHeads, g.headDim, splits);
    DeviceBuffer partials(std::max<size_t>(1, need.partialFloats) * 4),
        counters(std::max<size_t>(1, need.counterCount) * 4);
    checkCuda(cudaMemset(counters.get(), 0, counters.bytes()), "memset");
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    checkCuda(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "begin capture");
    for (int l = 0; l < g.layers; ++l) {
      DecodeAttentionArgs a = llavaDecodeArgs(
          q.get(), g.heads * g.headDim, out.get(),
          {k.as<uint16_t>() + l * perLayer, v.as<uint16_t>() + l * perLayer, 1, g.kvHeads, cap,
           g.headDim},
          lens.as<int32_t>(), splits,
          {partials.as<float>(), need.partialFloats, counters.as<unsigned>(), need.counterCount});
      a.headsPerBlock = variant == 0 ? 0 : variant == 1 ? 1 : int(noSplitHeads);
      decodeAttention(s, a);
    }
    checkCuda(cudaStreamEndCapture(s, &graph), "end capture");
    checkCuda(cudaGraphInstantiate(&exec, graph, 0), "instantiate");
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (size_t li = 0; li < lengths.size(); ++li) {
      const int32_t len = int32_t(lengths[li]);
      checkCuda(cudaMemcpy(lens.get(), &len, 4, cudaMemcpyHostToDevice), "set length");
      std::vector<float> ms;
      for (int r = 0; r < 18; ++r) {
        cudaEventRecord(e0, s);
        checkCuda(cudaGraphLaunch(exec, s), "replay");
        cudaEventRecord(e1, s);
        checkCuda(cudaEventSynchronize(e1), "replay");
        float t = 0;
        cudaEventElapsedTime(&t, e0, e1);
        if (r >= 3)
          ms.push_back(t);
      }
      std::sort(ms.begin(), ms.end());
      us[variant][li] = ms[ms.size() / 2] * 1e3 / g.layers;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }
  for (size_t li = 0; li < lengths.size(); ++li) {
    const double bytes = 2.0 * double(lengths[li]) * g.kvHeads * g.headDim * 2;
    std::printf("%8lld | %8.2fus %8.0f | %8.2fus %8.0f | %8.2fus %8.0f\n",
                (long long)lengths[li], us[0][li], bytes / (us[0][li] * 1e-6) / 1e9, us[1][li],
                bytes / (us[1][li] * 1e-6) / 1e9, us[2][li], bytes / (us[2][li] * 1e-6) / 1e9);
  }
  std::printf("  (up to %d splits of >= 64 keys; no split: %lld query heads per block; copy "
              "bandwidth %.0f GB/s)\n",
              autoSplits, static_cast<long long>(noSplitHeads), copyBw);
}

void benchPrefillAttention(cudaStream_t s) {
  struct Case {
    const char *name;
    int64_t batch, qHeads, kvHeads, len, headDim;
    bool causal;
  };
  const Case cases[] = {{"decoder prompt 256", 1, g.heads, g.kvHeads, 256, g.headDim, true},
                        {"decoder prompt 608", 1, g.heads, g.kvHeads, 608, g.headDim, true},
                        {"decoder prompt 1024", 1, g.heads, g.kvHeads, 1024, g.headDim, true},
                        {"decoder prompt 4096", 1, g.heads, g.kvHeads, 4096, g.headDim, true},
                        {"CLIP B/16 224px b=1", 1, 12, 12, 197, 64, false},
                        {"CLIP B/16 224px b=8", 8, 12, 12, 197, 64, false},
                        {"CLIP L/14 336px b=1", 1, 16, 16, 577, 64, false},
                        {"CLIP L/14 336px b=8", 8, 16, 16, 577, 64, false}};
  std::printf("\n[5] prefill attention, bf16 (decoder head dim %lld): the automatic kernel "
              "(tensor cores) against the f32 FMA kernel (32 rows per block)\n",
              static_cast<long long>(g.headDim));
  std::printf("%-22s %10s %9s | %10s %9s\n", "shape", "auto", "TFLOP/s", "FMA", "TFLOP/s");
  for (const Case &c : cases) {
    const int64_t d = c.headDim;
    const size_t qn = size_t(c.batch * c.qHeads * c.len * d);
    const size_t kn = size_t(c.batch * c.kvHeads * c.len * d);
    DeviceBuffer q = randomBf16(qn, 14), k = randomBf16(kn, 15), v = randomBf16(kn, 16),
                 out(qn * 2);
    PrefillAttentionArgs a;
    a.dtype = DType::bf16;
    a.batch = c.batch;
    a.qHeads = c.qHeads;
    a.kvHeads = c.kvHeads;
    a.qLen = a.kvLen = c.len;
    a.headDim = d;
    a.q = {q.get(), c.qHeads * c.len * d, c.len * d, d};
    a.k = {k.get(), c.kvHeads * c.len * d, c.len * d, d};
    a.v = {v.get(), c.kvHeads * c.len * d, c.len * d, d};
    a.out = out.get();
    a.outStrideB = c.qHeads * c.len * d;
    a.outStrideH = c.len * d;
    a.outStrideS = d;
    a.scale = float(1.0 / std::sqrt(double(d)));
    a.causal = c.causal;
    const double ms = graphMs(s, [&] { prefillAttention(s, a); }, 7);
    a.rowsPerBlock = d > 128 ? 16 : 32;
    const double msFma = graphMs(s, [&] { prefillAttention(s, a); }, 7);
    const double flops =
        4.0 * c.batch * c.qHeads * double(c.len) * c.len * d * (c.causal ? 0.5 : 1.0);
    std::printf("%-22s %8.3fms %9.1f | %8.3fms %9.1f\n", c.name, ms,
                flops / (ms * 1e-3) / 1e12, msFma, flops / (msFma * 1e-3) / 1e12);
  }
}

/// The small launches of one decoder layer at batch-1 decode, every layer in one graph:
/// residual-add + RMSNorm twice, rotary on q and k, KV append, SwiGLU; per layer.
void benchDecodeSmallKernels(cudaStream_t s) {
  const int64_t cap = 4096;
  DeviceBuffer x = randomBf16(g.hidden, 17), res = randomBf16(g.hidden, 18),
               y = randomBf16(g.hidden, 19), w = randomBf16(g.hidden, 20),
               q = randomBf16(g.heads * g.headDim, 21), kv = randomBf16(2 * g.kvHeads * g.headDim, 22),
               gu = randomBf16(2 * g.inter, 23), act = randomBf16(g.inter, 24);
  DeviceBuffer kc = randomBf16(size_t(g.kvHeads * cap * g.headDim), 25),
               vc = randomBf16(size_t(g.kvHeads * cap * g.headDim), 26);
  DeviceBuffer lens = uploadVector(std::vector<int32_t>{1000});
  std::vector<float> inv(g.headDim / 2);
  for (int64_t i = 0; i < g.headDim / 2; ++i)
    inv[i] = float(std::pow(10000.0, -2.0 * double(i) / g.headDim));
  DeviceBuffer invFreq = uploadVector(inv);
  auto rope = [&](void *t, int64_t heads) {
    RotaryArgs a;
    a.dtype = DType::bf16;
    a.x = a.y = t;
    a.batch = 1;
    a.heads = heads;
    a.seq = 1;
    a.headDim = g.headDim;
    a.xStrideB = a.yStrideB = heads * g.headDim;
    a.xStrideH = a.yStrideH = g.headDim;
    a.xStrideS = a.yStrideS = heads * g.headDim;
    a.rotaryDim = g.headDim;
    a.startPositions = lens.as<int32_t>();
    a.invFreq = invFreq.as<float>();
    rotary(s, a);
  };
  const KvCacheView cache{kc.get(), vc.get(), 1, g.kvHeads, cap, g.headDim};
  const double ms = graphMs(s, [&] {
    for (int l = 0; l < g.layers; ++l) {
      rmsNorm(s, DType::bf16, x.get(), res.get(), res.get(), w.get(), DType::bf16, y.get(), 1,
              g.hidden, 1e-5f, 0.0f);
      rope(q.get(), g.heads);
      rope(kv.get(), g.kvHeads);
      kvCacheAppend(s, DType::bf16, cache, kv.get(), kv.as<uint16_t>() + g.kvHeads * g.headDim, 1,
                    g.kvHeads * g.headDim, g.headDim, g.headDim, lens.as<int32_t>(), nullptr);
      rmsNorm(s, DType::bf16, x.get(), res.get(), res.get(), w.get(), DType::bf16, y.get(), 1,
              g.hidden, 1e-5f, 0.0f);
      swiglu(s, DType::bf16, gu.get(), 2 * g.inter, gu.as<uint16_t>() + g.inter, 2 * g.inter,
             act.get(), g.inter, 1, g.inter, Activation::silu);
    }
  });
  std::printf("\n[6] small decode kernels (2x add+RMSNorm, 2x rotary, KV append, SwiGLU = 6 "
              "launches) per layer, %lld layers in one graph: %.2f us per layer, %.2f us per "
              "launch\n",
              static_cast<long long>(g.layers), ms * 1e3 / g.layers, ms * 1e3 / (g.layers * 6));
}

/// GEMV plans worth trying for [k, n]: `chosen` (planGemv's), then 1 to 32 splits, chunks
/// rounded to 32 or 256 rows, reduced through scratch or (4 to 16 splits) in a cluster, of
/// at most `maxBlocks` blocks.
std::vector<GemvPlan> candidatePlans(int64_t n, int64_t k, int64_t maxBlocks,
                                     const GemvPlan &chosen) {
  std::vector<GemvPlan> plans{chosen};
  for (int splits : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 16, 20, 24, 32})
    for (int quantum : {32, 256})
      for (bool cluster : {false, true}) {
        GemvPlan p = gemvPlanWithSplits(n, k, splits, quantum, false);
        if (cluster && (p.splits < 4 || p.splits > 16))
          continue;
        p.cluster = cluster;
        const bool seen = std::any_of(plans.begin(), plans.end(), [&](const GemvPlan &o) {
          return o.splits == p.splits && o.chunk == p.chunk && o.cluster == p.cluster;
        });
        if (!seen && int64_t(p.tiles) * p.splits <= maxBlocks)
          plans.push_back(p);
      }
  return plans;
}

bool samePlan(const GemvPlan &a, const GemvPlan &b) {
  return a.splits == b.splits && a.chunk == b.chunk && a.cluster == b.cluster;
}

std::string planName(const GemvPlan &p) {
  return std::to_string(p.splits) + " x " + std::to_string(p.chunk) +
         (p.cluster ? " cluster" : " scratch") + " (" + std::to_string(p.tiles * p.splits) +
         " blocks)";
}

/// One whole batch-1 decode step of llava-1b's decoder built from the library's launches,
/// as the executor issues them (per layer: add+RMSNorm, QKV projection, rotary on q and
/// k, KV append, decode attention, output projection, add+RMSNorm, gate+up projection,
/// SwiGLU, down projection; then the final norm, lm_head, argmax and the length advance),
/// in one CUDA graph, at KV length 300; with programmatic dependent launch off and on,
/// with the SwiGLU and the RMSNorms fused into the GEMVs that read them, and with the
/// rotary and the KV append done by the attention launch (a fused decode step).
/// With `sweepPlans` ([9]), the fused step again with one projection's GEMV plan changed
/// at a time (each plan of candidatePlans), then with the fastest plan of each together.
void benchDecodeStep(cudaStream_t s, Blas &blas, double copyBw, bool sweepPlans) {
  const int64_t cap = 1024, qkvN = g.hidden + 2 * g.kvHeads * g.headDim;
  const size_t perLayer = size_t(g.hidden * qkvN + g.hidden * g.hidden + g.hidden * 2 * g.inter +
                                 g.inter * g.hidden);
  DeviceBuffer weights = randomBf16(perLayer * g.layers + size_t(g.hidden * g.vocab), 30);
  DeviceBuffer norm = randomBf16(g.hidden, 31), x = randomBf16(g.hidden, 32),
                      res = randomBf16(g.hidden, 33), h = randomBf16(g.hidden, 34),
                      sum = randomBf16(g.hidden, 42),
                      qkv = randomBf16(qkvN, 35), attn = randomBf16(g.hidden, 36),
                      gu = randomBf16(2 * g.inter, 37), act = randomBf16(g.inter, 38),
                      logits = randomBf16(g.vocab, 39), token(8);
  DeviceBuffer kc = randomBf16(size_t(g.layers * g.kvHeads * cap * g.headDim), 40),
                      vc = randomBf16(size_t(g.layers * g.kvHeads * cap * g.headDim), 41);
  DeviceBuffer lens = uploadVector(std::vector<int32_t>{300});
  std::vector<float> inv(g.headDim / 2);
  for (int64_t i = 0; i < g.headDim / 2; ++i)
    inv[i] = float(std::pow(10000.0, -2.0 * double(i) / g.headDim));
  DeviceBuffer invFreq = uploadVector(inv);
  // The fused step's rotary table (one row; its values do not change the timing).
  DeviceBuffer cosRow = uploadVector(std::vector<float>(g.headDim, 0.6f)),
               sinRow = uploadVector(std::vector<float>(g.headDim, 0.8f));
  const int splits = decodeAttentionDefaultSplits(1, g.heads, g.kvHeads, g.headDim, cap);
  const ScratchSize need = decodeAttentionScratch(1, g.heads, g.kvHeads, g.headDim, splits);
  DeviceBuffer partials(std::max<size_t>(1, need.partialFloats) * 4),
      counters(std::max<size_t>(1, need.counterCount) * 4);
  checkCuda(cudaMemset(counters.get(), 0, counters.bytes()), "memset");
  int fuse = 0; // 0: no fused inputs; 1: SwiGLU into down; 2: and the RMSNorms; 3: and the step
  Blas::Path path = Blas::Path::automatic;
  // [9]: a GEMV plan forced on one projection (null: planGemv's, through Blas).
  struct Projection {
    const char *name;
    int64_t k, n;
    const GemvPlan *forced;
  };
  Projection projections[] = {{"qkv", g.hidden, qkvN, nullptr},
                              {"o_proj", g.hidden, g.hidden, nullptr},
                              {"gate+up", g.hidden, 2 * g.inter, nullptr},
                              {"down", g.inter, g.hidden, nullptr},
                              {"lm_head", g.hidden, g.vocab, nullptr}};
  const size_t planPartialFloats = size_t(4) << 20, planCounterCount = size_t(64) << 10;
  DeviceBuffer planPartials(planPartialFloats * 4), planCounters(planCounterCount * 4);
  checkCuda(cudaMemset(planCounters.get(), 0, planCounters.bytes()), "memset");
  const SplitScratch planScratch{planPartials.as<float>(), planPartialFloats,
                                 planCounters.as<unsigned>(), planCounterCount};
  auto linear = [&](const void *in, const uint16_t *w, void *out, int64_t k, int64_t n,
                    GemvInput input = {}) {
    for (const Projection &p : projections)
      if (p.forced && p.k == k && p.n == n) {
        gemv(s, DType::bf16, in, w, nullptr, out, n, k, Activation::none, planScratch, input,
             true, p.forced);
        return;
      }
    Blas::LinearArgs a = oneRowLinear(DType::bf16, in, w, out, k, n);
    a.input = input;
    a.constantWeight = true;
    // A fused input runs on the GEMV only (without PDL, choosePath would take cuBLASLt).
    a.path = input.rmsNorm || input.up ? Blas::Path::gemv : path;
    blas.linear(s, a);
  };
  // add + RMSNorm of x and res into h, then h W; with fuse = 2 one GEMV does both.
  auto normLinear = [&](const void *residual, void *sumOut, const uint16_t *w, void *out,
                        int64_t n) {
    if (fuse < 2) {
      rmsNorm(s, DType::bf16, x.get(), residual, sumOut, norm.get(), DType::bf16, h.get(), 1,
              g.hidden, 1e-5f, 0.0f);
      linear(h.get(), w, out, g.hidden, n);
      return;
    }
    GemvInput in;
    in.rmsNorm = true;
    in.residual = residual;
    in.scale = norm.get();
    in.eps = 1e-5f;
    in.sumOut = sumOut;
    linear(x.get(), w, out, g.hidden, n, in);
  };
  auto rope = [&](int64_t offset, int64_t heads) {
    RotaryArgs a;
    a.dtype = DType::bf16;
    a.x = a.y = qkv.as<uint16_t>() + offset;
    a.batch = 1;
    a.heads = heads;
    a.seq = 1;
    a.headDim = g.headDim;
    a.xStrideB = a.yStrideB = a.xStrideS = a.yStrideS = qkvN;
    a.xStrideH = a.yStrideH = g.headDim;
    a.rotaryDim = g.headDim;
    a.startPositions = lens.as<int32_t>();
    a.invFreq = invFreq.as<float>();
    rotary(s, a);
  };
  auto body = [&] {
    const uint16_t *w = weights.as<uint16_t>();
    for (int l = 0; l < g.layers; ++l) {
      normLinear(res.get(), sum.get(), w, qkv.get(), qkvN);
      w += g.hidden * qkvN;
      const size_t layerCache = size_t(l * g.kvHeads * cap * g.headDim);
      const KvCacheView cache{kc.as<uint16_t>() + layerCache, vc.as<uint16_t>() + layerCache, 1,
                              g.kvHeads, cap, g.headDim};
      const uint16_t *newK = qkv.as<uint16_t>() + g.hidden, *newV = newK + g.kvHeads * g.headDim;
      if (fuse < 3) {
        rope(0, g.heads);
        rope(g.hidden, g.kvHeads);
        kvCacheAppend(s, DType::bf16, cache, newK, newV, 1, qkvN, g.headDim, qkvN,
                      lens.as<int32_t>(), nullptr);
      }
      DecodeAttentionArgs a = llavaDecodeArgs(
          qkv.get(), qkvN, attn.get(), cache, lens.as<int32_t>(), splits,
          {partials.as<float>(), need.partialFloats, counters.as<unsigned>(), need.counterCount});
      a.lenOffset = 1;
      if (fuse >= 3) {
        a.newK = newK;
        a.newV = newV;
        a.newKStrideB = a.newVStrideB = qkvN;
        a.newKStrideH = a.newVStrideH = g.headDim;
        a.rotary = {cosRow.get(), sinRow.get(), DType::f32, g.headDim, g.headDim, 0, false};
      }
      decodeAttention(s, a);
      linear(attn.get(), w, x.get(), g.hidden, g.hidden);
      w += g.hidden * g.hidden;
      normLinear(res.get(), sum.get(), w, gu.get(), 2 * g.inter);
      w += g.hidden * 2 * g.inter;
      if (fuse >= 1) {
        GemvInput in;
        in.up = gu.as<uint16_t>() + g.inter;
        linear(gu.get(), w, x.get(), g.inter, g.hidden, in);
      } else {
        swiglu(s, DType::bf16, gu.get(), 2 * g.inter, gu.as<uint16_t>() + g.inter, 2 * g.inter,
               act.get(), g.inter, 1, g.inter, Activation::silu);
        linear(act.get(), w, x.get(), g.inter, g.hidden);
      }
      w += g.inter * g.hidden;
    }
    normLinear(res.get(), nullptr, w, logits.get(), g.vocab);
    argmaxRows(s, DType::bf16, logits.get(), 1, g.vocab, g.vocab, token.as<int64_t>());
  };
  const double bytes = 2.0 * double(perLayer * g.layers + size_t(g.hidden * g.vocab));
  const double roofMs = bytes / (copyBw * 1e9) * 1e3;
  std::printf("\n[7] one whole decode step (%lld layers x 11 launches + norm, lm_head, argmax; "
              "KV length 300) in one CUDA graph; roofline %.3f ms (%.0f MiB at %.0f GB/s)\n",
              static_cast<long long>(g.layers), roofMs, bytes / (1 << 20), copyBw);
  struct Variant {
    bool pdl;
    int fuse;
    Blas::Path path; ///< of the products without a fused input
    const char *name;
  };
  const Blas::Path automatic = Blas::Path::automatic, gemv = Blas::Path::gemv;
  const Variant variants[] = {
      {false, 0, automatic, "PDL off, no fused inputs (automatic)"},
      {false, 0, gemv, "PDL off, no fused inputs, own GEMV"},
      {true, 0, automatic, "PDL on,  no fused inputs"},
      {true, 1, automatic, "PDL on,  SwiGLU in the down GEMV"},
      {true, 2, automatic, "PDL on,  SwiGLU and RMSNorms in GEMVs"},
      {true, 3, automatic, "PDL on,  and rotary + append in attention"},
      {false, 3, gemv, "PDL off, every fusion, own GEMV"}};
  for (const Variant &v : variants) {
    setProgrammaticDependentLaunch(v.pdl);
    fuse = v.fuse;
    path = v.path;
    body(); // cuBLASLt plans outside the capture
    checkCuda(cudaStreamSynchronize(s), "warm-up");
    const double ms = graphMs(s, body, 15);
    std::printf("  %-42s %7.3f ms  %6.0f tokens/s  %5.1f%% of roofline\n", v.name, ms, 1e3 / ms,
                100.0 * roofMs / ms);
  }
  setProgrammaticDependentLaunch(true);
  if (!sweepPlans)
    return;
  fuse = 3;
  path = Blas::Path::automatic;
  const int sms = multiprocessorCount();
  auto stepMs = [&] {
    body();
    checkCuda(cudaStreamSynchronize(s), "warm-up");
    return graphMs(s, body, 9);
  };
  std::printf("\n[9] the fused step of [7] (PDL on) with one projection's GEMV plan changed at a "
              "time (* = planGemv's)\n");
  std::vector<GemvPlan> best;
  for (Projection &pr : projections) {
    const GemvPlan chosen = planGemv(pr.n, pr.k, size_t(4) << 20, sms);
    GemvPlan fastest = chosen;
    double fastestMs = 1e30;
    for (const GemvPlan &p : candidatePlans(pr.n, pr.k, 12 * sms, chosen)) {
      pr.forced = &p;
      const double ms = stepMs();
      std::printf("  %-8s %c %-32s %7.3f ms\n", pr.name, samePlan(p, chosen) ? '*' : ' ',
                  planName(p).c_str(), ms);
      if (ms < fastestMs) {
        fastestMs = ms;
        fastest = p;
      }
    }
    pr.forced = nullptr;
    best.push_back(fastest);
  }
  for (size_t i = 0; i < best.size(); ++i) {
    projections[i].forced = &best[i];
    std::printf("  fastest %-8s %s\n", projections[i].name, planName(best[i]).c_str());
  }
  for (bool pdl : {true, false}) {
    setProgrammaticDependentLaunch(pdl);
    std::printf("  the fastest of each together, PDL %s: %.3f ms\n", pdl ? "on " : "off", stepMs());
  }
  setProgrammaticDependentLaunch(true);
  for (Projection &pr : projections)
    pr.forced = nullptr;
}

/// [8] Every GEMV plan worth trying per decode shape (splits of K, chunk rounding, cluster
/// or scratch reduction), timed as [2] times the automatic one; `*` marks planGemv's.
void benchGemvPlans(cudaStream_t s) {
  struct Shape {
    const char *name;
    int64_t k, n;
  };
  const Shape shapes[] = {{"qkv fused", g.hidden, g.hidden + 2 * g.kvHeads * g.headDim},
                          {"o_proj", g.hidden, g.hidden},
                          {"gate+up fused", g.hidden, 2 * g.inter},
                          {"down_proj", g.inter, g.hidden},
                          {"lm_head", g.hidden, g.vocab}};
  const int sms = multiprocessorCount();
  DeviceBuffer partials(size_t(4) << 22), counters(size_t(64) << 12);
  checkCuda(cudaMemset(counters.get(), 0, counters.bytes()), "memset");
  const SplitScratch scratch{partials.as<float>(), size_t(4) << 20, counters.as<unsigned>(),
                             size_t(64) << 10};
  std::printf("\n[8] GEMV plans, M = 1, bf16, %d SMs (blocks = tiles x splits; * = planGemv)\n",
              sms);
  for (const Shape &sh : shapes) {
    const RotatingWeights r(sh.k, sh.n);
    const GemvPlan chosen = planGemv(sh.n, sh.k, scratch.partialCount, sms);
    const std::vector<GemvPlan> plans = candidatePlans(sh.n, sh.k, 12 * sms, chosen);
    std::printf("%s, K %lld, N %lld:\n", sh.name, (long long)sh.k, (long long)sh.n);
    for (const GemvPlan &p : plans) {
      checkCuda(cudaStreamSynchronize(s), "sync");
      const double ms = graphMs(s, [&] {
        for (int i = 0; i < r.launches; ++i)
          gemv(s, DType::bf16, r.x.get(), r.copy(i), nullptr, r.y.get(), sh.n, sh.k,
               Activation::none, scratch, {}, true, &p);
      });
      const double us = ms * 1e3 / r.launches;
      const bool mine = samePlan(p, chosen);
      std::printf("  %c splits %2d chunk %4d blocks %4d %-7s %7.2f us %6.0f GB/s\n",
                  mine ? '*' : ' ', p.splits, p.chunk, p.tiles * p.splits,
                  p.cluster ? "cluster" : "scratch", us, double(r.wBytes) / (us * 1e-6) / 1e9);
    }
  }
}

} // namespace

int main(int argc, char **argv) {
  try {
    const std::string shape = argc > 1 ? argv[1] : "llava-1b";
    if (shape == kLlava7b.name)
      g = kLlava7b;
    else if (shape != kLlava1b.name) {
      std::fprintf(stderr, "usage: cuda_kernel_bench [llava-1b|llava-7b] [plans]\n");
      return 2;
    }
    std::printf("decoder shapes: %s (hidden %lld, intermediate %lld, %lld/%lld heads, head dim "
                "%lld, vocab %lld, %lld layers)\n", g.name, static_cast<long long>(g.hidden),
                static_cast<long long>(g.inter), static_cast<long long>(g.heads),
                static_cast<long long>(g.kvHeads), static_cast<long long>(g.headDim),
                static_cast<long long>(g.vocab), static_cast<long long>(g.layers));
    if (cudaDeviceCountOrZero() == 0) {
      std::fprintf(stderr, "cuda_kernel_bench: no CUDA GPU found (use a GPU machine)\n");
      return 1;
    }
    cudaDeviceProp prop{};
    checkCuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    std::printf("device: %s, %d SMs, %.1f GiB, L2 %.0f MiB\n", prop.name,
                prop.multiProcessorCount, double(prop.totalGlobalMem) / (1 << 30),
                double(prop.l2CacheSize) / (1 << 20));
    cudaStream_t s;
    checkCuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
    const double engineBw = copyBandwidthGBs(s, false), kernelBw = copyBandwidthGBs(s, true);
    const double copyBw = std::max(engineBw, kernelBw);
    std::printf("\n[1] device-to-device copy of 1 GiB (read + write): cudaMemcpyAsync %.0f GB/s, "
                "copy kernel %.0f GB/s; roofline below uses %.0f GB/s\n",
                engineBw, kernelBw, copyBw);
    Blas blas;
    if (argc > 2 && std::string(argv[2]) == "plans") {
      benchGemvPlans(s);
      benchDecodeStep(s, blas, copyBw, true);
      cudaStreamDestroy(s);
      return 0;
    }
    benchGemv(s, blas, copyBw);
    benchDecodeGemms(s, blas, copyBw);
    benchDecodeAttention(s, copyBw);
    benchPrefillAttention(s);
    benchDecodeSmallKernels(s);
    benchDecodeStep(s, blas, copyBw, false);
    cudaStreamDestroy(s);
    return 0;
  } catch (const Error &e) {
    std::fprintf(stderr, "cuda_kernel_bench: %s\n", e.what());
    return 1;
  }
}
