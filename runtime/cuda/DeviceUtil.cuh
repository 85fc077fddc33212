//===- DeviceUtil.cuh - device-side helpers shared by the CUDA kernels --------===//
//
// Conversions between the storage types (float, __half, __nv_bfloat16) and f32, 8-wide
// vector loads/stores (16-byte aligned), warp and block reductions, activations, and the
// dispatch from DType to the storage type. Internal to runtime/cuda.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CUDA_DEVICEUTIL_CUH
#define MM_RUNTIME_CUDA_DEVICEUTIL_CUH

#include "runtime/cuda/CudaCommon.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <utility>

namespace mm::rt::cuda {

using bf16 = __nv_bfloat16;
using f16 = __half;

constexpr float kLog2e = 1.4426950408889634f;

__device__ __forceinline__ float toF(float v) { return v; }
__device__ __forceinline__ float toF(f16 v) { return __half2float(v); }
__device__ __forceinline__ float toF(bf16 v) { return __bfloat162float(v); }

template <typename T> __device__ __forceinline__ T fromF(float v);
template <> __device__ __forceinline__ float fromF<float>(float v) { return v; }
template <> __device__ __forceinline__ f16 fromF<f16>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ bf16 fromF<bf16>(float v) { return __float2bfloat16_rn(v); }

/// Loads 8 consecutive elements at p (16-byte aligned) as floats.
__device__ __forceinline__ void load8(const float *p, float (&o)[8]) {
  const float4 a = *reinterpret_cast<const float4 *>(p);
  const float4 b = *reinterpret_cast<const float4 *>(p + 4);
  o[0] = a.x; o[1] = a.y; o[2] = a.z; o[3] = a.w;
  o[4] = b.x; o[5] = b.y; o[6] = b.z; o[7] = b.w;
}
template <typename T> __device__ __forceinline__ void load8(const T *p, float (&o)[8]) {
  const uint4 raw = *reinterpret_cast<const uint4 *>(p);
  const T *e = reinterpret_cast<const T *>(&raw);
#pragma unroll
  for (int i = 0; i < 8; ++i)
    o[i] = toF(e[i]);
}
/// Stores 8 floats to 8 consecutive elements at p (16-byte aligned).
__device__ __forceinline__ void store8(float *p, const float (&v)[8]) {
  *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
  *reinterpret_cast<float4 *>(p + 4) = make_float4(v[4], v[5], v[6], v[7]);
}
template <typename T> __device__ __forceinline__ void store8(T *p, const float (&v)[8]) {
  uint4 raw;
  T *e = reinterpret_cast<T *>(&raw);
#pragma unroll
  for (int i = 0; i < 8; ++i)
    e[i] = fromF<T>(v[i]);
  *reinterpret_cast<uint4 *>(p) = raw;
}

/// The raw 16-byte vector of 8 elements (kept unconverted to save registers).
template <typename T> struct Raw8 {
  static constexpr int kWords = sizeof(T) * 8 / 16; // uint4 words: 1 for 16-bit, 2 for f32
  uint4 w[kWords];
};
template <typename T> __device__ __forceinline__ void loadRaw8(const T *p, Raw8<T> &r) {
#pragma unroll
  for (int i = 0; i < Raw8<T>::kWords; ++i)
    r.w[i] = reinterpret_cast<const uint4 *>(p)[i];
}
template <typename T> __device__ __forceinline__ float rawAt(const Raw8<T> &r, int i) {
  return toF(reinterpret_cast<const T *>(r.w)[i]);
}

__device__ __forceinline__ float warpSum(float v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

/// Sum over the block (blockDim.x a multiple of 32, at most 1024); every thread gets the
/// result. `red` is 32 floats of shared memory; the call contains __syncthreads().
__device__ __forceinline__ float blockSum(float v, float *red) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warpSum(v);
  __syncthreads(); // red may still be read by a previous call
  if (lane == 0)
    red[warp] = v;
  __syncthreads();
  const int nw = blockDim.x >> 5;
  float t = lane < nw ? red[lane] : 0.0f;
  return warpSum(t);
}

__device__ __forceinline__ float sigmoidF(float x) { return 1.0f / (1.0f + expf(-x)); }

__device__ __forceinline__ float applyActivation(float x, Activation act) {
  switch (act) {
  case Activation::none:
    return x;
  case Activation::gelu:
    return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
  case Activation::geluTanh: {
    const float u = 0.7978845608028654f * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + tanhf(u));
  }
  case Activation::quickGelu:
    return x * sigmoidF(1.702f * x);
  case Activation::silu:
    return x * sigmoidF(x);
  case Activation::relu:
    return x < 0.0f ? 0.0f : x;
  }
  return x;
}

/// A gated linear unit of one element pair (Shazeer 2020): act(g) * u, as mm.swiglu
/// (SiLU) and mm.geglu (GELU) compute it.
__device__ __forceinline__ float gluF(float g, float u, Activation act) { return applyActivation(g, act) * u; }

