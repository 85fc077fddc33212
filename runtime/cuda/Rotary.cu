//===- Rotary.cu - rotary position embedding --------------------------------===//
//
// One thread per slot of D/2 slots per (b, h, s) vector: slot i < R/2 rotates one pair,
// the other slots copy two pass-through channels (only when y != x). The pair's two
// elements are read and written by the same thread, so y == x is safe.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/DeviceUtil.cuh"
#include "runtime/cuda/Kernels.h"

namespace mm::rt::cuda {
namespace {

constexpr int kThreads = 256;

struct RotaryParams {
  int64_t heads, seq, halfD, halfR;
  int64_t xsb, xsh, xss, ysb, ysh, yss;
  bool interleaved, copyRest;
  const int64_t *positions;
  int64_t positionStrideB;
  const int32_t *startPositions;
  const void *cos, *sin;
  bool tableF32;
  int64_t tableRowStride, tableStrideB;
  const float *invFreq;
};

template <typename T>
__device__ __forceinline__ float tableAt(const void *t, bool isF32, int64_t i) {
  return isF32 ? static_cast<const float *>(t)[i] : toF(static_cast<const T *>(t)[i]);
}

template <typename T>
__global__ void rotaryKernel(const T *x, T *y, RotaryParams p, int64_t total) {
  gridDependencySync();
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < total;
       idx += stride) {
    const int64_t slot = idx % p.halfD;
    int64_t rest = idx / p.halfD;
    const int64_t s = rest % p.seq;
    rest /= p.seq;
    const int64_t h = rest % p.heads;
    const int64_t b = rest / p.heads;
    const T *xv = x + b * p.xsb + h * p.xsh + s * p.xss;
    T *yv = y + b * p.ysb + h * p.ysh + s * p.yss;
    if (slot >= p.halfR) { // pass-through channels R + 2k, R + 2k + 1
      if (p.copyRest) {
        const int64_t c = 2 * p.halfR + 2 * (slot - p.halfR);
        yv[c] = xv[c];
        yv[c + 1] = xv[c + 1];
      }
      continue;
    }
    const int64_t ia = p.interleaved ? 2 * slot : slot;
    const int64_t ib = p.interleaved ? 2 * slot + 1 : slot + p.halfR;
    const bool hasPos = p.positions || p.startPositions;
    int64_t pos = s;
    if (p.positions)
      pos = p.positions[b * p.positionStrideB + s];
    else if (p.startPositions)
      pos = int64_t(p.startPositions[b]) + s;
    float ca, sa, cb, sb;
    if (p.invFreq) {
      const float angle = float(pos) * p.invFreq[slot];
      sincosf(angle, &sa, &ca);
      cb = ca;
      sb = sa;
    } else {
      const int64_t row = hasPos ? pos : b * p.tableStrideB + s;
      const int64_t o = row * p.tableRowStride;
      ca = tableAt<T>(p.cos, p.tableF32, o + ia);
      sa = tableAt<T>(p.sin, p.tableF32, o + ia);
      cb = tableAt<T>(p.cos, p.tableF32, o + ib);
      sb = tableAt<T>(p.sin, p.tableF32, o + ib);
    }
    const float xa = toF(xv[ia]), xb = toF(xv[ib]);
    yv[ia] = fromF<T>(rotaryChannel(xa, xb, ca, sa, true));
    yv[ib] = fromF<T>(rotaryChannel(xb, xa, cb, sb, false));
  }
}

} // namespace

void rotary(cudaStream_t stream, const RotaryArgs &a) {
  const char *k = "cuda rotary";
  if (a.batch < 0 || a.heads < 0 || a.seq < 0 || a.headDim <= 0)
    fail(k, ": bad shape [", a.batch, ", ", a.heads, ", ", a.seq, ", ", a.headDim, "]");
  if (a.rotaryDim <= 0 || a.rotaryDim % 2 != 0 || a.rotaryDim > a.headDim)
    fail(k, ": rotary width ", a.rotaryDim, " must be even and in (0, ", a.headDim, "]");
  if ((a.headDim - a.rotaryDim) % 2 != 0)
    fail(k, ": head dim ", a.headDim, " minus rotary width ", a.rotaryDim, " must be even");
  if (!a.x || !a.y)
    fail(k, ": null input or output");
  const bool table = a.cos || a.sin;
  if (table && !(a.cos && a.sin))
    fail(k, ": cos and sin tables must both be given");
  if (table == (a.invFreq != nullptr))
    fail(k, ": give either cos/sin tables or invFreq, not ", table ? "both" : "neither");
  if (table && a.tableType != a.dtype && a.tableType != DType::f32)
    fail(k, ": table type ", dtypeName(a.tableType), " must be ", dtypeName(a.dtype), " or f32");
  if (table && a.tableRowStride < a.rotaryDim)
    fail(k, ": table row stride ", a.tableRowStride, " is smaller than the rotary width ",
         a.rotaryDim);
  if (a.positions && a.startPositions)
    fail(k, ": give positions or startPositions, not both");
  const int64_t total = a.batch * a.heads * a.seq * (a.headDim / 2);
  if (total == 0)
    return;
  RotaryParams p{a.heads, a.seq, a.headDim / 2, a.rotaryDim / 2,
                 a.xStrideB, a.xStrideH, a.xStrideS, a.yStrideB, a.yStrideH, a.yStrideS,
                 a.interleaved, a.x != a.y && a.rotaryDim < a.headDim,
                 a.positions, a.positionStrideB, a.startPositions, a.cos, a.sin,
                 a.tableType == DType::f32, a.tableRowStride, a.tableStrideB, a.invFreq};
  const unsigned blocks = gridStrideBlocks(kThreads, total);
  MM_DISPATCH_FLOAT(a.dtype, k, {
    launchKernel(rotaryKernel<scalar_t>, blocks, kThreads, 0, stream, static_cast<const scalar_t *>(a.x), static_cast<scalar_t *>(a.y), p, total);
  });
  checkLaunch("rotary");
}

} // namespace mm::rt::cuda
