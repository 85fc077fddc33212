//===- Elementwise.cu - activations, SwiGLU and dtype conversion ------------===//
#include "runtime/cuda/DeviceUtil.cuh"
#include "runtime/cuda/Kernels.h"

namespace mm::rt::cuda {
namespace {

constexpr int kThreads = 256;

template <typename T, bool VEC>
__global__ void activationKernel(const T *x, T *y, int64_t n, Activation act) {
  gridDependencySync();
  // No __restrict__: y may equal x (each element is read, then written, by one thread).
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (VEC) {
    for (; i < n / 8; i += stride) {
      float v[8];
      load8(x + 8 * i, v);
#pragma unroll
      for (int j = 0; j < 8; ++j)
        v[j] = applyActivation(v[j], act);
      store8(y + 8 * i, v);
    }
  } else {
    for (; i < n; i += stride)
      y[i] = fromF<T>(applyActivation(toF(x[i]), act));
  }
}

template <typename T, bool VEC>
__global__ void swigluKernel(const T *__restrict__ gate, int64_t gateStride,
                             const T *__restrict__ up, int64_t upStride, T *__restrict__ out,
                             int64_t outStride, int64_t rows, int64_t cols, Activation act) {
  gridDependencySync();
  const int64_t width = VEC ? cols / 8 : cols; // work items per row
  const int64_t total = rows * width;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const int64_t r = i / width, c = (i - r * width) * (VEC ? 8 : 1);
    if (VEC) {
      float g[8], u[8];
      load8(gate + r * gateStride + c, g);
      load8(up + r * upStride + c, u);
#pragma unroll
      for (int j = 0; j < 8; ++j)
        g[j] = gluF(g[j], u[j], act);
      store8(out + r * outStride + c, g);
    } else {
      const float g = toF(gate[r * gateStride + c]);
      out[r * outStride + c] = fromF<T>(gluF(g, toF(up[r * upStride + c]), act));
    }
  }
}

template <typename T>
__global__ void biasActivationKernel(T *y, const T *__restrict__ bias, int64_t rows,
                                     int64_t cols, Activation act) {
  gridDependencySync();
  const int64_t total = rows * cols;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const float b = bias ? toF(bias[i % cols]) : 0.0f;
    y[i] = fromF<T>(applyActivation(toF(y[i]) + b, act));
  }
}

template <typename V>
__global__ void copyKernel(V *__restrict__ dst, const V *__restrict__ src, int64_t n) {
  gridDependencySync();
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    dst[i] = src[i];
}

template <typename S, typename D>
__global__ void convertKernel(const S *__restrict__ src, D *__restrict__ dst, int64_t n) {
  gridDependencySync();
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    dst[i] = fromF<D>(toF(src[i]));
}

void requireNonNegative(int64_t v, const char *kernel, const char *what) {
  if (v < 0)
    fail(kernel, ": ", what, " is negative (", v, ")");
}

} // namespace

void activation(cudaStream_t stream, DType dtype, const void *x, void *y, int64_t n,
                Activation act) {
  requireNonNegative(n, "cuda activation", "element count");
  if (n == 0)
    return;
  const bool vec = n % 8 == 0 && aligned16(x) && aligned16(y);
  MM_DISPATCH_FLOAT(dtype, "cuda activation", {
    const auto *xs = static_cast<const scalar_t *>(x);
    auto *ys = static_cast<scalar_t *>(y);
    if (vec)
      launchKernel(activationKernel<scalar_t, true>, gridStrideBlocks(kThreads, n / 8), kThreads, 0, stream, xs, ys, n, act);
    else
      launchKernel(activationKernel<scalar_t, false>, gridStrideBlocks(kThreads, n), kThreads, 0, stream, xs, ys, n, act);
  });
  checkLaunch("activation");
}

