//===- AttentionPrefillMma.cu - prefill attention on tensor cores (f16/bf16) --===//
//
// FlashAttention-2 (Dao 2023) forward pass with mma.sync.m16n8k16 (PTX ISA, "Matrix
// multiply-accumulate operation using mma instruction", f16/bf16 inputs, f32
// accumulators). A block of 4 warps owns 64 query rows of one (batch, query head); each
// warp owns 16 of them, holds their q as A fragments and their output accumulator as C
// fragments in registers for the whole key loop. K and V stream through shared memory in
// tiles of 64 keys, both row-major ([key][d]) with rows padded by 8 elements so that
// fragment reads hit 32 distinct banks, copied with cp.async into `kStages` buffers: the
// copies of the next tiles are in flight while the block computes on the current one (a
// CLIP-L/14-336 image is 10 tiles, and a block per (query tile, head) leaves about one
// block per multiprocessor to hide the latency). K rows are the B operand of S = q k^T as
// they are; the B operand of O = P V is read from V with ldmatrix.trans (PTX ISA, "Warp
// Level Matrix Load Instruction: ldmatrix"). The scores of a tile stay in the C
// fragments: scaled into the log2 domain, masked, and reduced per row across the 4
// threads that share it (online softmax, Milakov & Gimelshein 2018); the C fragments of two 8-key tiles are the A
// fragment of the next product, rounded to the element type (as FlashAttention and
// PyTorch's SDPA do: the probabilities are the tensor cores' inputs). The row sums are
// kept in f32 and the output divided once at the end.
//
// Numerics against the f32 FMA kernel (AttentionPrefill.cu): the same scores up to f32
// summation order; each probability rounded once to the element type (relative error
// at most u = 2^-8 for bf16, 2^-11 for f16), so an output differs from the exact one by at
// most u * sum_t p_t |v_t| / sum_t p_t, plus the final rounding.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/AttentionPrefillMma.h"
#include "runtime/cuda/AttentionPrefill.cuh"

#include <cmath>

namespace mm::rt::cuda {
namespace {

constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr int kRows = 16 * kWarps; // query rows per block
constexpr int kKeys = 64;          // keys per shared-memory tile
constexpr int kPad = 8;            // elements of padding per shared-memory row

/// Shared-memory buffers of K and V tiles: copies of up to kStages - 1 tiles ahead are in
/// flight during a tile's products (3 measured no faster than 2 on the H200).
constexpr int kStages = 2;

/// Shared memory of one block: kStages tiles of K and of V.
template <typename T, int D> constexpr size_t sharedBytes() {
  return size_t(kStages) * 2 * kKeys * (D + kPad) * sizeof(T);
}

/// 16 bytes from global to shared memory without passing through registers (cp.async.cg,
/// L2 only); `fill` false writes 16 zero bytes and reads nothing.
__device__ __forceinline__ void copyAsync16(void *shared, const void *global, bool fill) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(global),
               "r"(fill ? 16 : 0)
               : "memory");
}
__device__ __forceinline__ void commitCopies() { asm volatile("cp.async.commit_group;" ::: "memory"); }
/// Waits until at most `kPending` committed groups of this thread's copies are in flight.
template <int kPending> __device__ __forceinline__ void waitCopies() {
  asm volatile("cp.async.wait_group %0;" ::"n"(kPending) : "memory");
}

/// Four 8 x 8 b16 matrices from shared memory, transposed: lanes 8m to 8m + 7 give the row
/// addresses of matrix m, and lane l receives in r[m] that matrix's elements
/// (2 (l % 4), l / 4) and (2 (l % 4) + 1, l / 4), the layout of an mma B fragment half.
__device__ __forceinline__ void loadMatricesTransposed(uint32_t (&r)[4], const void *row) {
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(a));
}

