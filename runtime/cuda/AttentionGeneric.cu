//===- AttentionGeneric.cu - attention for any head dim (one block per query) ---===//
//
// The fallback for shapes the tiled kernels do not take (head dims other than
// 64/72/80/96/128/256, e.g. the 16 of the test models). One thread block per query row:
// the scores of every key are kept in shared memory, then softmax, then the weighted sum
// of the values (Vaswani et al. 2017; GQA by head grouping). f32 arithmetic. Not tuned.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/Attention.h"
#include "runtime/cuda/DeviceUtil.cuh"

#include <cmath>

namespace mm::rt::cuda {
namespace {

constexpr int kThreads = 128;

struct GenericParams {
  const void *q, *k, *v;
  void *out;
  int64_t qsb, qsh, qss, ksb, ksh, kss, vsb, vsh, vss, osb, osh, oss;
  int64_t qLen, kvLen, headDim, group;
  float scale;
  bool causal;
  MaskKind maskKind;
  const void *mask;
  int64_t msb, msh, mss, mst;
  const int32_t *lens;
  int32_t lenOffset;
};

__device__ __forceinline__ float blockMax(float v, float *red) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
  __syncthreads();
  if (lane == 0)
    red[warp] = v;
  __syncthreads();
  float t = lane < int(blockDim.x >> 5) ? red[lane] : -INFINITY;
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    t = fmaxf(t, __shfl_xor_sync(0xffffffffu, t, off));
  return t;
}

template <typename T> __global__ void genericAttentionKernel(GenericParams p) {
  gridDependencySync();
  extern __shared__ float scores[]; // [kvLen] then 32 floats of reduction scratch
  float *red = scores + p.kvLen;
  const int64_t s = blockIdx.x, h = blockIdx.y, b = blockIdx.z;
  int64_t kvLen = p.kvLen;
  if (p.lens)
    kvLen = min(int64_t(p.lens[b]) + p.lenOffset, p.kvLen);
  const int64_t hk = h / p.group;
  const T *q = static_cast<const T *>(p.q) + b * p.qsb + h * p.qsh + s * p.qss;
  const T *k = static_cast<const T *>(p.k) + b * p.ksb + hk * p.ksh;
  const T *v = static_cast<const T *>(p.v) + b * p.vsb + hk * p.vsh;
  T *out = static_cast<T *>(p.out) + b * p.osb + h * p.osh + s * p.oss;
  const int64_t causalLimit = s + (kvLen - p.qLen);

  float localMax = -INFINITY;
  for (int64_t t = threadIdx.x; t < kvLen; t += blockDim.x) {
    bool visible = !p.causal || t <= causalLimit;
    float sc = -INFINITY;
    if (visible && p.maskKind != MaskKind::none) {
      int64_t m = b * p.msb + h * p.msh + s * p.mss + t * p.mst;
      if (p.maskKind == MaskKind::boolean)
        visible = static_cast<const uint8_t *>(p.mask)[m] != 0;
    }
    if (visible) {
      float dot = 0.f;
      for (int64_t d = 0; d < p.headDim; ++d)
        dot += toF(q[d]) * toF(k[t * p.kss + d]);
      sc = dot * p.scale;
      if (p.maskKind == MaskKind::additive)
        sc += toF(static_cast<const T *>(p.mask)[b * p.msb + h * p.msh + s * p.mss + t * p.mst]);
    }
    scores[t] = sc;
    localMax = fmaxf(localMax, sc);
  }
  const float mx = blockMax(localMax, red);
  if (mx == -INFINITY) { // every key masked: zeros, as the tiled kernels do
    for (int64_t d = threadIdx.x; d < p.headDim; d += blockDim.x)
      out[d] = fromF<T>(0.f);
    return;
  }
  float localSum = 0.f;
  for (int64_t t = threadIdx.x; t < kvLen; t += blockDim.x) {
    float e = expf(scores[t] - mx);
    scores[t] = e;
    localSum += e;
  }
  const float sum = blockSum(localSum, red); // contains __syncthreads: scores complete
  for (int64_t d = threadIdx.x; d < p.headDim; d += blockDim.x) {
    float acc = 0.f;
    for (int64_t t = 0; t < kvLen; ++t)
      acc += scores[t] * toF(v[t * p.vss + d]);
    out[d] = fromF<T>(acc / sum);
  }
}

} // namespace

int64_t genericAttentionMaxKeys() {
  int device = 0, maxShared = 0;
  checkCuda(cudaGetDevice(&device), "cudaGetDevice");
  checkCuda(cudaDeviceGetAttribute(&maxShared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
            "cudaDeviceGetAttribute");
  return maxShared / int64_t(sizeof(float)) - 32;
}

void genericAttention(cudaStream_t stream, const PrefillAttentionArgs &a, const int32_t *lens,
                      int32_t lenOffset) {
  const char *k = "cuda genericAttention";
  if (a.batch < 0 || a.qHeads <= 0 || a.kvHeads <= 0 || a.qLen < 0 || a.kvLen < 0 ||
      a.headDim <= 0)
    fail(k, ": bad shapes (batch ", a.batch, ", heads ", a.qHeads, "/", a.kvHeads, ", lengths ",
         a.qLen, "/", a.kvLen, ", head dim ", a.headDim, ")");
  if (a.qHeads % a.kvHeads != 0)
    fail(k, ": query heads ", a.qHeads, " are not a multiple of KV heads ", a.kvHeads);
  if (a.batch > 65535 || a.qHeads > 65535 || a.qLen > 2147483647LL)
    fail(k, ": shapes too large for the launch grid");
  if (!a.q.data || !a.k.data || !a.v.data || !a.out)
    fail(k, ": null operand");
  if (a.maskKind != MaskKind::none && !a.mask)
    fail(k, ": mask kind set but mask is null");
  const int64_t maxKeys = genericAttentionMaxKeys();
  if (a.kvLen > maxKeys)
    fail(k, ": ", a.kvLen, " keys exceed the ", maxKeys, " this kernel keeps in shared memory");
  if (a.batch == 0 || a.qLen == 0)
    return;
  GenericParams p{a.q.data, a.k.data, a.v.data, a.out, a.q.strideB, a.q.strideH, a.q.strideS,
                  a.k.strideB, a.k.strideH, a.k.strideS, a.v.strideB, a.v.strideH, a.v.strideS,
                  a.outStrideB, a.outStrideH, a.outStrideS, a.qLen, a.kvLen, a.headDim,
                  a.qHeads / a.kvHeads, a.scale, a.causal, a.maskKind, a.mask, a.maskStrideB,
                  a.maskStrideH, a.maskStrideS, a.maskStrideT, lens, lenOffset};
  const size_t shared = size_t(a.kvLen + 32) * sizeof(float);
  dim3 grid(unsigned(a.qLen), unsigned(a.qHeads), unsigned(a.batch));
  MM_DISPATCH_FLOAT(a.dtype, k, {
    if (shared > 48 * 1024)
      checkCuda(cudaFuncSetAttribute(genericAttentionKernel<scalar_t>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)),
                "cudaFuncSetAttribute");
    launchKernel(genericAttentionKernel<scalar_t>, grid, kThreads, shared, stream, p);
  });
  checkLaunch("genericAttention");
}

} // namespace mm::rt::cuda
