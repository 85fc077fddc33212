//===- DeviceKvCache.cpp - the decoder's KV cache in device memory -----------===//
#include "runtime/cudaexec/DeviceKvCache.h"

#include "runtime/core/Error.h"

namespace mm::rt::cudaexec {

DeviceKvCache::DeviceKvCache(const FunctionInfo &decoder, int64_t batch, int64_t capacity)
    : function_(&decoder), batch_(batch), capacity_(capacity) {
  if (decoder.kvSlots.empty())
    fail("function '", decoder.name, "' has no KV-cache slots");
  if (batch <= 0 || capacity <= 0)
    fail("KV cache: batch (", batch, ") and capacity (", capacity, ") must be positive");
  size_t total = 0;
  for (const KvSlotInfo &slot : decoder.kvSlots) {
    const ValueInfo &past = decoder.inputs[slot.pastInput];
    const TensorInfo &t = decoder.tensors[past.tensor];
    const KvCacheLayout &l = decoder.kvLayout;
    if (l.batchAxis != 0 || l.headsAxis != 1 || l.sequenceAxis != 2 || l.headDimAxis != 3 ||
        t.shape[1] < 0 || t.shape[3] < 0)
      fail("KV cache: '", past.name, "' is ", shapeString(t.shape), " with the sequence on axis ",
           l.sequenceAxis, " and the heads on axis ", l.headsAxis,
           "; the CUDA backend takes [batch, kv_heads, past, head_dim] with static heads and head dim");
    if (t.shape[0] >= 0 && t.shape[0] != batch)
      fail("KV cache: '", past.name, "' has batch ", t.shape[0], ", not ", batch);
    heads_.push_back(t.shape[1]);
    headDims_.push_back(t.shape[3]);
    dtypes_.push_back(t.dtype);
    total += static_cast<size_t>(batch * t.shape[1] * capacity * t.shape[3]) * dtypeSize(t.dtype);
  }
  requireFreeDeviceMemory(total, "the KV cache");
  for (size_t i = 0; i < decoder.kvSlots.size(); ++i)
    buffers_.emplace_back(static_cast<size_t>(batch * heads_[i] * capacity * headDims_[i]) *
                              dtypeSize(dtypes_[i]),
                          "the KV cache", DeviceShare::kvCache);
  lens_ = DeviceBuffer(static_cast<size_t>(batch) * sizeof(int32_t), "KV-cache lengths",
                       DeviceShare::kvCache);
  cuda::checkCuda(cudaMemset(lens_.get(), 0, lens_.bytes()), "cudaMemset");
  cuda::checkCuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); // before any stream uses them
}

void DeviceKvCache::clear(cudaStream_t stream) {
  length_ = 0;
  cuda::checkCuda(cudaMemsetAsync(lens_.get(), 0, lens_.bytes(), stream), "cudaMemsetAsync");
}

cuda::KvCacheView DeviceKvCache::layerView(size_t keySlot, size_t valueSlot) const {
  if (heads_[keySlot] != heads_[valueSlot] || headDims_[keySlot] != headDims_[valueSlot])
    fail("KV cache: the key and value of a layer differ in shape");
  cuda::KvCacheView v;
  v.k = buffer(keySlot);
  v.v = buffer(valueSlot);
  v.batch = batch_;
  v.kvHeads = heads_[keySlot];
  v.capacity = capacity_;
  v.headDim = headDims_[keySlot];
  return v;
}

size_t DeviceKvCache::bytes() const {
  size_t total = 0;
  for (const DeviceBuffer &b : buffers_)
    total += b.bytes();
  return total;
}

} // namespace mm::rt::cudaexec
