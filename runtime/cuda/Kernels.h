//===- Kernels.h - CUDA kernels: norms, rotary, elementwise, gather, KV cache -===//
//
// Launch functions for the transformer building blocks other than GEMM (Blas.h) and
// attention (Attention.h). See CudaCommon.h for the rules they all keep (device pointers,
// one stream, no allocation, no host sync, Error on bad arguments). Element types are
// f32, f16 or bf16 (`dtype`); arithmetic is f32 and each output is rounded once.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CUDA_KERNELS_H
#define MM_RUNTIME_CUDA_KERNELS_H

#include "runtime/cuda/CudaCommon.h"

namespace mm::rt::cuda {

//===--- Elementwise ----------------------------------------------------------===//

/// y[i] = act(x[i]) for i < n (mm.gelu, mm.quick_gelu, mm.silu, mm.relu). `y` may equal
/// `x`. Activation::none copies.
void activation(cudaStream_t stream, DType dtype, const void *x, void *y, int64_t n,
                Activation act);

/// y[r, c] = act(y[r, c] + bias[c]) in place for y [rows, cols] (bias may be null): the
/// epilogue of a GEMM whose library could not fuse it.
void biasActivation(cudaStream_t stream, DType dtype, void *y, const void *bias, int64_t rows,
                    int64_t cols, Activation act);

/// A gated linear unit (Shazeer 2020): out[r, c] = act(gate[r, c]) * up[r, c] for r < rows,
/// c < cols, with row strides in elements (a merged gate/up projection output [rows, 2*cols]
/// is gate = buf, up = buf + cols, both with row stride 2*cols); act = gateActivation:
/// SiLU for SwiGLU (mm.swiglu), GELU or its tanh form for GeGLU (mm.geglu).
void swiglu(cudaStream_t stream, DType dtype, const void *gate, int64_t gateRowStride,
            const void *up, int64_t upRowStride, void *out, int64_t outRowStride,
            int64_t rows, int64_t cols, Activation gateActivation);

/// Element-type conversion of n elements between f32, f16 and bf16 (round to nearest
/// even). `src` and `dst` must not overlap unless the types have the same size.
void convert(cudaStream_t stream, DType srcType, const void *src, DType dstType, void *dst,
             int64_t n);

/// Device-to-device copy of `bytes` bytes by a kernel (16-byte words when both pointers
/// are 16-byte aligned and bytes is a multiple of 16, else bytes). On the H200 a kernel
/// copy streams at the HBM rate, while cudaMemcpyAsync's copy engines reach about 2.7 TB/s
/// (read + write). The ranges must not overlap.
void copyBytes(cudaStream_t stream, void *dst, const void *src, size_t bytes);

//===--- Normalisation ------------------------------------------------------===//

/// LayerNorm (Ba et al. 2016; ONNX LayerNormalization; mm.layer_norm, and with a residual
/// mm.add_layer_norm) of each row of [rows, cols]:
///   s = x + residual (rounded to `dtype`; s = x when residual is null)
///   sumOut = s (when sumOut is not null: the residual stream)
///   y = (s - mean) / sqrt(var + eps) * scale + bias, with the biased variance.
/// scale [cols] and bias [cols] (bias may be null) have type `paramType` (`dtype` or f32).
/// Any of y, sumOut may equal x or residual.
void layerNorm(cudaStream_t stream, DType dtype, const void *x, const void *residual,
               void *sumOut, const void *scale, const void *bias, DType paramType, void *y,
               int64_t rows, int64_t cols, float eps);

/// RMSNorm (Zhang & Sennrich 2019; mm.rms_norm, and with a residual mm.add_rms_norm)
/// fused with the residual add:
///   s = x + residual (rounded to `dtype`; s = x when residual is null)
///   sumOut = s (when sumOut is not null: the residual stream for the next layer)
///   y = s / sqrt(mean(s^2) + eps) * (scaleOffset + scale)
/// x, residual, sumOut, y are [rows, cols]; scale is [cols] of type `scaleType` (`dtype`
/// or f32). scaleOffset is 0 for Llama/Qwen2 and 1 for Gemma. Any of y, sumOut may
/// equal x or residual (each element is read before it is written, by the same thread).
void rmsNorm(cudaStream_t stream, DType dtype, const void *x, const void *residual,
             void *sumOut, const void *scale, DType scaleType, void *y, int64_t rows,
             int64_t cols, float eps, float scaleOffset);

//===--- Rotary position embedding ---------------------------------------------===//

/// Arguments of rotary(): RoPE (Su et al. 2021) on x viewed as [batch, heads, seq, headDim]
/// (strides in elements, headDim contiguous). The first `rotaryDim` channels (even,
/// <= headDim) are rotated, the rest copied (nothing to copy when y == x):
///   y[a] = x[a] cos[a] - x[b] sin[a],  y[b] = x[b] cos[b] + x[a] sin[b]
/// for each pair (a, b): rotate-half (GPT-NeoX/Llama) pairs (i, i + R/2), interleaved
/// (GPT-J) pairs (2i, 2i + 1). This is mm.rotary's out = x cos + rotate(x) sin.
///
/// Position of token (b, s): positions[b * positionStrideB + s] (i64) when `positions` is
/// set, else startPositions[b] + s (i32, e.g. the KV-cache lengths before this step) when
/// `startPositions` is set, else s.
///
/// cos/sin come either from tables or from inverse frequencies:
///   - tables (cos, sin not null, element type tableType = dtype or f32, width R = the
///     HF full-width form, row stride tableRowStride): row = the position when positions
///     or startPositions is set (a cache indexed by position), else b * tableStrideB + s
///     (mm.rotary's [B or 1, S, R] operands; tableStrideB = 0 broadcasts);
///   - invFreq [R/2] (f32, not null when the tables are null): angle = position *
///     invFreq[i] for pair i, cos/sin computed in f32.
struct RotaryArgs {
  DType dtype = DType::f32;
  const void *x = nullptr;
  void *y = nullptr;
  int64_t batch = 0, heads = 0, seq = 0, headDim = 0;
  int64_t xStrideB = 0, xStrideH = 0, xStrideS = 0;
  int64_t yStrideB = 0, yStrideH = 0, yStrideS = 0;
  int64_t rotaryDim = 0;
  bool interleaved = false;
  const int64_t *positions = nullptr;
  int64_t positionStrideB = 0;
  const int32_t *startPositions = nullptr;
  const void *cos = nullptr;
  const void *sin = nullptr;
  DType tableType = DType::f32;
  int64_t tableRowStride = 0;
  int64_t tableStrideB = 0;
  const float *invFreq = nullptr;
};
void rotary(cudaStream_t stream, const RotaryArgs &args);

//===--- Embeddings -------------------------------------------------------------===//

/// Embedding gather (ONNX Gather on axis 0): out[i, :] = table[ids[i], :] for i < n,
/// table [vocab, hidden] of `elemBytes`-byte elements (any dtype), ids i64 on the device.
/// A negative id counts from the end (ONNX); an id outside [-vocab, vocab) writes a zero
/// row and, when errorFlag is not null, sets *errorFlag to 1 (checked by the caller at
/// its next synchronisation point).
void embeddingGather(cudaStream_t stream, size_t elemBytes, const void *table,
                     int64_t vocab, int64_t hidden, const int64_t *ids, int64_t n,
                     void *out, int *errorFlag);

/// Image-feature splice (LLaVA's masked_scatter): for each row r < n of
/// embeds [n, hidden] whose ids[r] == imageTokenId, embeds[r, :] = features[k, :] with k
/// the number of image tokens before r (in the flattened [batch * seq] order, as HF does).
/// When there are more image tokens than numFeatures rows, the extra rows are left
/// unchanged and *errorFlag (if not null) is set to 1; the caller checks that the count
/// matches when it knows it.
void spliceImageFeatures(cudaStream_t stream, size_t elemBytes, void *embeds,
                         const int64_t *ids, int64_t n, int64_t hidden,
                         int64_t imageTokenId, const void *features, int64_t numFeatures,
                         int *errorFlag);

//===--- Layout and generic elementwise ------------------------------------===//

/// Maximum rank of the generic layout and elementwise launches.
constexpr int kMaxLayoutRank = 8;

/// An N-d index space with the element strides (in elements, may be 0 to broadcast or
/// negative) of a source and a destination: what transpose, expand, slice, concat and
/// split become (concat/split: one copy per operand into/out of an offset view).
struct StridedLayout {
  int rank = 0;                      ///< 0..kMaxLayoutRank (0 = one element)
  int64_t shape[kMaxLayoutRank] = {};
  int64_t srcStride[kMaxLayoutRank] = {};
  int64_t dstStride[kMaxLayoutRank] = {};
};
/// dst[sum_d i_d * dstStride[d]] = src[sum_d i_d * srcStride[d]] for every index i of
/// `layout.shape`, elements of `elemBytes` bytes (1, 2, 4 or 8; any dtype). src and dst are
/// element pointers at index 0 (negative strides reach below them). Destination elements
/// must not alias each other or the source.
void stridedCopy(cudaStream_t stream, size_t elemBytes, const void *src, void *dst,
                 const StridedLayout &layout);

/// Binary elementwise operations (mm.add, mm.sub, mm.mul, mm.div, mm.pow, mm.max, mm.min).
enum class BinaryOp : int { add, sub, mul, div, pow, max, min };
/// out[i] = op(a[i . aStride], b[i . bStride]) for every index i of `shape` (rank <=
/// kMaxLayoutRank), out contiguous row-major; strides in elements, 0 broadcasts (ONNX
/// multidirectional broadcasting after the caller aligned the ranks). a, b, out have type
/// `dtype` (f32, f16, bf16); arithmetic in f32, one rounding. `out` may equal `a` or `b`
/// only when that operand is not broadcast (stride layout identical to out).
void binaryElementwise(cudaStream_t stream, BinaryOp op, DType dtype, const void *a,
                       const int64_t *aStride, const void *b, const int64_t *bStride,
                       void *out, const int64_t *shape, int rank);

/// Gather along one axis (ONNX Gather, mm.gather): data viewed as [outer, axisLen, inner]
/// (elements of `elemBytes` bytes, contiguous), ids i64 [numIds] on the device:
/// out[o, j, k] = data[o, ids[j], k], out contiguous [outer, numIds, inner]. A negative id
/// counts from the end; an id outside [-axisLen, axisLen) writes zeros and sets *errorFlag
/// (when not null) to 1.
void gatherAxis(cudaStream_t stream, size_t elemBytes, const void *data, int64_t outer,
                int64_t axisLen, int64_t inner, const int64_t *ids, int64_t numIds, void *out,
                int *errorFlag);

/// Greedy sampling: out[r] = the index of the largest of x[r * rowStride + c], c < cols,
/// for r < rows (x of type `dtype`: f32, f16 or bf16; out i64 on the device). The first
/// maximum wins (torch.argmax); NaN compares false and is never chosen unless the whole row
/// is NaN (then 0).
void argmaxRows(cudaStream_t stream, DType dtype, const void *x, int64_t rows, int64_t cols,
                int64_t rowStride, int64_t *out);

//===--- KV cache ---------------------------------------------------------------===//

/// A KV cache of one layer: k and v [batch, kvHeads, capacity, headDim], contiguous.
struct KvCacheView {
  void *k = nullptr;
  void *v = nullptr;
  int64_t batch = 0, kvHeads = 0, capacity = 0, headDim = 0;
};

/// Writes new rows into the cache: cache[b, h, lens[b] + s, :] = new[b, h, s, :] for
/// s < newLen, with newK/newV viewed as [batch, kvHeads, newLen, headDim] through the
/// given strides (e.g. the [B, S, Hkv, D] output of a projection). `lens` (i32 [batch],
/// device) are the lengths before the append; they are not changed (advanceLengths does
/// that at the end of the step). A row that would land at or beyond `capacity` is not
/// written and sets *errorFlag (if not null) to 1.
void kvCacheAppend(cudaStream_t stream, DType dtype, const KvCacheView &cache,
                   const void *newK, const void *newV, int64_t newLen, int64_t newStrideB,
                   int64_t newStrideH, int64_t newStrideS, const int32_t *lens,
                   int *errorFlag);

/// lens[b] += delta for b < batch (device i32), the last launch of a decode step.
void advanceLengths(cudaStream_t stream, int32_t *lens, int64_t batch, int32_t delta);

} // namespace mm::rt::cuda

#endif // MM_RUNTIME_CUDA_KERNELS_H
