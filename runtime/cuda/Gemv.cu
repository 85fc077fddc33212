//===- Gemv.cu - bandwidth-bound GEMV for batch-1 decode --------------------===//
//
// y[N] = act(x[K] W[K, N] + bias[N]) with W row-major [K, N] (the weight is read once,
// so the kernel is bound by memory bandwidth and latency). A block owns 64 columns and a
// chunk of K: 8 threads across the columns load 16 bytes (8 elements) each, so one row
// segment is a 128-byte line, and 32 threads down K interleave the rows; each thread
// keeps 8 loads in flight, and issues its first 8 before it stages its chunk of x in
// shared memory, so the two latencies overlap. For a weight uploaded at load
// (constantWeight) those first loads are issued before the kernel waits for the previous
// kernel (programmatic dependent launch), so they overlap its tail too. The block sums its
// 32 row-partials in shared memory. K is split over blocks (grid.y) as planGemv says: as
// many splits as fit in one wave of blocks, more where a block would read over 1024 rows. From 4 up to 16 splits, in a
// grid of at most 3 blocks per multiprocessor, the splits of a column tile form one
// thread-block cluster (sm_90;
// beyond 8, the non-portable cluster sizes the H100/H200 allow): each block leaves its 64
// sums in shared memory and the cluster's first block adds them in split order through
// distributed shared memory. Other splits (fewer than 4, more than 16: narrow outputs with
// a long K, or fuller grids such as the 7B's projections) go through global scratch: each
// block writes f32 partial sums and the last block of a column tile to arrive (an atomic
// counter, reset by that block) adds them in split order. Either way the results are
// deterministic.
//
// Fused inputs (GemvInput): the SwiGLU or GeGLU of x and up, or the RMSNorm of x (+ residual), is
// formed while the block stages its chunk of the input, and rounded to the element type
// as the swiglu / rmsNorm kernels store it. For the RMSNorm every block first sums s^2
// over the whole row in rmsNormKernel's order (8-element items, 256 threads, blockSum),
// and block (0, 0) also writes s to sumOut, so the fused and unfused results agree bit
// for bit.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/Blas.h"
#include "runtime/cuda/DeviceUtil.cuh"

#include <algorithm>

#include <cooperative_groups.h>

