//===- Arena.cpp - the activation arena of one function ----------------------===//
#include "runtime/exec/Arena.h"

#include "runtime/core/Error.h"

#include <cstdlib>
#include <limits>

namespace mm::rt {
namespace {
size_t roundUp(size_t n) {
  if (n > std::numeric_limits<size_t>::max() - Arena::kAlignment)
    fail("arena: allocation of ", n, " bytes is too large");
  return n == 0 ? Arena::kAlignment : (n + Arena::kAlignment - 1) / Arena::kAlignment * Arena::kAlignment;
}
void *alignedAlloc(size_t bytes) {
  void *p = std::aligned_alloc(Arena::kAlignment, bytes);
  if (!p)
    fail("out of host memory allocating ", bytes, " bytes of activations");
  return p;
}
} // namespace

Arena::Memory Arena::hostMemory() { return {alignedAlloc, std::free, false}; }

size_t Arena::bestFitOffset(size_t size) const {
  size_t best = std::numeric_limits<size_t>::max();
  size_t bestGap = std::numeric_limits<size_t>::max();
  size_t end = 0; // end of the previous live block
  for (const auto &[offset, block] : byOffset_) {
    size_t gap = offset - end;
    if (gap >= size && gap < bestGap) {
      best = end;
      bestGap = gap;
    }
    end = offset + block.size;
  }
  return best != std::numeric_limits<size_t>::max() ? best : end;
}

void *Arena::allocate(size_t bytes) {
  size_t size = roundUp(bytes);
  size_t offset = bestFitOffset(size);
  void *overflow = nullptr;
  void *ptr;
  size_t overflowBytes = 0;
  if (offset + size <= capacity_) {
    ptr = buffer_.get() + offset;
  } else if (auto reuse = retired_.lower_bound(size); reuse != retired_.end()) {
    // The smallest overflow block released earlier in this call that fits: its last
    // reader was issued before this block's writer (see Memory::deferOverflowRelease).
    overflowBytes = reuse->first;
    overflow = reuse->second;
    ptr = overflow;
    retired_.erase(reuse);
  } else {
    overflowBytes = size;
    overflow = memory_.allocate(size);
    ptr = overflow;
  }
  byOffset_.emplace(offset, Block{size, overflow, overflowBytes});
  offsetOf_.emplace(ptr, offset);
  liveBytes_ += size;
  callPeak_ = std::max(callPeak_, offset + size);
  peak_ = std::max(peak_, callPeak_);
  return ptr;
}

bool Arena::inBuffer(const void *block) const {
  auto *p = static_cast<const uint8_t *>(block);
  return buffer_ && p >= buffer_.get() && p < buffer_.get() + capacity_;
}

void Arena::release(void *ptr) {
  auto it = offsetOf_.find(ptr);
  if (it == offsetOf_.end())
    fail("arena: release of a block it does not own");
  auto blockIt = byOffset_.find(it->second);
  liveBytes_ -= blockIt->second.size;
  if (blockIt->second.overflow) {
    if (memory_.deferOverflowRelease)
      retired_.emplace(blockIt->second.overflowBytes, blockIt->second.overflow);
    else
      memory_.release(blockIt->second.overflow);
  }
  byOffset_.erase(blockIt);
  offsetOf_.erase(it);
}

void Arena::endCall() {
  for (auto &[offset, block] : byOffset_)
    if (block.overflow)
      memory_.release(block.overflow);
  for (auto &[bytes, p] : retired_)
    memory_.release(p);
  retired_.clear();
  byOffset_.clear();
  offsetOf_.clear();
  liveBytes_ = 0;
  const size_t peak = callPeak_;
  callPeak_ = 0;
  reserve(peak);
}

void Arena::reserve(size_t bytes) {
  if (!byOffset_.empty() || callPeak_ != 0 || !retired_.empty())
    fail("internal error: an arena grows only between calls (", byOffset_.size(), " blocks are live)");
  if (bytes <= capacity_)
    return;
  bytes = roundUp(bytes);
  buffer_.reset(); // first: the old and the new buffer are never held together
  capacity_ = 0;
  buffer_ = std::unique_ptr<uint8_t, void (*)(void *)>(static_cast<uint8_t *>(memory_.allocate(bytes)),
                                                       memory_.release);
  capacity_ = bytes;
  ++growCount_;
}

} // namespace mm::rt
