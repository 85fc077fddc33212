//===- Attention.h - CUDA attention kernels (prefill and decode) -------------===//
//
// Scaled dot-product attention (Vaswani et al. 2017) with grouped-query attention (GQA,
// Ainslie et al. 2023: query head h reads KV head h / (qHeads / kvHeads)), as mm.attention
// defines it: out = softmax(scale * Q K^T + mask) V, f32 softmax and accumulation.
//   - prefillAttention: many queries; flash-attention tiling with an online softmax
//     (Dao et al. 2022), causal or bidirectional, optional additive or boolean mask.
//   - decodeAttention: one query per sequence against the KV cache, whose lengths live in
//     device memory (one captured CUDA graph serves every step); split along the sequence
//     (flash-decoding) with the partial results merged by the last block.
// See CudaCommon.h for the rules all launches keep.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CUDA_ATTENTION_H
#define MM_RUNTIME_CUDA_ATTENTION_H

#include "runtime/cuda/CudaCommon.h"
#include "runtime/cuda/Kernels.h"

#include <string>

namespace mm::rt::cuda {

/// A [batch, heads, seq, headDim] operand through element strides (headDim contiguous).
/// A [B, S, H, D] buffer is strideB = S*H*D, strideH = D, strideS = H*D.
struct AttentionOperand {
  const void *data = nullptr;
  int64_t strideB = 0, strideH = 0, strideS = 0;
};

enum class MaskKind { none, additive, boolean };

/// Arguments of prefillAttention.
///   q [batch, qHeads, qLen, headDim], k and v [batch, kvHeads, kvLen, headDim],
///   out [batch, qHeads, qLen, headDim] through (outStrideB, outStrideH, outStrideS).
///   causal: key t is masked when t > s + (kvLen - qLen) (the queries are the last qLen
///   positions of the keys, as with a KV cache).
///   mask (optional): additive (same dtype as q) or boolean (1 byte, nonzero = attend),
///   element [b, h, s, t] at b*maskStrideB + h*maskStrideH + s*maskStrideS + t*maskStrideT
///   (stride 0 broadcasts).
/// A query row whose keys are all masked gets zeros (instead of NaN).
/// Kernels: f16/bf16 with head dim 64, 80, 96 or 128 and 16-byte aligned k/v rows run on
/// tensor cores (AttentionPrefillMma.h: the probabilities rounded to the element type, as
/// FlashAttention does); the rest, or any call with rowsPerBlock set, runs the f32 FMA
/// kernel. rowsPerBlock: the FMA kernel's query rows per 128-thread block; 0 picks (32
/// for head dims up to 128, 16 beyond; half that when the grid would give fewer than two
/// blocks per multiprocessor and the head dim allows it: not 72). Else 32 or 16 (16 or 8
/// beyond 128).
/// headDim must be one of 64, 72, 80, 96, 128, 256; qHeads a multiple of kvHeads.
struct PrefillAttentionArgs {
  DType dtype = DType::f32;
  int64_t batch = 0, qHeads = 0, kvHeads = 0, qLen = 0, kvLen = 0, headDim = 0;
  AttentionOperand q, k, v;
  void *out = nullptr;
  int64_t outStrideB = 0, outStrideH = 0, outStrideS = 0;
  float scale = 1.0f;
  bool causal = false;
  MaskKind maskKind = MaskKind::none;
  const void *mask = nullptr;
  int64_t maskStrideB = 0, maskStrideH = 0, maskStrideS = 0, maskStrideT = 1;
  int rowsPerBlock = 0;
};
void prefillAttention(cudaStream_t stream, const PrefillAttentionArgs &args);
/// Head dims prefillAttention supports.
bool prefillAttentionSupportsHeadDim(int64_t headDim);

/// The same computation for any head dim and any layout the strides describe, one thread
/// block per query row with the scores in shared memory (slow; for shapes the tiled
/// kernels do not take, e.g. head dim 16). With `lens` (i32 [batch], device memory),
/// sequence b attends to keys [0, min(lens[b] + lenOffset, kvLen)) and the causal limit
/// uses that length: a KV-cache step whose length lives on the device (one CUDA graph per
/// step). Throws Error when kvLen exceeds genericAttentionMaxKeys().
void genericAttention(cudaStream_t stream, const PrefillAttentionArgs &args,
                      const int32_t *lens = nullptr, int32_t lenOffset = 0);
/// The most keys genericAttention takes on this device (its shared memory per block).
int64_t genericAttentionMaxKeys();

/// The rotary embedding (Su et al. 2021) a fused decode step applies to q and the new key
/// rows, with the table layout of RotaryArgs (Kernels.h): sequence b uses row
/// b * tableStrideB of cos and sin (one row per sequence: the step's position), entries
/// [0, rotaryDim) of it; rotaryDim a multiple of 16, at most headDim (channels beyond it
/// pass through); pairs (i, i + rotaryDim/2), or (2i, 2i + 1) when interleaved. tableType
/// is the attention's dtype or f32. cos = sin = null: no rotation.
struct DecodeRotary {
  const void *cos = nullptr, *sin = nullptr;
  DType tableType = DType::f32;
  int64_t rotaryDim = 0, tableRowStride = 0, tableStrideB = 0;
  bool interleaved = false;
};

/// Arguments of decodeAttention: one query per sequence.
///   q [batch, qHeads, headDim] through (qStrideB, qStrideH); out likewise.
///   cache: [batch, kvHeads, capacity, headDim] (Kernels.h), dtype as q.
///   Sequence b attends to cache rows [0, lens[b] + lenOffset) (clamped to capacity),
///   with lens i32 [batch] in device memory: lenOffset = 1 when the step appended its row
///   before attending and advances lens at its end.
///   maxSplits: how many blocks may share one sequence (flash-decoding), at most 128;
///   0 picks a value from the capacity and the multiprocessor count. The number actually
///   used is decided on the device from the length (at least 64 keys per split).
///   headsPerBlock: query heads of one group served by one block (1, 2, 4 or 8); 0 picks
///   from the batch, head counts and capacity (1 for batch-1 decode of a 32-head model
///   with a capacity up to 2048).
///   scratch: see decodeAttentionScratch.
///   newK, newV (optional, both or neither; a fused decode step, lenOffset must be 1): the
///   step's key and value rows [batch, kvHeads, headDim] through (newKStrideB, newKStrideH)
///   and (newVStrideB, newVStrideH), not yet in the cache. The launch writes them into the
///   cache at row lens[b] (as kvCacheAppend would; not when that row is at or beyond the
///   capacity) and attends to them there, in place of a kvCacheAppend launch before it.
///   rotary (optional, needs newK): rotates q and the new key rows before use, as `rotary`
///   (Kernels.h) with the same table would, including the rounding to dtype.
/// headDim must be 64, 128 or 256; qHeads a multiple of kvHeads; q, the cache, the
/// new rows and the rotary tables 16-byte aligned with strides that are multiples of 8
/// elements. Throws Error on bad arguments.
struct DecodeAttentionArgs {
  DType dtype = DType::f32;
  int64_t batch = 0, qHeads = 0, kvHeads = 0, headDim = 0;
  const void *q = nullptr;
  int64_t qStrideB = 0, qStrideH = 0;
  void *out = nullptr;
  int64_t outStrideB = 0, outStrideH = 0;
  KvCacheView cache;
  const int32_t *lens = nullptr;
  int32_t lenOffset = 0;
  float scale = 1.0f;
  int maxSplits = 0;
  int headsPerBlock = 0;
  SplitScratch scratch;
  const void *newK = nullptr, *newV = nullptr;
  int64_t newKStrideB = 0, newKStrideH = 0, newVStrideB = 0, newVStrideH = 0;
  DecodeRotary rotary;
};
void decodeAttention(cudaStream_t stream, const DecodeAttentionArgs &args);
/// Why decodeAttention would refuse the fused-step arguments of `args` (newK, newV,
/// rotary; with lenOffset, dtype and headDim), or "" when it takes them.
std::string decodeStepProblem(const DecodeAttentionArgs &args);

/// The split count decodeAttention uses for these shapes when maxSplits is 0.
int decodeAttentionDefaultSplits(int64_t batch, int64_t qHeads, int64_t kvHeads,
                                 int64_t headDim, int64_t capacity);
/// Scratch a decodeAttention launch needs: partialFloats floats and counterCount
/// counters (for maxSplits = 0 pass decodeAttentionDefaultSplits(...)). None up to 8
/// splits: they are merged inside a thread-block cluster; more go through the scratch.
struct ScratchSize {
  size_t partialFloats = 0;
  size_t counterCount = 0;
};
ScratchSize decodeAttentionScratch(int64_t batch, int64_t qHeads, int64_t kvHeads,
                                   int64_t headDim, int maxSplits);
/// Head dims decodeAttention supports.
bool decodeAttentionSupportsHeadDim(int64_t headDim);

} // namespace mm::rt::cuda

#endif // MM_RUNTIME_CUDA_ATTENTION_H