namespace mm::rt::cuda {
namespace {

namespace cg = cooperative_groups;

constexpr int kColThreads = 8;                       // threads across a tile's columns
constexpr int kRowThreads = 32;                      // threads down K
constexpr int kThreads = kColThreads * kRowThreads;  // 256
constexpr int kTileCols = kColThreads * 8;           // 64 columns per block
constexpr int kUnroll = 8;                           // loads in flight per thread
constexpr int kRound = kRowThreads * kUnroll;        // rows a block reads per round: 256
constexpr int kMaxChunk = 8192;                      // x chunk in shared memory: 32 KiB
constexpr int kMaxBlockRows = 4 * kRound;            // planGemv's longest chunk: 1024 rows
constexpr int64_t kMaxSplits = 65535;                // grid.y limit
// Blocks per multiprocessor planGemv sizes the grid for, and that the registers of the
// 16-bit kernels must let be resident (at most 64 per thread: the rolling loads of
// gemvKernel took 70-74 otherwise, 3 blocks); f32 weights need twice the load registers,
// and 2 resident blocks (without the bound, 106-110 registers; with 4, heavy spills), so
// their grids run in two waves of equal blocks.
constexpr int kBlocksPerMultiprocessor = 4;
template <typename T> constexpr int kResidentBlocks = sizeof(T) == 4 ? 2 : kBlocksPerMultiprocessor;
constexpr int kMaxClusterSplits = 16; // non-portable thread-block cluster size (sm_90)
// Fewer splits go through global scratch: on the H200 a cluster of 3 (the fused gate+up
// projection, N = 11264) took 16.7 us against 13.3 us (cuda_kernel_bench [2]).
constexpr int kMinClusterSplits = 4;
// ... and only for grids of at most 3 blocks per multiprocessor: fuller grids place
// clusters worse than single blocks. On the H200 (cuda_kernel_bench [2], one call, with
// and without clusters) llava-1b's grids of 256-352 blocks gain from clusters (o_proj
// 2048 x 2048 4.04 against 4.56 us, down 5632 x 2048 8.18 against 9.30, the fused step
// 0.898 against 0.925 ms) and the 7B's of 512-576 lose (o_proj 4096 x 4096 12.3 against
// 9.8 us, down 11008 x 4096 27.1 against 25.6, the fused step 4.183 against 3.970 ms).
constexpr int kMaxClusterBlocksPerMultiprocessor = 3;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool clusterSplits(int64_t splits) {
  return splits >= kMinClusterSplits && splits <= kMaxClusterSplits;
}

/// The plan with `splits` chunks of K (between ceil(K / 8192) and 65535), each
/// ceil(K / splits) rounded up to `quantum` rows (at most 8192), and the splits that
/// leaves. n, k > 0 and k <= 65535 * 8192 (gemvSupported).
GemvPlan planWithSplits(int64_t n, int64_t k, int64_t splits, int64_t quantum) {
  GemvPlan p;
  p.tiles = int(ceilDiv(n, kTileCols));
  splits = std::clamp<int64_t>(splits, ceilDiv(k, kMaxChunk), std::min(k, kMaxSplits));
  const int64_t chunk = ceilDiv(ceilDiv(k, splits), quantum) * quantum;
  p.chunk = int(std::min<int64_t>(chunk, kMaxChunk));
  p.splits = int(ceilDiv(k, p.chunk));
  return p;
}

} // namespace

GemvPlan planGemv(int64_t n, int64_t k, size_t availablePartialFloats, int multiprocessors) {
  if (n <= 0 || k <= 0 || k > kMaxSplits * kMaxChunk)
    fail("cuda gemv plan: bad shape (n = ", n, ", k = ", k, ")");
  // As many splits as fit in one wave of blocks (4 per multiprocessor), and more where a
  // block would read more than 4 rounds (1024 rows): short blocks balance over the multiprocessors as they finish,
  // and the next kernel's blocks (programmatic dependent launch) prefetch into the slots
  // they free. Chunks are whole rounds. Measured inside the H200's fused decode step
  // (cuda_kernel_bench ... plans, [9]; runtime/cuda/README.md): for the 7B, qkv 4 x 1024
  // rows was the fastest of 16 plans (3.865 ms against 3.918 for one wave of 2 x 2048),
  // gate+up 4 x 1024 of 6 (3.867 against 3.902 for 1 x 4096), o_proj 8 x 512 of 31;
  // llava-1b's fastest plans were the ones this rule gives, except down (16 x 352, 0.876
  // against 0.890 ms) and lm_head (1 x 2048, 0.885 against 0.892).
  const int64_t slots = int64_t(kBlocksPerMultiprocessor) * std::max(1, multiprocessors);
  const int64_t tiles = ceilDiv(n, kTileCols);
  const int64_t splits = std::max(ceilDiv(k, kMaxBlockRows), slots / tiles);
  GemvPlan p = planWithSplits(n, k, splits, kRound);
  p.cluster = clusterSplits(p.splits) &&
              int64_t(p.tiles) * p.splits <=
                  int64_t(kMaxClusterBlocksPerMultiprocessor) * multiprocessors;
  // Splits reduced through scratch must fit it: fewer splits, in a cluster when they
  // can be (K > 16 * 8192 with a scratch too small still needs more: gemvScratch says).
  if (!p.cluster && p.splits > 1 && size_t(p.splits) * size_t(n) > availablePartialFloats) {
    p = planWithSplits(n, k, std::max<int64_t>(1, int64_t(availablePartialFloats / size_t(n))),
                       kRound);
    p.cluster = clusterSplits(p.splits);
  }
  return p;
}

GemvPlan gemvPlanWithSplits(int64_t n, int64_t k, int splits, int rowQuantum, bool cluster) {
  if (n <= 0 || k <= 0 || splits < 1 || rowQuantum < 1)
    fail("cuda gemv plan: bad shape or splits (n = ", n, ", k = ", k, ", splits = ", splits,
         ", quantum = ", rowQuantum, ")");
  if (k > kMaxSplits * kMaxChunk)
    fail("cuda gemv plan: k = ", k, " is more than 65535 splits of 8192 rows");
  GemvPlan p = planWithSplits(n, k, splits, rowQuantum);
  if (cluster && !clusterSplits(p.splits))
    fail("cuda gemv plan: a cluster takes ", kMinClusterSplits, " to ", kMaxClusterSplits,
         " splits, not ", p.splits);
  p.cluster = cluster;
  return p;
}

namespace {

/// The input vector's element i (of K) as the unfused kernels would have stored it.
/// `inv` is the RMSNorm's 1 / sqrt(mean(s^2) + eps).
template <typename T>
__device__ __forceinline__ float inputAt(const T *x, const GemvInput &in, int i, float inv) {
  float v = toF(x[i]);
  if (in.up)
    return toF(fromF<T>(gluF(v, toF(static_cast<const T *>(in.up)[i]), in.gate)));
  if (!in.rmsNorm)
    return v;
  if (in.residual)
    v = toF(fromF<T>(v + toF(static_cast<const T *>(in.residual)[i])));
  const float g = in.scaleF32 ? static_cast<const float *>(in.scale)[i]
                              : toF(static_cast<const T *>(in.scale)[i]);
  return toF(fromF<T>(v * inv * (in.scaleOffset + g)));
}

/// The RMSNorm's 1 / sqrt(mean(s^2) + eps) over all k elements, summed as rmsNormKernel
/// sums (per thread over 8-element items, then blockSum); block (0, 0) stores s to sumOut.
template <typename T>
__device__ float inverseRms(const T *x, const GemvInput &in, int k, float *red) {
  const bool store = in.sumOut && blockIdx.x == 0 && blockIdx.y == 0;
  float sq = 0.0f;
  for (int j = threadIdx.x; j < k / 8; j += kThreads) {
    float s[8];
    load8(x + j * 8, s);
    if (in.residual) {
      float r[8];
      load8(static_cast<const T *>(in.residual) + j * 8, r);
#pragma unroll
      for (int e = 0; e < 8; ++e)
        s[e] = toF(fromF<T>(s[e] + r[e]));
    }
    if (store)
      store8(static_cast<T *>(in.sumOut) + j * 8, s);
#pragma unroll
    for (int e = 0; e < 8; ++e)
      sq += s[e] * s[e];
  }
  return rsqrtf(blockSum(sq, red) / float(k) + in.eps);
}

template <typename T, bool kCluster>
__global__ void __launch_bounds__(kThreads, kResidentBlocks<T>)
    gemvKernel(const T *__restrict__ x, GemvInput in, const T *__restrict__ w,
               const T *__restrict__ bias, T *__restrict__ y, int n, int k, int chunk,
               Activation act, float *__restrict__ partials, unsigned *__restrict__ counters,
               bool constantWeight) {
  extern __shared__ float xs[]; // the block's chunk of x, as f32
  __shared__ float red[kRowThreads][kTileCols + 1];
  __shared__ bool isLast;
  const int tc = threadIdx.x % kColThreads, tr = threadIdx.x / kColThreads;
  const int tile = blockIdx.x, split = blockIdx.y, splits = gridDim.y;
  const int col0 = tile * kTileCols + tc * 8;
  const int kBegin = split * chunk, kEnd = min(k, kBegin + chunk);

  const bool active = col0 < n; // n % 8 == 0: a thread's 8 columns are all in or all out
  const int64_t step = int64_t(kRowThreads) * n;
  const T *wp = w + int64_t(kBegin + tr) * n + col0;
  int kk = kBegin + tr; // this thread's first row of the current round
  Raw8<T> raw[kUnroll];
  auto loadRound = [&] {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (active && kk + u * kRowThreads < kEnd)
        loadRaw8(wp + u * step, raw[u]);
      else
        raw[u] = Raw8<T>{};
    }
  };
  if (constantWeight)
    loadRound(); // weights only: in flight while the previous kernel finishes and x is staged
  gridDependencySync();
  if (!constantWeight)
    loadRound(); // a weight computed in this call (e.g. a transposed view made contiguous)

