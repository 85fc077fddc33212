//===- MatMul.cpp - matmul (numpy semantics) and linear ---------------------===//
//
// Float GEMMs go through OpenBLAS (f16/bf16 are staged through f32: a 16-bit weight-like
// rhs block by block, see gemmHalfB; f64 uses dgemm);
// integer matmul is a plain triple loop accumulating in 64 bits (wrapping).
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/ActivationFns.h"
#include "runtime/cpu/Gemm.h"
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"

#include <optional>

namespace mm::rt::cpu {
namespace {

/// The batch structure of one matmul: out[b] = lhs[lhsBatch[b]] x rhs[rhsBatch[b]].
struct MatMulPlan {
  int64_t M = 1, N = 1, K = 1;
  Shape outShape;
  std::vector<int64_t> lhsBatch, rhsBatch; // matrix index of each output batch
  bool foldLhsBatch = false;               // rhs is one matrix and lhs batches are dense
};

MatMulPlan planMatMul(const std::string &op, const Shape &lhsIn, const Shape &rhsIn) {
  if (lhsIn.empty() || rhsIn.empty())
    fail(op, ": operands must have rank >= 1, got ", shapeString(lhsIn), " and ",
         shapeString(rhsIn));
  Shape l = lhsIn, r = rhsIn;
  bool lhsVec = l.size() == 1, rhsVec = r.size() == 1;
  if (lhsVec)
    l.insert(l.begin(), 1);
  if (rhsVec)
    r.push_back(1);
  MatMulPlan p;
  p.M = l[l.size() - 2];
  p.K = l.back();
  p.N = r.back();
  if (r[r.size() - 2] != p.K)
    fail(op, ": contraction dims differ: ", shapeString(lhsIn), " x ", shapeString(rhsIn));
  Shape lb(l.begin(), l.end() - 2), rb(r.begin(), r.end() - 2);
  Shape batch = broadcastShapes(op, lb, rb);
  int64_t nb = numElements(batch);
  std::vector<int64_t> ls = broadcastStrides(lb, batch), rs = broadcastStrides(rb, batch);
  p.lhsBatch.resize(nb);
  p.rhsBatch.resize(nb);
  std::vector<int64_t> idx(batch.size(), 0);
  for (int64_t b = 0; b < nb; ++b) {
    int64_t lo = 0, ro = 0;
    for (size_t d = 0; d < batch.size(); ++d) {
      lo += idx[d] * ls[d];
      ro += idx[d] * rs[d];
    }
    p.lhsBatch[b] = lo;
    p.rhsBatch[b] = ro;
    for (size_t d = batch.size(); d-- > 0;)
      if (++idx[d] < batch[d])
        break;
      else
        idx[d] = 0;
  }
  p.foldLhsBatch = numElements(rb) == 1 && numElements(lb) == nb;
  p.outShape = batch;
  if (!lhsVec)
    p.outShape.push_back(p.M);
  if (!rhsVec)
    p.outShape.push_back(p.N);
  return p;
}

template <typename T>
void floatMatMul(const MatMulPlan &p, const Tensor &a, const Tensor &b, Tensor &out) {
  FloatInput<T> A(a);
  FloatOutput<T> C(out);
  int64_t nb = static_cast<int64_t>(p.lhsBatch.size());
  int64_t sa = p.M * p.K, sb = p.K * p.N, sc = p.M * p.N;
  if constexpr (std::is_same_v<T, float>) {
    if (p.foldLhsBatch && (b.dtype == DType::f16 || b.dtype == DType::bf16)) {
      // A 16-bit weight-like rhs: staged to f32 block by block.
      gemmHalfB(nb * p.M, p.N, p.K, A.data(), p.K, b.as<uint16_t>(), b.dtype == DType::bf16, p.N,
                C.data(), p.N);
      C.finish();
      return;
    }
  }
  FloatInput<T> B(b);
  if (p.foldLhsBatch) {
    // One GEMM with the batch folded into M (lhs batches are consecutive rows).
    gemm<T>(false, false, nb * p.M, p.N, p.K, A.data(), p.K, B.data(), p.N, C.data(), p.N);
  } else {
    // Small matrices: one per task of the pool; large ones: one after another, each
    // split over the pool by gemm itself.
    int64_t grain = sa * p.N >= (1 << 18) ? nb : 1;
    parallelFor(nb, grain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        gemm<T>(false, false, p.M, p.N, p.K, A.data() + p.lhsBatch[i] * sa, p.K,
                B.data() + p.rhsBatch[i] * sb, p.N, C.data() + i * sc, p.N);
    });
  }
  C.finish();
}

template <typename S>
void intMatMul(const MatMulPlan &p, const Tensor &a, const Tensor &b, Tensor &out) {
  using Acc = std::conditional_t<std::is_signed_v<S>, int64_t, uint64_t>;
  using U = uint64_t; // accumulate modulo 2^64: no signed-overflow UB
  const S *A = a.as<S>(), *B = b.as<S>();
  S *C = out.as<S>();
  int64_t sa = p.M * p.K, sb = p.K * p.N, sc = p.M * p.N;
  int64_t nb = static_cast<int64_t>(p.lhsBatch.size());
  parallelFor(nb * p.M, 64, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t bi = row / p.M, m = row % p.M;
      const S *arow = A + p.lhsBatch[bi] * sa + m * p.K;
      const S *bm = B + p.rhsBatch[bi] * sb;
      for (int64_t n = 0; n < p.N; ++n) {
        U acc = 0;
        for (int64_t k = 0; k < p.K; ++k)
          acc += static_cast<U>(static_cast<Acc>(arow[k])) *
                 static_cast<U>(static_cast<Acc>(bm[k * p.N + n]));
        C[bi * sc + m * p.N + n] = static_cast<S>(acc);
      }
    }
  });
}

void matmulKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                  std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 2, 2);
  const Tensor &a = *inputs[0], &b = *inputs[1];
  std::string op = opName(ctx);
  if (a.dtype != b.dtype)
    fail(op, ": operand dtypes differ (", dtypeName(a.dtype), " vs ", dtypeName(b.dtype), ")");
  MatMulPlan p = planMatMul(op, a.shape, b.shape);
  dispatch<kFloatTypes | kIntTypes>(a.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    checkOutputDType(ctx, 0, a.dtype);
    Tensor &out = allocateResult(ctx, outputs, 0, p.outShape);
    if constexpr (std::is_same_v<S, double>)
      floatMatMul<double>(p, a, b, out);
    else if constexpr (kIsFloatStorage<S>)
      floatMatMul<float>(p, a, b, out);
    else
      intMatMul<S>(p, a, b, out);
  });
}

template <typename T>
void linearImpl(const Tensor &x, const Tensor &w, const Tensor *bias, Activation act, Tensor &out) {
  int64_t K = w.shape[0], N = w.shape[1];
  int64_t M = K ? x.numel() / K : numElements(Shape(x.shape.begin(), x.shape.end() - 1));
  FloatInput<T> X(x);
  FloatOutput<T> Y(out);
  if (w.dtype == DType::f16 || w.dtype == DType::bf16) {
    if constexpr (std::is_same_v<T, float>)
      gemmHalfB(M, N, K, X.data(), K, w.as<uint16_t>(), w.dtype == DType::bf16, N, Y.data(), N);
  } else {
    FloatInput<T> W(w);
    gemm<T>(false, false, M, N, K, X.data(), K, W.data(), N, Y.data(), N);
  }
  if (bias || act != Activation::none) {
    std::optional<FloatInput<T>> B;
    if (bias)
      B.emplace(*bias);
    T *y = Y.data();
    parallelFor(M, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(N, 1)),
                [&](int64_t begin, int64_t end) {
                  for (int64_t m = begin; m < end; ++m) {
                    T *row = y + m * N;
                    if (B)
                      for (int64_t n = 0; n < N; ++n)
                        row[n] += B->data()[n];
                    applyActivation(act, row, N);
                  }
                });
  }
  Y.finish();
}

/// input [..., K] x weight [K, N] (+ bias [N]) then the activation epilogue.
void linearKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                  std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 2, 3);
  const Tensor &x = *inputs[0], &w = *inputs[1];
  const Tensor *bias = inputs.size() > 2 ? inputs[2] : nullptr;
  std::string op = opName(ctx);
  if (x.rank() < 1 || w.rank() != 2 || x.shape.back() != w.shape[0])
    fail(op, ": input ", shapeString(x.shape), " and weight ", shapeString(w.shape),
         " do not match ([..., K] x [K, N])");
  if (bias && (bias->rank() != 1 || bias->shape[0] != w.shape[1]))
    fail(op, ": bias ", shapeString(bias->shape), " must be [", w.shape[1], "]");
  for (const Tensor *t : {&w, bias})
    if (t && t->dtype != x.dtype)
      fail(op, ": operand dtypes differ (", dtypeName(x.dtype), " vs ", dtypeName(t->dtype), ")");
  int64_t actValue = ctx.attrs().getInt("activation", 0);
  if (actValue < 0 || actValue > 5)
    fail(op, ": unknown activation ", actValue);
  Activation act = static_cast<Activation>(actValue);
  Shape shape = x.shape;
  shape.back() = w.shape[1];
  dispatch<kFloatTypes>(x.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    checkOutputDType(ctx, 0, x.dtype);
    Tensor &out = allocateResult(ctx, outputs, 0, shape);
    if constexpr (std::is_same_v<S, double>)
      linearImpl<double>(x, w, bias, act, out);
    else
      linearImpl<float>(x, w, bias, act, out);
  });
}

} // namespace

void registerMatMulKernels(KernelRegistry &r) {
  r.add("mm.matmul", matmulKernel);
  r.add("mm.linear", linearKernel);
}

} // namespace mm::rt::cpu
