//===- CudaKernelBench.cpp - micro-benchmark of the CUDA kernels (not a test) ---===//
//
// For the GPU machine. Prints, for llava-1b's decode shapes (hidden 2048, intermediate
// 5632, 32 query / 4 KV heads, head dim 64, vocab 32064), bf16:
//   1. the device's copy bandwidth (device-to-device memcpy, bytes read + written);
//   2. GEMV (M = 1) time and bandwidth per weight shape, cuBLASLt vs the own kernel;
//   3. all of one decode step's GEMMs (22 layers + LM head) captured in a CUDA graph,
//      against the bandwidth roofline (weight bytes / copy bandwidth);
//   4. decode attention per layer at KV length 128..4096 (one graph captured once, the
//      length changed in device memory between replays), split vs not split;
//   5. prefill attention for a few prompt / vision-encoder shapes.
// Weights rotate through more memory than the 60 MB L2 so that the numbers are DRAM
// numbers. Times are medians of CUDA-event-timed graph replays.
//
// Usage: cuda_kernel_bench
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
#include <vector>

using namespace mm::rt;
using namespace mm::rt::cuda;
using namespace mm::rt::cuda::test;

namespace {

constexpr int64_t kHidden = 2048, kInter = 5632, kHeads = 32, kKvHeads = 4, kHeadDim = 64,
                  kVocab = 32064, kLayers = 22;

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

void benchGemv(cudaStream_t s, Blas &blas, double copyBw) {
  struct Shape {
    const char *name;
    int64_t k, n;
  };
  const Shape shapes[] = {{"q_proj / o_proj", kHidden, kHidden},
                          {"k_proj / v_proj", kHidden, kKvHeads * kHeadDim},
                          {"qkv fused", kHidden, kHidden + 2 * kKvHeads * kHeadDim},
                          {"gate / up", kHidden, kInter},
                          {"gate+up fused", kHidden, 2 * kInter},
                          {"down_proj", kInter, kHidden},
                          {"lm_head", kHidden, kVocab}};
  std::printf("\n[2] GEMV, M = 1, bf16 (weights rotate through >= 512 MiB; median per launch)\n");
  std::printf("%-16s %6s %6s %7s | %9s %8s | %9s %8s | %6s %s\n", "shape", "K", "N", "MiB",
              "cuBLASLt", "GB/s", "own GEMV", "GB/s", "%copy", "auto");
  for (const Shape &sh : shapes) {
    const size_t wElems = size_t(sh.k * sh.n), wBytes = wElems * 2;
    const int copies = int(std::max<size_t>(2, ((size_t(512) << 20) + wBytes - 1) / wBytes));
    DeviceBuffer w = randomBf16(wElems * copies, 7);
    DeviceBuffer x = randomBf16(size_t(sh.k), 8), y(size_t(sh.n) * 2);
    const int launches = std::max(copies, 24);
    double us[2];
    for (int p = 0; p < 2; ++p) {
      Blas::LinearArgs a = oneRowLinear(DType::bf16, x.get(), w.get(), y.get(), sh.k, sh.n);
      a.path = p == 0 ? Blas::Path::cublasLt : Blas::Path::gemv;
      a.constantWeight = true;
      blas.linear(s, a); // plan (heuristic) outside the capture
      checkCuda(cudaStreamSynchronize(s), "warm-up");
      const double ms = graphMs(s, [&] {
        for (int i = 0; i < launches; ++i) {
          a.w = w.as<uint16_t>() + size_t(i % copies) * wElems;
          blas.linear(s, a);
        }
      });
      us[p] = ms * 1e3 / launches;
    }
    const bool autoGemv =
        blas.choosePath(oneRowLinear(DType::bf16, x.get(), w.get(), y.get(), sh.k, sh.n)) ==
        Blas::Path::gemv;
    const double gb0 = double(wBytes) / (us[0] * 1e-6) / 1e9,
                 gb1 = double(wBytes) / (us[1] * 1e-6) / 1e9;
    std::printf("%-16s %6lld %6lld %7.2f | %7.2fus %8.0f | %7.2fus %8.0f | %5.0f%% %s\n",
                sh.name, (long long)sh.k, (long long)sh.n, double(wBytes) / (1 << 20), us[0],
                gb0, us[1], gb1, 100.0 * std::max(gb0, gb1) / copyBw,
                autoGemv ? "gemv" : "cublasLt");
  }
}

void benchDecodeGemms(cudaStream_t s, Blas &blas, double copyBw) {
  struct W {
    int64_t k, n;
  };
  std::vector<W> mats;
  for (int l = 0; l < kLayers; ++l)
    for (W w : {W{kHidden, kHidden}, W{kHidden, kKvHeads * kHeadDim}, W{kHidden, kKvHeads * kHeadDim},
                W{kHidden, kHidden}, W{kHidden, kInter}, W{kHidden, kInter}, W{kInter, kHidden}})
      mats.push_back(w);
  mats.push_back({kHidden, kVocab});
  size_t total = 0;
  for (W w : mats)
    total += size_t(w.k * w.n);
  DeviceBuffer weights = randomBf16(total, 9);
  DeviceBuffer x = randomBf16(kInter, 10), y(size_t(kVocab) * 2);
  std::printf("\n[3] one decode step's GEMMs (22 layers x 7 + lm_head = %zu launches, %.0f MiB "
              "bf16) in one CUDA graph\n",
              mats.size(), double(total) * 2 / (1 << 20));
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
  a.qHeads = kHeads;
  a.kvHeads = kKvHeads;
  a.headDim = kHeadDim;
  a.q = q;
  a.qStrideB = qStrideB;
  a.qStrideH = kHeadDim;
  a.out = out;
  a.outStrideB = kHeads * kHeadDim;
  a.outStrideH = kHeadDim;
  a.cache = cache;
  a.lens = lens;
  a.scale = 0.125f;
  a.maxSplits = maxSplits;
  a.scratch = scratch;
  return a;
}

void benchDecodeAttention(cudaStream_t s, double copyBw) {
  const int64_t cap = 4096;
  const size_t perLayer = size_t(kKvHeads * cap * kHeadDim);
  DeviceBuffer k = randomBf16(perLayer * kLayers, 11), v = randomBf16(perLayer * kLayers, 12);
  DeviceBuffer q = randomBf16(size_t(kHeads * kHeadDim), 13), out(size_t(kHeads * kHeadDim) * 2);
  DeviceBuffer lens = uploadVector(std::vector<int32_t>{128});
  std::printf("\n[4] decode attention, bf16, 32/4 heads, head dim 64, capacity 4096, one launch "
              "per layer (22 layers' caches), graph captured once per split setting\n");
  std::printf("%8s | %10s %8s | %10s %8s | %10s %8s\n", "KV len", "auto", "GB/s", "1 head/blk",
              "GB/s", "no split,8", "GB/s");
  const int autoSplits = decodeAttentionDefaultSplits(1, kHeads, kKvHeads, kHeadDim, cap);
  const std::vector<int64_t> lengths = {128, 256, 512, 1024, 2048, 4096};
  std::vector<std::vector<double>> us(3, std::vector<double>(lengths.size()));
  for (int variant = 0; variant < 3; ++variant) {
    const int splits = variant == 2 ? 1 : autoSplits;
    const ScratchSize need = decodeAttentionScratch(1, kHeads, kKvHeads, kHeadDim, splits);
    DeviceBuffer partials(std::max<size_t>(1, need.partialFloats) * 4),
        counters(std::max<size_t>(1, need.counterCount) * 4);
    checkCuda(cudaMemset(counters.get(), 0, counters.bytes()), "memset");
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    checkCuda(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "begin capture");
    for (int l = 0; l < kLayers; ++l) {
      DecodeAttentionArgs a = llavaDecodeArgs(
          q.get(), kHeads * kHeadDim, out.get(),
          {k.as<uint16_t>() + l * perLayer, v.as<uint16_t>() + l * perLayer, 1, kKvHeads, cap,
           kHeadDim},
          lens.as<int32_t>(), splits,
          {partials.as<float>(), need.partialFloats, counters.as<unsigned>(), need.counterCount});
      a.headsPerBlock = variant == 0 ? 0 : variant == 1 ? 1 : 8;
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
      us[variant][li] = ms[ms.size() / 2] * 1e3 / kLayers;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }
  for (size_t li = 0; li < lengths.size(); ++li) {
    const double bytes = 2.0 * double(lengths[li]) * kKvHeads * kHeadDim * 2;
    std::printf("%8lld | %8.2fus %8.0f | %8.2fus %8.0f | %8.2fus %8.0f\n",
                (long long)lengths[li], us[0][li], bytes / (us[0][li] * 1e-6) / 1e9, us[1][li],
                bytes / (us[1][li] * 1e-6) / 1e9, us[2][li], bytes / (us[2][li] * 1e-6) / 1e9);
  }
  std::printf("  (up to %d splits of >= 64 keys; auto chooses the heads per block: 8 at this "
              "capacity; copy bandwidth %.0f GB/s)\n",
              autoSplits, copyBw);
}

void benchPrefillAttention(cudaStream_t s) {
  struct Case {
    const char *name;
    int64_t batch, qHeads, kvHeads, len;
    bool causal;
  };
  const Case cases[] = {{"decoder prompt 256", 1, 32, 4, 256, true},
                        {"decoder prompt 1024", 1, 32, 4, 1024, true},
                        {"decoder prompt 4096", 1, 32, 4, 4096, true},
                        {"CLIP B/16 224px b=1", 1, 12, 12, 197, false},
                        {"CLIP B/16 224px b=8", 8, 12, 12, 197, false}};
  std::printf("\n[5] prefill attention, bf16, head dim 64 (FMA kernel, no tensor cores): "
              "automatic rows per block (16 when the grid is small) and 32 forced\n");
  std::printf("%-22s %10s %9s | %10s %9s\n", "shape", "auto", "TFLOP/s", "32 rows", "TFLOP/s");
  for (const Case &c : cases) {
    const size_t qn = size_t(c.batch * c.qHeads * c.len * kHeadDim);
    const size_t kn = size_t(c.batch * c.kvHeads * c.len * kHeadDim);
    DeviceBuffer q = randomBf16(qn, 14), k = randomBf16(kn, 15), v = randomBf16(kn, 16),
                 out(qn * 2);
    PrefillAttentionArgs a;
    a.dtype = DType::bf16;
    a.batch = c.batch;
    a.qHeads = c.qHeads;
    a.kvHeads = c.kvHeads;
    a.qLen = a.kvLen = c.len;
    a.headDim = kHeadDim;
    a.q = {q.get(), c.qHeads * c.len * kHeadDim, c.len * kHeadDim, kHeadDim};
    a.k = {k.get(), c.kvHeads * c.len * kHeadDim, c.len * kHeadDim, kHeadDim};
    a.v = {v.get(), c.kvHeads * c.len * kHeadDim, c.len * kHeadDim, kHeadDim};
    a.out = out.get();
    a.outStrideB = c.qHeads * c.len * kHeadDim;
    a.outStrideH = c.len * kHeadDim;
    a.outStrideS = kHeadDim;
    a.scale = 0.125f;
    a.causal = c.causal;
    const double ms = graphMs(s, [&] { prefillAttention(s, a); }, 7);
    a.rowsPerBlock = 32;
    const double ms32 = graphMs(s, [&] { prefillAttention(s, a); }, 7);
    const double flops = 4.0 * c.batch * c.qHeads * double(c.len) * c.len * kHeadDim *
                         (c.causal ? 0.5 : 1.0);
    std::printf("%-22s %8.3fms %9.1f | %8.3fms %9.1f\n", c.name, ms,
                flops / (ms * 1e-3) / 1e12, ms32, flops / (ms32 * 1e-3) / 1e12);
  }
}

/// The small launches of one decoder layer at batch-1 decode, 22 layers in one graph:
/// residual-add + RMSNorm twice, rotary on q and k, KV append, SwiGLU; per layer.
void benchDecodeSmallKernels(cudaStream_t s) {
  const int64_t cap = 4096;
  DeviceBuffer x = randomBf16(kHidden, 17), res = randomBf16(kHidden, 18),
               y = randomBf16(kHidden, 19), w = randomBf16(kHidden, 20),
               q = randomBf16(kHeads * kHeadDim, 21), kv = randomBf16(2 * kKvHeads * kHeadDim, 22),
               gu = randomBf16(2 * kInter, 23), act = randomBf16(kInter, 24);
  DeviceBuffer kc = randomBf16(size_t(kKvHeads * cap * kHeadDim), 25),
               vc = randomBf16(size_t(kKvHeads * cap * kHeadDim), 26);
  DeviceBuffer lens = uploadVector(std::vector<int32_t>{1000});
  std::vector<float> inv(kHeadDim / 2);
  for (int64_t i = 0; i < kHeadDim / 2; ++i)
    inv[i] = float(std::pow(10000.0, -2.0 * double(i) / kHeadDim));
  DeviceBuffer invFreq = uploadVector(inv);
  auto rope = [&](void *t, int64_t heads) {
    RotaryArgs a;
    a.dtype = DType::bf16;
    a.x = a.y = t;
    a.batch = 1;
    a.heads = heads;
    a.seq = 1;
    a.headDim = kHeadDim;
    a.xStrideB = a.yStrideB = heads * kHeadDim;
    a.xStrideH = a.yStrideH = kHeadDim;
    a.xStrideS = a.yStrideS = heads * kHeadDim;
    a.rotaryDim = kHeadDim;
    a.startPositions = lens.as<int32_t>();
    a.invFreq = invFreq.as<float>();
    rotary(s, a);
  };
  const KvCacheView cache{kc.get(), vc.get(), 1, kKvHeads, cap, kHeadDim};
  const double ms = graphMs(s, [&] {
    for (int l = 0; l < kLayers; ++l) {
      rmsNorm(s, DType::bf16, x.get(), res.get(), res.get(), w.get(), DType::bf16, y.get(), 1,
              kHidden, 1e-5f, 0.0f);
      rope(q.get(), kHeads);
      rope(kv.get(), kKvHeads);
      kvCacheAppend(s, DType::bf16, cache, kv.get(), kv.as<uint16_t>() + kKvHeads * kHeadDim, 1,
                    kKvHeads * kHeadDim, kHeadDim, kHeadDim, lens.as<int32_t>(), nullptr);
      rmsNorm(s, DType::bf16, x.get(), res.get(), res.get(), w.get(), DType::bf16, y.get(), 1,
              kHidden, 1e-5f, 0.0f);
      swiglu(s, DType::bf16, gu.get(), 2 * kInter, gu.as<uint16_t>() + kInter, 2 * kInter,
             act.get(), kInter, 1, kInter);
    }
  });
  std::printf("\n[6] small decode kernels (2x add+RMSNorm, 2x rotary, KV append, SwiGLU = 6 "
              "launches) per layer, 22 layers in one graph: %.2f us per layer, %.2f us per "
              "launch\n",
              ms * 1e3 / kLayers, ms * 1e3 / (kLayers * 6));
}

/// One whole batch-1 decode step of llava-1b's decoder built from the library's launches,
/// as the executor issues them (per layer: add+RMSNorm, QKV projection, rotary on q and
/// k, KV append, decode attention, output projection, add+RMSNorm, gate+up projection,
/// SwiGLU, down projection; then the final norm, lm_head, argmax and the length advance),
/// in one CUDA graph, at KV length 300; with programmatic dependent launch off and on,
/// with the SwiGLU and the RMSNorms fused into the GEMVs that read them, and with the
/// rotary and the KV append done by the attention launch (a fused decode step).
void benchDecodeStep(cudaStream_t s, Blas &blas, double copyBw) {
  const int64_t cap = 1024, qkvN = kHidden + 2 * kKvHeads * kHeadDim;
  const size_t perLayer = size_t(kHidden * qkvN + kHidden * kHidden + kHidden * 2 * kInter +
                                 kInter * kHidden);
  DeviceBuffer weights = randomBf16(perLayer * kLayers + size_t(kHidden * kVocab), 30);
  DeviceBuffer norm = randomBf16(kHidden, 31), x = randomBf16(kHidden, 32),
                      res = randomBf16(kHidden, 33), h = randomBf16(kHidden, 34),
                      sum = randomBf16(kHidden, 42),
                      qkv = randomBf16(qkvN, 35), attn = randomBf16(kHidden, 36),
                      gu = randomBf16(2 * kInter, 37), act = randomBf16(kInter, 38),
                      logits = randomBf16(kVocab, 39), token(8);
  DeviceBuffer kc = randomBf16(size_t(kLayers * kKvHeads * cap * kHeadDim), 40),
                      vc = randomBf16(size_t(kLayers * kKvHeads * cap * kHeadDim), 41);
  DeviceBuffer lens = uploadVector(std::vector<int32_t>{300});
  std::vector<float> inv(kHeadDim / 2);
  for (int64_t i = 0; i < kHeadDim / 2; ++i)
    inv[i] = float(std::pow(10000.0, -2.0 * double(i) / kHeadDim));
  DeviceBuffer invFreq = uploadVector(inv);
  // The fused step's rotary table (one row; its values do not change the timing).
  DeviceBuffer cosRow = uploadVector(std::vector<float>(kHeadDim, 0.6f)),
               sinRow = uploadVector(std::vector<float>(kHeadDim, 0.8f));
  const int splits = decodeAttentionDefaultSplits(1, kHeads, kKvHeads, kHeadDim, cap);
  const ScratchSize need = decodeAttentionScratch(1, kHeads, kKvHeads, kHeadDim, splits);
  DeviceBuffer partials(std::max<size_t>(1, need.partialFloats) * 4),
      counters(std::max<size_t>(1, need.counterCount) * 4);
  checkCuda(cudaMemset(counters.get(), 0, counters.bytes()), "memset");
  int fuse = 0; // 0: no fused inputs; 1: SwiGLU into down; 2: and the RMSNorms; 3: and the step
  auto linear = [&](const void *in, const uint16_t *w, void *out, int64_t k, int64_t n,
                    GemvInput input = {}) {
    Blas::LinearArgs a = oneRowLinear(DType::bf16, in, w, out, k, n);
    a.input = input;
    a.constantWeight = true;
    blas.linear(s, a);
  };
  // add + RMSNorm of x and res into h, then h W; with fuse = 2 one GEMV does both.
  auto normLinear = [&](const void *residual, void *sumOut, const uint16_t *w, void *out,
                        int64_t n) {
    if (fuse < 2) {
      rmsNorm(s, DType::bf16, x.get(), residual, sumOut, norm.get(), DType::bf16, h.get(), 1,
              kHidden, 1e-5f, 0.0f);
      linear(h.get(), w, out, kHidden, n);
      return;
    }
    GemvInput in;
    in.rmsNorm = true;
    in.residual = residual;
    in.scale = norm.get();
    in.eps = 1e-5f;
    in.sumOut = sumOut;
    linear(x.get(), w, out, kHidden, n, in);
  };
  auto rope = [&](int64_t offset, int64_t heads) {
    RotaryArgs a;
    a.dtype = DType::bf16;
    a.x = a.y = qkv.as<uint16_t>() + offset;
    a.batch = 1;
    a.heads = heads;
    a.seq = 1;
    a.headDim = kHeadDim;
    a.xStrideB = a.yStrideB = a.xStrideS = a.yStrideS = qkvN;
    a.xStrideH = a.yStrideH = kHeadDim;
    a.rotaryDim = kHeadDim;
    a.startPositions = lens.as<int32_t>();
    a.invFreq = invFreq.as<float>();
    rotary(s, a);
  };
  auto body = [&] {
    const uint16_t *w = weights.as<uint16_t>();
    for (int l = 0; l < kLayers; ++l) {
      normLinear(res.get(), sum.get(), w, qkv.get(), qkvN);
      w += kHidden * qkvN;
      const size_t layerCache = size_t(l * kKvHeads * cap * kHeadDim);
      const KvCacheView cache{kc.as<uint16_t>() + layerCache, vc.as<uint16_t>() + layerCache, 1,
                              kKvHeads, cap, kHeadDim};
      const uint16_t *newK = qkv.as<uint16_t>() + kHidden, *newV = newK + kKvHeads * kHeadDim;
      if (fuse < 3) {
        rope(0, kHeads);
        rope(kHidden, kKvHeads);
        kvCacheAppend(s, DType::bf16, cache, newK, newV, 1, qkvN, kHeadDim, qkvN,
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
        a.newKStrideH = a.newVStrideH = kHeadDim;
        a.rotary = {cosRow.get(), sinRow.get(), DType::f32, kHeadDim, kHeadDim, 0, false};
      }
      decodeAttention(s, a);
      linear(attn.get(), w, x.get(), kHidden, kHidden);
      w += kHidden * kHidden;
      normLinear(res.get(), sum.get(), w, gu.get(), 2 * kInter);
      w += kHidden * 2 * kInter;
      if (fuse >= 1) {
        GemvInput in;
        in.up = gu.as<uint16_t>() + kInter;
        linear(gu.get(), w, x.get(), kInter, kHidden, in);
      } else {
        swiglu(s, DType::bf16, gu.get(), 2 * kInter, gu.as<uint16_t>() + kInter, 2 * kInter,
               act.get(), kInter, 1, kInter);
        linear(act.get(), w, x.get(), kInter, kHidden);
      }
      w += kInter * kHidden;
    }
    normLinear(res.get(), nullptr, w, logits.get(), kVocab);
    argmaxRows(s, DType::bf16, logits.get(), 1, kVocab, kVocab, token.as<int64_t>());
  };
  const double bytes = 2.0 * double(perLayer * kLayers + size_t(kHidden * kVocab));
  const double roofMs = bytes / (copyBw * 1e9) * 1e3;
  std::printf("\n[7] one whole decode step (22 layers x 11 launches + norm, lm_head, argmax; "
              "KV length 300) in one CUDA graph; roofline %.3f ms (%.0f MiB at %.0f GB/s)\n",
              roofMs, bytes / (1 << 20), copyBw);
  struct Variant {
    bool pdl;
    int fuse;
    const char *name;
  };
  const Variant variants[] = {{false, 0, "PDL off, no fused inputs"},
                              {true, 0, "PDL on,  no fused inputs"},
                              {true, 1, "PDL on,  SwiGLU in the down GEMV"},
                              {true, 2, "PDL on,  SwiGLU and RMSNorms in GEMVs"},
                              {true, 3, "PDL on,  and rotary + append in attention"}};
  for (const Variant &v : variants) {
    setProgrammaticDependentLaunch(v.pdl);
    fuse = v.fuse;
    body(); // cuBLASLt plans outside the capture
    checkCuda(cudaStreamSynchronize(s), "warm-up");
    const double ms = graphMs(s, body, 15);
    std::printf("  %-38s %7.3f ms  %6.0f tokens/s  %5.1f%% of roofline\n", v.name, ms, 1e3 / ms,
                100.0 * roofMs / ms);
  }
  setProgrammaticDependentLaunch(true);
}

} // namespace

int main() {
  try {
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
    benchGemv(s, blas, copyBw);
    benchDecodeGemms(s, blas, copyBw);
    benchDecodeAttention(s, copyBw);
    benchPrefillAttention(s);
    benchDecodeSmallKernels(s);
    benchDecodeStep(s, blas, copyBw);
    cudaStreamDestroy(s);
    return 0;
  } catch (const Error &e) {
    std::fprintf(stderr, "cuda_kernel_bench: %s\n", e.what());
    return 1;
  }
}
