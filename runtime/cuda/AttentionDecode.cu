//===- AttentionDecode.cu - decode attention over the KV cache (flash-decoding) -===//
//
// One query per sequence. A block (8 warps) serves one KV head and G of the query heads
// that share it (GQA), so each K/V row is read from memory once for all G heads. Lanes
// form groups of D/8 (each lane loads 8 channels, 16 bytes, of a K or V row); a warp
// works on 32/(D/8) keys at once and keeps U such steps of loads in flight. Every lane
// group keeps its own online-softmax state (max, sum, output) per head; the states are
// merged across the lane groups (shuffles), across the warps (shared memory) and, when
// the sequence is split over blocks (flash-decoding, Dao et al. 2023), across the blocks.
// Up to 8 splits form a thread-block cluster (sm_90): each block leaves its unnormalised
// partial (max, sum, output) in shared memory and the cluster's first block merges them
// through distributed shared memory. More splits go through global scratch: each block
// writes its partial and the last block of its (batch, head group) to arrive merges them
// (per-split weights computed once in shared memory, then independent loads per output
// channel) and resets its counter.
// The length comes from device memory, so one launch configuration (captured in a CUDA
// graph) serves every step; the number of splits in use (at least 64 keys each) is
// derived from it on the device.
// A fused step (DecodeAttentionArgs::newK) takes the step's key and value rows before
// they are in the cache: the block whose split holds row lens[b] uses them from registers
// for that row, and one block per KV head writes them into the cache (no block of the
// launch reads that row from memory). With a rotary table, each block rotates its query
// heads and the new key as it loads them, rounding to the element type as the separate
// rotary launch does, so the fused and separate launches give the same bits.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/Attention.h"
#include "runtime/cuda/DeviceUtil.cuh"

#include <cooperative_groups.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

