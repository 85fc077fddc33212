//===- GemvRows.cu - GEMV over a weight stored as rows ([N, K]) -------------===//
//
// y[N] = act(W[N, K] x[K] + bias[N]): the weight in nn.Linear's own layout, one output per
// contiguous row. A warp computes one output: its 32 lanes read 16 bytes (8 elements)
// each, so one step of the warp covers 256 elements of the row, and a lane keeps up to 8
// steps (2 KiB of the row per warp, 4 KiB for bf16/f16 at K = 2048) in flight. The row sum
// is a warp reduction (shuffles): no shared memory, no split over blocks, no atomics. x is
// read through the L1/L2 caches (every warp of the GPU reads the same K elements).
// With programmatic dependent launch the first 8 steps of weight loads are issued before
// the kernel waits for the previous kernel (they read only the weight), so a GEMV streams
// its weight while the previous kernel still runs.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/Blas.h"
#include "runtime/cuda/DeviceUtil.cuh"

namespace mm::rt::cuda {
namespace {

constexpr int kWarps = 8;       // outputs per block
constexpr int kUnroll = 8;      // 16-byte loads in flight per lane
constexpr int kStep = 32 * 8;   // elements of a row one warp step covers

template <typename T>
__global__ void __launch_bounds__(kWarps * 32)
    gemvRowsKernel(const T *__restrict__ x, const T *__restrict__ w, const T *__restrict__ bias,
                   T *__restrict__ y, int n, int k, Activation act) {
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * kWarps + (threadIdx.x >> 5);
  const bool active = row < n; // uniform over the warp
  const T *wr = w + int64_t(active ? row : 0) * k + lane * 8;

  Raw8<T> raw[kUnroll];
  int kk = 0; // the row offset of this round's first step
  auto loadRound = [&] {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int e = kk + u * kStep + lane * 8;
      if (active && e < k)
        loadRaw8(wr + kk + u * kStep, raw[u]);
      else
        raw[u] = Raw8<T>{};
    }
  };
  loadRound(); // weights only: in flight while the previous kernel finishes
  gridDependencySync();

  float acc = 0.0f;
  while (true) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int e = kk + u * kStep + lane * 8;
      if (e < k) {
        float xv[8];
        load8(x + e, xv);
#pragma unroll
        for (int j = 0; j < 8; ++j)
          acc = fmaf(xv[j], rawAt(raw[u], j), acc);
      }
    }
    kk += kUnroll * kStep;
    if (kk >= k)
      break;
    loadRound();
  }
  acc = warpSum(acc);
  if (active && lane == 0) {
    const float b = bias ? toF(bias[row]) : 0.0f;
    y[row] = fromF<T>(applyActivation(acc + b, act));
  }
}

} // namespace

bool gemvRowsSupported(DType dtype, const void *x, const void *w, const void *y, int64_t n,
                       int64_t k) {
  return isKernelFloat(dtype) && x && w && y && n > 0 && k > 0 && k % 8 == 0 &&
         n <= 2147483647LL - kWarps && k <= 2147483647LL - kUnroll * kStep && aligned16(w) &&
         aligned16(x);
}

void gemvRows(cudaStream_t stream, DType dtype, const void *x, const void *w, const void *bias,
              void *y, int64_t n, int64_t k, Activation act) {
  if (!gemvRowsSupported(dtype, x, w, y, n, k))
    fail("cuda gemvRows: unsupported call (", dtypeName(dtype), ", n = ", n, ", k = ", k,
         "; needs f32/f16/bf16, k a multiple of 8 and a 16-byte aligned x and weight)");
  const unsigned blocks = unsigned((n + kWarps - 1) / kWarps);
  MM_DISPATCH_FLOAT(dtype, "cuda gemvRows", {
    launchKernel(gemvRowsKernel<scalar_t>, blocks, kWarps * 32, 0, stream,
                 static_cast<const scalar_t *>(x), static_cast<const scalar_t *>(w),
                 static_cast<const scalar_t *>(bias), static_cast<scalar_t *>(y), int(n), int(k),
                 act);
  });
  checkLaunch("gemvRows");
}

} // namespace mm::rt::cuda
