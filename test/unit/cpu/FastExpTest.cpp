//===- FastExpTest.cpp - accuracy of the vectorizable exp -------------------===//
#include "runtime/cpu/FastExp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace {

using mm::rt::cpu::fastExp;

TEST(FastExp, WithinTwoUlpOfExactExp) {
  // 2M random points of [-87.33, 88.37] plus a grid of 0.001 steps, against exp in f64
  // (exact far below the f32 ulp of 2^-23 relative).
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> dist(-87.33f, 88.37f);
  double worst = 0;
  auto check = [&](float x) {
    double want = std::exp(static_cast<double>(x));
    worst = std::max(worst, std::fabs(fastExp(x) - want) / want);
  };
  for (int i = 0; i < 2000000; ++i)
    check(dist(gen));
  for (int i = -87330; i <= 88370; ++i)
    check(static_cast<float>(i) * 0.001f);
  EXPECT_LT(worst, 2 * 1.1920929e-7) << "worst relative error " << worst;
}

TEST(FastExp, EdgeValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(fastExp(0.0f), 1.0f);
  EXPECT_EQ(fastExp(-inf), 0.0f);
  EXPECT_EQ(fastExp(-100.0f), 0.0f); // would be subnormal or 0: flushed
  EXPECT_EQ(fastExp(inf), inf);
  EXPECT_EQ(fastExp(100.0f), inf);
  EXPECT_TRUE(std::isnan(fastExp(std::nanf(""))));
}

} // namespace
