//===- Blas.h - GEMM and GEMV on the GPU (cuBLASLt and an own GEMV kernel) ----===//
//
// Row-major products with f32 accumulation for f32, f16 and bf16 operands:
//   linear:  y[M, N] = act(x[M, K] W[K, N] + bias[N])   (mm.linear; W in ONNX MatMul layout)
//   matmul:  C[b] = A[b] B[b], A [M, K], B [K, N], C [M, N], batch strides 0 = broadcast
// GEMMs go through cuBLASLt with the bias, GELU (tanh form) and ReLU epilogues it offers;
// other activations run as one extra elementwise launch (on the GEMM's rounded output,
// as PyTorch does). For M = 1 (batch-1 decode) an own bandwidth-bound GEMV kernel
// (16-byte loads, split-K reduced in a thread-block cluster or through scratch, optional
// fused SwiGLU or RMSNorm input) is used instead: for every N with programmatic dependent
// launch (its weight loads overlap the previous kernel), for narrow N only without it
// (see Blas::choosePath and the numbers in runtime/cuda/README.md).
//
// f32 runs in true f32 (CUBLAS_COMPUTE_32F, no TF32), so f32 results match a CPU
// reference to rounding.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CUDA_BLAS_H
#define MM_RUNTIME_CUDA_BLAS_H

#include "runtime/cuda/CudaCommon.h"

#include <memory>

namespace mm::rt::cuda {

/// How gemv forms its input vector (all operands [K] of the element type, 16-byte aligned):
///   - plain: x;
///   - up set: act(x) * up with act = gate (Shazeer 2020): SiLU for SwiGLU (mm.swiglu
///     feeding the projection), GELU or its tanh form for GeGLU (mm.geglu);
///   - rmsNorm: RMSNorm with the fused residual add (Zhang & Sennrich 2019; mm.rms_norm /
///     mm.add_rms_norm feeding it): s = x + residual (or x), written to sumOut when set,
///     and the input s / sqrt(mean(s^2) + eps) * (scaleOffset + scale) (scale [K], f32
///     when scaleF32, else the element type); K a multiple of 8; sumOut must not overlap
///     x or residual (one block writes it while the others read them).
/// Each fused input is rounded to the element type exactly where the unfused kernels
/// store their results (and the RMSNorm sum is taken in the same order), so fused and
/// unfused projections give identical results.
struct GemvInput {
  const void *up = nullptr;
  Activation gate = Activation::silu;
  bool rmsNorm = false;
  const void *residual = nullptr;
  const void *scale = nullptr;
  bool scaleF32 = false;
  float eps = 0.0f, scaleOffset = 0.0f;
  void *sumOut = nullptr;
};

/// How gemv divides W [K, N] over thread blocks: `tiles` column tiles of 64 (grid x) by
/// `splits` chunks of `chunk` rows of K (grid y; the last chunk may be shorter; at most
/// 8192 rows, x's chunk is staged in shared memory). The splits' partial sums meet in
/// split order, inside a thread-block cluster (`cluster`, 4 to 16 splits) or through
/// global scratch.
struct GemvPlan {
  int tiles = 0, splits = 1, chunk = 0;
  bool cluster = false;
};
/// The plan gemv takes for [k, n] on a GPU of `multiprocessors` SMs with a scratch of
/// `availablePartialFloats` floats: as many splits as fit in one wave of resident blocks,
/// more where a block would read over 1024 rows (the rule and its measurements are in Gemv.cu and runtime/cuda/README.md).
/// Errors unless n > 0 and 0 < k <= 65535 * 8192. It splits less when the scratch is
/// smaller than it would like (4 to 16 splits then meet in a cluster), but K > 8192
/// always needs ceil(K / 8192) splits, and more than 16 may exceed a tiny scratch
/// (gemvScratch says; Blas then takes cuBLASLt).
GemvPlan planGemv(int64_t n, int64_t k, size_t availablePartialFloats, int multiprocessors);
/// A plan of `splits` chunks of ceil(k / splits) rows rounded up to `rowQuantum` (at
/// most 8192 rows, so at least ceil(k / 8192) splits; at most 65535 splits), for
/// benchmarks and tests that compare plans. Errors on a bad shape, and on `cluster`
/// outside 4 to 16 splits.
GemvPlan gemvPlanWithSplits(int64_t n, int64_t k, int splits, int rowQuantum, bool cluster);

/// GEMV y[N] = act(in(x)[K] W[K, N] + bias[N]) (W row-major [K, N], bias may be null; in
/// as GemvInput says) with the K dimension split over blocks as `plan` says (planGemv's
/// when null). Splits reduced through scratch need `scratch` (size from gemvScratch).
/// N must be a multiple of 8 and x, W, y, bias 16-byte aligned (gemvSupported says
/// whether a call qualifies).
/// With `constantWeight` (W is written by no launch that may still be in flight: weights
/// uploaded at load) the kernel issues its first weight loads before it waits for the
/// previous kernel (programmatic dependent launch); otherwise it waits first.
void gemv(cudaStream_t stream, DType dtype, const void *x, const void *w, const void *bias,
          void *y, int64_t n, int64_t k, Activation act, const SplitScratch &scratch,
          const GemvInput &input = {}, bool constantWeight = false,
          const GemvPlan *plan = nullptr);
/// True when gemv takes `input` with this x and k (see GemvInput).
bool gemvInputSupported(const void *x, int64_t k, const GemvInput &input);
/// The partial floats and counters a plan for n columns needs (0 and 0 when it does not
/// reduce through scratch).
struct GemvScratchSize {
  size_t partialFloats = 0;
  size_t counterCount = 0;
};
GemvScratchSize gemvScratch(const GemvPlan &plan, int64_t n);
bool gemvSupported(DType dtype, const void *x, const void *w, const void *bias,
                   const void *y, int64_t n, int64_t k);

/// A cuBLASLt handle, its workspace and the GEMV split scratch, created once (they are
/// the only allocations), plus a cache of matmul descriptors and chosen algorithms per
/// shape: after the first call for a shape, a call does no heuristic query (a decode step
/// replayed from a CUDA graph queries nothing). Not thread-safe; launches from one
/// object must go to one stream at a time (the workspace and scratch are shared).
class Blas {
public:
  enum class Path { automatic, cublasLt, gemv };

