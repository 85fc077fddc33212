//===- CudaCommon.h - shared types of the CUDA kernel library ----------------===//
//
// The CUDA kernels are plain C++ launch functions on device pointers and a cudaStream_t.
// Rules every launch function keeps, so that the executor can capture a decode step in a
// CUDA graph:
//   - no device or host allocation, no host synchronisation, no host-visible reads of
//     device memory (lengths and positions are read by the kernels themselves);
//   - arguments are checked on the host before the launch; a bad argument (unsupported
//     dtype, shape, alignment, too small a scratch) throws mm::rt::Error naming the kernel
//     and the problem; a failed launch throws with the CUDA error string;
//   - element types are DType::f32, f16 or bf16 (f32 accumulation everywhere);
//   - strides are in elements, the innermost dimension is contiguous.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CUDA_CUDACOMMON_H
#define MM_RUNTIME_CUDA_CUDACOMMON_H

#include "runtime/core/DType.h"
#include "runtime/core/Error.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace mm::rt::cuda {

/// Activation applied after a linear layer or elementwise. The integer values are those
/// of the `mm` dialect's Activation enum (MMBase.td), so a plan's `activation` attribute
/// converts with a static_cast.
enum class Activation : int {
  none = 0,
  gelu = 1,      ///< x * Phi(x), exact (erf)
  geluTanh = 2,  ///< 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  quickGelu = 3, ///< x * sigmoid(1.702 x) (CLIP)
  silu = 4,      ///< x * sigmoid(x)
  relu = 5,      ///< max(x, 0); NaN stays NaN
};

/// Device scratch for kernels that split one output across several thread blocks and let
/// the last block to finish reduce the partial results (split-K GEMV, flash-decoding).
/// `partials` holds f32 partial results; `counters` holds one arrival counter per output
/// tile. The counters must be zero before the first launch that uses them (cudaMemset
/// once after allocation); every launch leaves them zero again. The scratch must not be
/// shared with other buffers, nor used by two launches that may run at the same time
/// (launches on one stream are fine).
struct SplitScratch {
  float *partials = nullptr;
  size_t partialCount = 0; ///< number of floats at `partials`
  unsigned *counters = nullptr;
  size_t counterCount = 0; ///< number of unsigned ints at `counters`
};

/// Throws Error("<what>: <CUDA error string>") when `status` is not cudaSuccess.
void checkCuda(cudaError_t status, const char *what);
/// Checks the launch that was just issued (cudaGetLastError).
void checkLaunch(const char *kernel);

/// Multiprocessor count of the current device (read once per device and cached).
int multiprocessorCount();

/// True when `dtype` is one the kernels take (f32, f16, bf16).
bool isKernelFloat(DType dtype);
/// Throws Error naming `kernel` when `dtype` is not f32, f16 or bf16.
void requireKernelFloat(DType dtype, const char *kernel);

/// Number of CUDA devices, 0 when there is no driver or no device (never throws).
int cudaDeviceCountOrZero();

/// Programmatic dependent launch (PDL; CUDA Programming Guide, "Programmatic Dependent
/// Launch and Synchronization"; sm_90 and newer). When on (the default), the kernels are
/// launched with cudaLaunchAttributeProgrammaticStreamSerialization: a kernel may start
/// while the previous kernel on the stream is still running, and every kernel of this
/// library waits (griddepcontrol.wait) for its predecessor's completion before it reads
/// an input or writes an output. Only reads of constant data (weights) come before the
/// wait, so a GEMV streams its weights while the previous kernel finishes. Devices below
/// sm_90 ignore the attribute. Not thread-safe against launches in flight: set it before
/// launching.
void setProgrammaticDependentLaunch(bool on);
bool programmaticDependentLaunch();

} // namespace mm::rt::cuda

#endif // MM_RUNTIME_CUDA_CUDACOMMON_H
