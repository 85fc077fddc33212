//===- Cast.cpp - ONNX Cast -------------------------------------------------===//
//
// Every pair of runtime dtypes. Rules (ONNX Cast, numpy astype where ONNX leaves it open):
// - any -> bool: x != 0 (NaN is true); bool -> number: 0 or 1.
// - float -> integer: truncation toward zero; NaN gives 0 and values outside the target
//   range saturate to its min/max (ONNX leaves these undefined; C++ makes them UB).
// - integer -> integer: two's-complement wrap-around (numpy astype).
// - to f16/bf16: round to nearest even, once: from f64 and from integers the value is
//   first narrowed to f32 with round-to-odd, so there is no double-rounding error.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace mm::rt::cpu {
namespace {

/// f64 -> f32 rounding toward zero and setting the last bit when inexact (round to odd):
/// a later rounding to a narrower format (f16, bf16) then equals a direct rounding.
float roundToOddFloat(double d) {
  float f = static_cast<float>(d);
  if (!std::isfinite(f) || static_cast<double>(f) == d)
    return f;
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::fabs(static_cast<double>(f)) > std::fabs(d))
    --bits; // the nearest-even result rounded away from zero: step back toward zero
  bits |= 1u;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// Truncation toward zero with NaN -> 0 and saturation at the bounds of D.
template <typename D> D floatToInt(double v) {
  if (std::isnan(v))
    return 0;
  constexpr int bits = std::numeric_limits<D>::digits; // value bits, without the sign
  const double hi = std::ldexp(1.0, bits);             // max + 1, exact
  const double lo = std::is_signed_v<D> ? -hi : 0.0;   // min, exact
  if (v >= hi)
    return std::numeric_limits<D>::max();
  if (v <= lo - 1.0)
    return std::numeric_limits<D>::min();
  return static_cast<D>(v);
}

template <typename D, typename S> D convertElem(S s) {
  if constexpr (std::is_same_v<D, Bool>) {
    return Bool{static_cast<uint8_t>(Elem<S>::load(s) != 0)};
  } else if constexpr (std::is_same_v<S, Bool>) {
    return Elem<D>::store(static_cast<typename Elem<D>::C>(s.v != 0 ? 1 : 0));
  } else if constexpr (std::is_same_v<D, Half> || std::is_same_v<D, BFloat16>) {
    if constexpr (std::is_same_v<S, double>)
      return D(roundToOddFloat(s));
    else if constexpr (std::is_integral_v<S>)
      return D(roundToOddFloat(static_cast<double>(s)));
    else
      return D(static_cast<float>(Elem<S>::load(s)));
  } else if constexpr (std::is_floating_point_v<D>) {
    return static_cast<D>(Elem<S>::load(s));
  } else if constexpr (kIsFloatStorage<S>) {
    return floatToInt<D>(static_cast<double>(Elem<S>::load(s)));
  } else {
    return static_cast<D>(s);
  }
}

void castKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  const Tensor &x = *inputs[0];
  std::string op = opName(ctx);
  DType to = ctx.outputDType(0);
  Tensor &y = allocateResult(ctx, outputs, 0, x.shape);
  if (to == x.dtype) {
    if (x.nbytes())
      std::memcpy(y.data, x.data, x.nbytes());
    return;
  }
  dispatch<kAllTypes>(x.dtype, op, [&](auto inTag) {
    using S = typename decltype(inTag)::type;
    dispatch<kAllTypes>(
        to, op,
        [&](auto outTag) {
          using D = typename decltype(outTag)::type;
          const S *in = x.as<S>();
          D *out = y.as<D>();
          parallelFor(x.numel(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i)
              out[i] = convertElem<D>(in[i]);
          });
        },
        "result");
  });
}

} // namespace

void registerCastKernels(KernelRegistry &r) { r.add("mm.cast", castKernel); }

} // namespace mm::rt::cpu
