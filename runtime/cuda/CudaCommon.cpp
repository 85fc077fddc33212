//===- CudaCommon.cpp - error checks and device queries ---------------------===//
#include "runtime/cuda/CudaCommon.h"

#include <mutex>
#include <vector>

namespace mm::rt::cuda {

void checkCuda(cudaError_t status, const char *what) {
  if (status != cudaSuccess)
    fail(what, ": ", cudaGetErrorString(status));
}

void checkLaunch(const char *kernel) {
  cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess)
    fail("CUDA kernel ", kernel, " failed to launch: ", cudaGetErrorString(status));
}

int multiprocessorCount() {
  static std::mutex mutex;
  static std::vector<int> counts; // per device ordinal, 0 = not read yet
  int device = 0;
  checkCuda(cudaGetDevice(&device), "cudaGetDevice");
  std::lock_guard<std::mutex> lock(mutex);
  if (static_cast<size_t>(device) >= counts.size())
    counts.resize(device + 1, 0);
  if (counts[device] == 0)
    checkCuda(cudaDeviceGetAttribute(&counts[device], cudaDevAttrMultiProcessorCount, device),
              "cudaDeviceGetAttribute(multiprocessor count)");
  return counts[device];
}

bool isKernelFloat(DType dtype) {
  return dtype == DType::f32 || dtype == DType::f16 || dtype == DType::bf16;
}

void requireKernelFloat(DType dtype, const char *kernel) {
  if (!isKernelFloat(dtype))
    fail(kernel, ": unsupported element type ", dtypeName(dtype),
         " (expected f32, f16 or bf16)");
}

namespace {
bool pdlOn = true;
} // namespace

void setProgrammaticDependentLaunch(bool on) { pdlOn = on; }
bool programmaticDependentLaunch() { return pdlOn; }

int cudaDeviceCountOrZero() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError(); // reset the last-error state so later checks start clean
    return 0;
  }
  return count;
}

} // namespace mm::rt::cuda
