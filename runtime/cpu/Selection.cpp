//===- Selection.cpp - argmax, argmin, topk ---------------------------------===//
//
// ONNX ArgMax / ArgMin / TopK over one axis, every numeric dtype. NaN ranks above every
// number for argmax and TopK and below every number for argmin, so argmax and argmin both
// pick a NaN (as numpy). Ties keep the lower index first (argmax/argmin: the last one
// with select_last_index). TopK always returns its elements sorted.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mm::rt::cpu {
namespace {

/// Splits a shape around `axis` into [outer, n, inner].
struct AxisSplit {
  int64_t outer = 1, n = 1, inner = 1;
};
AxisSplit splitAt(const Shape &s, int64_t axis) {
  AxisSplit p;
  for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d)
    (d < axis ? p.outer : d == axis ? p.n : p.inner) *= s[d];
  return p;
}

/// argmax (Max = true) / argmin: index of the extreme along axis.
template <bool Max>
void argKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
               std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  const Tensor &x = *inputs[0];
  std::string op = opName(ctx);
  if (x.rank() < 1)
    fail(op, ": input must have rank >= 1");
  int64_t axis = normalizeAxis(op, ctx.attrs().getInt("axis", 0), x.rank());
  bool keepdims = ctx.attrs().getInt("keepdims", 1) != 0;
  bool last = ctx.attrs().getInt("select_last_index", 0) != 0;
  AxisSplit p = splitAt(x.shape, axis);
  if (p.n == 0 && p.outer * p.inner > 0)
    fail(op, ": cannot reduce the empty dim ", axis, " of ", shapeString(x.shape));
  Shape shape = x.shape;
  if (keepdims)
    shape[axis] = 1;
  else
    shape.erase(shape.begin() + axis);
  checkOutputDType(ctx, 0, DType::i64);
  Tensor &y = allocateResult(ctx, outputs, 0, shape);
  dispatch<kNumericTypes>(x.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    using C = typename Elem<S>::C;
    const S *in = x.as<S>();
    int64_t *out = y.as<int64_t>();
    parallelFor(p.outer * p.inner,
                std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(p.n, 1)),
                [&](int64_t begin, int64_t end) {
                  for (int64_t line = begin; line < end; ++line) {
                    const S *base = in + (line / p.inner) * p.n * p.inner + line % p.inner;
                    int64_t best = 0;
                    C bv = Elem<S>::load(base[0]);
                    for (int64_t k = 1; k < p.n; ++k) {
                      C v = Elem<S>::load(base[k * p.inner]);
                      // argmax: v above bv with NaN highest; argmin: v below bv with NaN lowest.
                      bool better = Max ? ranksAbove<true>(v, bv) : ranksAbove<false>(bv, v);
                      bool tie = !ranksAbove<true>(v, bv) && !ranksAbove<true>(bv, v);
                      if (better || (last && tie)) {
                        best = k;
                        bv = v;
                      }
                    }
                    out[line] = best;
                  }
                });
  });
}

/// values and indices of the k largest (or smallest) along axis, sorted.
void topkKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 2, 2);
  const Tensor &x = *inputs[0];
  std::string op = opName(ctx);
  if (x.rank() < 1)
    fail(op, ": input must have rank >= 1");
  int64_t axis = normalizeAxis(op, ctx.attrs().getInt("axis", -1), x.rank());
  std::vector<int64_t> ks = readInts(op, "k", *inputs[1]);
  if (ks.size() != 1)
    fail(op, ": k must hold one value, got ", ks.size());
  int64_t k = ks[0];
  bool largest = ctx.attrs().getInt("largest", 1) != 0;
  AxisSplit p = splitAt(x.shape, axis);
  if (k < 0 || k > p.n)
    fail(op, ": k ", k, " out of range for dim ", axis, " of ", shapeString(x.shape));
  Shape shape = x.shape;
  shape[axis] = k;
  checkOutputDType(ctx, 0, x.dtype);
  checkOutputDType(ctx, 1, DType::i64);
  Tensor &values = allocateResult(ctx, outputs, 0, shape);
  Tensor &indices = allocateResult(ctx, outputs, 1, shape);
  dispatch<kNumericTypes>(x.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    using C = typename Elem<S>::C;
    const S *in = x.as<S>();
    S *vo = values.as<S>();
    int64_t *io = indices.as<int64_t>();
    parallelFor(p.outer * p.inner, std::max<int64_t>(1, 4096 / std::max<int64_t>(p.n, 1)),
                [&](int64_t begin, int64_t end) {
                  std::vector<C> vals(static_cast<size_t>(p.n));
                  std::vector<int64_t> order(static_cast<size_t>(p.n));
                  for (int64_t line = begin; line < end; ++line) {
                    int64_t o = line / p.inner, i = line % p.inner;
                    const S *base = in + o * p.n * p.inner + i;
                    for (int64_t j = 0; j < p.n; ++j)
                      vals[j] = Elem<S>::load(base[j * p.inner]);
                    std::iota(order.begin(), order.end(), 0);
                    auto before = [&](int64_t a, int64_t b) {
                      if (largest ? ranksAbove<true>(vals[a], vals[b])
                                  : ranksAbove<true>(vals[b], vals[a]))
                        return true;
                      bool tie = !ranksAbove<true>(vals[a], vals[b]) &&
                                 !ranksAbove<true>(vals[b], vals[a]);
                      return tie && a < b;
                    };
                    std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
                    for (int64_t j = 0; j < k; ++j) {
                      int64_t dst = (o * k + j) * p.inner + i;
                      vo[dst] = base[order[j] * p.inner];
                      io[dst] = order[j];
                    }
                  }
                });
  });
}

} // namespace

void registerSelectionKernels(KernelRegistry &r) {
  r.add("mm.argmax", argKernel<true>);
  r.add("mm.argmin", argKernel<false>);
  r.add("mm.topk", topkKernel);
}

} // namespace mm::rt::cpu
