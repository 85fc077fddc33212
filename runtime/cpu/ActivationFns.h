//===- ActivationFns.h - scalar activation functions ------------------------===//
//
// Shared by the activation kernels and the linear epilogue. C is float or double.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CPU_ACTIVATIONFNS_H
#define MM_RUNTIME_CPU_ACTIVATIONFNS_H

#include <cmath>
#include <cstdint>

namespace mm::rt::cpu {

/// Values of the `mm` dialect's Activation enum (MMBase.td), as stored in the plan.
enum class Activation : int64_t {
  none = 0,
  gelu = 1,
  gelu_tanh = 2,
  quick_gelu = 3,
  silu = 4,
  relu = 5
};

/// Logistic function without overflow for large |x|.
template <typename C> inline C sigmoid(C x) {
  if (x >= 0)
    return C(1) / (C(1) + std::exp(-x));
  C e = std::exp(x);
  return e / (C(1) + e);
}

/// GELU, exact: x * Phi(x) = 0.5 x (1 + erf(x / sqrt 2)) (Hendrycks & Gimpel 2016).
template <typename C> inline C geluErf(C x) {
  return C(0.5) * x * (C(1) + std::erf(x * C(0.70710678118654752440)));
}

/// GELU, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
template <typename C> inline C geluTanh(C x) {
  return C(0.5) * x * (C(1) + std::tanh(C(0.79788456080286535588) * (x + C(0.044715) * x * x * x)));
}

/// QuickGELU (CLIP): x * sigmoid(1.702 x).
template <typename C> inline C quickGelu(C x) { return x * sigmoid(C(1.702) * x); }

/// SiLU / swish: x * sigmoid(x).
template <typename C> inline C silu(C x) { return x * sigmoid(x); }

/// Applies `act` to n values in place (the switch is outside the loop).
template <typename C> void applyActivation(Activation act, C *data, int64_t n) {
  switch (act) {
  case Activation::none:
    return;
  case Activation::gelu:
    for (int64_t i = 0; i < n; ++i)
      data[i] = geluErf(data[i]);
    return;
  case Activation::gelu_tanh:
    for (int64_t i = 0; i < n; ++i)
      data[i] = geluTanh(data[i]);
    return;
  case Activation::quick_gelu:
    for (int64_t i = 0; i < n; ++i)
      data[i] = quickGelu(data[i]);
    return;
  case Activation::silu:
    for (int64_t i = 0; i < n; ++i)
      data[i] = silu(data[i]);
    return;
  case Activation::relu:
    for (int64_t i = 0; i < n; ++i)
      data[i] = data[i] < C(0) ? C(0) : data[i];
    return;
  }
}

} // namespace mm::rt::cpu

#endif // MM_RUNTIME_CPU_ACTIVATIONFNS_H
