//===- KvCache.h - the decoder's KV cache, owned by the runtime --------------===//
//
// One preallocated buffer per layer and key/value (per KvCacheSlot of the decoder
// function), with room for `capacity` positions along the sequence axis, and the number
// of positions filled so far. A decoder step run with the cache reads its past keys and
// values as views of the buffers and appends only the step's new entries in place: the
// cache is never copied from one step to the next. See docs/plan-format.md.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_EXEC_KVCACHE_H
#define MM_RUNTIME_EXEC_KVCACHE_H

#include "runtime/core/Tensor.h"
#include "runtime/plan/Plan.h"

#include <cstdint>
#include <vector>

namespace mm::rt {

class KvCache {
public:
  /// Allocates the buffers for every KV slot of `decoder`: each past input's declared
  /// shape, with the sequence axis set to `capacity` and dim 0 (if dynamic) to `batch`.
  /// Throws Error if the decoder has no KV slots or another dim is dynamic.
  KvCache(const FunctionInfo &decoder, int64_t batch, int64_t capacity);

  /// Positions filled.
  int64_t length() const { return length_; }
  int64_t capacity() const { return capacity_; }
  int64_t batch() const { return batch_; }
  /// Forgets every entry (the buffers are kept).
  void clear() { length_ = 0; }
  /// Marks `n` more positions as filled (after a successful step).
  void advance(int64_t n);

  /// The buffer of slot `i` (indexed like FunctionInfo::kvSlots): [..., capacity, ...].
  Tensor &buffer(size_t i) { return buffers_.at(i); }
  const Tensor &buffer(size_t i) const { return buffers_.at(i); }
  size_t numSlots() const { return buffers_.size(); }
  /// Total bytes of all buffers.
  size_t bytes() const;
  /// The function the cache was built for (checked by the executor).
  const FunctionInfo *function() const { return function_; }

private:
  const FunctionInfo *function_;
  int64_t batch_, capacity_, length_ = 0;
  std::vector<Tensor> buffers_;
};

} // namespace mm::rt

#endif // MM_RUNTIME_EXEC_KVCACHE_H