namespace mm::rt::cuda {
namespace {

namespace cg = cooperative_groups;

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kMinKeysPerSplit = 64;
constexpr int kMaxSplits = 128; // bounds the last block's shared-memory merge table
constexpr int kMaxClusterSplits = 8; // portable thread-block cluster size

struct DecodeParams {
  const void *q;
  int64_t qsb, qsh;
  void *out;
  int64_t osb, osh;
  void *k, *v;
  int64_t capacity;
  int batch, qHeads, kvHeads, group, groupChunks;
  const int32_t *lens;
  int lenOffset;
  float scaleLog2;
  int maxSplits;
  float *partials; // [batch*qHeads][maxSplits][D] outputs, then [..][maxSplits][2] (max, sum)
  unsigned *counters; // [batch][kvHeads*groupChunks]
  const void *newK, *newV; // the step's rows (fused step), or null
  int64_t nksb, nksh, nvsb, nvsh;
  const void *cos, *sin; // rotary table rows (fused step), or null
  bool tableF32, interleaved;
  int64_t tableRowStride, tableStrideB;
  int halfR;
};

template <typename T>
__device__ __forceinline__ void loadTable8(const void *t, bool isF32, int64_t i, float (&o)[8]) {
  if (isF32)
    load8(static_cast<const float *>(t) + i, o);
  else
    load8(static_cast<const T *>(t) + i, o);
}

/// Channels c0..c0+7 of the head vector at p, rotated by the table row `row` when p.cos
/// is set (pairs (c, c + R/2), or (2i, 2i + 1) when interleaved; channels >= R pass
/// through) and rounded to T as the rotary kernel stores them. c0 is a multiple of 8 and
/// R a multiple of 16, so the 8 channels are all rotated or all passed through.
template <typename T>
__device__ __forceinline__ void loadRotated8(const T *v, int c0, const DecodeParams &p,
                                             int64_t row, float (&o)[8]) {
  load8(v + c0, o);
  if (!p.cos || c0 >= 2 * p.halfR)
    return;
  float partner[8], c[8], s[8];
  if (p.interleaved) {
#pragma unroll
    for (int j = 0; j < 8; ++j)
      partner[j] = o[j ^ 1];
  } else {
    load8(v + (c0 < p.halfR ? c0 + p.halfR : c0 - p.halfR), partner);
  }
  loadTable8<T>(p.cos, p.tableF32, row * p.tableRowStride + c0, c);
  loadTable8<T>(p.sin, p.tableF32, row * p.tableRowStride + c0, s);
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const bool first = p.interleaved ? (j & 1) == 0 : c0 < p.halfR;
    o[j] = toF(fromF<T>(rotaryChannel(o[j], partner[j], c[j], s[j], first)));
  }
}

__device__ __forceinline__ float warpMax(float v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
  return v;
}

/// Merges state (mo, lo, oo) into (m, l, o); an empty state has m = -inf.
template <int N>
__device__ __forceinline__ void mergeState(float &m, float &l, float (&o)[N], float mo, float lo,
                                           const float (&oo)[N]) {
  const float mx = fmaxf(m, mo);
  if (mx == -INFINITY)
    return;
  const float a = exp2f(m - mx), c = exp2f(mo - mx);
  l = l * a + lo * c;
#pragma unroll
  for (int j = 0; j < N; ++j)
    o[j] = o[j] * a + oo[j] * c;
  m = mx;
}

/// Cluster: the grid's splits (gridDim.x <= kMaxClusterSplits) form one thread-block
/// cluster per (batch, head group), merged through distributed shared memory.
/// Step: a fused step (p.newK set); without it the kernel keeps no registers for the new
/// rows (G = 1 stays at 64 registers: 4 blocks per multiprocessor).
template <typename T, int D, int G, bool Cluster, bool Step>
__global__ void __launch_bounds__(kThreads) decodeKernel(DecodeParams p) {
  gridDependencySync();
  constexpr int TPK = D / 8;               // lanes per key
  constexpr int KPW = 32 / TPK;            // keys per warp step
  constexpr int KPS = KPW * kWarps;        // keys per block step
  constexpr int U = sizeof(T) == 4 ? 2 : 4; // block steps of loads in flight
  __shared__ float smO[kWarps][G][D];
  __shared__ float smM[kWarps][G], smL[kWarps][G];
  __shared__ bool isLast;

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int sub = lane / TPK, part = lane % TPK;
  const int b = blockIdx.z;
  const int hkv = blockIdx.y / p.groupChunks, gc = blockIdx.y % p.groupChunks;
  const int hq0 = hkv * p.group + gc * G;

  // The loads that do not depend on the length first, so that their latency overlaps.
  const int64_t tableRow = int64_t(b) * p.tableStrideB;
  float q[G][8], o[G][8], m[G], l[G];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    const T *qh = static_cast<const T *>(p.q) + b * p.qsb + (hq0 + g) * p.qsh;
    if constexpr (Step)
      loadRotated8(qh, part * 8, p, tableRow, q[g]);
    else
      load8(qh + part * 8, q[g]);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      q[g][j] *= p.scaleLog2;
      o[g][j] = 0.0f;
    }
    m[g] = -INFINITY;
    l[g] = 0.0f;
  }
  // The fused step's new rows (the key rotated and rounded as the rotary launch stores it).
  Raw8<T> kNew{}, vNew{};
  if constexpr (Step) {
    const T *nk = static_cast<const T *>(p.newK) + b * p.nksb + hkv * p.nksh;
    if (p.cos && part * 8 < 2 * p.halfR) {
      float kf[8];
      loadRotated8(nk, part * 8, p, tableRow, kf);
#pragma unroll
      for (int j = 0; j < 8; ++j)
        reinterpret_cast<T *>(kNew.w)[j] = fromF<T>(kf[j]); // exact: kf is rounded to T
    } else {
      loadRaw8(nk + part * 8, kNew); // copied bits, as the append and the rotary copy them
    }
    loadRaw8(static_cast<const T *>(p.newV) + b * p.nvsb + hkv * p.nvsh + part * 8, vNew);
  }

  const int len = int(max(int64_t(0), min(int64_t(p.lens[b]) + p.lenOffset, p.capacity)));
  const int nsplit = max(1, min(p.maxSplits, (len + kMinKeysPerSplit - 1) / kMinKeysPerSplit));
  const int split = blockIdx.x;
  if (split >= nsplit && (!Cluster || nsplit == 1))
    return; // uniform over the block (in a cluster, every block takes part in a merge)
  const int chunk = (len + nsplit - 1) / nsplit;
  const int t0 = split * chunk, t1 = min(len, t0 + chunk); // empty for an idle cluster block

  const int64_t head = (int64_t(b) * p.kvHeads + hkv) * p.capacity * D + part * 8;
  T *kb = static_cast<T *>(p.k) + head;
  T *vb = static_cast<T *>(p.v) + head;
  // The fused step's row: attended from registers by the split that holds it, written to
  // the cache by that split's block of the first head chunk.
  const int newRow = Step ? p.lens[b] + p.lenOffset - 1 : -1;
  if (newRow >= t0 && newRow < t1 && gc == 0 && warp == 0 && sub == 0) {
#pragma unroll
    for (int i = 0; i < Raw8<T>::kWords; ++i) {
      reinterpret_cast<uint4 *>(kb + int64_t(newRow) * D)[i] = kNew.w[i];
      reinterpret_cast<uint4 *>(vb + int64_t(newRow) * D)[i] = vNew.w[i];
    }
  }
  for (int tb = t0 + warp * KPW; tb < t1; tb += KPS * U) { // tb is uniform over the warp
    Raw8<T> kr[U], vr[U];
    bool valid[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int t = tb + u * KPS + sub;
      valid[u] = t < t1;
      if (Step && valid[u] && t == newRow) {
        kr[u] = kNew;
        vr[u] = vNew;
      } else if (valid[u]) {
        loadRaw8(kb + int64_t(t) * D, kr[u]);
        loadRaw8(vb + int64_t(t) * D, vr[u]);
      } else {
        kr[u] = Raw8<T>{};
        vr[u] = Raw8<T>{};
      }
    }
#pragma unroll
    for (int g = 0; g < G; ++g) {
      float s[U];
      float mx = m[g];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        float acc = 0.0f;
#pragma unroll
        for (int j = 0; j < 8; ++j)
          acc = fmaf(q[g][j], rawAt(kr[u], j), acc);
#pragma unroll
        for (int off = TPK / 2; off > 0; off >>= 1)
          acc += __shfl_xor_sync(0xffffffffu, acc, off);
        s[u] = valid[u] ? acc : -INFINITY;
        mx = fmaxf(mx, s[u]);
      }
      if (mx != -INFINITY) {
        const float alpha = exp2f(m[g] - mx);
        l[g] *= alpha;
#pragma unroll
        for (int j = 0; j < 8; ++j)
          o[g][j] *= alpha;
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const float pu = exp2f(s[u] - mx); // 0 for invalid keys
          l[g] += pu;
#pragma unroll
          for (int j = 0; j < 8; ++j)
            o[g][j] = fmaf(pu, rawAt(vr[u], j), o[g][j]);
        }
        m[g] = mx;
      }
    }
  }

  // Merge the lane groups of the warp (lanes with equal `part`).
