//===- Blas.cpp - cuBLASLt GEMMs with cached plans, and the GEMV path -------===//
#include "runtime/cuda/Blas.h"
#include "runtime/cuda/Kernels.h"

#include <cublasLt.h>

#include <map>
#include <tuple>

namespace mm::rt::cuda {
namespace {

void checkLt(cublasStatus_t status, const char *what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    fail("cuBLASLt ", what, " failed: status ", int(status));
}

cudaDataType_t cudaType(DType dtype) {
  switch (dtype) {
  case DType::f32:
    return CUDA_R_32F;
  case DType::f16:
    return CUDA_R_16F;
  case DType::bf16:
    return CUDA_R_16BF;
  default:
    fail("cuda matmul: unsupported element type ", dtypeName(dtype),
         " (expected f32, f16 or bf16)");
  }
}

/// The largest power of two (at most 256) that divides the address; cuBLASLt's
/// heuristics must not pick kernels that assume more alignment than the operands have.
uint32_t alignmentOf(const void *p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  uint32_t align = 256;
  while (align > 1 && (a % align) != 0)
    align >>= 1;
  return align;
}

/// Everything the chosen algorithm depends on.
struct PlanKey {
  DType dtype;
  int64_t batch, m, n, k, strideA, strideB, strideC;
  cublasLtEpilogue_t epilogue;
  uint32_t alignA, alignB, alignC, alignBias;
  bool operator<(const PlanKey &o) const {
    return std::tie(dtype, batch, m, n, k, strideA, strideB, strideC, epilogue, alignA, alignB,
                    alignC, alignBias) < std::tie(o.dtype, o.batch, o.m, o.n, o.k, o.strideA,
                                                  o.strideB, o.strideC, o.epilogue, o.alignA,
                                                  o.alignB, o.alignC, o.alignBias);
  }
};

/// One matmul shape: descriptors and the algorithm the heuristic picked.
struct Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t layoutW = nullptr, layoutX = nullptr, layoutY = nullptr;
  cublasLtMatmulAlgo_t algo{};
  Plan() = default;
  Plan(const Plan &) = delete;
  Plan &operator=(const Plan &) = delete;
  ~Plan() {
    if (layoutY)
      cublasLtMatrixLayoutDestroy(layoutY);
    if (layoutX)
      cublasLtMatrixLayoutDestroy(layoutX);
    if (layoutW)
      cublasLtMatrixLayoutDestroy(layoutW);
    if (desc)
      cublasLtMatmulDescDestroy(desc);
  }
};

cublasLtMatrixLayout_t makeLayout(cudaDataType_t type, int64_t rows, int64_t cols, int64_t ld,
                                  int64_t batch, int64_t stride) {
  cublasLtMatrixLayout_t layout = nullptr;
  checkLt(cublasLtMatrixLayoutCreate(&layout, type, uint64_t(rows), uint64_t(cols), ld),
          "cublasLtMatrixLayoutCreate");
  if (batch > 1) {
    const int32_t count = int32_t(batch);
    checkLt(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                                             sizeof(count)),
            "set batch count");
    checkLt(cublasLtMatrixLayoutSetAttribute(
                layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)),
            "set batch stride");
  }
  return layout;
}

/// The epilogue cuBLASLt applies itself, and whether `act` still needs its own launch.
/// cuBLASLt's GELU is the tanh form, so only Activation::geluTanh maps to it.
cublasLtEpilogue_t epilogueFor(bool hasBias, Activation act, bool &separateActivation) {
  separateActivation = false;
  switch (act) {
  case Activation::none:
    return hasBias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
  case Activation::geluTanh:
    return hasBias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
  case Activation::relu:
    return hasBias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
  default:
    separateActivation = true;
    return hasBias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
  }
}

// Measured on the H200 (bf16, M = 1, weights streamed from HBM; runtime/cuda/README.md):
// without programmatic dependent launch, cuBLASLt's M = 1 kernels match or beat the own
// GEMV from N = 2048 up (2.4-4.1 TB/s), while for narrow N the GEMV is faster (N = 256:
// 3.9 us against 5.3 us). With it, the own GEMV issues its weight loads while the previous
// kernel finishes and a whole llava-1b decode step is 4.5 % faster with the GEMV for every
// projection (cuda_kernel_bench [7]).
constexpr int64_t kGemvMaxN = 1024;
constexpr size_t kGemvPartialFloats = size_t(4) << 20; // 16 MiB of split-K partial sums
constexpr size_t kGemvCounters = size_t(64) << 10;     // column tiles: N up to 4M

} // namespace

