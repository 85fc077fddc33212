//===- MaskPatternTest.cpp - classifying host-built attention masks ---------===//
#include "runtime/core/Half.h"
#include "runtime/exec/MaskPattern.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mm::rt;

namespace {

/// An f32 additive mask [planes, s, t]: 0 where visible(i, j), `hidden` elsewhere.
template <typename F>
Tensor additive(int64_t planes, int64_t s, int64_t t, F visible, float hidden) {
  Tensor m = Tensor::host(DType::f32, {planes, s, t});
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < s; ++i)
      for (int64_t j = 0; j < t; ++j)
        m.as<float>()[(p * s + i) * t + j] = visible(i, j) ? 0.f : hidden;
  return m;
}

const float kInf = std::numeric_limits<float>::infinity();

TEST(MaskPattern, AllVisibleIsNone) {
  EXPECT_EQ(classifyMask(additive(1, 1, 7, [](int64_t, int64_t) { return true; }, -kInf), 1, 7),
            MaskPattern::none);
}

TEST(MaskPattern, CausalWithPastPositions) {
  // 3 queries at the end of 5 keys: query i sees keys j <= i + 2.
  auto causal = [](int64_t i, int64_t j) { return j <= i + 2; };
  EXPECT_EQ(classifyMask(additive(2, 3, 5, causal, -kInf), 3, 5), MaskPattern::causal);
  // HF's finite minimum counts as hidden, f16's -65504 and -1e4 too (runtime/core/MaskRule.h).
  EXPECT_EQ(classifyMask(additive(1, 3, 5, causal, std::numeric_limits<float>::lowest()), 3, 5),
            MaskPattern::causal);
  EXPECT_EQ(classifyMask(additive(1, 3, 5, causal, -65504.0f), 3, 5), MaskPattern::causal);
  EXPECT_EQ(classifyMask(additive(1, 3, 5, causal, -1e4f), 3, 5), MaskPattern::causal);
  // Just above the bound the value is a bias, not a hidden key.
  EXPECT_EQ(classifyMask(additive(1, 3, 5, causal, -9999.0f), 3, 5), MaskPattern::general);
}

TEST(MaskPattern, NearMissesAreGeneral) {
  auto causal = [](int64_t i, int64_t j) { return j <= i + 2; };
  // One padded key in the second plane.
  Tensor padded = additive(2, 3, 5, causal, -kInf);
  padded.as<float>()[15 + 0] = -kInf;
  EXPECT_EQ(classifyMask(padded, 3, 5), MaskPattern::general);
  // A soft bias (ALiBi-like value) is neither visible nor hidden.
  Tensor soft = additive(1, 3, 5, causal, -kInf);
  soft.as<float>()[0] = -0.5f;
  EXPECT_EQ(classifyMask(soft, 3, 5), MaskPattern::general);
  // The causal pattern shifted by one (queries not at the end) is not causal.
  EXPECT_EQ(classifyMask(additive(1, 3, 5, [](int64_t i, int64_t j) { return j <= i + 1; }, -kInf), 3, 5),
            MaskPattern::general);
  // Shape not ending in [qLen, kvLen].
  EXPECT_EQ(classifyMask(additive(1, 3, 5, causal, -kInf), 3, 6), MaskPattern::general);
  // NaN.
  Tensor nan = additive(1, 1, 4, [](int64_t, int64_t) { return true; }, -kInf);
  nan.as<float>()[2] = std::nanf("");
  EXPECT_EQ(classifyMask(nan, 1, 4), MaskPattern::general);
}

TEST(MaskPattern, BooleanAndBf16Masks) {
  Tensor b = Tensor::host(DType::boolean, {1, 1, 2, 3});
  const uint8_t causal[] = {1, 1, 0, 1, 1, 1}; // 2 queries at the end of 3 keys
  for (int e = 0; e < 6; ++e)
    b.as<uint8_t>()[e] = causal[e];
  EXPECT_EQ(classifyMask(b, 2, 3), MaskPattern::causal);
  b.as<uint8_t>()[2] = 1;
  EXPECT_EQ(classifyMask(b, 2, 3), MaskPattern::none);
  Tensor h = Tensor::host(DType::bf16, {2, 2});
  h.as<BFloat16>()[0] = BFloat16(0.f);
  h.as<BFloat16>()[1] = BFloat16(-kInf);
  h.as<BFloat16>()[2] = BFloat16(0.f);
  h.as<BFloat16>()[3] = BFloat16(0.f);
  EXPECT_EQ(classifyMask(h, 2, 2), MaskPattern::causal);
}

} // namespace