  /// Creates the handle on the current device and allocates `workspaceBytes` of cuBLASLt
  /// workspace (32 MiB is what NVIDIA recommends for Hopper) and the GEMV scratch.
  explicit Blas(size_t workspaceBytes = size_t(32) << 20);
  ~Blas();
  Blas(const Blas &) = delete;
  Blas &operator=(const Blas &) = delete;

  struct LinearArgs {
    DType dtype = DType::f32;
    const void *x = nullptr;    ///< [m, k]
    const void *w = nullptr;    ///< [k, n]
    const void *bias = nullptr; ///< [n] or null
    void *y = nullptr;          ///< [m, n]
    int64_t m = 0, n = 0, k = 0;
    Activation act = Activation::none;
    /// A fused input (SwiGLU or RMSNorm of x, see GemvInput): only on the GEMV path
    /// (gemvTakesInput says when).
    GemvInput input;
    /// W is written by no launch that may still be in flight (weights uploaded at load):
    /// the GEMV may start loading it before the previous kernel has finished.
    bool constantWeight = false;
    Path path = Path::automatic; ///< force a path (tests and benchmarks)
  };
  void linear(cudaStream_t stream, const LinearArgs &args);

  /// Batched row-major C[i] = A[i] B[i] for i < batch (A + i*strideA etc.; stride 0
  /// broadcasts an operand). mm.matmul after the executor has flattened leading dims.
  void matmul(cudaStream_t stream, DType dtype, const void *a, int64_t strideA,
              const void *b, int64_t strideB, void *c, int64_t strideC, int64_t batch,
              int64_t m, int64_t n, int64_t k);

  /// The path `linear` takes for these arguments when args.path is automatic: the own GEMV
  /// for one row (M = 1) when it supports the call (with programmatic dependent launch on,
  /// for every N: its weight loads overlap the previous kernel; without, for N <= 1024
  /// only), cuBLASLt otherwise.
  Path choosePath(const LinearArgs &args) const;
  /// True when `linear` takes args with args.input fused (one row on the GEMV path, and
  /// for an RMSNorm input K a multiple of 8 and x, residual and sumOut 16-byte aligned).
  bool gemvTakesInput(const LinearArgs &args) const;
  /// How many cuBLASLt heuristic queries this object has made (one per new shape).
  size_t heuristicQueries() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace mm::rt::cuda

#endif // MM_RUNTIME_CUDA_BLAS_H