/// c += a * b for one m16n8k16 tile (row-major A, column-major B, f32 C) of TYPE inputs.
#define MM_MMA16816(TYPE)                                                                    \
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." TYPE "." TYPE ".f32 "              \
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                    \
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])                              \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1))
__device__ __forceinline__ void mma16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0,
                                         uint32_t b1, bf16) {
  MM_MMA16816("bf16");
}
__device__ __forceinline__ void mma16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0,
                                         uint32_t b1, f16) {
  MM_MMA16816("f16");
}
#undef MM_MMA16816

/// Two floats rounded to T and packed (the lower index in the low half).
__device__ __forceinline__ uint32_t pack2(float lo, float hi, bf16) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t *>(&v);
}
__device__ __forceinline__ uint32_t pack2(float lo, float hi, f16) {
  const __half2 v = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<const uint32_t *>(&v);
}

__device__ __forceinline__ uint32_t load2(const void *p) {
  return *static_cast<const uint32_t *>(p);
}

template <typename T, int D>
__global__ void __launch_bounds__(kThreads) prefillMmaKernel(PrefillParams p) {
  static_assert(D % 16 == 0, "head dim must be a multiple of 16");
  static_assert(kStages >= 2, "a tile's copy overlaps the previous tile's products");
  constexpr int KSTEPS = D / 16; // k steps of q k^T
  constexpr int DTILES = D / 8;  // n tiles of P V
  constexpr int STILES = kKeys / 8;
  constexpr int KS = D + kPad; // shared row stride of K and V (elements)
  constexpr int kTileElems = kKeys * KS;
  extern __shared__ __align__(16) unsigned char shared[];
  T *ks = reinterpret_cast<T *>(shared); // [stage][key][d]
  T *vs = ks + kStages * kTileElems;  // [stage][key][d]

  gridDependencySync();
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int g = lane / 4, t = lane % 4; // fragment row group and thread in group
  const int b = blockIdx.z, hq = blockIdx.y, hkv = hq / p.group;
  const int row0 = int(blockIdx.x) * kRows + warp * 16 + g; // this thread's rows: row0, row0 + 8
  const int rows[2] = {row0, row0 + 8};

  // q as A fragments: reg 0 (row g, channels 2t, 2t+1), 1 (row g+8), 2 and 3 (channels +8).
  uint32_t qf[KSTEPS][4];
  const T *qb = static_cast<const T *>(p.q) + b * p.qsb + hq * p.qsh;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const bool valid = rows[r] < p.qLen;
    const T *qr = qb + int64_t(rows[r]) * p.qss + 2 * t;
#pragma unroll
    for (int kk = 0; kk < KSTEPS; ++kk) {
      qf[kk][r] = valid ? load2(qr + kk * 16) : 0u;
      qf[kk][r + 2] = valid ? load2(qr + kk * 16 + 8) : 0u;
    }
  }
  float o[DTILES][4];
#pragma unroll
  for (int n = 0; n < DTILES; ++n)
    o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.0f;
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};

  const int kvEnd = prefillKeyEnd(p, int(blockIdx.x) * kRows, kRows);
  const T *kb = static_cast<const T *>(p.k) + b * p.ksb + hkv * p.ksh;
  const T *vb = static_cast<const T *>(p.v) + b * p.vsb + hkv * p.vsh;
  const int tiles = (kvEnd + kKeys - 1) / kKeys;

  // One commit group per tile (empty past the last one, so that the count of groups in
  // flight is the same at every tile): consecutive threads copy consecutive 8-channel
  // chunks of a key row; keys past kvEnd are zero-filled (and masked below).
  auto copyTile = [&](int tile) {
    if (tile >= tiles) {
      commitCopies();
      return;
    }
    T *kd = ks + (tile % kStages) * kTileElems, *vd = vs + (tile % kStages) * kTileElems;
    for (int idx = threadIdx.x; idx < kKeys * (D / 8); idx += kThreads) {
      const int r = idx / (D / 8), c = idx % (D / 8), key = tile * kKeys + r;
      const bool in = key < kvEnd;
      const int64_t src = int64_t(in ? key : 0);
      copyAsync16(kd + r * KS + c * 8, kb + src * p.kss + c * 8, in);
      copyAsync16(vd + r * KS + c * 8, vb + src * p.vss + c * 8, in);
    }
    commitCopies();
  };
