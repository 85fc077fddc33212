//===- Embedding.cu - embedding gather and image-feature splice -------------===//
//
// Both kernels copy whole rows, as 16-byte words when every row is 16-byte aligned,
// else byte by byte; so they work for any element type. One block per output row.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/DeviceUtil.cuh"
#include "runtime/cuda/Kernels.h"

namespace mm::rt::cuda {
namespace {

constexpr int kThreads = 128;

/// Copies `words` V-sized words from src to dst with the block's threads.
template <typename V>
__device__ __forceinline__ void copyRow(V *dst, const V *src, int64_t words) {
  for (int64_t i = threadIdx.x; i < words; i += blockDim.x)
    dst[i] = src[i];
}
template <typename V> __device__ __forceinline__ void zeroRow(V *dst, int64_t words) {
  for (int64_t i = threadIdx.x; i < words; i += blockDim.x)
    dst[i] = V{};
}

template <typename V>
__global__ void gatherKernel(const V *table, int64_t vocab, int64_t rowWords,
                             const int64_t *ids, V *out, int *errorFlag) {
  gridDependencySync();
  const int64_t r = blockIdx.x;
  int64_t id = ids[r];
  if (id < 0)
    id += vocab;
  V *dst = out + r * rowWords;
  if (id < 0 || id >= vocab) {
    zeroRow(dst, rowWords);
    if (errorFlag && threadIdx.x == 0)
      atomicOr(errorFlag, 1);
    return;
  }
  copyRow(dst, table + id * rowWords, rowWords);
}

/// Each block counts the image tokens before its row itself (n is a prompt, a few
/// thousand tokens at most), so no scan pass and no scratch are needed.
template <typename V>
__global__ void spliceKernel(V *embeds, const int64_t *ids, int64_t rowWords,
                             int64_t imageTokenId, const V *features, int64_t numFeatures,
                             int *errorFlag) {
  gridDependencySync();
  __shared__ float red[32];
  const int64_t r = blockIdx.x;
  if (ids[r] != imageTokenId)
    return; // uniform over the block
  float before = 0.0f;
  for (int64_t i = threadIdx.x; i < r; i += blockDim.x)
    before += ids[i] == imageTokenId ? 1.0f : 0.0f; // exact up to 2^24 tokens
  const int64_t k = int64_t(blockSum(before, red));
  if (k >= numFeatures) {
    if (errorFlag && threadIdx.x == 0)
      atomicOr(errorFlag, 1);
    return;
  }
  copyRow(embeds + r * rowWords, features + k * rowWords, rowWords);
}

bool wordAligned(size_t rowBytes, std::initializer_list<const void *> ptrs) {
  if (rowBytes % 16 != 0)
    return false;
  for (const void *p : ptrs)
    if (!aligned16(p))
      return false;
  return true;
}

void checkRowCount(const char *kernel, int64_t n) {
  if (n < 0 || n > 2147483647LL)
    fail(kernel, ": bad row count ", n);
}

} // namespace

void embeddingGather(cudaStream_t stream, size_t elemBytes, const void *table,
                     int64_t vocab, int64_t hidden, const int64_t *ids, int64_t n,
                     void *out, int *errorFlag) {
  const char *k = "cuda embeddingGather";
  checkRowCount(k, n);
  if (vocab <= 0 || hidden <= 0 || elemBytes == 0)
    fail(k, ": bad table shape [", vocab, ", ", hidden, "] of ", elemBytes, "-byte elements");
  if (n == 0)
    return;
  const size_t rowBytes = size_t(hidden) * elemBytes;
  if (wordAligned(rowBytes, {table, out}))
    launchKernel(gatherKernel<uint4>, unsigned(n), kThreads, 0, stream, static_cast<const uint4 *>(table), vocab, int64_t(rowBytes / 16), ids,
        static_cast<uint4 *>(out), errorFlag);
  else
    launchKernel(gatherKernel<uint8_t>, unsigned(n), kThreads, 0, stream, static_cast<const uint8_t *>(table), vocab, int64_t(rowBytes), ids,
        static_cast<uint8_t *>(out), errorFlag);
  checkLaunch("embeddingGather");
}

void spliceImageFeatures(cudaStream_t stream, size_t elemBytes, void *embeds,
                         const int64_t *ids, int64_t n, int64_t hidden,
                         int64_t imageTokenId, const void *features, int64_t numFeatures,
                         int *errorFlag) {
  const char *k = "cuda spliceImageFeatures";
  checkRowCount(k, n);
  if (hidden <= 0 || elemBytes == 0 || numFeatures < 0)
    fail(k, ": bad shapes (hidden ", hidden, ", ", numFeatures, " feature rows)");
  if (n == 0)
    return;
  const size_t rowBytes = size_t(hidden) * elemBytes;
  if (wordAligned(rowBytes, {embeds, features}))
    launchKernel(spliceKernel<uint4>, unsigned(n), kThreads, 0, stream, static_cast<uint4 *>(embeds), ids, int64_t(rowBytes / 16), imageTokenId,
        static_cast<const uint4 *>(features), numFeatures, errorFlag);
  else
    launchKernel(spliceKernel<uint8_t>, unsigned(n), kThreads, 0, stream, static_cast<uint8_t *>(embeds), ids, int64_t(rowBytes), imageTokenId,
        static_cast<const uint8_t *>(features), numFeatures, errorFlag);
  checkLaunch("spliceImageFeatures");
}

} // namespace mm::rt::cuda
