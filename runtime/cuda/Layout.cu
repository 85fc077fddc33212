//===- Layout.cu - strided copy (transpose/expand/slice/concat) and axis gather -===//
//
// Both kernels move raw elements, so they serve every dtype. They copy in the widest
// word (16, 8, 4, 2 or 1 bytes) that the row length, the strides and the pointers allow:
// a transpose that keeps the innermost dimension, a slice/concat along an outer
// dimension and a broadcast of whole rows move 16-byte words.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/DeviceUtil.cuh"
#include "runtime/cuda/Kernels.h"
#include "runtime/cuda/StridedIndex.cuh"

#include <type_traits>

namespace mm::rt::cuda {
namespace {

constexpr int kThreads = 256;

bool alignedTo(const void *p, size_t bytes) {
  return reinterpret_cast<uintptr_t>(p) % bytes == 0;
}

/// The unsigned integer type of `Bytes` bytes (uint4 for 16).
template <size_t Bytes> struct WordOf;
template <> struct WordOf<1> { using type = uint8_t; };
template <> struct WordOf<2> { using type = uint16_t; };
template <> struct WordOf<4> { using type = uint32_t; };
template <> struct WordOf<8> { using type = uint64_t; };
template <> struct WordOf<16> { using type = uint4; };

/// Calls f(std::integral_constant<size_t, word>{}) for word 1, 2, 4, 8 or 16.
template <typename F> void withWord(size_t word, F &&f) {
  switch (word) {
  case 1: f(std::integral_constant<size_t, 1>{}); break;
  case 2: f(std::integral_constant<size_t, 2>{}); break;
  case 4: f(std::integral_constant<size_t, 4>{}); break;
  case 8: f(std::integral_constant<size_t, 8>{}); break;
  default: f(std::integral_constant<size_t, 16>{}); break;
  }
}

template <typename V, typename I>
__global__ void stridedCopyKernel(const V *__restrict__ src, V *__restrict__ dst,
                                  StridedIndex<2> s, int64_t n) {
  gridDependencySync();
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t off[2];
    offsetsOf<2, I>(s, i, off);
    dst[off[1]] = src[off[0]];
  }
}

/// Regroups the innermost dimension of `s` into words of the widest size W (<= 16 bytes)
/// for which it is contiguous on both sides and every offset is W-aligned; rescales the
/// shape and strides to W-byte units and returns W (elemBytes when nothing widens).
size_t widenInnermost(StridedIndex<2> &s, size_t elemBytes, const void *src, const void *dst) {
  const int last = s.rank - 1;
  if (last < 0 || s.stride[0][last] != 1 || s.stride[1][last] != 1)
    return elemBytes;
  for (size_t word = 16; word > elemBytes; word /= 2) {
    const int64_t scale = int64_t(word / elemBytes);
    bool ok = s.shape[last] % scale == 0 && alignedTo(src, word) && alignedTo(dst, word);
    for (int d = 0; d < last && ok; ++d)
      ok = s.stride[0][d] % scale == 0 && s.stride[1][d] % scale == 0;
    if (!ok)
      continue;
    s.shape[last] /= scale;
    for (int d = 0; d < last; ++d) {
      s.stride[0][d] /= scale;
      s.stride[1][d] /= scale;
    }
    return word;
  }
  return elemBytes;
}

template <size_t Word>
void launchStridedCopy(cudaStream_t stream, const void *src, void *dst,
                       const StridedIndex<2> &s, int64_t n) {
  using V = typename WordOf<Word>::type;
  const auto *from = static_cast<const V *>(src);
  auto *to = static_cast<V *>(dst);
  if (n <= INT32_MAX)
    launchKernel(stridedCopyKernel<V, uint32_t>, gridStrideBlocks(kThreads, n), kThreads, 0, stream, from, to, s, n);
  else
    launchKernel(stridedCopyKernel<V, uint64_t>, gridStrideBlocks(kThreads, n), kThreads, 0, stream, from, to, s, n);
}

/// out[i] for i < n, i = (o * numIds + j) * rowWords + w: word w of data row
/// (o, ids[j]), or zero (and the error flag) when ids[j] is out of range.
template <typename V>
__global__ void gatherAxisKernel(const V *__restrict__ data, int64_t axisLen,
                                 int64_t numIds, int64_t rowWords, const int64_t *ids,
                                 V *__restrict__ out, int64_t n, int *errorFlag) {
  gridDependencySync();
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const int64_t row = i / rowWords, w = i - row * rowWords;
    const int64_t o = row / numIds, j = row - o * numIds;
    int64_t id = ids[j];
    if (id < 0)
      id += axisLen;
    if (id < 0 || id >= axisLen) {
      out[i] = V{};
      if (errorFlag && w == 0)
        atomicOr(errorFlag, 1);
    } else {
      out[i] = data[(o * axisLen + id) * rowWords + w];
    }
  }
}

