//===- Argmax.cu - greedy sampling: argmax of each row ---------------------===//
//
// One 1024-thread block per row (a vocabulary of 150k bf16 logits is 300 KB: enough
// loads in flight to keep one SM busy, and a decode step has one row per sequence).
// Each thread keeps the best (value, index) of its columns; a warp-shuffle and shared-
// memory reduction picks the block's best. "Better" is: larger value, or equal value and
// smaller index; the start value (-inf, INT64_MAX) loses to every non-NaN entry, and a
// NaN entry is never better (both comparisons are false), so NaN is skipped and the
// first maximum wins whatever order the threads visit the columns in.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/DeviceUtil.cuh"
#include "runtime/cuda/Kernels.h"

#include <cmath>

namespace mm::rt::cuda {
namespace {

constexpr int kThreads = 1024;
constexpr int64_t kNone = INT64_MAX; ///< index of "no non-NaN value seen"

__device__ __forceinline__ void keepBetter(float v, int64_t i, float &bestV, int64_t &bestI) {
  if (v > bestV || (v == bestV && i < bestI)) {
    bestV = v;
    bestI = i;
  }
}

/// The block's best (value, index) in thread 0 (blockDim.x a multiple of 32). `sv`, `si`
/// are 32 entries of shared memory.
__device__ __forceinline__ int64_t blockArgBest(float v, int64_t i, float *sv, int64_t *si) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    keepBetter(__shfl_xor_sync(0xffffffffu, v, off), __shfl_xor_sync(0xffffffffu, i, off), v,
               i);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) {
    sv[warp] = v;
    si[warp] = i;
  }
  __syncthreads();
  if (warp != 0)
    return kNone;
  const int warps = blockDim.x >> 5;
  v = lane < warps ? sv[lane] : -INFINITY;
  i = lane < warps ? si[lane] : kNone;
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    keepBetter(__shfl_xor_sync(0xffffffffu, v, off), __shfl_xor_sync(0xffffffffu, i, off), v,
               i);
  return i;
}

/// out[blockIdx.x] = argmax of row blockIdx.x. VEC: the row start is 16-byte aligned, and
/// the columns below cols/8*8 are read 8 at a time.
template <typename T, bool VEC>
__global__ void __launch_bounds__(kThreads)
    argmaxKernel(const T *__restrict__ x, int64_t cols, int64_t rowStride,
                 int64_t *__restrict__ out) {
  gridDependencySync();
  __shared__ float sv[32];
  __shared__ int64_t si[32];
  const T *row = x + int64_t(blockIdx.x) * rowStride;
  float bestV = -INFINITY;
  int64_t bestI = kNone;
  int64_t tail = 0; // first column of the scalar loop
  if (VEC) {
    const int64_t groups = cols / 8;
    for (int64_t g = threadIdx.x; g < groups; g += blockDim.x) {
      float v[8];
      load8(row + 8 * g, v);
#pragma unroll
      for (int j = 0; j < 8; ++j)
        keepBetter(v[j], 8 * g + j, bestV, bestI);
    }
    tail = groups * 8;
  }
  for (int64_t c = tail + threadIdx.x; c < cols; c += blockDim.x)
    keepBetter(toF(row[c]), c, bestV, bestI);
  const int64_t best = blockArgBest(bestV, bestI, sv, si);
  if (threadIdx.x == 0)
    out[blockIdx.x] = best == kNone ? 0 : best;
}

} // namespace

void argmaxRows(cudaStream_t stream, DType dtype, const void *x, int64_t rows, int64_t cols,
                int64_t rowStride, int64_t *out) {
  const char *k = "cuda argmaxRows";
  if (rows < 0 || rows > INT32_MAX)
    fail(k, ": bad row count ", rows);
  requireKernelFloat(dtype, k);
  if (rows == 0)
    return;
  if (cols <= 0 || rowStride < cols)
    fail(k, ": bad row shape (", cols, " columns, row stride ", rowStride, ")");
  if (!x || !out)
    fail(k, ": null pointer");
  const bool vec = aligned16(x) && (rowStride * int64_t(dtypeSize(dtype))) % 16 == 0;
  MM_DISPATCH_FLOAT(dtype, k, {
    const auto *xs = static_cast<const scalar_t *>(x);
    if (vec)
      launchKernel(argmaxKernel<scalar_t, true>, unsigned(rows), kThreads, 0, stream, xs, cols,
                                                                             rowStride, out);
    else
      launchKernel(argmaxKernel<scalar_t, false>, unsigned(rows), kThreads, 0, stream, xs, cols,
                                                                              rowStride, out);
  });
  checkLaunch("argmaxRows");
}

} // namespace mm::rt::cuda
