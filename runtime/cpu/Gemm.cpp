//===- Gemm.cpp - dense matrix products through CBLAS -----------------------===//
#include "runtime/cpu/Gemm.h"

#include "runtime/core/Error.h"
#include "runtime/core/Half.h"
#include "runtime/core/Parallel.h"

#include <algorithm>
#include <climits>
#include <mutex>
#include <vector>

#include <cblas.h>

namespace mm::rt::cpu {
namespace {

int blasInt(int64_t v) {
  if (v > INT_MAX)
    fail("gemm: dimension ", v, " exceeds the BLAS integer range");
  return static_cast<int>(std::max<int64_t>(v, 1));
}

/// Parallelism comes from the runtime's pool (see Gemm.h).
void blasSingleThreaded() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

/// Multiply-adds below which a product runs on one thread.
constexpr int64_t kParallelMacs = int64_t(1) << 20;
/// Column blocks are multiples of this (keeps SIMD alignment of the split).
constexpr int64_t kColumnAlign = 16;
/// gemmHalfB: up to this many rows of A take the single-pass axpy path.
constexpr int64_t kSmallM = 4;

template <typename T>
void gemv(bool trans, int64_t rows, int64_t cols, const T *A, int64_t lda, const T *x, int64_t incx,
          T beta, T *y, int64_t incy) {
  auto t = trans ? CblasTrans : CblasNoTrans;
  if constexpr (sizeof(T) == 4)
    cblas_sgemv(CblasRowMajor, t, blasInt(rows), blasInt(cols), 1.0f, A, blasInt(lda), x,
                blasInt(incx), beta, y, blasInt(incy));
  else
    cblas_dgemv(CblasRowMajor, t, blasInt(rows), blasInt(cols), 1.0, A, blasInt(lda), x,
                blasInt(incx), beta, y, blasInt(incy));
}

/// One block, on the calling thread.
template <typename T>
void gemmBlock(bool transA, bool transB, int64_t M, int64_t N, int64_t K, const T *A, int64_t lda,
               const T *B, int64_t ldb, T *C, int64_t ldc, T beta) {
  if (M == 1) {
    // c[N] = op(B)^T a: op(B) = B [K, N] -> B^T a (gemv Trans); op(B) = B^T, B [N, K] -> B a.
    gemv<T>(!transB, transB ? N : K, transB ? K : N, B, ldb, A, transA ? lda : 1, beta, C, 1);
    return;
  }
  if (N == 1) {
    // c[M] (stride ldc) = op(A) b, b a column of op(B).
    gemv<T>(transA, transA ? K : M, transA ? M : K, A, lda, B, transB ? 1 : ldb, beta, C, ldc);
    return;
  }
  auto ta = transA ? CblasTrans : CblasNoTrans, tb = transB ? CblasTrans : CblasNoTrans;
  if constexpr (sizeof(T) == 4)
    cblas_sgemm(CblasRowMajor, ta, tb, blasInt(M), blasInt(N), blasInt(K), 1.0f, A, blasInt(lda), B,
                blasInt(ldb), beta, C, blasInt(ldc));
  else
    cblas_dgemm(CblasRowMajor, ta, tb, blasInt(M), blasInt(N), blasInt(K), 1.0, A, blasInt(lda), B,
                blasInt(ldb), beta, C, blasInt(ldc));
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
  blasSingleThreaded();
  int64_t parts = std::min<int64_t>(numThreads(), (M * N * K) / kParallelMacs);
  if (parts <= 1) {
    gemmBlock(transA, transB, M, N, K, A, lda, B, ldb, C, ldc, beta);
    return;
  }
  if (M >= N) {
    // Row blocks: rows m0.. of op(A) and C.
    int64_t rows = (M + parts - 1) / parts;
    parallelFor(parts, 1, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        int64_t m0 = p * rows, m = std::min(rows, M - m0);
        if (m > 0)
          gemmBlock(transA, transB, m, N, K, transA ? A + m0 : A + m0 * lda, lda, B, ldb,
                    C + m0 * ldc, ldc, beta);
      }
    });
  } else {
    // Column blocks: columns n0.. of op(B) and C.
    int64_t cols = ((N + parts - 1) / parts + kColumnAlign - 1) / kColumnAlign * kColumnAlign;
    parallelFor(parts, 1, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        int64_t n0 = p * cols, n = std::min(cols, N - n0);
        if (n > 0)
          gemmBlock(transA, transB, M, n, K, A, lda, transB ? B + n0 * ldb : B + n0, ldb, C + n0,
                    ldc, beta);
      }
    });
  }
}

