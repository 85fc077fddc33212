//===- Reduce.cpp - reduce_sum, reduce_mean, reduce_max, cumsum, cumprod ----===//
//
// Reductions over a set of axes (all when the list is empty), keeping them as size 1 when
// `keepdims`. Float sums accumulate in f64; integer sums wrap modulo 2^64 and the integer
// mean truncates toward zero (numpy mean + astype). Empty reductions: sum 0, float mean
// NaN (integer mean 0), max -inf for floats and the type's minimum for integers (ONNX
// reduce-on-empty-set rules). Float max propagates NaN.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"

#include <cmath>
#include <limits>

namespace mm::rt::cpu {
namespace {

enum class ReduceKind { sum, mean, max };

/// Input dims split into kept and reduced groups (adjacent dims of one kind merged).
struct ReducePlan {
  Shape outShape;
  std::vector<int64_t> keptDims, keptStrides; // collapsed kept dims (size-1 dims dropped)
  std::vector<int64_t> redDims, redStrides;   // collapsed reduced dims, never empty
  int64_t outCount = 1, redCount = 1;
};

ReducePlan planReduce(const std::string &op, const Shape &in, const std::vector<int64_t> &axesAttr,
                      bool keepdims) {
  int64_t rank = static_cast<int64_t>(in.size());
  const std::vector<bool> reduced =
      axesAttr.empty() ? std::vector<bool>(in.size(), true) : axisMask(op, axesAttr, rank);
  ReducePlan p;
  std::vector<int64_t> strides = contiguousStrides(in);
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d])
      p.outShape.push_back(in[d]);
    else if (keepdims)
      p.outShape.push_back(1);
    auto &dims = reduced[d] ? p.redDims : p.keptDims;
    auto &st = reduced[d] ? p.redStrides : p.keptStrides;
    (reduced[d] ? p.redCount : p.outCount) *= in[d];
    if (in[d] == 1)
      continue;
    if (!dims.empty() && st.back() == strides[d] * in[d]) {
      dims.back() *= in[d];
      st.back() = strides[d];
    } else {
      dims.push_back(in[d]);
      st.push_back(strides[d]);
    }
  }
  if (p.redDims.empty()) { // nothing reduced: one step of an empty dim
    p.redDims.push_back(1);
    p.redStrides.push_back(0);
  }
  return p;
}

/// Offset of linear index `i` in a dims/strides space.
int64_t offsetOf(int64_t i, const std::vector<int64_t> &dims, const std::vector<int64_t> &strides) {
  int64_t off = 0;
  for (size_t d = dims.size(); d-- > 0;) {
    off += (i % dims[d]) * strides[d];
    i /= dims[d];
  }
  return off;
}

template <typename S, ReduceKind Kind>
void reduceImpl(const ReducePlan &p, const Tensor &x, Tensor &y) {
  using C = typename Elem<S>::C;
  constexpr bool isFloat = std::is_floating_point_v<C>;
  using Acc =
      std::conditional_t<Kind == ReduceKind::max, C, std::conditional_t<isFloat, double, uint64_t>>;
  const S *in = x.as<S>();
  S *out = y.as<S>();
  // The innermost reduced group runs as a strided loop, the outer ones through offsetOf.
  int64_t innerDim = p.redDims.back(), innerStride = p.redStrides.back();
  int64_t outerRed = p.redCount / std::max<int64_t>(innerDim, 1);
  std::vector<int64_t> outerDims(p.redDims.begin(), p.redDims.end() - 1);
  std::vector<int64_t> outerStrides(p.redStrides.begin(), p.redStrides.end() - 1);
  int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(p.redCount, 1));
  parallelFor(p.outCount, grain, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      int64_t base = offsetOf(o, p.keptDims, p.keptStrides);
      Acc acc;
      if constexpr (Kind == ReduceKind::max)
        acc = isFloat ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::lowest();
      else
        acc = 0;
      for (int64_t r = 0; r < outerRed && p.redCount > 0; ++r) {
        const S *row = in + base + offsetOf(r, outerDims, outerStrides);
        for (int64_t i = 0; i < innerDim; ++i) {
          C v = Elem<S>::load(row[i * innerStride]);
          if constexpr (Kind == ReduceKind::max) {
            if constexpr (isFloat)
              if (std::isnan(v) || std::isnan(acc)) {
                acc = std::numeric_limits<C>::quiet_NaN();
                continue;
              }
            acc = v > acc ? v : acc;
          } else if constexpr (isFloat) {
            acc += static_cast<double>(v);
          } else {
            acc += static_cast<uint64_t>(static_cast<int64_t>(v));
          }
        }
      }
      C result;
      if constexpr (Kind == ReduceKind::max)
        result = acc;
      else if constexpr (Kind == ReduceKind::sum)
        result = static_cast<C>(acc);
      else if constexpr (isFloat)
        result = static_cast<C>(acc / static_cast<double>(p.redCount));
      else if constexpr (std::is_signed_v<C>)
        result = p.redCount ? static_cast<C>(static_cast<int64_t>(acc) / p.redCount) : C(0);
      else
        result = p.redCount ? static_cast<C>(acc / static_cast<uint64_t>(p.redCount)) : C(0);
      out[o] = Elem<S>::store(result);
    }
  });
}

