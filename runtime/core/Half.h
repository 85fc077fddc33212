//===- Half.h - IEEE binary16 and bfloat16 storage types --------------------===//
//
// The runtime stores f16 and bf16 tensors as 16-bit patterns and computes in f32:
// kernels convert on load and store. Conversions to 16 bits round to nearest, ties to
// even (IEEE 754 default); overflow gives infinity; NaN stays NaN (quiet).
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CORE_HALF_H
#define MM_RUNTIME_CORE_HALF_H

#include <cstdint>
#include <cstring>

namespace mm::rt {

namespace detail {
inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
} // namespace detail

/// IEEE 754 binary16 bits -> f32 (exact).
inline float halfBitsToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
  if (exp == 0) {
    // Zero or subnormal: mant * 2^-24 is exact in f32.
    float v = static_cast<float>(mant) * 5.9604644775390625e-8f;
    return detail::bitsFloat(sign | detail::floatBits(v));
  }
  if (exp == 31)
    return detail::bitsFloat(sign | 0x7F800000u | (mant << 13));
  return detail::bitsFloat(sign | ((exp + 112) << 23) | (mant << 13));
}

/// f32 -> IEEE 754 binary16 bits, round to nearest even; |x| >= 65520 gives infinity.
inline uint16_t floatToHalfBits(float f) {
  uint32_t x = detail::floatBits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t ax = x & 0x7FFFFFFFu;
  if (ax >= 0x7F800000u) // infinity or NaN (keep NaN quiet and non-zero)
    return static_cast<uint16_t>(sign | 0x7C00u |
                                 (ax > 0x7F800000u ? 0x200u | ((ax >> 13) & 0x3FFu) : 0));
  if (ax >= 0x477FF000u) // 65520: rounds to infinity
    return static_cast<uint16_t>(sign | 0x7C00u);
  if (ax < 0x38800000u) {
    // Below the smallest normal half (2^-14): adding 0.5 aligns the half subnormal step
    // (2^-24) with the f32 ulp of 0.5, so the FPU's round-to-nearest-even does the work.
    float a = detail::bitsFloat(ax) + 0.5f;
    return static_cast<uint16_t>(sign | (detail::floatBits(a) - 0x3F000000u));
  }
  uint32_t mantOdd = (ax >> 13) & 1u;
  ax += 0xC8000FFFu + mantOdd; // rebias the exponent (127 -> 15) and round to nearest even
  return static_cast<uint16_t>(sign | (ax >> 13));
}

/// bfloat16 bits -> f32 (exact).
inline float bf16BitsToFloat(uint16_t b) {
  return detail::bitsFloat(static_cast<uint32_t>(b) << 16);
}

/// f32 -> bfloat16 bits, round to nearest even; NaN stays a quiet NaN.
inline uint16_t floatToBf16Bits(float f) {
  uint32_t x = detail::floatBits(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u)
    return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7FFFu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

/// Storage type of an f16 element (distinct from uint16_t so templates can tell them apart).
struct Half {
  uint16_t bits = 0;
  Half() = default;
  explicit Half(float f) : bits(floatToHalfBits(f)) {}
  explicit operator float() const { return halfBitsToFloat(bits); }
};

/// Storage type of a bf16 element.
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float f) : bits(floatToBf16Bits(f)) {}
  explicit operator float() const { return bf16BitsToFloat(bits); }
};

static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2, "16-bit storage types");

} // namespace mm::rt

#endif // MM_RUNTIME_CORE_HALF_H
