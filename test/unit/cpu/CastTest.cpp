//===- CastTest.cpp - f16/bf16 conversions and mm.cast ----------------------===//
#include "KernelTestUtil.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mm::rt;
using namespace mm::rt::cpu::test;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

/// binary16 decoded from its definition (independent of Half.h).
double decodeHalfRef(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 31, mant = h & 1023;
  double v;
  if (exp == 0)
    v = std::ldexp(mant, -24);
  else if (exp == 31)
    v = mant ? kNaN : kInf;
  else
    v = std::ldexp(1024 + mant, exp - 25);
  return sign ? -v : v;
}

/// Nearest binary16 by search over all finite non-negative halves, ties to the even
/// pattern; |x| >= 65520 (65504 + half an ulp) is infinity.
uint16_t encodeHalfRef(double x) {
  static std::vector<double> table = [] {
    std::vector<double> t;
    for (uint16_t h = 0; h < 0x7C00; ++h)
      t.push_back(decodeHalfRef(h));
    return t;
  }();
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  double a = std::fabs(x);
  if (a >= 65520)
    return sign | 0x7C00;
  if (a > table.back()) // between the largest half and 65520
    return sign | 0x7BFF;
  auto it = std::lower_bound(table.begin(), table.end(), a);
  uint16_t hi = static_cast<uint16_t>(it - table.begin());
  if (table[hi] == a || hi == 0)
    return sign | hi;
  uint16_t lo = hi - 1;
  double dl = a - table[lo], dh = table[hi] - a;
  if (dl < dh || (dl == dh && (lo & 1) == 0))
    return sign | lo;
  return sign | hi;
}

TEST(Half, DecodesEveryPattern) {
  for (uint32_t h = 0; h < 65536; ++h) {
    double want = decodeHalfRef(static_cast<uint16_t>(h));
    float got = halfBitsToFloat(static_cast<uint16_t>(h));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << h;
      continue;
    }
    ASSERT_EQ(static_cast<double>(got), want) << "pattern " << h;
    EXPECT_EQ(std::signbit(got), (h & 0x8000) != 0) << h;
    EXPECT_EQ(floatToHalfBits(got), h) << "round trip of pattern " << h;
  }
}

TEST(Half, EncodesRoundToNearestEven) {
  // Ties and edges: 1 + 2^-11 is halfway between 1 and 1 + 2^-10 (even: 1); 1 + 3*2^-11
  // is halfway between 1 + 2^-10 and 1 + 2^-9 (even: 1 + 2^-9); subnormals; overflow.
  std::vector<float> edge = {1.0f + std::ldexp(1.0f, -11),
                             1.0f + 3 * std::ldexp(1.0f, -11),
                             65504.0f,
                             65519.0f,
                             65520.0f,
                             1e-8f,
                             2.98023224e-8f,
                             3e-8f,
                             std::ldexp(1.0f, -24) * 1.5f,
                             std::ldexp(1.0f, -24) * 2.5f,
                             6.1e-5f,
                             -0.0f,
                             -65536.0f,
                             1e30f};
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::uniform_int_distribution<int> ex(-28, 17);
  for (int i = 0; i < 200000; ++i)
    edge.push_back(std::ldexp(dist(gen), ex(gen)));
  for (float f : edge)
    ASSERT_EQ(floatToHalfBits(f), encodeHalfRef(f)) << "value " << f;
  EXPECT_TRUE(std::isnan(halfBitsToFloat(floatToHalfBits(std::nanf("")))));
}

TEST(BFloat16, EncodesRoundToNearestEven) {
  std::mt19937 gen(11);
  std::uniform_int_distribution<uint32_t> bits(0, 0xFFFFFFFFu);
  for (int i = 0; i < 200000; ++i) {
    uint32_t u = bits(gen);
    float f;
    std::memcpy(&f, &u, 4);
    uint16_t got = floatToBf16Bits(f);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(bf16BitsToFloat(got)));
      continue;
    }
    // Reference: the two bf16 neighbours (truncated and next up in magnitude), nearer wins,
    // ties to the even pattern.
    uint32_t lo = u & 0xFFFF0000u, hi = lo + 0x10000u;
    float flo, fhi;
    std::memcpy(&flo, &lo, 4);
    std::memcpy(&fhi, &hi, 4);
    // Past the largest finite bf16, the next value up is 2^128 (rounding there overflows).
    double dhi = std::isinf(fhi) ? std::copysign(std::ldexp(1.0, 128), fhi) : fhi;
    double dl = std::fabs(static_cast<double>(f) - flo), dh = std::fabs(dhi - f);
    uint16_t want =
        static_cast<uint16_t>((dl < dh || (dl == dh && ((lo >> 16) & 1) == 0) ? lo : hi) >> 16);
    ASSERT_EQ(got, want) << "bits " << std::hex << u;
  }
  EXPECT_EQ(bf16BitsToFloat(floatToBf16Bits(1.0f + std::ldexp(1.0f, -8))), 1.0f);
  EXPECT_EQ(bf16BitsToFloat(floatToBf16Bits(1.0f + 3 * std::ldexp(1.0f, -8))),
            1.0f + std::ldexp(1.0f, -6));
}