template <ReduceKind Kind>
void reduceKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                  std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  const Tensor &x = *inputs[0];
  std::string op = opName(ctx);
  std::vector<int64_t> axes = ctx.attrs().getOptionalInts("axes").value_or(std::vector<int64_t>{});
  bool keepdims = ctx.attrs().getInt("keepdims", 1) != 0;
  ReducePlan p = planReduce(op, x.shape, axes, keepdims);
  dispatch<kNumericTypes>(x.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    checkOutputDType(ctx, 0, x.dtype);
    Tensor &y = allocateResult(ctx, outputs, 0, p.outShape);
    reduceImpl<S, Kind>(p, x, y);
  });
}

/// ONNX CumSum (Product false) and CumProd (true) along `axis`; `exclusive` leaves out
/// the element itself (the first result is 0 / 1), `reverse` runs from the end.
template <bool Product>
void cumulativeKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                      std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  const Tensor &x = *inputs[0];
  std::string op = opName(ctx);
  int64_t axis = normalizeAxis(op, ctx.attrs().getInt("axis"), x.rank());
  bool exclusive = ctx.attrs().getInt("exclusive", 0) != 0;
  bool reverse = ctx.attrs().getInt("reverse", 0) != 0;
  int64_t n = x.shape[axis], inner = 1, outer = 1;
  for (int64_t d = 0; d < x.rank(); ++d)
    (d < axis ? outer : inner) *= d == axis ? 1 : x.shape[d];
  dispatch<kNumericTypes>(x.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    using C = typename Elem<S>::C;
    // Floats accumulate in their compute type (as ONNX's reference); integers wrap
    // (two's complement sums and products are those of uint64_t, truncated).
    using Acc = std::conditional_t<std::is_floating_point_v<C>, C, uint64_t>;
    checkOutputDType(ctx, 0, x.dtype);
    Tensor &y = allocateResult(ctx, outputs, 0, x.shape);
    const S *in = x.as<S>();
    S *out = y.as<S>();
    parallelFor(outer * inner, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(n, 1)),
                [&](int64_t begin, int64_t end) {
                  for (int64_t line = begin; line < end; ++line) {
                    int64_t base = (line / inner) * n * inner + line % inner;
                    Acc acc = Product ? 1 : 0;
                    for (int64_t k = 0; k < n; ++k) {
                      int64_t i = base + (reverse ? n - 1 - k : k) * inner;
                      C v = Elem<S>::load(in[i]);
                      if (exclusive)
                        out[i] = Elem<S>::store(static_cast<C>(acc));
                      Acc a;
                      if constexpr (std::is_floating_point_v<C>)
                        a = v;
                      else
                        a = static_cast<uint64_t>(static_cast<int64_t>(v));
                      acc = Product ? static_cast<Acc>(acc * a) : static_cast<Acc>(acc + a);
                      if (!exclusive)
                        out[i] = Elem<S>::store(static_cast<C>(acc));
                    }
                  }
                });
  });
}

} // namespace

void registerReduceKernels(KernelRegistry &r) {
  r.add("mm.reduce_sum", reduceKernel<ReduceKind::sum>);
  r.add("mm.reduce_mean", reduceKernel<ReduceKind::mean>);
  r.add("mm.reduce_max", reduceKernel<ReduceKind::max>);
  r.add("mm.cumsum", cumulativeKernel<false>);
  r.add("mm.cumprod", cumulativeKernel<true>);
}

} // namespace mm::rt::cpu