template <size_t Word>
void launchGatherAxis(cudaStream_t stream, const void *data, int64_t outer, int64_t axisLen,
                      int64_t rowBytes, const int64_t *ids, int64_t numIds, void *out,
                      int *errorFlag) {
  using V = typename WordOf<Word>::type;
  const int64_t rowWords = rowBytes / int64_t(Word);
  const int64_t n = outer * numIds * rowWords;
  launchKernel(gatherAxisKernel<V>, gridStrideBlocks(kThreads, n), kThreads, 0, stream, static_cast<const V *>(data), axisLen, numIds, rowWords, ids, static_cast<V *>(out), n,
      errorFlag);
}

} // namespace

void stridedCopy(cudaStream_t stream, size_t elemBytes, const void *src, void *dst,
                 const StridedLayout &layout) {
  const char *k = "cuda stridedCopy";
  if (elemBytes != 1 && elemBytes != 2 && elemBytes != 4 && elemBytes != 8)
    fail(k, ": element size ", elemBytes, " bytes (expected 1, 2, 4 or 8)");
  const int64_t total = checkedElementCount(k, layout.shape, layout.rank);
  if (total == 0)
    return;
  if (!src || !dst)
    fail(k, ": null pointer");
  if (!alignedTo(src, elemBytes) || !alignedTo(dst, elemBytes))
    fail(k, ": pointers not aligned to the ", elemBytes, "-byte element");
  StridedIndex<2> s = coalesce<2>(layout.shape, layout.rank, {layout.srcStride, layout.dstStride});
  const size_t word = widenInnermost(s, elemBytes, src, dst);
  const int64_t n = total / int64_t(word / elemBytes);
  withWord(word, [&](auto w) { launchStridedCopy<decltype(w)::value>(stream, src, dst, s, n); });
  checkLaunch("stridedCopy");
}

void gatherAxis(cudaStream_t stream, size_t elemBytes, const void *data, int64_t outer,
                int64_t axisLen, int64_t inner, const int64_t *ids, int64_t numIds, void *out,
                int *errorFlag) {
  const char *k = "cuda gatherAxis";
  if (elemBytes == 0 || elemBytes > size_t(INT32_MAX))
    fail(k, ": bad element size ", elemBytes);
  const int64_t dataShape[] = {outer, axisLen, inner, int64_t(elemBytes)};
  const int64_t outShape[] = {outer, numIds, inner, int64_t(elemBytes)};
  checkedElementCount(k, dataShape, 4);
  if (checkedElementCount(k, outShape, 4) == 0)
    return;
  if (!ids || !out || (axisLen > 0 && !data))
    fail(k, ": null pointer");
  const int64_t rowBytes = inner * int64_t(elemBytes);
  size_t word = 16;
  while (word > 1 && (rowBytes % int64_t(word) != 0 || !alignedTo(data, word) ||
                      !alignedTo(out, word)))
    word /= 2;
  withWord(word, [&](auto w) {
    launchGatherAxis<decltype(w)::value>(stream, data, outer, axisLen, rowBytes, ids, numIds,
                                         out, errorFlag);
  });
  checkLaunch("gatherAxis");
}

} // namespace mm::rt::cuda
