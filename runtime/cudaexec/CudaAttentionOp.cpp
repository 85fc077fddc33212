//===- CudaAttentionOp.cpp - mm.attention on the device ----------------------===//
//
// The mask of a decoder's attention is built on the host (docs/cuda-graphs.md), so its
// pattern is known before the launch: a mask that hides nothing is dropped, a causal mask
// becomes the kernels' causal flag, anything else is uploaded and applied as given. A
// one-token step over the KV cache with nothing masked runs the decode kernel, which
// reads the cache lengths from device memory: the step's launches are then the same at
// every position (one CUDA graph). With fused launches on, that one launch also writes
// the step's key/value rows into the cache and applies the q/k rotary (the executor
// leaves both to it: the fusion bits append_into_attention and rotary_into_attention that
// -mm-plan-cuda-fusion set).
//
//===----------------------------------------------------------------------===//
#include "runtime/cudaexec/OpRecorder.h"

#include "runtime/core/Error.h"
#include "runtime/core/InjectedFault.h"

#include <cmath>

namespace mm::rt::cudaexec {
namespace {

cuda::AttentionOperand operandOf(const CudaExecutor::Value &v) {
  std::vector<int64_t> st = stridesOf(v);
  return {v.dev, st[0], st[1], st[2]};
}

/// Prefill-kernel arguments for q [B, Hq, S, D] and k, v [B, Hkv, >= kvLen, D] (views),
/// out contiguous [B, Hq, S, D]; no mask, not causal.
cuda::PrefillAttentionArgs attentionArgs(const CudaExecutor::Value &q, const CudaExecutor::Value &k,
                                         const CudaExecutor::Value &v, char *out, int64_t kvLen,
                                         float scale) {
  cuda::PrefillAttentionArgs a;
  a.dtype = q.dtype;
  a.batch = q.shape[0];
  a.qHeads = q.shape[1];
  a.kvHeads = k.shape[1];
  a.qLen = q.shape[2];
  a.kvLen = kvLen;
  a.headDim = q.shape[3];
  a.q = operandOf(q);
  a.k = operandOf(k);
  a.v = operandOf(v);
  a.out = out;
  a.outStrideB = a.qHeads * a.qLen * a.headDim;
  a.outStrideH = a.qLen * a.headDim;
  a.outStrideS = a.headDim;
  a.scale = scale;
  return a;
}

} // namespace

MaskPattern CudaExecutor::OpRecorder::maskPattern(int64_t qLen, int64_t kvLen) {
  if (numInputs() <= 3)
    return MaskPattern::none;
  Value &mask = in(3);
  if (mask.maskPattern < 0) // classified once per call: every layer reads the same mask
    mask.maskPattern = static_cast<int>(
        mask.host.data || !mask.dev ? classifyMask(hostIn(3), qLen, kvLen) : MaskPattern::general);
  return static_cast<MaskPattern>(mask.maskPattern);
}

cuda::DecodeAttentionArgs CudaExecutor::OpRecorder::decodeArgs(const Value &q, const Value &k,
                                                               const Value &v) {
  cuda::DecodeAttentionArgs a;
  a.dtype = kvDecodeAttentionType(q.dtype); // q.dtype unless a test injects a fault
  a.batch = q.shape[0];
  a.qHeads = q.shape[1];
  a.kvHeads = k.shape[1];
  a.headDim = q.shape[3];
  a.outStrideB = a.qHeads * a.headDim;
  a.outStrideH = a.headDim;
  a.cache = cache_->layerView(static_cast<size_t>(k.kvSlot), static_cast<size_t>(v.kvSlot));
  a.lens = cache_->lengths();
  a.lenOffset = 1; // the step's row is at lens[b]: attend to lens[b] + 1 keys
  a.scale = static_cast<float>(attrs().getFloat("scale"));
  return a;
}

void CudaExecutor::OpRecorder::recordDecodeAttention(cuda::DecodeAttentionArgs a) {
  a.maxSplits = cuda::decodeAttentionDefaultSplits(a.batch, a.qHeads, a.kvHeads, a.headDim,
                                                   a.cache.capacity);
  cuda::ScratchSize need =
      cuda::decodeAttentionScratch(a.batch, a.qHeads, a.kvHeads, a.headDim, a.maxSplits);
  CudaContext &ctx = ex_.ctx_;
  const cuda::SplitScratch &have = ctx.decodeScratch(0, 0);
  if (have.partialCount < need.partialFloats || have.counterCount < need.counterCount)
    ex_.flush(); // launches recorded so far use the old scratch, which is freed now
  a.scratch = ctx.decodeScratch(need.partialFloats, need.counterCount);
  record([=](cudaStream_t s) { cuda::decodeAttention(s, a); });
  const cuda::DecodeRotary &r = a.rotary;
  sign(index_, a.dtype, a.q, a.qStrideB, a.qStrideH, a.out, a.cache, a.lens, a.scale,
       a.maxSplits, a.scratch, a.batch, a.qHeads, a.kvHeads, a.headDim, a.newK, a.newV,
       a.newKStrideB, a.newKStrideH, a.newVStrideB, a.newVStrideH, r.cos, r.sin, r.tableType,
       r.rotaryDim, r.tableRowStride, r.tableStrideB, r.interleaved);
}

bool CudaExecutor::OpRecorder::attendToFreshStep(Value &q, Value &k, Value &v) {
  if (!cache_ || !ex_.ctx_.fusedLaunchesEnabled() || k.kvSlot < 0 || v.kvSlot < 0)
    return false;
  const size_t ks = static_cast<size_t>(k.kvSlot), vs = static_cast<size_t>(v.kvSlot);
  Value &nk = ex_.kvPending_[ks], &nv = ex_.kvPending_[vs];
  if (!nk.set || !nv.set || ex_.partnerSlot_[ks] != static_cast<int>(vs) ||
      ex_.fn_->kvSlots[ks].kind != KvKind::key)
    return false;
  DeferredRotary &r = ex_.deferredRotary_;
  const bool rotated = r.op != SIZE_MAX;
  if (rotated && (q.dev != r.qOut() || nk.dev != r.kOut()))
    return false; // another layout: the separate launches
  if (!rotated)
    ensureDevice(q); // q is no cache view: no append is launched here
  if (q.shape.size() != 4 || nk.shape.size() != 4 || nv.shape != nk.shape || q.shape[2] != 1 ||
      nk.shape[2] != 1)
    return false;
  const int64_t batch = q.shape[0], qHeads = q.shape[1], headDim = q.shape[3];
  const int64_t kvHeads = nk.shape[1];
  if (nk.shape[0] != batch || nk.shape[3] != headDim || kvHeads <= 0 || qHeads % kvHeads != 0 ||
      q.dtype != nk.dtype || q.dtype != nv.dtype || !cuda::decodeAttentionSupportsHeadDim(headDim) ||
      maskPattern(1, k.shape[2]) == MaskPattern::general)
    return false;
  // Strides of extent-1 dims are never used: zeroed, so that only the used ones are checked.
  auto used = [&](std::vector<int64_t> st) {
    if (batch == 1)
      st[0] = 0;
    return st;
  };
  const std::vector<int64_t> qs = used(stridesOf(q)), kst = used(stridesOf(nk)),
                             vst = used(stridesOf(nv));
  cuda::DecodeAttentionArgs a = decodeArgs(q, k, v);
  a.q = rotated ? r.args.x : q.dev;
  a.qStrideB = rotated ? (batch == 1 ? 0 : r.args.xStrideB) : qs[0];
  a.qStrideH = rotated ? r.args.xStrideH : qs[1];
  a.newK = rotated ? r.kIn() : nk.dev; // the unrotated key heads have q's strides
  a.newKStrideB = rotated ? a.qStrideB : kst[0];
  a.newKStrideH = rotated ? a.qStrideH : kst[1];
  a.newV = nv.dev;
  a.newVStrideB = vst[0];
  a.newVStrideH = vst[1];
  if (rotated) // the table part of the deferred rotary launch
    a.rotary = {r.args.cos,          r.args.sin,          r.args.tableType, r.args.rotaryDim,
                r.args.tableRowStride, r.args.tableStrideB, r.args.interleaved};
  // The layout decodeAttention takes for q; its own rules for the step's rows and table.
  const bool fits = (rotated || (qs[3] == 1 && kst[3] == 1)) && vst[3] == 1 &&
                    reinterpret_cast<uintptr_t>(a.q) % 16 == 0 && a.qStrideB % 8 == 0 &&
                    a.qStrideH % 8 == 0 && cuda::decodeStepProblem(a).empty();
  if (!fits)
    return false;
  a.out = result(0, q.shape, q.dtype).dev;
  recordDecodeAttention(a);
  // Released only now: `out` must not take the memory the launch reads.
  for (Value *p : {&nk, &nv}) {
    ex_.drop(p->block);
    *p = Value();
  }
  for (void *b : r.blocks)
    ex_.drop(b);
  r = DeferredRotary();
  return true;
}

void CudaExecutor::OpRecorder::attention() {
  Value &q = in(0), &k = in(1), &v = in(2);
  if (attendToFreshStep(q, k, v))
    return;
  launchDeferredRotary();
  for (Value *x : {&q, &k, &v}) {
    ensureDevice(*x);
    if (x->shape.size() != 4 || stridesOf(*x)[3] != 1)
      makeContiguous(*x);
    if (x->shape.size() != 4)
      fail("operands must be [batch, heads, seq, head_dim], got ", shapeString(x->shape));
  }
  const int64_t batch = q.shape[0], qHeads = q.shape[1], qLen = q.shape[2], headDim = q.shape[3];
  const int64_t kvHeads = k.shape[1], kvLen = k.shape[2];
  if (k.shape != v.shape || k.shape[0] != batch || k.shape[3] != headDim || kvHeads <= 0 ||
      qHeads % kvHeads != 0 || q.dtype != k.dtype || q.dtype != v.dtype)
    fail("query ", shapeString(q.shape), ", key ", shapeString(k.shape), " and value ",
         shapeString(v.shape), " do not fit");
  const MaskPattern pattern = maskPattern(qLen, kvLen);
  const bool causal = attrs().getInt("causal", 0) != 0 || pattern == MaskPattern::causal;
  Value *mask = pattern == MaskPattern::general ? &in(3) : nullptr;
  const float scale = static_cast<float>(attrs().getFloat("scale"));
  Value &out = result(0, q.shape, q.dtype);

  const bool cacheStep = cache_ && k.kvSlot >= 0 && v.kvSlot >= 0 && qLen == 1 &&
                         pattern != MaskPattern::general;
  if (cacheStep) {
    // The step appended its row at lens[b] before this launch: attend to lens[b] + 1 keys.
    const int32_t *lens = cache_->lengths();
    std::vector<int64_t> qs = stridesOf(q);
    const bool aligned = reinterpret_cast<uintptr_t>(q.dev) % 16 == 0 &&
                         reinterpret_cast<uintptr_t>(out.dev) % 16 == 0;
    if (cuda::decodeAttentionSupportsHeadDim(headDim) && aligned && qs[0] % 8 == 0 && qs[1] % 8 == 0) {
      cuda::DecodeAttentionArgs a = decodeArgs(q, k, v);
      a.q = q.dev;
      a.qStrideB = qs[0];
      a.qStrideH = qs[1];
      a.out = out.dev;
      recordDecodeAttention(a);
      return;
    }
    cuda::PrefillAttentionArgs a = attentionArgs(q, k, v, out.dev, cache_->capacity(), scale);
    a.dtype = kvDecodeAttentionType(a.dtype);
    record([=](cudaStream_t s) { cuda::genericAttention(s, a, lens, 1); });
    sign(index_, a.dtype, a.q, a.k, a.v, a.out, a.kvLen, a.scale, lens, batch, qHeads, kvHeads, headDim);
    return;
  }

  cuda::PrefillAttentionArgs a = attentionArgs(q, k, v, out.dev, kvLen, scale);
  a.causal = causal;
  if (mask) {
    makeContiguous(*mask);
    const Shape &ms = mask->shape;
    if (ms.size() < 2 || ms.size() > 4)
      fail("mask ", shapeString(ms), " is not [.., seq, kv_len]");
    const bool boolean = mask->dtype == DType::boolean || mask->dtype == DType::u8;
    if (!boolean && mask->dtype != q.dtype)
      fail("additive mask is ", dtypeName(mask->dtype), "; the CUDA kernels take ", dtypeName(q.dtype));
    Shape full(4 - ms.size(), 1);
    full.insert(full.end(), ms.begin(), ms.end());
    std::vector<int64_t> st = rowMajorStrides(full);
    const int64_t want[4] = {batch, qHeads, qLen, kvLen};
    for (int d = 0; d < 4; ++d) {
      if (full[d] != 1 && full[d] != want[d])
        fail("mask ", shapeString(ms), " does not broadcast to [", batch, ", ", qHeads, ", ",
             qLen, ", ", kvLen, "]");
      if (full[d] == 1)
        st[d] = 0;
    }
    a.maskKind = boolean ? cuda::MaskKind::boolean : cuda::MaskKind::additive;
    a.mask = mask->dev;
    a.maskStrideB = st[0];
    a.maskStrideH = st[1];
    a.maskStrideS = st[2];
    a.maskStrideT = st[3];
  }
  const bool tiled = cuda::prefillAttentionSupportsHeadDim(headDim);
  record([=](cudaStream_t s) {
    if (tiled)
      cuda::prefillAttention(s, a);
    else
      cuda::genericAttention(s, a);
  });
  sign(index_, a.dtype, a.q, a.k, a.v, a.out, a.qLen, a.kvLen, a.scale, a.causal, a.maskKind,
       a.mask, a.maskStrideB, a.maskStrideH, a.maskStrideS, a.maskStrideT, batch, qHeads,
       kvHeads, headDim);
}

} // namespace mm::rt::cudaexec
