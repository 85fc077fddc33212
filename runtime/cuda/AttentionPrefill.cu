//===- AttentionPrefill.cu - flash-attention style prefill attention ---------===//
//
// Tiling (Dao et al. 2022, FlashAttention): a block of 128 threads owns BQ query rows of
// one (batch, query head); TPR threads share a row (4 for head dims up to 128, 8 beyond;
// twice that, so half the rows per block, when the grid would not give every
// multiprocessor two blocks: a CLIP image at batch 1 is 12 heads x 197 rows), each holding D/TPR of its channels
// of q and of the output accumulator in registers (channel pairs interleaved across the
// TPR threads, so shared-memory reads are conflict-free). K and V stream through shared
// memory in tiles of 32 keys (converted to f32 once); each thread keeps the running max
// and sum of its row (online softmax, Milakov & Gimelshein 2018), so no score matrix is
// ever stored. Scores are kept in the log2 domain (q pre-scaled by scale * log2 e) and
// exponentiated with exp2f. f32 FMA arithmetic throughout: the kernel for f32, head dims
// 72 and 256, and layouts the tensor-core kernel (AttentionPrefillMma.cu) does not take.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/Attention.h"
#include "runtime/cuda/AttentionPrefill.cuh"
#include "runtime/cuda/AttentionPrefillMma.h"
#include "runtime/cuda/DeviceUtil.cuh"

#include <cmath>

