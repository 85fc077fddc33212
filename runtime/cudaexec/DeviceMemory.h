//===- DeviceMemory.h - device and pinned allocations of the CUDA executor ----===//
//
// Every device allocation of the CUDA executor goes through here, so that a failure says
// how much was asked for and how much the device had free, and `mmrun` can report the
// peak (deviceBytesPeak, like torch.cuda.max_memory_allocated: our buffers only, without
// the CUDA context and the cuBLASLt workspace). Allocation happens at load and on the
// first calls of a shape; a decode step in steady state allocates nothing.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CUDAEXEC_DEVICEMEMORY_H
#define MM_RUNTIME_CUDAEXEC_DEVICEMEMORY_H

#include "runtime/exec/Arena.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace mm::rt::cudaexec {

/// Throws Error with a hint to use --device cpu when there is no usable CUDA device: no
/// driver, a driver too old for this CUDA runtime, no device, or a device older than the
/// compute capability 9.0 the kernels are built for. Selects device 0.
void requireCudaDevice();

/// Which of the three device-memory figures (mmrun --json: weights, KV cache, arena) an
/// allocation counts in. The arena is everything a call needs besides the first two:
/// activations, function outputs, attention scratch, staged ids.
enum class DeviceShare { weights, kvCache, arena };

/// cudaMalloc of `bytes` (at least 256-byte aligned); throws Error "out of device memory:
/// <what> needs N MiB, M MiB free of T MiB" on failure.
void *deviceAllocate(size_t bytes, const char *what, DeviceShare share);
/// Frees a pointer from deviceAllocate (null is ignored). Synchronises the device first,
/// so that work still reading the memory completes.
void deviceFree(void *ptr);
/// Bytes currently allocated with deviceAllocate, and the most at any time.
size_t deviceBytesInUse();
size_t deviceBytesPeak();
/// The allocations live when deviceBytesPeak() was reached, in bytes per `what` label of
/// deviceAllocate (they sum to deviceBytesPeak()).
std::map<std::string, size_t> deviceBytesAtPeak();
/// Bytes currently allocated with deviceAllocate in each share.
struct DeviceShares {
  size_t weights = 0, kvCache = 0, arena = 0;
};
DeviceShares deviceBytesInUseByShare();
/// Device memory in use as the device reports it (cudaMemGetInfo: total - free) minus what
/// it reported when requireCudaDevice first ran, before this process allocated anything:
/// our allocations rounded up to the driver's pages, plus the cuBLASLt workspace, the
/// loaded kernels and the CUDA graphs.
size_t deviceBytesUsedSinceStart();
/// Throws the out-of-memory Error above when `bytes` exceed the device's free memory.
void requireFreeDeviceMemory(size_t bytes, const char *what);

/// Device memory for an Arena (activations).
Arena::Memory deviceArenaMemory();
/// Page-locked host memory for an Arena (staging of host-to-device copies, which a CUDA
/// graph can then replay from fixed addresses).
Arena::Memory pinnedArenaMemory();

/// An owned device allocation.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(size_t bytes, const char *what, DeviceShare share)
      : ptr_(deviceAllocate(bytes, what, share)), bytes_(bytes) {}
  ~DeviceBuffer() { deviceFree(ptr_); }
  DeviceBuffer(DeviceBuffer &&o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = nullptr; o.bytes_ = 0; }
  DeviceBuffer &operator=(DeviceBuffer &&o) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  void *get() const { return ptr_; }
  size_t bytes() const { return bytes_; }
  /// Reallocates (contents lost) when smaller than `bytes`; true when it did.
  bool reserve(size_t bytes, const char *what, DeviceShare share);

private:
  void *ptr_ = nullptr;
  size_t bytes_ = 0;
};

/// An owned page-locked host allocation (what a CUDA graph may copy to or from).
class PinnedBuffer {
public:
  PinnedBuffer() = default;
  ~PinnedBuffer();
  PinnedBuffer(const PinnedBuffer &) = delete;
  PinnedBuffer &operator=(const PinnedBuffer &) = delete;
  void *data() const { return ptr_; }
  /// Reallocates (contents lost) when smaller than `bytes`; waits for the device first.
  void reserve(size_t bytes);

private:
  void *ptr_ = nullptr;
  size_t bytes_ = 0;
};

} // namespace mm::rt::cudaexec

#endif // MM_RUNTIME_CUDAEXEC_DEVICEMEMORY_H
