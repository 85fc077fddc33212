//===- Binary.cu - broadcasting binary elementwise ops ---------------------===//
//
// out = op(a, b) over an index space with per-operand strides (0 broadcasts). The index
// space is coalesced first (StridedIndex.cuh). When the innermost dimension is a multiple
// of 8 and each operand is either contiguous in it (16-byte aligned) or broadcast along
// it, a thread handles 8 outputs with one index decomposition and 16-byte loads/stores.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/DeviceUtil.cuh"
#include "runtime/cuda/Kernels.h"
#include "runtime/cuda/StridedIndex.cuh"

namespace mm::rt::cuda {
namespace {

constexpr int kThreads = 256;

/// op(a, b) in f32. max/min propagate NaN and otherwise keep a on ties (as the CPU
/// kernels: a < b ? b : a).
__device__ __forceinline__ float applyBinary(BinaryOp op, float a, float b) {
  switch (op) {
  case BinaryOp::add: return a + b;
  case BinaryOp::sub: return a - b;
  case BinaryOp::mul: return a * b;
  case BinaryOp::div: return a / b;
  case BinaryOp::pow: return powf(a, b);
  case BinaryOp::max: return isnan(a) || isnan(b) ? a + b : (a < b ? b : a);
  case BinaryOp::min: return isnan(a) || isnan(b) ? a + b : (b < a ? b : a);
  }
  return a;
}

/// The 8 operand values of outputs e..e+7: a 16-byte load when the operand is contiguous
/// along the innermost dimension, else (broadcast along it) one value repeated.
template <typename T>
__device__ __forceinline__ void load8Or1(const T *p, bool contiguous, float (&v)[8]) {
  if (contiguous) {
    load8(p, v);
    return;
  }
  const float x = toF(*p);
#pragma unroll
  for (int j = 0; j < 8; ++j)
    v[j] = x;
}

/// Work item i covers outputs [i * W, i * W + W), W = 8 when VEC, else 1. No
/// __restrict__: out may equal a non-broadcast operand (each element is read, then
/// written, by one thread).
template <typename T, typename I, bool VEC>
__global__ void binaryKernel(BinaryOp op, const T *a, const T *b, T *out, StridedIndex<2> s,
                             int64_t items, bool aContiguous, bool bContiguous) {
  gridDependencySync();
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < items; i += step) {
    const int64_t e = VEC ? 8 * i : i;
    int64_t off[2];
    offsetsOf<2, I>(s, e, off);
    if (VEC) {
      float va[8], vb[8];
      load8Or1(a + off[0], aContiguous, va);
      load8Or1(b + off[1], bContiguous, vb);
#pragma unroll
      for (int j = 0; j < 8; ++j)
        va[j] = applyBinary(op, va[j], vb[j]);
      store8(out + e, va);
    } else {
      out[e] = fromF<T>(applyBinary(op, toF(a[off[0]]), toF(b[off[1]])));
    }
  }
}

/// True when operand k can feed the 8-wide path: broadcast along the innermost dimension,
/// or contiguous along it with 16-byte aligned rows (`*contiguous` says which).
bool vectorOperand(const StridedIndex<2> &s, int k, const void *p, bool *contiguous) {
  const int last = s.rank - 1;
  *contiguous = s.stride[k][last] == 1;
  if (s.stride[k][last] == 0)
    return true;
  if (!*contiguous || !aligned16(p))
    return false;
  for (int d = 0; d < last; ++d)
    if (s.stride[k][d] % 8 != 0)
      return false;
  return true;
}

/// True when `stride` [rank] is the row-major contiguous layout of `shape` (extent-1
/// dimensions may have any stride).
bool isContiguous(const int64_t *shape, const int64_t *stride, int rank) {
  int64_t expect = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (shape[d] != 1 && stride[d] != expect)
      return false;
    expect *= shape[d];
  }
  return true;
}

template <typename T>
void launchBinary(cudaStream_t stream, BinaryOp op, const T *a, const T *b, T *out,
                  const StridedIndex<2> &s, int64_t total) {
  bool aContiguous = false, bContiguous = false;
  const bool vec = s.rank > 0 && s.shape[s.rank - 1] % 8 == 0 && aligned16(out) &&
                   vectorOperand(s, 0, a, &aContiguous) && vectorOperand(s, 1, b, &bContiguous);
  const int64_t items = vec ? total / 8 : total;
  const unsigned grid = gridStrideBlocks(kThreads, items);
  // The index type must hold the element index (< total), which is what is decomposed.
  const bool small = total <= INT32_MAX;
  if (vec && small)
    launchKernel(binaryKernel<T, uint32_t, true>, grid, kThreads, 0, stream, op, a, b, out, s, items,
                                                                   aContiguous, bContiguous);
  else if (vec)
    launchKernel(binaryKernel<T, uint64_t, true>, grid, kThreads, 0, stream, op, a, b, out, s, items,
                                                                   aContiguous, bContiguous);
  else if (small)
    launchKernel(binaryKernel<T, uint32_t, false>, grid, kThreads, 0, stream, op, a, b, out, s, items,
                                                                    false, false);
  else
    launchKernel(binaryKernel<T, uint64_t, false>, grid, kThreads, 0, stream, op, a, b, out, s, items,
                                                                    false, false);
}

} // namespace

void binaryElementwise(cudaStream_t stream, BinaryOp op, DType dtype, const void *a,
                       const int64_t *aStride, const void *b, const int64_t *bStride,
                       void *out, const int64_t *shape, int rank) {
  const char *k = "cuda binaryElementwise";
  if (static_cast<int>(op) < 0 || static_cast<int>(op) > static_cast<int>(BinaryOp::min))
    fail(k, ": unknown op ", static_cast<int>(op));
  requireKernelFloat(dtype, k);
  if (rank > 0 && (!shape || !aStride || !bStride))
    fail(k, ": null shape or stride array");
  const int64_t total = checkedElementCount(k, shape, rank);
  if (total == 0)
    return;
  if (!a || !b || !out)
    fail(k, ": null pointer");
  if ((out == a && !isContiguous(shape, aStride, rank)) ||
      (out == b && !isContiguous(shape, bStride, rank)))
    fail(k, ": out aliases an operand whose layout differs from out's");
  const StridedIndex<2> s = coalesce<2>(shape, rank, {aStride, bStride});
  MM_DISPATCH_FLOAT(dtype, k, {
    launchBinary<scalar_t>(stream, op, static_cast<const scalar_t *>(a),
                           static_cast<const scalar_t *>(b), static_cast<scalar_t *>(out), s,
                           total);
  });
  checkLaunch("binaryElementwise");
}

} // namespace mm::rt::cuda