  __shared__ float normRed[32];
  const float inv = in.rmsNorm ? inverseRms(x, in, k, normRed) : 0.0f;
  for (int i = threadIdx.x; i < kEnd - kBegin; i += kThreads)
    xs[i] = inputAt(x, in, kBegin + i, inv);
  __syncthreads();

  // Each load is replaced by the next round's as soon as it is used, so kUnroll loads per
  // thread stay in flight up to the last round.
  float acc[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
  while (kk < kEnd) {
    const int next = kk + kUnroll * kRowThreads;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int row = kk + u * kRowThreads;
      if (row < kEnd) {
        const float xv = xs[row - kBegin];
#pragma unroll
        for (int j = 0; j < 8; ++j)
          acc[j] += xv * rawAt(raw[u], j);
      }
      if (active && next + u * kRowThreads < kEnd)
        loadRaw8(wp + (kUnroll + u) * step, raw[u]);
    }
    kk = next;
    wp += kUnroll * step;
  }
#pragma unroll
  for (int j = 0; j < 8; ++j)
    red[tr][tc * 8 + j] = acc[j];
  __syncthreads();

  const int col = tile * kTileCols + int(threadIdx.x);
  float sum = 0.0f;
  if (threadIdx.x < kTileCols) {
#pragma unroll 8
    for (int r = 0; r < kRowThreads; ++r)
      sum += red[r][threadIdx.x];
  }
  auto finish = [&](float total) {
    const float b = bias ? toF(bias[col]) : 0.0f;
    y[col] = fromF<T>(applyActivation(total + b, act));
  };
  if (splits == 1) {
    if (threadIdx.x < kTileCols && col < n)
      finish(sum);
    return;
  }
  if constexpr (kCluster) {
    // The cluster is this tile's `splits` blocks, ranked by split (cluster dims 1 x splits).
    __shared__ float sums[kTileCols];
    if (threadIdx.x < kTileCols)
      sums[threadIdx.x] = sum;
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync(); // every block's sums are written
    if (cluster.block_rank() == 0 && threadIdx.x < kTileCols && col < n) {
      float total = 0.0f;
      for (int s = 0; s < splits; ++s)
        total += cluster.map_shared_rank(sums, s)[threadIdx.x];
      finish(total);
    }
    cluster.sync(); // keep every block's shared memory until the first block has read it
  } else {
    if (threadIdx.x < kTileCols && col < n) {
      partials[int64_t(split) * n + col] = sum;
      __threadfence(); // publish the partial before this block is counted
    }
    __syncthreads();
    if (threadIdx.x == 0)
      isLast = atomicAdd(&counters[tile], 1u) == unsigned(splits - 1);
    __syncthreads();
    if (!isLast)
      return;
    if (threadIdx.x < kTileCols && col < n) {
      float total = 0.0f;
      for (int s = 0; s < splits; ++s)
        total += __ldcg(&partials[int64_t(s) * n + col]);
      finish(total);
    }
    if (threadIdx.x == 0)
      counters[tile] = 0; // ready for the next launch
  }
}

} // namespace