#pragma unroll
  for (int off = TPK; off < 32; off <<= 1) {
#pragma unroll
    for (int g = 0; g < G; ++g) {
      const float mo = __shfl_xor_sync(0xffffffffu, m[g], off);
      const float lo = __shfl_xor_sync(0xffffffffu, l[g], off);
      float oo[8];
#pragma unroll
      for (int j = 0; j < 8; ++j)
        oo[j] = __shfl_xor_sync(0xffffffffu, o[g][j], off);
      mergeState(m[g], l[g], o[g], mo, lo, oo);
    }
  }
  if (sub == 0) {
#pragma unroll
    for (int g = 0; g < G; ++g) {
#pragma unroll
      for (int j = 0; j < 8; ++j)
        smO[warp][g][part * 8 + j] = o[g][j];
      if (part == 0) {
        smM[warp][g] = m[g];
        smL[warp][g] = l[g];
      }
    }
  }
  __syncthreads();

  // Merge the warps; thread idx handles (head g, channel d).
  const int64_t rowBase = int64_t(b) * p.qHeads + hq0; // partial row of head g: rowBase + g
  const int64_t mlBase = int64_t(p.batch) * p.qHeads * p.maxSplits * D;
  __shared__ float smPartO[Cluster ? G : 1][Cluster ? D : 1], smPartM[Cluster ? G : 1],
      smPartL[Cluster ? G : 1];
  for (int idx = threadIdx.x; idx < G * D; idx += kThreads) {
    const int g = idx / D, d = idx % D;
    float mx = -INFINITY;
#pragma unroll
    for (int w = 0; w < kWarps; ++w)
      mx = fmaxf(mx, smM[w][g]);
    float L = 0.0f, O = 0.0f;
    if (mx != -INFINITY) {
#pragma unroll
      for (int w = 0; w < kWarps; ++w) {
        const float c = exp2f(smM[w][g] - mx);
        L += smL[w][g] * c;
        O += smO[w][g][d] * c;
      }
    }
    if (nsplit == 1) {
      T *op = static_cast<T *>(p.out) + b * p.osb + (hq0 + g) * p.osh;
      op[d] = fromF<T>(L > 0.0f ? O / L : 0.0f);
    } else if constexpr (Cluster) {
      smPartO[g][d] = O;
      if (d == 0) {
        smPartM[g] = mx;
        smPartL[g] = L;
      }
    } else {
      const int64_t prow = (rowBase + g) * p.maxSplits + split;
      p.partials[prow * D + d] = O;
      if (d == 0) {
        p.partials[mlBase + prow * 2] = mx;
        p.partials[mlBase + prow * 2 + 1] = L;
      }
      __threadfence(); // publish before this block is counted
    }
  }
  if (nsplit == 1)
    return; // uniform over the cluster: every block sees the same length
  if constexpr (Cluster) {
    // The cluster is this (batch, head group)'s splits, ranked by split.
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync(); // every block's partial is in its shared memory
    if (split == 0) {
      for (int idx = threadIdx.x; idx < G * D; idx += kThreads) {
        const int g = idx / D, d = idx % D;
        float mx = -INFINITY;
        for (int sp = 0; sp < nsplit; ++sp)
          mx = fmaxf(mx, cluster.map_shared_rank(&smPartM[g], sp)[0]);
        float L = 0.0f, O = 0.0f;
        if (mx != -INFINITY) {
          for (int sp = 0; sp < nsplit; ++sp) {
            const float c = exp2f(cluster.map_shared_rank(&smPartM[g], sp)[0] - mx);
            L += c * cluster.map_shared_rank(&smPartL[g], sp)[0];
            O += c * cluster.map_shared_rank(&smPartO[g][d], sp)[0];
          }
        }
        T *op = static_cast<T *>(p.out) + b * p.osb + (hq0 + g) * p.osh;
        op[d] = fromF<T>(L > 0.0f ? O / L : 0.0f);
      }
    }
    cluster.sync(); // keep every block's shared memory until the first block has read it
    return;
  }
  __syncthreads();
  unsigned *counter = p.counters + int64_t(b) * gridDim.y + blockIdx.y;
  if (threadIdx.x == 0)
    isLast = atomicAdd(counter, 1u) == unsigned(nsplit - 1);
  __syncthreads();
  if (!isLast)
    return;

  // The last block merges the nsplit partials of its G heads. First the per-split
  // weights exp2(m_s - M) and 1 / L per head (warp g handles head g; G <= kWarps) ...
  __shared__ float smW[G][kMaxSplits];
  __shared__ float smInvL[G];
  if (warp < G) {
    const int64_t prow0 = (rowBase + warp) * p.maxSplits;
    float mx = -INFINITY;
    for (int sp = lane; sp < nsplit; sp += 32) {
      const float ms = __ldcg(&p.partials[mlBase + (prow0 + sp) * 2]);
      smW[warp][sp] = ms;
      mx = fmaxf(mx, ms);
    }
    mx = warpMax(mx);
    float L = 0.0f;
    for (int sp = lane; sp < nsplit; sp += 32) {
      const float c = mx == -INFINITY ? 0.0f : exp2f(smW[warp][sp] - mx);
      smW[warp][sp] = c;
      L += c * __ldcg(&p.partials[mlBase + (prow0 + sp) * 2 + 1]);
    }
    L = warpSum(L);
    if (lane == 0)
      smInvL[warp] = L > 0.0f ? 1.0f / L : 0.0f;
  }
  __syncthreads();
  // ... then each output channel as a weighted sum of independent loads.
  for (int idx = threadIdx.x; idx < G * D; idx += kThreads) {
    const int g = idx / D, d = idx % D;
    const float *po = p.partials + (rowBase + g) * p.maxSplits * D + d;
    float O = 0.0f;
#pragma unroll 8
    for (int sp = 0; sp < nsplit; ++sp)
      O += smW[g][sp] * __ldcg(po + int64_t(sp) * D);
    T *op = static_cast<T *>(p.out) + b * p.osb + (hq0 + g) * p.osh;
    op[d] = fromF<T>(O * smInvL[g]);
  }
  if (threadIdx.x == 0)
    *counter = 0; // ready for the next launch
}