void gemmHalfB(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const uint16_t *B,
               bool bIsBf16, int64_t ldb, float *C, int64_t ldc) {
  if (M == 0 || N == 0 || K == 0) {
    gemm<float>(false, false, M, N, K, A, lda, nullptr, 1, C, ldc);
    return;
  }
  blasSingleThreaded();
  constexpr int64_t kBlockN = 512, kBlockK = 256; // 512 KiB of f32 per staged block
  int64_t blocksN = (N + kBlockN - 1) / kBlockN;
  int64_t grain = M * std::min(N, kBlockN) * K >= kParallelMacs ? 1 : blocksN;
  auto convertRow = [bIsBf16](const uint16_t *src, float *dst, int64_t n) {
    if (bIsBf16)
      for (int64_t j = 0; j < n; ++j)
        dst[j] = bf16BitsToFloat(src[j]);
    else
      for (int64_t j = 0; j < n; ++j)
        dst[j] = halfBitsToFloat(src[j]);
  };
  if (M <= kSmallM) {
    // Few rows (decode): one pass over B, each row of B converted once and added to the
    // M rows of C (axpy). Memory-bound on the 16-bit weights, no staging buffer.
    parallelFor(blocksN, grain, [&](int64_t begin, int64_t end) {
      std::vector<float> row(static_cast<size_t>(kBlockN));
      for (int64_t nb = begin; nb < end; ++nb) {
        int64_t n0 = nb * kBlockN, n = std::min(kBlockN, N - n0);
        for (int64_t m = 0; m < M; ++m)
          std::fill(C + m * ldc + n0, C + m * ldc + n0 + n, 0.0f);
        for (int64_t k = 0; k < K; ++k) {
          convertRow(B + k * ldb + n0, row.data(), n);
          for (int64_t m = 0; m < M; ++m) {
            float a = A[m * lda + k], *c = C + m * ldc + n0;
            for (int64_t j = 0; j < n; ++j)
              c[j] += a * row[j];
          }
        }
      }
    });
    return;
  }
  parallelFor(blocksN, grain, [&](int64_t begin, int64_t end) {
    std::vector<float> buf(static_cast<size_t>(kBlockK * kBlockN));
    for (int64_t nb = begin; nb < end; ++nb) {
      int64_t n0 = nb * kBlockN, n = std::min(kBlockN, N - n0);
      for (int64_t k0 = 0; k0 < K; k0 += kBlockK) {
        int64_t k = std::min(kBlockK, K - k0);
        for (int64_t i = 0; i < k; ++i)
          convertRow(B + (k0 + i) * ldb + n0, buf.data() + i * n, n);
        // Accumulate over K blocks: the first one overwrites C.
        gemmBlock<float>(false, false, M, n, k, A + k0, lda, buf.data(), n, C + n0, ldc,
                         k0 == 0 ? 0.0f : 1.0f);
      }
    }
  });
}

template void gemm<float>(bool, bool, int64_t, int64_t, int64_t, const float *, int64_t,
                          const float *, int64_t, float *, int64_t, float);
template void gemm<double>(bool, bool, int64_t, int64_t, int64_t, const double *, int64_t,
                           const double *, int64_t, double *, int64_t, double);

} // namespace mm::rt::cpu
