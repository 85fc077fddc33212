//===- KvCache.cu - KV-cache append and length advance ----------------------===//
#include "runtime/cuda/DeviceUtil.cuh"
#include "runtime/cuda/Kernels.h"

namespace mm::rt::cuda {
namespace {

constexpr int kThreads = 128;

/// One block per (b, h, s) row; the row is copied as elements of T (head dims are small).
template <typename T>
__global__ void appendKernel(T *cacheK, T *cacheV, int64_t kvHeads, int64_t capacity,
                             int64_t headDim, const T *newK, const T *newV, int64_t newLen,
                             int64_t nsb, int64_t nsh, int64_t nss, const int32_t *lens,
                             int *errorFlag) {
  gridDependencySync();
  const int64_t row = blockIdx.x;
  const int64_t s = row % newLen;
  const int64_t h = (row / newLen) % kvHeads;
  const int64_t b = row / (newLen * kvHeads);
  const int64_t pos = int64_t(lens[b]) + s;
  if (pos < 0 || pos >= capacity) {
    if (errorFlag && threadIdx.x == 0)
      atomicOr(errorFlag, 1);
    return;
  }
  const int64_t src = b * nsb + h * nsh + s * nss;
  const int64_t dst = ((b * kvHeads + h) * capacity + pos) * headDim;
  for (int64_t d = threadIdx.x; d < headDim; d += blockDim.x) {
    cacheK[dst + d] = newK[src + d];
    cacheV[dst + d] = newV[src + d];
  }
}

__global__ void advanceKernel(int32_t *lens, int64_t batch, int32_t delta) {
  gridDependencySync();
  const int64_t b = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (b < batch)
    lens[b] += delta;
}

} // namespace

void kvCacheAppend(cudaStream_t stream, DType dtype, const KvCacheView &c, const void *newK,
                   const void *newV, int64_t newLen, int64_t newStrideB, int64_t newStrideH,
                   int64_t newStrideS, const int32_t *lens, int *errorFlag) {
  const char *k = "cuda kvCacheAppend";
  if (c.batch < 0 || c.kvHeads < 0 || c.capacity <= 0 || c.headDim <= 0 || newLen < 0)
    fail(k, ": bad shapes (cache [", c.batch, ", ", c.kvHeads, ", ", c.capacity, ", ",
         c.headDim, "], ", newLen, " new rows)");
  if (!c.k || !c.v || !newK || !newV || !lens)
    fail(k, ": null pointer argument");
  const int64_t rows = c.batch * c.kvHeads * newLen;
  if (rows == 0)
    return;
  if (rows > 2147483647LL)
    fail(k, ": too many rows (", rows, ")");
  MM_DISPATCH_FLOAT(dtype, k, {
    launchKernel(appendKernel<scalar_t>, unsigned(rows), kThreads, 0, stream, static_cast<scalar_t *>(c.k), static_cast<scalar_t *>(c.v), c.kvHeads, c.capacity,
        c.headDim, static_cast<const scalar_t *>(newK), static_cast<const scalar_t *>(newV),
        newLen, newStrideB, newStrideH, newStrideS, lens, errorFlag);
  });
  checkLaunch("kvCacheAppend");
}

void advanceLengths(cudaStream_t stream, int32_t *lens, int64_t batch, int32_t delta) {
  if (batch < 0 || !lens)
    fail("cuda advanceLengths: bad arguments (batch ", batch, ")");
  if (batch == 0)
    return;
  launchKernel(advanceKernel, unsigned((batch + 127) / 128), 128, 0, stream, lens, batch, delta);
  checkLaunch("advanceLengths");
}

} // namespace mm::rt::cuda