/// Query heads per block (G): 1, 2, 4 or 8, dividing the group (at most 4 for head dim
/// 256, to keep the warps' merge table within 48 KiB of shared memory). A larger G reads
/// each K/V row once for more heads; a smaller G gives more, shorter blocks. Up to a
/// capacity of kSmallGroupCapacity keys, the largest G that still gives one block per two
/// multiprocessors before splitting the sequence is taken (batch-1 decode of 32 heads:
/// G = 1; the blocks re-read K/V rows from L2, which costs less than serialising 8 heads
/// per lane); beyond it the largest G. On the H200 (cuda_kernel_bench [4], 32/4 heads,
/// head dim 64): G = 1 takes 5.4-8.5 us per layer at 128-1024 keys against 9.6-10.5 us
/// for G = 8, equal at 2048, slower at 4096 (15.9 against 12.1 us). `forced` (non-zero)
/// overrides the choice.
constexpr int64_t kSmallGroupCapacity = 2048;
/// Whether a block can serve g query heads of a group: 1, 2, 4 or 8 dividing the group
/// (8 only for head dims up to 128).
bool validHeadsPerBlock(int g, int64_t group, int64_t headDim) {
  return g > 0 && g <= 8 && (g & (g - 1)) == 0 && group % g == 0 && (g <= 4 || headDim <= 128);
}