/// One channel of a rotary embedding pair (Su et al. 2021, RoFormer): the pair's first
/// element becomes x cos - partner sin, its second x cos + partner sin (cos and sin of the
/// channel's own table entry). Rounded products and sum (no FMA contraction), so every
/// kernel that rotates (rotary, the fused decode-attention step) gives the same bits.
__device__ __forceinline__ float rotaryChannel(float x, float partner, float c, float s,
                                               bool first) {
  const float xc = __fmul_rn(x, c), ps = __fmul_rn(partner, s);
  return first ? __fsub_rn(xc, ps) : __fadd_rn(xc, ps);
}

/// Programmatic dependent launch, device side (PTX ISA, griddepcontrol). Every kernel
/// calls gridDependencySync() before its first read of an input or write of an output:
/// it lets the next kernel on the stream be launched (launch_dependents) and then waits
/// until the previous kernel has completed and its writes are visible (wait). Without
/// the launch attribute, or below sm_90, both are no-ops. Since every kernel waits, the
/// completion of a kernel implies the completion of all kernels before it.
__device__ __forceinline__ void gridDependencySync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Launches `kernel` on `stream` like kernel<<<grid, block, sharedBytes, stream>>>(args),
/// with programmatic stream serialization when programmaticDependentLaunch() is on (see
/// CudaCommon.h), and in thread-block clusters of `cluster` blocks when that is not 1x1x1
/// (sm_90; grid a multiple of it). The kernel must call gridDependencySync() before
/// touching any memory another kernel writes. A failed launch sets CUDA's last error, as
/// <<<>>> does: the caller checks it with checkLaunch.
template <typename... Params, typename... Args>
void launchClusterKernel(void (*kernel)(Params...), dim3 grid, dim3 cluster, dim3 block,
                         size_t sharedBytes, cudaStream_t stream, Args &&...args) {
  cudaLaunchAttribute attr[2];
  unsigned count = 0;
  if (programmaticDependentLaunch()) {
    attr[count].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[count++].val.programmaticStreamSerializationAllowed = 1;
  }
  if (cluster.x * cluster.y * cluster.z > 1) {
    attr[count].id = cudaLaunchAttributeClusterDimension;
    attr[count].val.clusterDim.x = cluster.x;
    attr[count].val.clusterDim.y = cluster.y;
    attr[count++].val.clusterDim.z = cluster.z;
  }
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = sharedBytes;
  config.stream = stream;
  config.attrs = attr;
  config.numAttrs = count;
  (void)cudaLaunchKernelEx(&config, kernel, static_cast<Params>(std::forward<Args>(args))...);
}

/// launchClusterKernel without clusters.
template <typename... Params, typename... Args>
void launchKernel(void (*kernel)(Params...), dim3 grid, dim3 block, size_t sharedBytes,
                  cudaStream_t stream, Args &&...args) {
  launchClusterKernel(kernel, grid, dim3(1, 1, 1), block, sharedBytes, stream,
                      std::forward<Args>(args)...);
}

/// Blocks of `threads` threads for a grid-stride loop over `items` work items (at least 1,
/// capped at 8 * 65535: the loop covers the rest).
inline unsigned gridStrideBlocks(int threads, int64_t items) {
  const int64_t blocks = (items + threads - 1) / threads;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks > 65535LL * 8 ? 65535LL * 8 : blocks);
}

/// True when p is 16-byte aligned (host and device).
__host__ __device__ inline bool aligned16(const void *p) {
  return (reinterpret_cast<uintptr_t>(p) & 15u) == 0;
}

} // namespace mm::rt::cuda

/// Calls BODY with `scalar_t` bound to the storage type of DTYPE (f32, f16, bf16); throws
/// Error naming KERNEL for any other dtype.
#define MM_DISPATCH_FLOAT(DTYPE, KERNEL, ...)                                               \
  do {                                                                                     \
    switch (DTYPE) {                                                                       \
    case ::mm::rt::DType::f32: {                                                           \
      using scalar_t = float;                                                              \
      __VA_ARGS__;                                                                         \
      break;                                                                               \
    }                                                                                      \
    case ::mm::rt::DType::f16: {                                                           \
      using scalar_t = ::mm::rt::cuda::f16;                                                \
      __VA_ARGS__;                                                                         \
      break;                                                                               \
    }                                                                                      \
    case ::mm::rt::DType::bf16: {                                                          \
      using scalar_t = ::mm::rt::cuda::bf16;                                               \
      __VA_ARGS__;                                                                         \
      break;                                                                               \
    }                                                                                      \
    default:                                                                               \
      ::mm::rt::fail(KERNEL, ": unsupported element type ", ::mm::rt::dtypeName(DTYPE),    \
                     " (expected f32, f16 or bf16)");                                      \
    }                                                                                      \
  } while (0)

#endif // MM_RUNTIME_CUDA_DEVICEUTIL_CUH
