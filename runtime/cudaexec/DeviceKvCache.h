//===- DeviceKvCache.h - the decoder's KV cache in device memory -------------===//
//
// The CUDA counterpart of runtime/exec/KvCache.h: one buffer per layer and key/value
// ([batch, kvHeads, capacity, headDim], the layout of the plan's KV-cache inputs
// with the sequence axis 2), plus the number of filled positions per sequence as i32 in
// device memory (the kernels read it, so one captured CUDA graph serves every decode step)
// and its host mirror (for shapes; every sequence has the same length at batch 1..B here).
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CUDAEXEC_DEVICEKVCACHE_H
#define MM_RUNTIME_CUDAEXEC_DEVICEKVCACHE_H

#include "runtime/cuda/Kernels.h"
#include "runtime/cudaexec/DeviceMemory.h"
#include "runtime/plan/Plan.h"

#include <vector>

namespace mm::rt::cudaexec {

class DeviceKvCache {
public:
  /// Allocates the buffers for every KV slot of `decoder` (zero lengths). Throws Error if
  /// the decoder has no KV slots, a slot is not [batch, heads, past, headDim] along axis 2,
  /// or the device lacks the memory.
  DeviceKvCache(const FunctionInfo &decoder, int64_t batch, int64_t capacity);

  const FunctionInfo *function() const { return function_; }
  int64_t batch() const { return batch_; }
  int64_t capacity() const { return capacity_; }
  /// Positions filled (host mirror of the device lengths).
  int64_t length() const { return length_; }
  /// Forgets every entry: zeroes the device lengths on `stream`.
  void clear(cudaStream_t stream);
  /// Records that the step appended `n` positions (the executor advances the device
  /// lengths with a launch at the end of the step).
  void advanceHost(int64_t n) { length_ += n; }
  /// i32 [batch] lengths in device memory.
  int32_t *lengths() const { return static_cast<int32_t *>(lens_.get()); }

  /// Slot i's buffer (indexed like FunctionInfo::kvSlots) and its dims.
  void *buffer(size_t i) const { return buffers_.at(i).get(); }
  int64_t kvHeads(size_t i) const { return heads_.at(i); }
  int64_t headDim(size_t i) const { return headDims_.at(i); }
  DType dtype(size_t i) const { return dtypes_.at(i); }
  /// The key/value pair of the layer holding slot i.
  cuda::KvCacheView layerView(size_t keySlot, size_t valueSlot) const;
  size_t bytes() const;

private:
  const FunctionInfo *function_;
  int64_t batch_, capacity_, length_ = 0;
  std::vector<DeviceBuffer> buffers_;
  std::vector<int64_t> heads_, headDims_;
  std::vector<DType> dtypes_;
  DeviceBuffer lens_;
};

} // namespace mm::rt::cudaexec

#endif // MM_RUNTIME_CUDAEXEC_DEVICEKVCACHE_H