namespace mm::rt::cuda {
namespace {

constexpr int kThreads = 128;
constexpr int kTileKeys = 32;

/// The default threads per query row for head dim d.
constexpr int defaultThreadsPerRow(int d) { return d > 128 ? 8 : 4; }
/// Whether twice the default threads per row split head dim d's channel pairs evenly.
constexpr bool canHalveRows(int d) { return (d / 2) % (2 * defaultThreadsPerRow(d)) == 0; }

template <int D, int TPR_> struct PrefillShape {
  static constexpr int TPR = TPR_;            // threads per query row
  static constexpr int BQ = kThreads / TPR;   // query rows per block
  static constexpr int HALF = D / 2;          // channel pairs per row
  static constexpr int CPT = HALF / TPR;      // channel pairs per thread
  static_assert(HALF % TPR == 0, "head dim must split evenly over the row's threads");
  static constexpr size_t kSmemBytes = size_t(2) * kTileKeys * HALF * sizeof(float2);
};

template <typename T, int D, int TPR_>
__global__ void __launch_bounds__(kThreads) prefillKernel(PrefillParams p) {
  gridDependencySync();
  using S = PrefillShape<D, TPR_>;
  constexpr int TPR = S::TPR, BQ = S::BQ, HALF = S::HALF, CPT = S::CPT;
  extern __shared__ float2 tiles[];
  float2 *ks = tiles;                    // [kTileKeys][HALF]
  float2 *vs = tiles + kTileKeys * HALF; // [kTileKeys][HALF]

  const int part = threadIdx.x % TPR;
  const int b = blockIdx.z, hq = blockIdx.y, hkv = hq / p.group;
  const int s = blockIdx.x * BQ + int(threadIdx.x) / TPR;
  const bool rowValid = s < p.qLen;

  float2 q[CPT], o[CPT];
  const T *qp = static_cast<const T *>(p.q) + b * p.qsb + hq * p.qsh + int64_t(s) * p.qss;
#pragma unroll
  for (int i = 0; i < CPT; ++i) {
    const int c = part + TPR * i;
    q[i] = rowValid ? make_float2(toF(qp[2 * c]) * p.scaleLog2, toF(qp[2 * c + 1]) * p.scaleLog2)
                    : make_float2(0.f, 0.f);
    o[i] = make_float2(0.f, 0.f);
  }
  float m = -INFINITY, l = 0.0f;

  const int kvEnd = prefillKeyEnd(p, int(blockIdx.x) * BQ, BQ);
  const T *kb = static_cast<const T *>(p.k) + b * p.ksb + hkv * p.ksh;
  const T *vb = static_cast<const T *>(p.v) + b * p.vsb + hkv * p.vsh;

  for (int t0 = 0; t0 < kvEnd; t0 += kTileKeys) {
    __syncthreads(); // the previous tile is no longer read
    for (int idx = threadIdx.x; idx < kTileKeys * HALF; idx += kThreads) {
      const int r = idx / HALF, c = idx - r * HALF, t = t0 + r;
      float2 kv = make_float2(0.f, 0.f), vv = make_float2(0.f, 0.f);
      if (t < kvEnd) {
        const T *kr = kb + int64_t(t) * p.kss + 2 * c;
        const T *vr = vb + int64_t(t) * p.vss + 2 * c;
        kv = make_float2(toF(kr[0]), toF(kr[1]));
        vv = make_float2(toF(vr[0]), toF(vr[1]));
      }
      ks[idx] = kv;
      vs[idx] = vv;
    }
    __syncthreads();

    float sc[kTileKeys];
    float tileMax = -INFINITY;
#pragma unroll
    for (int j = 0; j < kTileKeys; ++j) {
      const float2 *kr = ks + j * HALF + part;
      float acc = 0.0f;
#pragma unroll
      for (int i = 0; i < CPT; ++i) {
        const float2 kv = kr[TPR * i];
        acc = fmaf(q[i].x, kv.x, acc);
        acc = fmaf(q[i].y, kv.y, acc);
      }
#pragma unroll
      for (int off = TPR / 2; off > 0; off >>= 1)
        acc += __shfl_xor_sync(0xffffffffu, acc, off);
      const int t = t0 + j;
      sc[j] = prefillVisible<T>(p, b, hq, s, t, kvEnd, acc) ? acc : -INFINITY;
      tileMax = fmaxf(tileMax, sc[j]);
    }
    const float mNew = fmaxf(m, tileMax);
    if (mNew == -INFINITY)
      continue; // nothing visible yet for this row (no shuffles below this point)
    const float alpha = exp2f(m - mNew);
    l *= alpha;
#pragma unroll
    for (int i = 0; i < CPT; ++i) {
      o[i].x *= alpha;
      o[i].y *= alpha;
    }
#pragma unroll
    for (int j = 0; j < kTileKeys; ++j) {
      const float pj = exp2f(sc[j] - mNew);
      l += pj;
      const float2 *vr = vs + j * HALF + part;
#pragma unroll
      for (int i = 0; i < CPT; ++i) {
        const float2 vv = vr[TPR * i];
        o[i].x = fmaf(pj, vv.x, o[i].x);
        o[i].y = fmaf(pj, vv.y, o[i].y);
      }
    }
    m = mNew;
  }

  if (!rowValid)
    return;
  const float inv = l > 0.0f ? 1.0f / l : 0.0f;
  T *op = static_cast<T *>(p.out) + b * p.osb + hq * p.osh + int64_t(s) * p.oss;
#pragma unroll
  for (int i = 0; i < CPT; ++i) {
    const int c = part + TPR * i;
    op[2 * c] = fromF<T>(o[i].x * inv);
    op[2 * c + 1] = fromF<T>(o[i].y * inv);
  }
}

template <typename T, int D, int TPR>
void launchPrefillShape(cudaStream_t stream, const PrefillParams &p, int64_t batch,
                        int64_t qHeads) {
  using S = PrefillShape<D, TPR>;
  static const cudaError_t attr =
      S::kSmemBytes > 48 * 1024
          ? cudaFuncSetAttribute(prefillKernel<T, D, TPR>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, int(S::kSmemBytes))
          : cudaSuccess;
  checkCuda(attr, "cuda prefillAttention: raising the shared-memory limit");
  const dim3 grid(unsigned((p.qLen + S::BQ - 1) / S::BQ), unsigned(qHeads), unsigned(batch));
  launchKernel(prefillKernel<T, D, TPR>, grid, kThreads, S::kSmemBytes, stream, p);
}

/// Half the rows per block (twice the threads per row) when the default grid would give
/// fewer than two blocks per multiprocessor and the channel pairs split evenly; `rows`
/// (a PrefillAttentionArgs::rowsPerBlock other than 0) forces the choice.
template <typename T, int D>
void launchPrefill(cudaStream_t stream, const PrefillParams &p, int64_t batch, int64_t qHeads,
                   int rows) {
  constexpr int TPR = defaultThreadsPerRow(D), BQ = kThreads / TPR;
  const int64_t blocks = batch * qHeads * ((p.qLen + BQ - 1) / BQ);
  const bool halve = rows != 0 ? rows == BQ / 2 : blocks < 2 * multiprocessorCount();
  if constexpr (canHalveRows(D))
    if (halve)
      return launchPrefillShape<T, D, 2 * TPR>(stream, p, batch, qHeads);
  launchPrefillShape<T, D, TPR>(stream, p, batch, qHeads);
}

template <typename T>
void dispatchHeadDim(cudaStream_t stream, int64_t d, const PrefillParams &p, int64_t batch,
                     int64_t qHeads, int rows) {
  switch (d) {
  case 64: return launchPrefill<T, 64>(stream, p, batch, qHeads, rows);
  case 72: return launchPrefill<T, 72>(stream, p, batch, qHeads, rows);
  case 80: return launchPrefill<T, 80>(stream, p, batch, qHeads, rows);
  case 96: return launchPrefill<T, 96>(stream, p, batch, qHeads, rows);
  case 128: return launchPrefill<T, 128>(stream, p, batch, qHeads, rows);
  case 256: return launchPrefill<T, 256>(stream, p, batch, qHeads, rows);
  default: fail("cuda prefillAttention: unsupported head dim ", d);
  }
}

} // namespace

PrefillParams prefillParams(const PrefillAttentionArgs &a) {
  return {a.q.data, a.k.data, a.v.data, a.out,
          a.q.strideB, a.q.strideH, a.q.strideS, a.k.strideB, a.k.strideH, a.k.strideS,
          a.v.strideB, a.v.strideH, a.v.strideS, a.outStrideB, a.outStrideH,
          a.outStrideS, int(a.qHeads / a.kvHeads), int(a.qLen), int(a.kvLen),
          a.scale * kLog2e, a.causal, a.maskKind, a.mask, a.maskStrideB,
          a.maskStrideH, a.maskStrideS, a.maskStrideT};
}

bool prefillAttentionSupportsHeadDim(int64_t d) {
  return d == 64 || d == 72 || d == 80 || d == 96 || d == 128 || d == 256;
}

void prefillAttention(cudaStream_t stream, const PrefillAttentionArgs &a) {
  const char *k = "cuda prefillAttention";
  if (a.batch < 0 || a.qHeads <= 0 || a.kvHeads <= 0 || a.qLen < 0 || a.kvLen < 0)
    fail(k, ": bad shapes (batch ", a.batch, ", heads ", a.qHeads, "/", a.kvHeads, ", lengths ",
         a.qLen, "/", a.kvLen, ")");
  if (a.qHeads % a.kvHeads != 0)
    fail(k, ": query heads ", a.qHeads, " are not a multiple of KV heads ", a.kvHeads);
  if (!prefillAttentionSupportsHeadDim(a.headDim))
    fail(k, ": unsupported head dim ", a.headDim, " (supported: 64, 72, 80, 96, 128, 256)");
  const int defaultRows = kThreads / defaultThreadsPerRow(int(a.headDim));
  if (a.rowsPerBlock != 0 && a.rowsPerBlock != defaultRows &&
      !(a.rowsPerBlock == defaultRows / 2 && canHalveRows(int(a.headDim))))
    fail(k, ": rowsPerBlock ", a.rowsPerBlock, " must be 0, ", defaultRows, " or, for head dims "
         "whose channel pairs split evenly, ", defaultRows / 2);
  if (a.batch > 65535 || a.qHeads > 65535 || a.qLen > 2147483647LL || a.kvLen > 2147483647LL)
    fail(k, ": shapes too large for the launch grid");
  if (!a.q.data || !a.k.data || !a.v.data || !a.out)
    fail(k, ": null operand");
  if (a.maskKind != MaskKind::none && !a.mask)
    fail(k, ": mask kind set but mask is null");
  if (a.batch == 0 || a.qLen == 0)
    return;
  if (a.rowsPerBlock == 0 && mmaPrefillAttentionSupports(a)) {
    mmaPrefillAttention(stream, a);
    checkLaunch("prefillAttention (tensor cores)");
    return;
  }
  const PrefillParams p = prefillParams(a);
  MM_DISPATCH_FLOAT(a.dtype, k,
                    dispatchHeadDim<scalar_t>(stream, a.headDim, p, a.batch, a.qHeads,
                                              a.rowsPerBlock));
  checkLaunch("prefillAttention");
}

} // namespace mm::rt::cuda