void swiglu(cudaStream_t stream, DType dtype, const void *gate, int64_t gateRowStride,
            const void *up, int64_t upRowStride, void *out, int64_t outRowStride,
            int64_t rows, int64_t cols, Activation gateActivation) {
  requireNonNegative(rows, "cuda swiglu", "row count");
  requireNonNegative(cols, "cuda swiglu", "column count");
  if (rows == 0 || cols == 0)
    return;
  if (gateRowStride < cols || upRowStride < cols || outRowStride < cols)
    fail("cuda swiglu: a row stride is smaller than the row (", cols, " columns)");
  const bool vec = cols % 8 == 0 && gateRowStride % 8 == 0 && upRowStride % 8 == 0 &&
                   outRowStride % 8 == 0 && aligned16(gate) && aligned16(up) &&
                   aligned16(out);
  MM_DISPATCH_FLOAT(dtype, "cuda swiglu", {
    const auto *g = static_cast<const scalar_t *>(gate);
    const auto *u = static_cast<const scalar_t *>(up);
    auto *o = static_cast<scalar_t *>(out);
    if (vec)
      launchKernel(swigluKernel<scalar_t, true>, gridStrideBlocks(kThreads, rows * cols / 8), kThreads, 0, stream, g, gateRowStride, u, upRowStride, o, outRowStride, rows, cols, gateActivation);
    else
      launchKernel(swigluKernel<scalar_t, false>, gridStrideBlocks(kThreads, rows * cols), kThreads, 0, stream, g, gateRowStride, u, upRowStride, o, outRowStride, rows, cols, gateActivation);
  });
  checkLaunch("swiglu");
}

void biasActivation(cudaStream_t stream, DType dtype, void *y, const void *bias, int64_t rows,
                    int64_t cols, Activation act) {
  requireNonNegative(rows, "cuda biasActivation", "row count");
  requireNonNegative(cols, "cuda biasActivation", "column count");
  if (rows == 0 || cols == 0 || (!bias && act == Activation::none))
    return;
  MM_DISPATCH_FLOAT(dtype, "cuda biasActivation", {
    launchKernel(biasActivationKernel<scalar_t>, gridStrideBlocks(kThreads, rows * cols), kThreads, 0, stream, static_cast<scalar_t *>(y), static_cast<const scalar_t *>(bias), rows, cols, act);
  });
  checkLaunch("biasActivation");
}

void copyBytes(cudaStream_t stream, void *dst, const void *src, size_t bytes) {
  if (bytes == 0)
    return;
  if (!dst || !src)
    fail("cuda copyBytes: null pointer");
  if (bytes % 16 == 0 && aligned16(dst) && aligned16(src)) {
    const int64_t n = int64_t(bytes / 16);
    launchKernel(copyKernel<uint4>, gridStrideBlocks(kThreads, n), kThreads, 0, stream, static_cast<uint4 *>(dst),
                                                            static_cast<const uint4 *>(src), n);
  } else {
    const int64_t n = int64_t(bytes);
    launchKernel(copyKernel<uint8_t>, gridStrideBlocks(kThreads, n), kThreads, 0, stream, static_cast<uint8_t *>(dst), static_cast<const uint8_t *>(src), n);
  }
  checkLaunch("copyBytes");
}

void convert(cudaStream_t stream, DType srcType, const void *src, DType dstType, void *dst,
             int64_t n) {
  requireNonNegative(n, "cuda convert", "element count");
  requireKernelFloat(dstType, "cuda convert (destination)");
  if (n == 0)
    return;
  MM_DISPATCH_FLOAT(srcType, "cuda convert (source)", {
    using S = scalar_t;
    MM_DISPATCH_FLOAT(dstType, "cuda convert (destination)", {
      launchKernel(convertKernel<S, scalar_t>, gridStrideBlocks(kThreads, n), kThreads, 0, stream, static_cast<const S *>(src), static_cast<scalar_t *>(dst), n);
    });
  });
  checkLaunch("convert");
}

} // namespace mm::rt::cuda
