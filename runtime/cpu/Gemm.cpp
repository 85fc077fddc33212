//===- Gemm.cpp - dense matrix products through CBLAS -----------------------===//
#include "runtime/cpu/Gemm.h"

#include "runtime/core/Error.h"

#include <algorithm>
#include <climits>
#include <cblas.h>

namespace mm::rt::cpu {
namespace {

int blasInt(int64_t v) {
  if (v > INT_MAX)
    fail("gemm: dimension ", v, " exceeds the BLAS integer range");
  return static_cast<int>(std::max<int64_t>(v, 1));
}

} // namespace

template <typename T>
void gemm(bool transA, bool transB, int64_t M, int64_t N, int64_t K, const T *A, int64_t lda,
          const T *B, int64_t ldb, T *C, int64_t ldc, T beta) {
  if (M == 0 || N == 0)
    return;
  if (K == 0) {
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j)
        C[i * ldc + j] = beta == T(0) ? T(0) : beta * C[i * ldc + j];
    return;
  }
  auto ta = transA ? CblasTrans : CblasNoTrans, tb = transB ? CblasTrans : CblasNoTrans;
  if constexpr (sizeof(T) == 4)
    cblas_sgemm(CblasRowMajor, ta, tb, blasInt(M), blasInt(N), blasInt(K), 1.0f, A, blasInt(lda),
                B, blasInt(ldb), beta, C, blasInt(ldc));
  else
    cblas_dgemm(CblasRowMajor, ta, tb, blasInt(M), blasInt(N), blasInt(K), 1.0, A, blasInt(lda),
                B, blasInt(ldb), beta, C, blasInt(ldc));
}

template void gemm<float>(bool, bool, int64_t, int64_t, int64_t, const float *, int64_t,
                          const float *, int64_t, float *, int64_t, float);
template void gemm<double>(bool, bool, int64_t, int64_t, int64_t, const double *, int64_t,
                           const double *, int64_t, double *, int64_t, double);

} // namespace mm::rt::cpu
