//===- Gemm.h - dense matrix products through CBLAS -------------------------===//
#ifndef MM_RUNTIME_CPU_GEMM_H
#define MM_RUNTIME_CPU_GEMM_H

#include <cstdint>

namespace mm::rt::cpu {

/// C = op(A) op(B) + beta C for row-major matrices, C [M, N], op(A) [M, K], op(B) [K, N];
/// op(X) is X or its transpose; lda/ldb/ldc are row strides in elements. T is float
/// (OpenBLAS sgemm/sgemv) or double (dgemm/dgemv). K = 0 gives beta C; M = 0 or N = 0
/// does nothing.
///
/// OpenBLAS runs single-threaded (set once, process-wide); large products are split
/// into row or column blocks over the runtime's thread pool instead, so a GEMM issued
/// from inside a parallelFor (e.g. per attention head) does not oversubscribe the cores.
/// Matrix-vector products (M = 1 or N = 1) go through gemv, which is several times
/// faster than gemm for them (decode-time linears).
template <typename T>
void gemm(bool transA, bool transB, int64_t M, int64_t N, int64_t K, const T *A, int64_t lda,
          const T *B, int64_t ldb, T *C, int64_t ldc, T beta = T(0));

/// C [M, N] (row stride ldc) = A [M, K] (f32, row stride lda) x B [K, N] where B holds
/// f16 or bf16 (`bIsBf16`) values with row stride ldb. B is converted to f32 block by
/// block (a few hundred KiB at a time, in parallel over column blocks) instead of as a
/// whole, so a 16-bit weight matrix is never materialised in f32; for M <= 4 (decode)
/// each row of B is converted once and accumulated into C directly (f32 sums in k
/// order).
void gemmHalfB(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const uint16_t *B,
               bool bIsBf16, int64_t ldb, float *C, int64_t ldc);

} // namespace mm::rt::cpu

#endif // MM_RUNTIME_CPU_GEMM_H
