//===- KvCache.cpp - the decoder's KV cache, owned by the runtime ------------===//
#include "runtime/exec/KvCache.h"

#include "runtime/core/Error.h"

namespace mm::rt {

KvCache::KvCache(const FunctionInfo &decoder, int64_t batch, int64_t capacity)
    : function_(&decoder), batch_(batch), capacity_(capacity) {
  if (decoder.kvSlots.empty())
    fail("function '", decoder.name, "' has no KV-cache slots (no KV-cache input appended "
         "into a KV-cache output)");
  if (batch <= 0 || capacity <= 0)
    fail("KV cache: batch (", batch, ") and capacity (", capacity, ") must be positive");
  for (const KvSlotInfo &slot : decoder.kvSlots) {
    const ValueInfo &past = decoder.inputs[slot.pastInput];
    const TensorInfo &t = decoder.tensors[past.tensor];
    Shape shape = t.shape;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (static_cast<int32_t>(d) == slot.axis)
        shape[d] = capacity;
      else if (d == 0 && shape[d] < 0)
        shape[d] = batch;
      else if (shape[d] < 0)
        fail("KV cache: dim ", d, " ('", t.dimNames[d], "') of '", past.name,
             "' is dynamic; only the batch (dim 0) and sequence dims may be");
      else if (d == 0 && shape[d] != batch)
        fail("KV cache: '", past.name, "' has batch ", shape[d], ", not ", batch);
    }
    buffers_.push_back(Tensor::host(t.dtype, shape));
  }
}

void KvCache::advance(int64_t n) {
  if (n < 0 || length_ + n > capacity_)
    fail("KV cache full: ", length_, " + ", n, " positions exceed the capacity ", capacity_);
  length_ += n;
}

size_t KvCache::bytes() const {
  size_t total = 0;
  for (const Tensor &b : buffers_)
    total += b.nbytes();
  return total;
}

} // namespace mm::rt