#pragma unroll
  for (int i = 0; i < kStages - 1; ++i)
    copyTile(i);
  for (int tile = 0; tile < tiles; ++tile) {
    const int t0 = tile * kKeys;
    // Start the copy kStages - 1 tiles ahead (into the buffer of the previous tile, which
    // every warp has left: the sync at the end of the loop), then wait for this tile's:
    // the kStages - 1 younger groups may stay in flight.
    copyTile(tile + kStages - 1);
    waitCopies<kStages - 1>();
    __syncthreads();
    const T *kt = ks + (tile % kStages) * kTileElems, *vt = vs + (tile % kStages) * kTileElems;

    // S = q k^T: s[j] holds keys t0 + 8j + 2t (+1) of rows g (regs 0, 1) and g+8 (2, 3).
    float s[STILES][4];
#pragma unroll
    for (int j = 0; j < STILES; ++j) {
      s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.0f;
      const T *kr = kt + (j * 8 + g) * KS + 2 * t;
#pragma unroll
      for (int kk = 0; kk < KSTEPS; ++kk)
        mma16816(s[j], qf[kk], load2(kr + kk * 16), load2(kr + kk * 16 + 8), T{});
    }

    float tileMax[2] = {-INFINITY, -INFINITY};
#pragma unroll
    for (int j = 0; j < STILES; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int r = e / 2, key = t0 + j * 8 + 2 * t + (e % 2), row = rows[r];
        float v = s[j][e] * p.scaleLog2;
        s[j][e] = prefillVisible<T>(p, b, hq, row, key, kvEnd, v) ? v : -INFINITY;
        tileMax[r] = fmaxf(tileMax[r], s[j][e]);
      }
    float use[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      tileMax[r] = fmaxf(tileMax[r], __shfl_xor_sync(0xffffffffu, tileMax[r], 1));
      tileMax[r] = fmaxf(tileMax[r], __shfl_xor_sync(0xffffffffu, tileMax[r], 2));
      const float mNew = fmaxf(m[r], tileMax[r]);
      use[r] = mNew == -INFINITY ? 0.0f : mNew; // a row with nothing visible yet stays 0
      const float alpha = exp2f(m[r] - use[r]);
      l[r] *= alpha;
#pragma unroll
      for (int n = 0; n < DTILES; ++n) {
        o[n][2 * r] *= alpha;
        o[n][2 * r + 1] *= alpha;
      }
      m[r] = mNew;
    }
#pragma unroll
    for (int j = 0; j < STILES; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        s[j][e] = exp2f(s[j][e] - use[e / 2]);
        l[e / 2] += s[j][e];
      }

    // O += P V: the C fragments of key tiles 2kk and 2kk+1 are the A fragment of step kk.
#pragma unroll
    for (int kk = 0; kk < kKeys / 16; ++kk) {
      const uint32_t a[4] = {pack2(s[2 * kk][0], s[2 * kk][1], T{}),
                             pack2(s[2 * kk][2], s[2 * kk][3], T{}),
                             pack2(s[2 * kk + 1][0], s[2 * kk + 1][1], T{}),
                             pack2(s[2 * kk + 1][2], s[2 * kk + 1][3], T{})};
      // Lane l addresses key row 16 kk + 8 ((l / 8) % 2) + l % 8 at channels of d tile
      // n + l / 16: b[0], b[1] are d tile n's B fragment, b[2], b[3] d tile n + 1's.
      const T *vr = vt + (kk * 16 + ((lane / 8) % 2) * 8 + lane % 8) * KS + (lane / 16) * 8;
#pragma unroll
      for (int n = 0; n < DTILES; n += 2) {
        uint32_t bf[4];
        loadMatricesTransposed(bf, vr + n * 8);
        mma16816(o[n], a, bf[0], bf[1], T{});
        mma16816(o[n + 1], a, bf[2], bf[3], T{});
      }
    }
    __syncthreads(); // this buffer is refilled kStages - 1 tiles later
  }

  T *ob = static_cast<T *>(p.out) + b * p.osb + hq * p.osh;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
    if (rows[r] >= p.qLen)
      continue;
    const float inv = l[r] > 0.0f ? 1.0f / l[r] : 0.0f;
    T *orow = ob + int64_t(rows[r]) * p.oss + 2 * t;
