//===- Norm.cu - LayerNorm and RMSNorm (fused with the residual add) --------===//
//
// One block per row. The row is read from global memory in several passes (the later
// passes hit L1), so any row length works without a shared-memory row buffer. Each
// element is read and written by the same thread in every pass, which makes in-place
// use (y == x, sumOut == residual) safe.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/DeviceUtil.cuh"
#include "runtime/cuda/Kernels.h"

namespace mm::rt::cuda {
namespace {

constexpr int kThreads = 256;

template <typename T>
__device__ __forceinline__ float loadParam(const void *p, bool isF32, int64_t i) {
  return isF32 ? static_cast<const float *>(p)[i] : toF(static_cast<const T *>(p)[i]);
}

/// Row element access shared by both norms: work item j of a row covers elements
/// [j*W, j*W + W) with W = 8 (VEC) or 1. sum() forms s = round(x + residual) (or x).
template <typename T, bool VEC> struct RowAccess {
  static constexpr int W = VEC ? 8 : 1;
  const T *x, *residual;
  int64_t base;
  __device__ __forceinline__ void load(const T *p, int64_t j, float (&v)[W]) const {
    if constexpr (VEC) load8(p + base + j * 8, v); else v[0] = toF(p[base + j]);
  }
  __device__ __forceinline__ void store(T *p, int64_t j, const float (&v)[W]) const {
    if constexpr (VEC) store8(p + base + j * 8, v); else p[base + j] = fromF<T>(v[0]);
  }
  __device__ __forceinline__ void sum(int64_t j, float (&s)[W]) const {
    load(x, j, s);
    if (residual) {
      float r[W];
      load(residual, j, r);
#pragma unroll
      for (int e = 0; e < W; ++e)
        s[e] = toF(fromF<T>(s[e] + r[e])); // the sum as the model stores it
    }
  }
  /// s again in a later pass: from sumOut when it was stored, else recomputed.
  __device__ __forceinline__ void resum(const T *sumOut, int64_t j, float (&s)[W]) const {
    if (sumOut) load(sumOut, j, s); else sum(j, s);
  }
};

/// Pass 1 forms s, stores it to sumOut and sums it; pass 2 the squared deviations from
/// the mean (two-pass variance: no cancellation for rows with a large mean); pass 3
/// normalises.
template <typename T, bool VEC>
__global__ void __launch_bounds__(kThreads)
    layerNormKernel(const T *x, const T *residual, T *sumOut, const void *scale,
                    const void *bias, bool paramF32, T *y, int64_t cols, float eps) {
  gridDependencySync();
  __shared__ float red[32];
  using A = RowAccess<T, VEC>;
  constexpr int W = A::W;
  const A row{x, residual, int64_t(blockIdx.x) * cols};
  const int64_t items = cols / W;

  float total = 0.0f;
  for (int64_t j = threadIdx.x; j < items; j += blockDim.x) {
    float v[W];
    row.sum(j, v);
    if (sumOut)
      row.store(sumOut, j, v);
#pragma unroll
    for (int e = 0; e < W; ++e)
      total += v[e];
  }
  const float mean = blockSum(total, red) / float(cols);

  float sq = 0.0f;
  for (int64_t j = threadIdx.x; j < items; j += blockDim.x) {
    float v[W];
    row.resum(sumOut, j, v);
#pragma unroll
    for (int e = 0; e < W; ++e)
      sq += (v[e] - mean) * (v[e] - mean);
  }
  const float inv = rsqrtf(blockSum(sq, red) / float(cols) + eps);

  for (int64_t j = threadIdx.x; j < items; j += blockDim.x) {
    float v[W];
    row.resum(sumOut, j, v);
#pragma unroll
    for (int e = 0; e < W; ++e) {
      const int64_t c = j * W + e;
      const float b = bias ? loadParam<T>(bias, paramF32, c) : 0.0f;
      v[e] = (v[e] - mean) * inv * loadParam<T>(scale, paramF32, c) + b;
    }
    row.store(y, j, v);
  }
}

/// Pass 1 forms s, stores it to sumOut and accumulates s^2; pass 2 re-reads s and
/// normalises.
template <typename T, bool VEC>
__global__ void __launch_bounds__(kThreads)
    rmsNormKernel(const T *x, const T *residual, T *sumOut, const void *scale, bool scaleF32,
                  T *y, int64_t cols, float eps, float scaleOffset) {
  gridDependencySync();
  __shared__ float red[32];
  using A = RowAccess<T, VEC>;
  constexpr int W = A::W;
  const A row{x, residual, int64_t(blockIdx.x) * cols};
  const int64_t items = cols / W;

  float sq = 0.0f;
  for (int64_t j = threadIdx.x; j < items; j += blockDim.x) {
    float s[W];
    row.sum(j, s);
    if (sumOut)
      row.store(sumOut, j, s);
#pragma unroll
    for (int e = 0; e < W; ++e)
      sq += s[e] * s[e];
  }
  const float inv = rsqrtf(blockSum(sq, red) / float(cols) + eps);

  for (int64_t j = threadIdx.x; j < items; j += blockDim.x) {
    float s[W];
    row.resum(sumOut, j, s);
#pragma unroll
    for (int e = 0; e < W; ++e)
      s[e] = s[e] * inv * (scaleOffset + loadParam<T>(scale, scaleF32, j * W + e));
    row.store(y, j, s);
  }
}

void checkRows(const char *kernel, int64_t rows, int64_t cols) {
  if (rows < 0 || cols <= 0)
    fail(kernel, ": bad shape [", rows, ", ", cols, "]");
  if (rows > 2147483647LL)
    fail(kernel, ": too many rows (", rows, ")");
}

void checkParamType(const char *kernel, DType dtype, DType paramType) {
  if (paramType != dtype && paramType != DType::f32)
    fail(kernel, ": parameter type ", dtypeName(paramType), " must be ", dtypeName(dtype),
         " or f32");
}

} // namespace

void layerNorm(cudaStream_t stream, DType dtype, const void *x, const void *residual,
               void *sumOut, const void *scale, const void *bias, DType paramType, void *y,
               int64_t rows, int64_t cols, float eps) {
  checkRows("cuda layerNorm", rows, cols);
  checkParamType("cuda layerNorm", dtype, paramType);
  if (!scale || !x || !y)
    fail("cuda layerNorm: null input, scale or output");
  if (rows == 0)
    return;
  const bool vec = cols % 8 == 0 && aligned16(x) && aligned16(y) &&
                   (!residual || aligned16(residual)) && (!sumOut || aligned16(sumOut));
  const bool pf32 = paramType == DType::f32;
  MM_DISPATCH_FLOAT(dtype, "cuda layerNorm", {
    const auto *xs = static_cast<const scalar_t *>(x);
    const auto *rs = static_cast<const scalar_t *>(residual);
    auto *ss = static_cast<scalar_t *>(sumOut);
    auto *ys = static_cast<scalar_t *>(y);
    if (vec)
      launchKernel(layerNormKernel<scalar_t, true>, unsigned(rows), kThreads, 0, stream, xs, rs, ss, scale, bias, pf32, ys, cols, eps);
    else
      launchKernel(layerNormKernel<scalar_t, false>, unsigned(rows), kThreads, 0, stream, xs, rs, ss, scale, bias, pf32, ys, cols, eps);
  });
  checkLaunch("layerNorm");
}

void rmsNorm(cudaStream_t stream, DType dtype, const void *x, const void *residual,
             void *sumOut, const void *scale, DType scaleType, void *y, int64_t rows,
             int64_t cols, float eps, float scaleOffset) {
  checkRows("cuda rmsNorm", rows, cols);
  checkParamType("cuda rmsNorm", dtype, scaleType);
  if (!scale || !x || !y)
    fail("cuda rmsNorm: null input, scale or output");
  if (rows == 0)
    return;
  const bool vec = cols % 8 == 0 && aligned16(x) && aligned16(y) &&
                   (!residual || aligned16(residual)) && (!sumOut || aligned16(sumOut));
  const bool sf32 = scaleType == DType::f32;
  MM_DISPATCH_FLOAT(dtype, "cuda rmsNorm", {
    const auto *xs = static_cast<const scalar_t *>(x);
    const auto *rs = static_cast<const scalar_t *>(residual);
    auto *ss = static_cast<scalar_t *>(sumOut);
    auto *ys = static_cast<scalar_t *>(y);
    if (vec)
      launchKernel(rmsNormKernel<scalar_t, true>, unsigned(rows), kThreads, 0, stream, xs, rs, ss, scale, sf32, ys, cols, eps, scaleOffset);
    else
      launchKernel(rmsNormKernel<scalar_t, false>, unsigned(rows), kThreads, 0, stream, xs, rs, ss, scale, sf32, ys, cols, eps, scaleOffset);
  });
  checkLaunch("rmsNorm");
}

} // namespace mm::rt::cuda