struct Blas::Impl {
  cublasLtHandle_t handle = nullptr;
  void *workspace = nullptr;
  size_t workspaceBytes = 0;
  SplitScratch gemvScratch;
  std::map<PlanKey, std::unique_ptr<Plan>> plans;
  size_t heuristicQueries = 0;

  ~Impl() {
    plans.clear();
    if (handle)
      cublasLtDestroy(handle);
    cudaFree(workspace);
    cudaFree(gemvScratch.partials);
    cudaFree(gemvScratch.counters);
  }

  /// The cached plan for `key`, made on first use; nullptr (also cached) when cuBLASLt
  /// has no algorithm for it.
  const Plan *plan(const PlanKey &key, const void *bias) {
    auto it = plans.find(key);
    if (it != plans.end())
      return it->second.get();
    auto p = std::make_unique<Plan>();
    const cudaDataType_t type = cudaType(key.dtype);
    // Row-major Y[m,n] = X[m,k] W[k,n] is column-major Y^T[n,m] = W^T[n,k] X^T[k,m]: the
    // row-major buffers read as column-major are exactly W^T, X^T and Y^T, no transposes.
    checkLt(cublasLtMatmulDescCreate(&p->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
            "cublasLtMatmulDescCreate");
    checkLt(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                           &key.epilogue, sizeof(key.epilogue)),
            "set epilogue");
    if (bias)
      checkLt(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                             sizeof(bias)),
              "set bias pointer");
    p->layoutW = makeLayout(type, key.n, key.k, key.n, key.batch, key.strideB);
    p->layoutX = makeLayout(type, key.k, key.m, key.k, key.batch, key.strideA);
    p->layoutY = makeLayout(type, key.n, key.m, key.n, key.batch, key.strideC);

    cublasLtMatmulPreference_t pref = nullptr;
    checkLt(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
    const uint64_t ws = workspaceBytes;
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                         sizeof(ws));
    // cuBLASLt's A is our W, its B our X, its C/D our Y.
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                                         &key.alignB, sizeof(uint32_t));
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                                         &key.alignA, sizeof(uint32_t));
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                                         &key.alignC, sizeof(uint32_t));
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
                                         &key.alignC, sizeof(uint32_t));
    // Split-K partial sums only in f32 (never added up in bf16/f16 output precision).
    const uint32_t reduction = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                                         &reduction, sizeof(reduction));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    const cublasStatus_t status =
        cublasLtMatmulAlgoGetHeuristic(handle, p->desc, p->layoutW, p->layoutX, p->layoutY,
                                       p->layoutY, pref, 1, &result, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    ++heuristicQueries;
    if (status != CUBLAS_STATUS_SUCCESS || found == 0)
      p.reset();
    else
      p->algo = result.algo;
    const Plan *ref = p.get();
    plans.emplace(key, std::move(p));
    return ref;
  }

  /// Runs the matmul of `key`; false when cuBLASLt has no algorithm for it.
  bool tryRun(cudaStream_t stream, const PlanKey &key, const void *a, const void *b, void *c,
              const void *bias) {
    const Plan *p = plan(key, bias);
    if (!p)
      return false;
    if (bias) // the descriptor is cached; the bias pointer changes from call to call
      checkLt(cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                             sizeof(bias)),
              "set bias pointer");
    const float alpha = 1.0f, beta = 0.0f;
    checkLt(cublasLtMatmul(handle, p->desc, &alpha, b, p->layoutW, a, p->layoutX, &beta, c,
                           p->layoutY, c, p->layoutY, &p->algo, workspace, workspaceBytes,
                           stream),
            "cublasLtMatmul");
    return true;
  }

  void run(cudaStream_t stream, const PlanKey &key, const void *a, const void *b, void *c) {
    if (!tryRun(stream, key, a, b, c, nullptr))
      fail("cuBLASLt: no algorithm for ", dtypeName(key.dtype), " matmul [", key.m, ", ", key.k,
           "] x [", key.k, ", ", key.n, "] (batch ", key.batch, ")");
  }
};

Blas::Blas(size_t workspaceBytes) : impl_(std::make_unique<Impl>()) {
  checkLt(cublasLtCreate(&impl_->handle), "cublasLtCreate");
  impl_->workspaceBytes = workspaceBytes;
  if (workspaceBytes)
    checkCuda(cudaMalloc(&impl_->workspace, workspaceBytes), "cudaMalloc(cuBLASLt workspace)");
  SplitScratch &s = impl_->gemvScratch;
  checkCuda(cudaMalloc(reinterpret_cast<void **>(&s.partials), kGemvPartialFloats * sizeof(float)),
            "cudaMalloc(GEMV partial sums)");
  s.partialCount = kGemvPartialFloats;
  checkCuda(cudaMalloc(reinterpret_cast<void **>(&s.counters), kGemvCounters * sizeof(unsigned)),
            "cudaMalloc(GEMV counters)");
  s.counterCount = kGemvCounters;
  checkCuda(cudaMemset(s.counters, 0, kGemvCounters * sizeof(unsigned)),
            "cudaMemset(GEMV counters)");
}

