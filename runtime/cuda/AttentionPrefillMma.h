//===- AttentionPrefillMma.h - prefill attention on tensor cores (internal) ---===//
//
// The tensor-core path of prefillAttention (Attention.h), which calls it for the
// arguments it supports; the FMA kernel takes the rest.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CUDA_ATTENTIONPREFILLMMA_H
#define MM_RUNTIME_CUDA_ATTENTIONPREFILLMMA_H

#include "runtime/cuda/Attention.h"

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

/// Whether mmaPrefillAttention takes `args`: f16 or bf16, head dim 64, 80, 96 or 128,
/// k and v 16-byte aligned with strides that are multiples of 8 elements, q and out
/// 4-byte aligned with even strides. (Shapes and masks as prefillAttention checks them.)
bool mmaPrefillAttentionSupports(const PrefillAttentionArgs &args);
/// prefillAttention's result on tensor cores (mma.sync m16n8k16, f32 accumulators; the
/// probabilities rounded to the element type). Throws Error for unsupported arguments.
void mmaPrefillAttention(cudaStream_t stream, const PrefillAttentionArgs &args);

} // namespace mm::rt::cuda

#endif // MM_RUNTIME_CUDA_ATTENTIONPREFILLMMA_H
