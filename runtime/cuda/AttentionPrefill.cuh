//===- AttentionPrefill.cuh - what the two prefill attention kernels share ----===//
//
// The kernel arguments and the visibility rule (key range, causal limit, masks) of the
// FMA kernel (AttentionPrefill.cu) and the tensor-core kernel (AttentionPrefillMma.cu).
// Internal to runtime/cuda; nvcc only.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CUDA_ATTENTIONPREFILL_CUH
#define MM_RUNTIME_CUDA_ATTENTIONPREFILL_CUH

#include "runtime/cuda/Attention.h"
#include "runtime/cuda/DeviceUtil.cuh"

namespace mm::rt::cuda {

/// The kernel arguments of both prefill kernels: element strides as in AttentionOperand,
/// the query heads per KV head, and the scale times log2(e) (scores in the log2 domain).
struct PrefillParams {
  const void *q, *k, *v;
  void *out;
  int64_t qsb, qsh, qss, ksb, ksh, kss, vsb, vsh, vss, osb, osh, oss;
  int group, qLen, kvLen;
  float scaleLog2;
  bool causal;
  MaskKind maskKind;
  const void *mask;
  int64_t msb, msh, mss, mst;
};
PrefillParams prefillParams(const PrefillAttentionArgs &args);

/// The end of the keys that query rows [firstRow, firstRow + rows) attend to: kvLen, or,
/// causal, the last valid row's limit (the queries are the last qLen positions).
__device__ __forceinline__ int prefillKeyEnd(const PrefillParams &p, int firstRow, int rows) {
  if (!p.causal)
    return p.kvLen;
  const int lastRow = min(p.qLen - 1, firstRow + rows - 1);
  return max(0, min(p.kvLen, lastRow + p.kvLen - p.qLen + 1));
}

/// Whether query row `row` of (batch b, query head hq) sees key `key`: a valid row, a key
/// below keyEnd, the causal limit (key <= row + kvLen - qLen) and a boolean mask; an
/// additive mask is added to `score` (log2 domain).
template <typename T>
__device__ __forceinline__ bool prefillVisible(const PrefillParams &p, int b, int hq, int row,
                                               int key, int keyEnd, float &score) {
  if (row >= p.qLen || key >= keyEnd || (p.causal && key > row + p.kvLen - p.qLen))
    return false;
  if (p.maskKind == MaskKind::none)
    return true;
  const int64_t mi = b * p.msb + hq * p.msh + int64_t(row) * p.mss + int64_t(key) * p.mst;
  if (p.maskKind == MaskKind::boolean)
    return static_cast<const uint8_t *>(p.mask)[mi] != 0;
  score += toF(static_cast<const T *>(p.mask)[mi]) * kLog2e;
  return true;
}

} // namespace mm::rt::cuda

#endif // MM_RUNTIME_CUDA_ATTENTIONPREFILL_CUH