int headsPerBlock(int64_t batch, int64_t qHeads, int64_t kvHeads, int64_t headDim,
                  int64_t capacity, int forced) {
  const int64_t group = qHeads / kvHeads;
  if (forced > 0)
    return forced;
  for (int g : {8, 4, 2})
    if (validHeadsPerBlock(g, group, headDim) &&
        (capacity > kSmallGroupCapacity || batch * qHeads / g >= multiprocessorCount() / 2))
      return g;
  return 1;
}

/// Splits 2..kMaxClusterSplits form one cluster per (batch, head group).
template <typename T, int D, int G, bool Step>
void launchDecodeKernel(cudaStream_t stream, dim3 grid, const DecodeParams &p) {
  if (grid.x >= 2 && grid.x <= unsigned(kMaxClusterSplits))
    launchClusterKernel(decodeKernel<T, D, G, true, Step>, grid, dim3(grid.x, 1, 1), kThreads,
                        0, stream, p);
  else
    launchKernel(decodeKernel<T, D, G, false, Step>, grid, kThreads, 0, stream, p);
}

template <typename T, int D, int G>
void launchDecodeKernel(cudaStream_t stream, dim3 grid, const DecodeParams &p) {
  if (p.newK)
    launchDecodeKernel<T, D, G, true>(stream, grid, p);
  else
    launchDecodeKernel<T, D, G, false>(stream, grid, p);
}

template <typename T, int D>
void launchDecodeG(cudaStream_t stream, int g, dim3 grid, const DecodeParams &p) {
  switch (g) {
  case 8:
    if constexpr (D <= 128)
      launchDecodeKernel<T, D, 8>(stream, grid, p);
    return;
  case 4: launchDecodeKernel<T, D, 4>(stream, grid, p); return;
  case 2: launchDecodeKernel<T, D, 2>(stream, grid, p); return;
  default: launchDecodeKernel<T, D, 1>(stream, grid, p); return;
  }
}

