//===- FastExp.h - a vectorizable single-precision exp ----------------------===//
//
// exp(x) for softmax and attention: Cody-Waite range reduction x = n ln2 + r, a degree-7
// polynomial for e^r (Cephes expf coefficients), then scaling by 2^n through the exponent
// bits. Branch-free, so loops calling it vectorize. Error below 2 ulp (checked in
// FastExpTest) on [-87.33, 88.37]; below that (where the result would be subnormal,
// < 1.2e-38) it returns 0, above it +inf (the true overflow is at 88.72, so 88.38..88.72
// overflow early); NaN stays NaN. Softmax and attention only pass x <= 0.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CPU_FASTEXP_H
#define MM_RUNTIME_CPU_FASTEXP_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace mm::rt::cpu {

inline float fastExp(float x) {
  const float lo = -87.3365447504f, hi = 88.3762626647949f;
  float xc = x < lo ? lo : (x > hi ? hi : x);
  // n = round(x / ln 2) by the 1.5 * 2^23 trick (round to nearest in the FPU).
  float n = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, 4);
  float y = p * scale;
  y = x < lo ? 0.0f : y;
  y = x > hi ? std::numeric_limits<float>::infinity() : y;
  return x != x ? x : y;
}

/// For double, the library exp (the f64 paths are not performance-critical).
inline double fastExp(double x) { return std::exp(x); }

} // namespace mm::rt::cpu

#endif // MM_RUNTIME_CPU_FASTEXP_H
