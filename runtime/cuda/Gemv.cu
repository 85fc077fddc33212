//===- Gemv.cu - bandwidth-bound GEMV for batch-1 decode --------------------===//
//
// y[N] = act(x[K] W[K, N] + bias[N]) with W row-major [K, N] (the weight is read once,
// so the kernel is bound by memory bandwidth and latency). A block owns 64 columns and a
// chunk of K: 8 threads across the columns load 16 bytes (8 elements) each, so one row
// segment is a 128-byte line, and 32 threads down K interleave the rows; each thread
// keeps 8 loads in flight, and issues its first 8 before it stages its chunk of x in
// shared memory, so the two latencies overlap. The block sums its 32 row-partials in
// shared memory. When there are too few column tiles to fill the GPU, K is split over
// blocks (grid.y); each block then writes f32 partial sums and the last block of a column
// tile to arrive (an atomic counter, reset by that block) adds them in split order, so
// results are deterministic.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/Blas.h"
#include "runtime/cuda/DeviceUtil.cuh"

#include <algorithm>

namespace mm::rt::cuda {
namespace {

constexpr int kColThreads = 8;                       // threads across a tile's columns
constexpr int kRowThreads = 32;                      // threads down K
constexpr int kThreads = kColThreads * kRowThreads;  // 256
constexpr int kTileCols = kColThreads * 8;           // 64 columns per block
constexpr int kUnroll = 8;                           // loads in flight per thread
constexpr int kChunkQuantum = kRowThreads * kUnroll; // 256 rows
constexpr int kMaxChunk = 8192;                      // x chunk in shared memory: 32 KiB

struct GemvPlan {
  int tiles = 0, splits = 1, chunk = 0;
};

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

GemvPlan planGemv(int64_t n, int64_t k, size_t availablePartials) {
  GemvPlan p;
  p.tiles = int(ceilDiv(n, kTileCols));
  const int64_t minSplits = ceilDiv(k, kMaxChunk);
  const int64_t target = 4LL * multiprocessorCount(); // blocks to cover latency
  int64_t splits = std::max<int64_t>(1, ceilDiv(target, p.tiles));
  splits = std::min<int64_t>(splits, ceilDiv(k, kChunkQuantum));
  if (splits > 1 && size_t(splits) * size_t(n) > availablePartials)
    splits = std::max<int64_t>(1, int64_t(availablePartials / size_t(n)));
  splits = std::max(splits, minSplits);
  const int64_t chunk = ceilDiv(ceilDiv(k, splits), kChunkQuantum) * kChunkQuantum;
  p.chunk = int(std::min<int64_t>(chunk, kMaxChunk));
  p.splits = int(ceilDiv(k, p.chunk));
  return p;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    gemvKernel(const T *__restrict__ x, const T *__restrict__ w, const T *__restrict__ bias,
               T *__restrict__ y, int n, int k, int chunk, Activation act,
               float *__restrict__ partials, unsigned *__restrict__ counters) {
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
  loadRound(); // in flight while x is staged

  for (int i = threadIdx.x; i < kEnd - kBegin; i += kThreads)
    xs[i] = toF(x[kBegin + i]);
  __syncthreads();

  float acc[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
  while (kk < kEnd) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int row = kk + u * kRowThreads;
      if (row < kEnd) {
        const float xv = xs[row - kBegin];
#pragma unroll
        for (int j = 0; j < 8; ++j)
          acc[j] += xv * rawAt(raw[u], j);
      }
    }
    kk += kUnroll * kRowThreads;
    wp += kUnroll * step;
    if (kk < kEnd)
      loadRound();
  }
#pragma unroll
  for (int j = 0; j < 8; ++j)
    red[tr][tc * 8 + j] = acc[j];
  __syncthreads();

  const int col = tile * kTileCols + int(threadIdx.x);
  if (threadIdx.x < kTileCols && col < n) {
    float sum = 0.0f;
#pragma unroll 8
    for (int r = 0; r < kRowThreads; ++r)
      sum += red[r][threadIdx.x];
    if (splits == 1) {
      const float b = bias ? toF(bias[col]) : 0.0f;
      y[col] = fromF<T>(applyActivation(sum + b, act));
    } else {
      partials[int64_t(split) * n + col] = sum;
      __threadfence(); // publish the partial before this block is counted
    }
  }
  if (splits == 1)
    return;
  __syncthreads();
  if (threadIdx.x == 0)
    isLast = atomicAdd(&counters[tile], 1u) == unsigned(splits - 1);
  __syncthreads();
  if (!isLast)
    return;
  if (threadIdx.x < kTileCols && col < n) {
    float sum = 0.0f;
    for (int s = 0; s < splits; ++s)
      sum += __ldcg(&partials[int64_t(s) * n + col]);
    const float b = bias ? toF(bias[col]) : 0.0f;
    y[col] = fromF<T>(applyActivation(sum + b, act));
  }
  if (threadIdx.x == 0)
    counters[tile] = 0; // ready for the next launch
}

} // namespace

bool gemvSupported(DType dtype, const void *x, const void *w, const void *bias,
                   const void *y, int64_t n, int64_t k) {
  (void)bias;
  return isKernelFloat(dtype) && x && w && y && n > 0 && k > 0 && n % 8 == 0 &&
         n <= 2147483647LL && k <= 2147483647LL - kMaxChunk && aligned16(w);
}

GemvScratchSize gemvScratch(int64_t n, int64_t k, size_t availablePartialFloats) {
  GemvScratchSize s;
  if (n <= 0 || k <= 0)
    return s;
  const GemvPlan p = planGemv(n, k, availablePartialFloats);
  if (p.splits > 1) {
    s.partialFloats = size_t(p.splits) * size_t(n);
    s.counterCount = size_t(p.tiles);
  }
  return s;
}

void gemv(cudaStream_t stream, DType dtype, const void *x, const void *w, const void *bias,
          void *y, int64_t n, int64_t k, Activation act, const SplitScratch &scratch) {
  if (!gemvSupported(dtype, x, w, bias, y, n, k))
    fail("cuda gemv: unsupported call (", dtypeName(dtype), ", n = ", n, ", k = ", k,
         "; needs f32/f16/bf16, n a multiple of 8 and a 16-byte aligned weight)");
  const GemvPlan p = planGemv(n, k, scratch.partialCount);
  if (p.splits > 1 &&
      (size_t(p.splits) * size_t(n) > scratch.partialCount ||
       size_t(p.tiles) > scratch.counterCount || !scratch.partials || !scratch.counters))
    fail("cuda gemv: split scratch too small for n = ", n, ", k = ", k, " (needs ",
         size_t(p.splits) * size_t(n), " floats and ", p.tiles, " counters, has ",
         scratch.partialCount, " and ", scratch.counterCount, ")");
  const dim3 grid(unsigned(p.tiles), unsigned(p.splits));
  const size_t smem = size_t(p.chunk) * sizeof(float);
  MM_DISPATCH_FLOAT(dtype, "cuda gemv", {
    gemvKernel<scalar_t><<<grid, kThreads, smem, stream>>>(
        static_cast<const scalar_t *>(x), static_cast<const scalar_t *>(w),
        static_cast<const scalar_t *>(bias), static_cast<scalar_t *>(y), int(n), int(k),
        p.chunk, act, scratch.partials, scratch.counters);
  });
  checkLaunch("gemv");
}

} // namespace mm::rt::cuda