template <typename T>
void launchDecode(cudaStream_t stream, int64_t d, int g, dim3 grid, const DecodeParams &p) {
  switch (d) {
  case 64: return launchDecodeG<T, 64>(stream, g, grid, p);
  case 128: return launchDecodeG<T, 128>(stream, g, grid, p);
  case 256: return launchDecodeG<T, 256>(stream, g, grid, p);
  default: fail("cuda decodeAttention: unsupported head dim ", d);
  }
}

/// The parts joined into one message.
template <typename... Parts> std::string joined(const Parts &...parts) {
  std::ostringstream os;
  (os << ... << parts);
  return os.str();
}

} // namespace

std::string decodeStepProblem(const DecodeAttentionArgs &a) {
  const DecodeRotary &r = a.rotary;
  if (!a.newK != !a.newV)
    return "give both the new key and value rows or neither";
  if (!a.newK)
    return r.cos || r.sin ? "a rotary table needs the step's new key rows (newK)" : "";
  if (a.lenOffset != 1)
    return joined("a fused step appends at lens[b] and attends to lens[b] + 1 keys (lenOffset 1, "
                  "got ", a.lenOffset, ")");
  if (!aligned16(a.newK) || !aligned16(a.newV) || a.newKStrideB % 8 != 0 ||
      a.newKStrideH % 8 != 0 || a.newVStrideB % 8 != 0 || a.newVStrideH % 8 != 0)
    return "the new key and value rows must be 16-byte aligned with strides that are "
           "multiples of 8";
  if (!r.cos && !r.sin)
    return "";
  if (!r.cos || !r.sin)
    return "rotary cos and sin tables must both be given";
  if (r.tableType != a.dtype && r.tableType != DType::f32)
    return joined("rotary table type ", dtypeName(r.tableType), " must be ", dtypeName(a.dtype),
                  " or f32");
  if (r.rotaryDim <= 0 || r.rotaryDim % 16 != 0 || r.rotaryDim > a.headDim)
    return joined("rotary width ", r.rotaryDim, " must be a multiple of 16 in (0, ", a.headDim,
                  "]");
  if (r.tableStrideB < 0)
    return joined("rotary table batch stride ", r.tableStrideB, " (rows) is negative");
  if (r.tableRowStride < r.rotaryDim || r.tableRowStride % 8 != 0 || !aligned16(r.cos) ||
      !aligned16(r.sin))
    return joined("rotary tables must be 16-byte aligned with a row stride (", r.tableRowStride,
                  ") that is a multiple of 8 and at least the rotary width ", r.rotaryDim);
  return "";
}

bool decodeAttentionSupportsHeadDim(int64_t d) { return d == 64 || d == 128 || d == 256; }

int decodeAttentionDefaultSplits(int64_t batch, int64_t qHeads, int64_t kvHeads,
                                 int64_t headDim, int64_t capacity) {
  if (batch <= 0 || kvHeads <= 0 || qHeads <= 0 || capacity <= 0 || qHeads % kvHeads != 0)
    return 1;
  const int64_t blocksPerSplit = batch * qHeads / headsPerBlock(batch, qHeads, kvHeads, headDim, capacity, 0);
  const int64_t target = multiprocessorCount(); // one 256-thread block per multiprocessor
  int64_t splits = (target + blocksPerSplit - 1) / blocksPerSplit;
  splits = std::min(splits, (capacity + kMinKeysPerSplit - 1) / kMinKeysPerSplit);
  return int(std::max<int64_t>(1, std::min<int64_t>(splits, kMaxSplits)));
}

ScratchSize decodeAttentionScratch(int64_t batch, int64_t qHeads, int64_t kvHeads,
                                   int64_t headDim, int maxSplits) {
  ScratchSize s;
  if (maxSplits <= kMaxClusterSplits || batch <= 0 || qHeads <= 0 || kvHeads <= 0 || qHeads % kvHeads != 0)
    return s;
  s.partialFloats = size_t(batch) * size_t(qHeads) * size_t(maxSplits) * size_t(headDim + 2);
  s.counterCount = size_t(batch) * size_t(qHeads); // one per block row at G = 1
  return s;
}