Blas::~Blas() = default;

size_t Blas::heuristicQueries() const { return impl_->heuristicQueries; }

Blas::Path Blas::choosePath(const LinearArgs &a) const {
  if (a.path != Path::automatic)
    return a.path;
  if (a.m != 1 || (a.n > kGemvMaxN && !programmaticDependentLaunch()) ||
      !gemvSupported(a.dtype, a.x, a.w, a.bias, a.y, a.n, a.k))
    return Path::cublasLt;
  const SplitScratch &s = impl_->gemvScratch;
  const GemvPlan plan = planGemv(a.n, a.k, s.partialCount, multiprocessorCount());
  const GemvScratchSize need = gemvScratch(plan, a.n);
  const bool gemvOk = need.counterCount <= s.counterCount && need.partialFloats <= s.partialCount;
  return gemvOk ? Path::gemv : Path::cublasLt;
}

namespace {
/// Whether a call on `path` can form its fused input inside the GEMV.
bool gemvTakesInputOn(const Blas::LinearArgs &a, Blas::Path path) {
  return a.m == 1 && path == Blas::Path::gemv && gemvInputSupported(a.x, a.k, a.input);
}
} // namespace

bool Blas::gemvTakesInput(const LinearArgs &a) const {
  return gemvTakesInputOn(a, choosePath(a));
}

void Blas::linear(cudaStream_t stream, const LinearArgs &a) {
  if (a.m < 0 || a.n <= 0 || a.k <= 0)
    fail("cuda linear: bad shape x [", a.m, ", ", a.k, "], W [", a.k, ", ", a.n, "]");
  if (!a.x || !a.w || !a.y)
    fail("cuda linear: null operand");
  if (a.m == 0)
    return;
  const Path path = choosePath(a);
  const bool fused = a.input.up || a.input.rmsNorm;
  if (fused && !gemvTakesInputOn(a, path))
    fail("cuda linear: a fused SwiGLU/GeGLU or RMSNorm input needs the GEMV path (one row; for "
         "RMSNorm K a multiple of 8 and aligned operands)");
  if (path == Path::gemv) {
    if (a.m != 1)
      fail("cuda linear: the GEMV path takes one row, got ", a.m);
    gemv(stream, a.dtype, a.x, a.w, a.bias, a.y, a.n, a.k, a.act, impl_->gemvScratch, a.input,
         a.constantWeight);
    return;
  }
  bool separate = false;
  const cublasLtEpilogue_t epilogue = epilogueFor(a.bias != nullptr, a.act, separate);
  PlanKey key{a.dtype,         1,
              a.m,             a.n,
              a.k,             0,
              0,               0,
              epilogue,        alignmentOf(a.x),
              alignmentOf(a.w), alignmentOf(a.y),
              a.bias ? alignmentOf(a.bias) : 0};
  if (impl_->tryRun(stream, key, a.x, a.w, a.y, a.bias)) {
    if (separate)
      activation(stream, a.dtype, a.y, a.y, a.m * a.n, a.act);
    return;
  }
  // No algorithm with this epilogue: plain GEMM, then bias and activation in one launch.
  key.epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  key.alignBias = 0;
  impl_->run(stream, key, a.x, a.w, a.y);
  biasActivation(stream, a.dtype, a.y, a.bias, a.m, a.n, a.act);
}

void Blas::matmul(cudaStream_t stream, DType dtype, const void *a, int64_t strideA,
                  const void *b, int64_t strideB, void *c, int64_t strideC, int64_t batch,
                  int64_t m, int64_t n, int64_t k) {
  if (batch < 0 || m < 0 || n < 0 || k < 0 || strideA < 0 || strideB < 0 || strideC < 0)
    fail("cuda matmul: bad shape [", batch, ", ", m, ", ", k, "] x [", k, ", ", n, "]");
  if (batch == 0 || m == 0 || n == 0)
    return;
  if (k == 0)
    fail("cuda matmul: k = 0 (an all-zero result) is not supported");
  if (batch > 1 && strideC < m * n)
    fail("cuda matmul: output batch stride ", strideC, " overlaps (m*n = ", m * n, ")");
  const PlanKey key{dtype,  batch,   m,       n,
                    k,      strideA, strideB, strideC,
                    CUBLASLT_EPILOGUE_DEFAULT, alignmentOf(a), alignmentOf(b), alignmentOf(c),
                    0};
  impl_->run(stream, key, a, b, c);
}

} // namespace mm::rt::cuda
