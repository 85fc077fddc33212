//===- ElementwiseUnary.cpp - one-input elementwise kernels -----------------===//
//
// ONNX Sqrt, Reciprocal, Neg, Abs, Exp, Log, Erf, Tanh, Sigmoid, Sin, Cos, Floor, Ceil,
// Relu, Not, IsNaN. f16/bf16 compute in f32. Integer Neg/Abs wrap (two's complement) on
// the most negative value instead of overflowing.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"

#include <cmath>

namespace mm::rt::cpu {
namespace {

/// -x without signed-overflow UB (the most negative integer maps to itself).
template <typename C> C wrapNeg(C x) {
  if constexpr (std::is_integral_v<C>) {
    using U = std::conditional_t<(sizeof(C) < sizeof(unsigned)), unsigned, std::make_unsigned_t<C>>;
    return static_cast<C>(U(0) - static_cast<U>(x));
  } else {
    return -x;
  }
}

struct SqrtFn {
  template <typename C> C operator()(C x) const { return std::sqrt(x); }
};
struct ReciprocalFn {
  template <typename C> C operator()(C x) const { return C(1) / x; }
};
struct NegFn {
  template <typename C> C operator()(C x) const { return wrapNeg(x); }
};
struct AbsFn {
  template <typename C> C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>)
      return x;
    else if constexpr (std::is_integral_v<C>)
      return x < 0 ? wrapNeg(x) : x;
    else
      return std::fabs(x);
  }
};
struct ExpFn {
  template <typename C> C operator()(C x) const { return std::exp(x); }
};
struct LogFn {
  template <typename C> C operator()(C x) const { return std::log(x); }
};
struct ErfFn {
  template <typename C> C operator()(C x) const { return std::erf(x); }
};
struct TanhFn {
  template <typename C> C operator()(C x) const { return std::tanh(x); }
};
struct SigmoidFn {
  template <typename C> C operator()(C x) const {
    // Both branches only exponentiate a non-positive number: no overflow.
    if (x >= 0)
      return C(1) / (C(1) + std::exp(-x));
    C e = std::exp(x);
    return e / (C(1) + e);
  }
};
struct SinFn {
  template <typename C> C operator()(C x) const { return std::sin(x); }
};
struct CosFn {
  template <typename C> C operator()(C x) const { return std::cos(x); }
};
struct FloorFn {
  template <typename C> C operator()(C x) const { return std::floor(x); }
};
struct CeilFn {
  template <typename C> C operator()(C x) const { return std::ceil(x); }
};
struct ReluFn {
  // NaN stays NaN (as numpy's maximum(x, 0)).
  template <typename C> C operator()(C x) const { return x < C(0) ? C(0) : x; }
};
struct NotFn {
  bool operator()(bool x) const { return !x; }
};

/// Kernel for an op whose result has the input's shape and dtype.
template <typename F, unsigned Set>
void unaryKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                 std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  const Tensor &x = *inputs[0];
  std::string op = opName(ctx);
  dispatch<Set>(x.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    checkOutputDType(ctx, 0, x.dtype);
    Tensor &y = allocateResult(ctx, outputs, 0, x.shape);
    mapUnary<S>(x, y, F{});
  });
}

void isNanKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                 std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  const Tensor &x = *inputs[0];
  dispatch<kFloatTypes>(x.dtype, opName(ctx), [&](auto tag) {
    using S = typename decltype(tag)::type;
    checkOutputDType(ctx, 0, DType::boolean);
    Tensor &y = allocateResult(ctx, outputs, 0, x.shape);
    mapUnary<S, Bool>(x, y, [](auto v) { return std::isnan(v); });
  });
}

constexpr unsigned kSignedNumeric = kFloatTypes | kSignedInts;

} // namespace

void registerUnaryKernels(KernelRegistry &r) {
  r.add("mm.sqrt", unaryKernel<SqrtFn, kFloatTypes>);
  r.add("mm.reciprocal", unaryKernel<ReciprocalFn, kFloatTypes>);
  r.add("mm.neg", unaryKernel<NegFn, kSignedNumeric>);
  r.add("mm.abs", unaryKernel<AbsFn, kNumericTypes>);
  r.add("mm.exp", unaryKernel<ExpFn, kFloatTypes>);
  r.add("mm.log", unaryKernel<LogFn, kFloatTypes>);
  r.add("mm.erf", unaryKernel<ErfFn, kFloatTypes>);
  r.add("mm.tanh", unaryKernel<TanhFn, kFloatTypes>);
  r.add("mm.sigmoid", unaryKernel<SigmoidFn, kFloatTypes>);
  r.add("mm.sin", unaryKernel<SinFn, kFloatTypes>);
  r.add("mm.cos", unaryKernel<CosFn, kFloatTypes>);
  r.add("mm.floor", unaryKernel<FloorFn, kFloatTypes>);
  r.add("mm.ceil", unaryKernel<CeilFn, kFloatTypes>);
  r.add("mm.relu", unaryKernel<ReluFn, kSignedNumeric>);
  r.add("mm.not", unaryKernel<NotFn, bit(DType::boolean)>);
  r.add("mm.is_nan", isNanKernel);
}

} // namespace mm::rt::cpu