void decodeAttention(cudaStream_t stream, const DecodeAttentionArgs &a) {
  const char *k = "cuda decodeAttention";
  const KvCacheView &c = a.cache;
  if (a.batch < 0 || a.qHeads <= 0 || a.kvHeads <= 0)
    fail(k, ": bad shapes (batch ", a.batch, ", heads ", a.qHeads, "/", a.kvHeads, ")");
  if (a.qHeads % a.kvHeads != 0)
    fail(k, ": query heads ", a.qHeads, " are not a multiple of KV heads ", a.kvHeads);
  if (!decodeAttentionSupportsHeadDim(a.headDim))
    fail(k, ": unsupported head dim ", a.headDim, " (supported: 64, 128, 256)");
  if (c.batch != a.batch || c.kvHeads != a.kvHeads || c.headDim != a.headDim || c.capacity <= 0)
    fail(k, ": cache [", c.batch, ", ", c.kvHeads, ", ", c.capacity, ", ", c.headDim,
         "] does not match batch ", a.batch, ", ", a.kvHeads, " KV heads, head dim ", a.headDim);
  if (!a.q || !a.out || !c.k || !c.v || !a.lens)
    fail(k, ": null pointer argument");
  if (!aligned16(a.q) || !aligned16(c.k) || !aligned16(c.v) || a.qStrideB % 8 != 0 ||
      a.qStrideH % 8 != 0)
    fail(k, ": q and the cache must be 16-byte aligned with strides that are multiples of 8");
  if (a.batch > 65535 || c.capacity > 2147483647LL)
    fail(k, ": shapes too large for the launch grid");
  if (const std::string step = decodeStepProblem(a); !step.empty())
    fail(k, ": ", step);
  if (a.batch == 0)
    return;
  if (a.maxSplits < 0 || a.maxSplits > kMaxSplits)
    fail(k, ": maxSplits ", a.maxSplits, " must be in [0, ", kMaxSplits, "]");
  const int group = int(a.qHeads / a.kvHeads);
  if (a.headsPerBlock != 0 && !validHeadsPerBlock(a.headsPerBlock, group, a.headDim))
    fail(k, ": headsPerBlock ", a.headsPerBlock, " must be 1, 2, 4 or 8 and divide the group of ",
         group, " (8 only for head dim <= 128)");
  const int g = headsPerBlock(a.batch, a.qHeads, a.kvHeads, a.headDim, c.capacity, a.headsPerBlock);
  const int splits = a.maxSplits > 0 ? a.maxSplits
                                     : decodeAttentionDefaultSplits(a.batch, a.qHeads, a.kvHeads,
                                                                    a.headDim, c.capacity);
  const ScratchSize need = decodeAttentionScratch(a.batch, a.qHeads, a.kvHeads, a.headDim, splits);
  if (need.partialFloats > a.scratch.partialCount || need.counterCount > a.scratch.counterCount ||
      (splits > kMaxClusterSplits && (!a.scratch.partials || !a.scratch.counters)))
    fail(k, ": split scratch too small (needs ", need.partialFloats, " floats and ",
         need.counterCount, " counters for ", splits, " splits, has ", a.scratch.partialCount,
         " and ", a.scratch.counterCount, ")");
  const int groupChunks = group / g;
  const DecodeRotary &r = a.rotary;
  DecodeParams p{a.q,         a.qStrideB,   a.qStrideH,    a.out,
                 a.outStrideB, a.outStrideH, c.k,          c.v,
                 c.capacity,  int(a.batch), int(a.qHeads), int(a.kvHeads),
                 group,       groupChunks,   a.lens,        a.lenOffset,
                 a.scale * kLog2e, splits, a.scratch.partials, a.scratch.counters,
                 a.newK,      a.newV,        a.newKStrideB, a.newKStrideH,
                 a.newVStrideB, a.newVStrideH, r.cos,        r.sin,
                 r.tableType == DType::f32, r.interleaved, r.tableRowStride, r.tableStrideB,
                 int(r.rotaryDim / 2)};
  const dim3 grid(unsigned(splits), unsigned(a.kvHeads * groupChunks), unsigned(a.batch));
  MM_DISPATCH_FLOAT(a.dtype, k, launchDecode<scalar_t>(stream, a.headDim, g, grid, p));
  checkLaunch("decodeAttention");
}

} // namespace mm::rt::cuda