#pragma unroll
    for (int n = 0; n < DTILES; ++n)
      *reinterpret_cast<uint32_t *>(orow + n * 8) =
          pack2(o[n][2 * r] * inv, o[n][2 * r + 1] * inv, T{});
  }
}

template <typename T, int D>
void launchMma(cudaStream_t stream, const PrefillParams &p, int64_t batch, int64_t qHeads) {
  const dim3 grid(unsigned((p.qLen + kRows - 1) / kRows), unsigned(qHeads), unsigned(batch));
  constexpr size_t smem = sharedBytes<T, D>();
  if constexpr (smem > 48 * 1024) { // beyond the default needs the opt-in, once per kernel
    static const cudaError_t optIn = cudaFuncSetAttribute(
        prefillMmaKernel<T, D>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
    checkCuda(optIn, "cuda prefillAttention (tensor cores): allowing its shared memory");
  }
  launchKernel(prefillMmaKernel<T, D>, grid, kThreads, smem, stream, p);
}

template <typename T>
void dispatchHeadDim(cudaStream_t stream, const PrefillAttentionArgs &a, const PrefillParams &p) {
  switch (a.headDim) {
  case 64: return launchMma<T, 64>(stream, p, a.batch, a.qHeads);
  case 80: return launchMma<T, 80>(stream, p, a.batch, a.qHeads);
  case 96: return launchMma<T, 96>(stream, p, a.batch, a.qHeads);
  case 128: return launchMma<T, 128>(stream, p, a.batch, a.qHeads);
  default: fail("cuda prefillAttention (tensor cores): unsupported head dim ", a.headDim);
  }
}

bool multipleOf(int64_t v, int64_t n) { return v % n == 0; }
bool alignedTo(const void *p, uintptr_t n) { return reinterpret_cast<uintptr_t>(p) % n == 0; }

} // namespace

bool mmaPrefillAttentionSupports(const PrefillAttentionArgs &a) {
  const bool headDim = a.headDim == 64 || a.headDim == 80 || a.headDim == 96 || a.headDim == 128;
  // k and v rows are read as 16-byte words, q and out as 4-byte pairs.
  auto rows16 = [](const AttentionOperand &x) {
    return alignedTo(x.data, 16) && multipleOf(x.strideB, 8) && multipleOf(x.strideH, 8) &&
           multipleOf(x.strideS, 8);
  };
  auto rows4 = [](const void *data, int64_t sb, int64_t sh, int64_t ss) {
    return alignedTo(data, 4) && multipleOf(sb, 2) && multipleOf(sh, 2) && multipleOf(ss, 2);
  };
  return (a.dtype == DType::f16 || a.dtype == DType::bf16) && headDim && rows16(a.k) &&
         rows16(a.v) && rows4(a.q.data, a.q.strideB, a.q.strideH, a.q.strideS) &&
         rows4(a.out, a.outStrideB, a.outStrideH, a.outStrideS);
}

void mmaPrefillAttention(cudaStream_t stream, const PrefillAttentionArgs &a) {
  if (!mmaPrefillAttentionSupports(a))
    fail("cuda prefillAttention (tensor cores): unsupported call (", dtypeName(a.dtype),
         ", head dim ", a.headDim, "; needs f16/bf16, head dim 64, 80, 96 or 128, 16-byte "
         "aligned k and v rows and 4-byte aligned q and out rows)");
  const PrefillParams p = prefillParams(a);
  if (a.dtype == DType::bf16)
    dispatchHeadDim<bf16>(stream, a, p);
  else
    dispatchHeadDim<f16>(stream, a, p);
}

} // namespace mm::rt::cuda
