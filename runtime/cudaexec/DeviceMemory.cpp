//===- DeviceMemory.cpp - device and pinned allocations of the CUDA executor --===//
#include "runtime/cudaexec/DeviceMemory.h"

#include "runtime/core/Error.h"
#include "runtime/cuda/CudaCommon.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <dlfcn.h>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

namespace mm::rt::cudaexec {
namespace {

struct Allocation {
  size_t bytes;
  std::string what;
  DeviceShare share;
};
std::mutex sizesMutex;
std::unordered_map<void *, Allocation> sizes;
size_t inUse = 0, peak = 0;
std::map<std::string, size_t> inUseByPurpose, peakByPurpose;
DeviceShares inUseByShare;
size_t usedAtStart = 0; ///< cudaMemGetInfo's total - free when requireCudaDevice first ran

size_t &shareOf(DeviceShares &s, DeviceShare share) {
  return share == DeviceShare::weights ? s.weights
         : share == DeviceShare::kvCache ? s.kvCache
                                         : s.arena;
}

size_t deviceBytesUsed() {
  size_t freeBytes = 0, total = 0;
  cuda::checkCuda(cudaMemGetInfo(&freeBytes, &total), "cudaMemGetInfo");
  return total - freeBytes;
}

constexpr double kMiB = 1024.0 * 1024.0;

std::string mib(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / kMiB);
  return buf;
}

[[noreturn]] void outOfMemory(size_t bytes, const char *what) {
  size_t freeBytes = 0, total = 0;
  cudaMemGetInfo(&freeBytes, &total);
  cudaGetLastError(); // clear the allocation error
  fail("out of device memory: ", what, " needs ", mib(bytes), ", ", mib(freeBytes),
       " free of ", mib(total));
}

void *arenaDeviceAllocate(size_t bytes) {
  return deviceAllocate(bytes, "activations", DeviceShare::arena);
}

void *pinnedAllocate(size_t bytes) {
  void *p = nullptr;
  if (cudaMallocHost(&p, bytes) != cudaSuccess) {
    cudaGetLastError();
    fail("out of page-locked host memory staging ", mib(bytes), " of inputs");
  }
  return p;
}
void pinnedFree(void *p) {
  if (p) {
    cudaDeviceSynchronize();
    cudaFreeHost(p);
  }
}

} // namespace

void requireCudaDevice() {
  int count = 0;
  cudaError_t st = cudaGetDeviceCount(&count);
  if (st == cudaErrorInsufficientDriver && !dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD) &&
      !dlopen("libcuda.so.1", RTLD_LAZY))
    fail("no NVIDIA driver found (libcuda.so.1 cannot be loaded); use --device cpu");
  if (st == cudaErrorInsufficientDriver)
    fail("the NVIDIA driver is too old for this build's CUDA runtime (CUDA ", CUDART_VERSION / 1000,
         "); update the driver or use --device cpu");
  if (st == cudaErrorNoDevice || (st == cudaSuccess && count == 0))
    fail("no CUDA device found; use --device cpu");
  if (st != cudaSuccess)
    fail("cannot use CUDA (", cudaGetErrorString(st), "); use --device cpu");
  cuda::checkCuda(cudaSetDevice(0), "cudaSetDevice");
  cudaDeviceProp prop{};
  cuda::checkCuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  if (prop.major < 9)
    fail("CUDA device 0 (", prop.name, ") has compute capability ", prop.major, ".", prop.minor,
         "; this build's kernels need 9.0 or newer (build with -DCMAKE_CUDA_ARCHITECTURES for "
         "it) or use --device cpu");
  static const bool baseline = [] {
    cuda::checkCuda(cudaFree(nullptr), "creating the CUDA context"); // before reading the baseline
    usedAtStart = deviceBytesUsed();
    return true;
  }();
  (void)baseline;
}

size_t deviceBytesUsedSinceStart() {
  const size_t used = deviceBytesUsed();
  return used > usedAtStart ? used - usedAtStart : 0;
}

void requireFreeDeviceMemory(size_t bytes, const char *what) {
  size_t freeBytes = 0, total = 0;
  cuda::checkCuda(cudaMemGetInfo(&freeBytes, &total), "cudaMemGetInfo");
  if (bytes > freeBytes)
    fail("out of device memory: ", what, " needs ", mib(bytes), ", ", mib(freeBytes), " free of ",
         mib(total));
}

void *deviceAllocate(size_t bytes, const char *what, DeviceShare share) {
  void *p = nullptr;
  if (cudaMalloc(&p, std::max<size_t>(bytes, 1)) != cudaSuccess)
    outOfMemory(bytes, what);
  std::lock_guard<std::mutex> lock(sizesMutex);
  sizes[p] = {bytes, what, share};
  inUse += bytes;
  shareOf(inUseByShare, share) += bytes;
  inUseByPurpose[what] += bytes;
  if (inUse > peak) {
    peak = inUse;
    peakByPurpose = inUseByPurpose;
  }
  return p;
}

void deviceFree(void *ptr) {
  if (!ptr)
    return;
  cudaDeviceSynchronize();
  cudaFree(ptr);
  std::lock_guard<std::mutex> lock(sizesMutex);
  auto it = sizes.find(ptr);
  if (it != sizes.end()) {
    inUse -= it->second.bytes;
    shareOf(inUseByShare, it->second.share) -= it->second.bytes;
    auto purpose = inUseByPurpose.find(it->second.what); // there since deviceAllocate
    if (purpose != inUseByPurpose.end() && (purpose->second -= it->second.bytes) == 0)
      inUseByPurpose.erase(purpose); // a later free of a 0-byte block of it finds none
    sizes.erase(it);
  }
}

size_t deviceBytesInUse() {
  std::lock_guard<std::mutex> lock(sizesMutex);
  return inUse;
}

size_t deviceBytesPeak() {
  std::lock_guard<std::mutex> lock(sizesMutex);
  return peak;
}

DeviceShares deviceBytesInUseByShare() {
  std::lock_guard<std::mutex> lock(sizesMutex);
  return inUseByShare;
}

std::map<std::string, size_t> deviceBytesAtPeak() {
  std::lock_guard<std::mutex> lock(sizesMutex);
  return peakByPurpose;
}

Arena::Memory deviceArenaMemory() { return {arenaDeviceAllocate, deviceFree, true}; }
Arena::Memory pinnedArenaMemory() { return {pinnedAllocate, pinnedFree, true}; }

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&o) noexcept {
  if (this != &o) {
    deviceFree(ptr_);
    ptr_ = o.ptr_;
    bytes_ = o.bytes_;
    o.ptr_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}

bool DeviceBuffer::reserve(size_t bytes, const char *what, DeviceShare share) {
  if (ptr_ && bytes_ >= bytes)
    return false;
  deviceFree(ptr_);
  ptr_ = nullptr;
  bytes_ = 0;
  ptr_ = deviceAllocate(bytes, what, share);
  bytes_ = bytes;
  return true;
}

PinnedBuffer::~PinnedBuffer() { pinnedFree(ptr_); }

void PinnedBuffer::reserve(size_t bytes) {
  if (ptr_ && bytes_ >= bytes)
    return;
  pinnedFree(ptr_);
  ptr_ = nullptr;
  bytes_ = 0;
  ptr_ = pinnedAllocate(std::max<size_t>(bytes, 1));
  bytes_ = bytes;
}

} // namespace mm::rt::cudaexec
