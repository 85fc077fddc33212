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

/// Whether mmaPrefillAttention takes `args`: f16 or bf16, head dim 64, 80, 96 or 128,
/// k and v 16-byte aligned with strides that are multiples of 8 elements, q and out
/// 4-byte aligned with even strides. (Shapes and masks as prefillAttention checks them.)
bool mmaPrefillAttentionSupports(const PrefillAttentionArgs &args);
/// prefillAttention's result on tensor cores (mma.sync m16n8k16, f32 accumulators; the
/// probabilities rounded to the element type). Throws Error for unsupported arguments.
void mmaPrefillAttention(cudaStream_t stream, const PrefillAttentionArgs &args);

} // namespace mm::rt::cuda

#endif // MM_RUNTIME_CUDA_ATTENTIONPREFILLMMA_H
