//===- Arena.h - the activation arena of one function ------------------------===//
//
// One buffer per function, reused across calls. Shapes may be dynamic, so offsets are
// assigned at run time, when a kernel asks for an output: best fit over the gaps between
// the blocks live at that moment (the plan's liveness intervals say when the executor
// releases each block), else at the end. A call that needs more than the buffer gets
// the excess from the heap for that call only (pointers of live blocks never move), and
// the buffer grows to that call's peak when the call ends, so a repeated call with the
// same shapes runs entirely in the arena without allocating. See docs/plan-format.md.
// The storage comes from a Memory (host memory by default; the CUDA executor passes
// device memory: the arena only computes offsets, it never touches the bytes).
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_EXEC_ARENA_H
#define MM_RUNTIME_EXEC_ARENA_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

namespace mm::rt {

class Arena {
public:
  /// Block alignment in bytes.
  static constexpr size_t kAlignment = 64;

  /// Where the buffer and the overflow blocks come from. `allocate` throws Error when out
  /// of memory; `release` takes what `allocate` returned.
  struct Memory {
    void *(*allocate)(size_t bytes);
    void (*release)(void *ptr);
    /// Keep released overflow blocks until endCall(), for reuse by the call's later
    /// overflow allocations only: the CUDA executor issues a call's launches after all
    /// its allocations, in order on one stream, so a block released early is still read
    /// by launches not yet issued, and may be handed on only to a later op of the same
    /// call (as offsets in the buffer are). A first call of a large shape then needs
    /// about its live peak in overflow blocks, not the sum of all its activations.
    bool deferOverflowRelease = false;
  };
  /// Host memory (64-byte aligned).
  static Memory hostMemory();

  Arena() : Arena(hostMemory()) {}
  explicit Arena(Memory memory) : memory_(memory) {}
  Arena(const Arena &) = delete;
  Arena &operator=(const Arena &) = delete;

  /// A block of at least `bytes` bytes (64-byte aligned, not zeroed), valid until
  /// release() or endCall(). Throws Error when out of memory.
  void *allocate(size_t bytes);
  /// Releases a block returned by allocate(); throws Error for an unknown pointer.
  void release(void *block);
  /// Releases every block still live (after a failed call) and grows the buffer to the
  /// peak the call reached if it did not fit.
  void endCall();
  /// Grows the buffer to at least `bytes` (rounded up to kAlignment) between calls, so that
  /// a call of that size runs without allocating (the CUDA executor keeps its two staging
  /// areas the same size). The old buffer is released first: when the allocation throws
  /// Error, the arena is left without a buffer (capacity 0), still usable. Throws Error
  /// inside a call (after allocate(), before endCall()): launches not yet issued may still
  /// read the buffer.
  void reserve(size_t bytes);

  /// Bytes of the arena buffer.
  size_t capacity() const { return capacity_; }
  /// Highest end offset any call has reached (the arena size the calls need).
  size_t peak() const { return peak_; }
  /// Bytes of the blocks live now.
  size_t liveBytes() const { return liveBytes_; }
  /// Number of blocks live now.
  size_t liveBlocks() const { return byOffset_.size(); }
  /// How many times the buffer was (re)allocated.
  int growCount() const { return growCount_; }
  /// Whether `block` lies in the arena buffer (false for a heap overflow block).
  bool inBuffer(const void *block) const;

private:
  struct Block {
    size_t size;
    void *overflow;       ///< heap storage when the block does not fit the buffer
    size_t overflowBytes; ///< the size of that storage (a reused one may be larger)
  };
  size_t bestFitOffset(size_t size) const;

  Memory memory_;
  std::unique_ptr<uint8_t, void (*)(void *)> buffer_{nullptr, nullptr};
  size_t capacity_ = 0;
  size_t peak_ = 0;
  size_t callPeak_ = 0;
  size_t liveBytes_ = 0;
  int growCount_ = 0;
  std::map<size_t, Block> byOffset_;
  /// Released overflow blocks by size (deferOverflowRelease), reused within the call.
  std::multimap<size_t, void *> retired_;
  std::unordered_map<void *, size_t> offsetOf_;
};

} // namespace mm::rt

#endif // MM_RUNTIME_EXEC_ARENA_H