Tensor cast(const Tensor &x, DType to) { return OpRun("mm.cast").in(x).out(to).run1(); }

TEST(Cast, FloatToIntTruncatesAndSaturates) {
  Tensor x = makeF32({7}, {-2.7, -0.5, 0.5, 2.7, 1e10, -1e10, kNaN});
  expectExact(cast(x, DType::i32), DType::i32, {7}, {-2, 0, 0, 2, 2147483647.0, -2147483648.0, 0});
  expectExact(cast(x, DType::u8), DType::u8, {7}, {0, 0, 0, 2, 255, 0, 0});
  expectExact(cast(x, DType::i64), DType::i64, {7}, {-2, 0, 0, 2, 1e10, -1e10, 0});
}

TEST(Cast, BoolRules) {
  Tensor x = makeF32({5}, {0, -0.0, 1.5, kNaN, -3});
  expectExact(cast(x, DType::boolean), DType::boolean, {5}, {0, 0, 1, 1, 1});
  Tensor i = makeI64({3}, {0, 5, -1});
  expectExact(cast(i, DType::boolean), DType::boolean, {3}, {0, 1, 1});
  Tensor b = makeTensor(DType::boolean, {3}, {1, 0, 1});
  expectExact(cast(b, DType::f32), DType::f32, {3}, {1, 0, 1});
  expectExact(cast(b, DType::i64), DType::i64, {3}, {1, 0, 1});
  expectExact(cast(b, DType::f16), DType::f16, {3}, {1, 0, 1});
}

TEST(Cast, IntegerWrapsLikeNumpy) {
  // numpy: np.array([300, -129, 127, -1]).astype(np.int8) -> [44, 127, 127, -1]
  Tensor i = makeI64({4}, {300, -129, 127, -1});
  expectExact(cast(i, DType::i8), DType::i8, {4}, {44, 127, 127, -1});
  expectExact(cast(i, DType::u8), DType::u8, {4}, {44, 127, 127, 255});
  Tensor big = makeI64({1}, {(int64_t(1) << 53) + 1});
  EXPECT_EQ(cast(big, DType::f64).as<double>()[0], std::ldexp(1.0, 53)); // nearest even
}

TEST(Cast, ToHalfRoundsOnce) {
  // f64 1 + 2^-11 + 2^-40 is just above a f16 tie: direct rounding gives 1 + 2^-10, going
  // through a nearest-rounded f32 (1 + 2^-11, a tie) would wrongly give 1.
  Tensor d = makeTensor(DType::f64, {2},
                        {1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40),
                         1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)});
  EXPECT_EQ(getElement(cast(d, DType::f16), 0), 1 + std::ldexp(1.0, -10));
  EXPECT_EQ(getElement(cast(d, DType::bf16), 1), 1 + std::ldexp(1.0, -7));
  Tensor i = makeI64({3}, {2049, 2051, 70000});
  expectExact(cast(i, DType::f16), DType::f16, {3}, {2048, 2052, kInf});
  Tensor f = makeF32({3}, {65519, 1e-8, -0.1});
  expectExact(cast(f, DType::f16), DType::f16, {3},
              {65504, 0, decodeHalfRef(encodeHalfRef(-0.1f))});
}

TEST(Cast, AllPairsRoundTripSmallIntegers) {
  // Small non-negative integers are exact in every dtype: any -> any -> f64 keeps them.
  const DType all[] = {DType::f32, DType::f16, DType::bf16, DType::f64, DType::i8,  DType::i16,
                       DType::i32, DType::i64, DType::u8,   DType::u16, DType::u32, DType::u64};
  for (DType from : all)
    for (DType to : all) {
      Tensor x = makeTensor(from, {2, 3}, {0, 1, 2, 3, 17, 100});
      Tensor y = cast(x, to);
      expectExact(y, to, {2, 3}, {0, 1, 2, 3, 17, 100},
                  std::string(dtypeName(from)) + "->" + std::string(dtypeName(to)));
    }
}

TEST(Cast, EmptyTensor) {
  Tensor x = makeF32({0, 3}, {});
  expectExact(cast(x, DType::i32), DType::i32, {0, 3}, {});
}

} // namespace
