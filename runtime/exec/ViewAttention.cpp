//===- ViewAttention.cpp - mm.attention on KV-cache views without copies ----===//
//
// With a KV cache the decoder's keys and values are views [B, Hkv, T, D] of buffers
// [B, Hkv, capacity, D]: not contiguous as a whole, but each (batch, KV head) slice
// [T, D] is. mm.attention maps query head h to KV head h / (Hq / Hkv), so the op splits
// into B * Hkv independent attentions: query heads [h*g, (h+1)*g) of batch b (g = Hq /
// Hkv) against KV head h of batch b, each on contiguous slices, each writing a
// contiguous slice of the result. The CPU kernel runs once per slice, unchanged.
//
//===----------------------------------------------------------------------===//
#include "runtime/core/Error.h"
#include "runtime/core/InjectedFault.h"
#include "runtime/exec/Executor.h"
#include "runtime/exec/StridedView.h"

namespace mm::rt {
namespace {

/// The context of one slice: the op's attributes; the result is a given slice.
class SliceContext final : public cpu::KernelContext {
public:
  SliceContext(const Attrs &attrs, Tensor slice) : attrs_(attrs), slice_(std::move(slice)) {}
  const Attrs &attrs() const override { return attrs_; }
  DType outputDType(size_t i) const override {
    if (i != 0)
      fail("result index ", i, " out of range (1 result)");
    return slice_.dtype;
  }
  Tensor allocateOutput(size_t i, const Shape &shape) override {
    outputDType(i);
    if (shape != slice_.shape)
      fail("result shape ", shapeString(shape), " differs from the slice ", shapeString(slice_.shape));
    return slice_;
  }

private:
  const Attrs &attrs_;
  Tensor slice_;
};

/// A [1, n, rows, cols] slice of `t` starting at element `offset` (no ownership).
Tensor slice4(const Tensor &t, int64_t offset, int64_t n) {
  Tensor s;
  s.dtype = t.dtype;
  s.shape = {1, n, t.shape[2], t.shape[3]};
  s.data = static_cast<uint8_t *>(t.data) + static_cast<size_t>(offset) * dtypeSize(t.dtype);
  return s;
}

/// Element offset of the (b, h) slice of a rank-4 value whose last two dims are
/// row-major; -1 if its layout does not allow that.
int64_t kvSliceOffset(const Tensor &t, const std::vector<int64_t> &strides, int64_t b, int64_t h) {
  if (strides.empty())
    return (b * t.shape[1] + h) * t.shape[2] * t.shape[3];
  if (strides[3] != 1 || (t.shape[2] > 1 && strides[2] != t.shape[3]))
    return -1;
  return b * strides[0] + h * strides[1];
}

} // namespace

bool Executor::runAttentionOnViews(size_t i, std::vector<Value> &values) {
  const OpInfo &op = fn_->ops[i];
  if (op.name != "mm.attention" || op.inputs.size() < 3 || op.outputs.size() != 1)
    return false;
  Value &q = values[op.inputs[0]], &k = values[op.inputs[1]], &v = values[op.inputs[2]];
  Value *mask = op.inputs.size() > 3 ? &values[op.inputs[3]] : nullptr;
  bool kView = !k.strides.empty() && !isContiguousView(k.tensor.shape, k.strides);
  bool vView = !v.strides.empty() && !isContiguousView(v.tensor.shape, v.strides);
  // A decode step over the KV cache under the injected bf16-as-f16 fault runs here even
  // when the cache views are contiguous (one KV head, or a full cache).
  const bool faulted = q.tensor.rank() == 4 && q.tensor.shape[2] == 1 &&
                       (!k.strides.empty() || !v.strides.empty()) &&
                       kvDecodeAttentionType(q.tensor.dtype) != q.tensor.dtype;
  if ((!kView && !vView && !faulted) || !q.strides.empty() || (mask && !mask->strides.empty()))
    return false;
  const Tensor &Q = q.tensor, &K = k.tensor, &V = v.tensor;
  if (Q.rank() != 4 || K.rank() != 4 || V.rank() != 4)
    return false;
  const int64_t B = Q.shape[0], Hq = Q.shape[1], S = Q.shape[2], Hkv = K.shape[1];
  if (Hkv == 0 || Hq % Hkv != 0 || K.shape[0] != B || V.shape[0] != B || V.shape[1] != Hkv ||
      V.shape[2] != K.shape[2])
    return false;
  const int64_t g = Hq / Hkv;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hkv; ++h)
      if (kvSliceOffset(K, k.strides, b, h) < 0 || kvSliceOffset(V, v.strides, b, h) < 0)
        return false;

  // The mask (broadcastable to [B, Hq, S, T]) is sliced along batch and heads when it has
  // them; lower ranks and size-1 dims apply to every slice as they are.
  const Tensor *M = mask ? &mask->tensor : nullptr;
  if (M && M->rank() == 4 && ((M->shape[0] != 1 && M->shape[0] != B) ||
                              (M->shape[1] != 1 && M->shape[1] != Hq)))
    return false;
  if (M && M->rank() == 3 && M->shape[0] != 1)
    return false;

  checkResultShape(i, 0, {B, Hq, S, V.shape[3]});
  // On an error the arena releases `out` at the end of the call.
  Value out = allocateValue(op.outputs[0], {B, Hq, S, V.shape[3]});
  // A decode step over the KV cache runs in kvDecodeAttentionType (the dtype itself unless
  // the mutation check injects a fault): q, k, v and the result are read and written as it.
  const DType type = S == 1 ? kvDecodeAttentionType(Q.dtype) : Q.dtype;
  try {
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < Hkv; ++h) {
        Tensor qs = slice4(Q, (b * Hq + h * g) * S * Q.shape[3], g);
        Tensor ks = slice4(K, kvSliceOffset(K, k.strides, b, h), 1);
        Tensor vs = slice4(V, kvSliceOffset(V, v.strides, b, h), 1);
        Tensor rs = slice4(out.tensor, (b * Hq + h * g) * S * V.shape[3], g);
        if (type != Q.dtype) // an injected fault: every operand read as `type`
          qs.dtype = ks.dtype = vs.dtype = rs.dtype = type;
        Tensor ms;
        std::vector<const Tensor *> ins = {&qs, &ks, &vs};
        if (M) {
          ms = *M;
          if (M->rank() == 4) {
            int64_t mb = M->shape[0] == 1 ? 0 : b;
            int64_t mh = M->shape[1] == 1 ? 0 : h * g;
            int64_t mn = M->shape[1] == 1 ? 1 : g;
            ms = slice4(*M, (mb * M->shape[1] + mh) * M->shape[2] * M->shape[3], mn);
          }
          ins.push_back(&ms);
        }
        SliceContext ctx(op.attrs, rs);
        std::vector<Tensor> outs(1);
        kernels_[i](ctx, ins, outs);
      }
  } catch (const Error &e) {
    opError(i, e.what());
  }
  values[op.outputs[0]] = std::move(out);
  return true;
}

} // namespace mm::rt