bool gemvSupported(DType dtype, const void *x, const void *w, const void *bias,
                   const void *y, int64_t n, int64_t k) {
  (void)bias;
  return isKernelFloat(dtype) && x && w && y && n > 0 && k > 0 && n % 8 == 0 &&
         n <= 2147483647LL && k <= kMaxSplits * kMaxChunk && aligned16(w);
}

GemvScratchSize gemvScratch(const GemvPlan &p, int64_t n) {
  GemvScratchSize s;
  if (p.splits > 1 && !p.cluster) {
    s.partialFloats = size_t(p.splits) * size_t(n);
    s.counterCount = size_t(p.tiles);
  }
  return s;
}

bool gemvInputSupported(const void *x, int64_t k, const GemvInput &in) {
  if (!in.rmsNorm)
    return true;
  return in.scale && !in.up && k % 8 == 0 && aligned16(x) &&
         (!in.residual || aligned16(in.residual)) && (!in.sumOut || aligned16(in.sumOut)) &&
         in.sumOut != x && (!in.residual || in.sumOut != in.residual);
}

void gemv(cudaStream_t stream, DType dtype, const void *x, const void *w, const void *bias,
          void *y, int64_t n, int64_t k, Activation act, const SplitScratch &scratch,
          const GemvInput &input, bool constantWeight, const GemvPlan *plan) {
  if (!gemvSupported(dtype, x, w, bias, y, n, k))
    fail("cuda gemv: unsupported call (", dtypeName(dtype), ", n = ", n, ", k = ", k,
         "; needs f32/f16/bf16, n a multiple of 8 and a 16-byte aligned weight)");
  if (!gemvInputSupported(x, k, input))
    fail("cuda gemv: a fused input is SwiGLU/GeGLU or RMSNorm, not both; an RMSNorm input needs a "
         "scale, k a multiple of 8 (k = ", k, ") and 16-byte aligned x, residual and sum");
  const GemvPlan p = plan ? *plan : planGemv(n, k, scratch.partialCount, multiprocessorCount());
  if (p.tiles != ceilDiv(n, kTileCols) || p.chunk < 1 || p.chunk > kMaxChunk ||
      p.splits != ceilDiv(k, p.chunk) || p.splits > kMaxSplits ||
      (p.cluster && !clusterSplits(p.splits)))
    fail("cuda gemv: the plan (", p.tiles, " tiles, ", p.splits, " splits of ", p.chunk,
         " rows", p.cluster ? ", in clusters" : "", ") does not cover n = ", n, ", k = ", k,
         " (or a cluster is not 4 to 16 splits)");
  if (p.splits > 1 && !p.cluster &&
      (size_t(p.splits) * size_t(n) > scratch.partialCount ||
       size_t(p.tiles) > scratch.counterCount || !scratch.partials || !scratch.counters))
    fail("cuda gemv: split scratch too small for n = ", n, ", k = ", k, " (needs ",
         size_t(p.splits) * size_t(n), " floats and ", p.tiles, " counters, has ",
         scratch.partialCount, " and ", scratch.counterCount, ")");
  const dim3 grid(unsigned(p.tiles), unsigned(p.splits));
  const size_t smem = size_t(p.chunk) * sizeof(float);
  MM_DISPATCH_FLOAT(dtype, "cuda gemv", {
    const auto *xs = static_cast<const scalar_t *>(x);
    const auto *ws = static_cast<const scalar_t *>(w);
    const auto *bs = static_cast<const scalar_t *>(bias);
    auto *ys = static_cast<scalar_t *>(y);
    if (p.cluster) {
      // Clusters beyond 8 blocks need the opt-in (once per kernel).
      static const cudaError_t nonPortable = cudaFuncSetAttribute(
          gemvKernel<scalar_t, true>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
      checkCuda(nonPortable, "cuda gemv: allowing clusters of up to 16 blocks");
      launchClusterKernel(gemvKernel<scalar_t, true>, grid, dim3(1, unsigned(p.splits)), kThreads,
                          smem, stream, xs, input, ws, bs, ys, int(n), int(k), p.chunk, act,
                          scratch.partials, scratch.counters, constantWeight);
    } else
      launchKernel(gemvKernel<scalar_t, false>, grid, kThreads, smem, stream, xs, input, ws, bs,
                   ys, int(n), int(k), p.chunk, act, scratch.partials, scratch.counters,
                   constantWeight);
  });
  checkLaunch("gemv");
}

} // namespace mm::rt::cuda
