//===- StridedIndex.cuh - N-d index spaces over strided operands --------------===//
//
// Internal to runtime/cuda (stridedCopy, binaryElementwise). A StridedIndex<N> is an
// index space (shape, rank <= kMaxLayoutRank) with the element strides of N operands.
// On the host, coalesce() drops extent-1 dimensions and merges neighbours that are
// contiguous for every operand, so a contiguous copy becomes rank 1 and a head transpose
// rank 3. offsetsOf() (device code; host too, for checks) maps a row-major linear index
// to the N element offsets, dividing in the index type I (uint32_t when the element count
// is below 2^31: 32-bit division is several times cheaper than 64-bit; uint64_t
// otherwise); the offsets are int64.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CUDA_STRIDEDINDEX_CUH
#define MM_RUNTIME_CUDA_STRIDEDINDEX_CUH

#include "runtime/cuda/Kernels.h"

#include <cstdint>

namespace mm::rt::cuda {

template <int N> struct StridedIndex {
  int rank = 0;
  int64_t shape[kMaxLayoutRank] = {};
  int64_t stride[N][kMaxLayoutRank] = {};
};

/// Number of elements of `shape` [rank]; throws Error naming `kernel` when the rank is
/// outside 0..kMaxLayoutRank, an extent is negative, or the count overflows int64.
inline int64_t checkedElementCount(const char *kernel, const int64_t *shape, int rank) {
  if (rank < 0 || rank > kMaxLayoutRank)
    fail(kernel, ": rank ", rank, " outside 0..", kMaxLayoutRank);
  int64_t total = 1;
  for (int d = 0; d < rank; ++d) {
    if (shape[d] < 0)
      fail(kernel, ": negative extent ", shape[d], " in dimension ", d);
    if (shape[d] != 0 && total > INT64_MAX / shape[d])
      fail(kernel, ": element count overflows int64");
    total *= shape[d];
  }
  return total;
}

/// The index space `shape` [rank] with strides[k][d] for operand k, simplified: extent-1
/// dimensions dropped, and dimension d merged into d - 1 when stride[k][d - 1] ==
/// shape[d] * stride[k][d] for every k. Visits the same (offset tuples) in the same
/// row-major order. A rank-0 result means one element at offset 0 for every operand.
template <int N>
StridedIndex<N> coalesce(const int64_t *shape, int rank, const int64_t *const (&strides)[N]) {
  StridedIndex<N> out;
  for (int d = 0; d < rank; ++d) {
    if (shape[d] == 1)
      continue;
    const int r = out.rank;
    bool merge = r > 0;
    for (int k = 0; k < N && merge; ++k)
      merge = out.stride[k][r - 1] == shape[d] * strides[k][d];
    if (merge) {
      out.shape[r - 1] *= shape[d];
      for (int k = 0; k < N; ++k)
        out.stride[k][r - 1] = strides[k][d];
      continue;
    }
    out.shape[r] = shape[d];
    for (int k = 0; k < N; ++k)
      out.stride[k][r] = strides[k][d];
    out.rank = r + 1;
  }
  return out;
}

/// Element offsets of the row-major linear index `linear` (< the element count, which
/// must fit I) for each operand.
template <int N, typename I>
__host__ __device__ __forceinline__ void offsetsOf(const StridedIndex<N> &s, int64_t linear,
                                                   int64_t (&off)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k)
    off[k] = 0;
  I rest = I(linear);
  for (int d = s.rank - 1; d > 0; --d) {
    const I n = I(s.shape[d]);
    const I q = rest / n;
    const int64_t c = int64_t(rest - q * n);
#pragma unroll
    for (int k = 0; k < N; ++k)
      off[k] += c * s.stride[k][d];
    rest = q;
  }
  if (s.rank > 0) {
#pragma unroll
    for (int k = 0; k < N; ++k)
      off[k] += int64_t(rest) * s.stride[k][0];
  }
}

} // namespace mm::rt::cuda

#endif // MM_RUNTIME_CUDA_STRIDEDINDEX_CUH
