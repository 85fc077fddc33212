//===- ShapeRulesTest.cpp - viewStrides (reshape of a strided view) ----------===//
#include "runtime/cpu/ShapeRules.h"

#include <gtest/gtest.h>

using namespace mm::rt;
using mm::rt::cpu::viewStrides;

namespace {

TEST(ViewStrides, SplitsTheLastDimOfARowStridedView) {
  // The q part of a merged QKV output [1, 5, 2560] (row stride 2560), viewed as heads.
  std::vector<int64_t> out;
  ASSERT_TRUE(viewStrides({1, 5, 2048}, {5 * 2560, 2560, 1}, {1, 5, 32, 64}, out));
  EXPECT_EQ(out, (std::vector<int64_t>{5 * 2560, 2560, 64, 1}));
}

TEST(ViewStrides, MergesContiguousDimsOnly) {
  std::vector<int64_t> out;
  // [2, 3, 4] contiguous -> [6, 4].
  ASSERT_TRUE(viewStrides({2, 3, 4}, {12, 4, 1}, {6, 4}, out));
  EXPECT_EQ(out, (std::vector<int64_t>{4, 1}));
  // A transposed [B, S, H, D] view of a [B, H, S, D] buffer: H and D merge only when
  // S == 1 (then nothing separates the heads).
  EXPECT_FALSE(viewStrides({1, 3, 4, 8}, {96, 8, 24, 1}, {1, 3, 32}, out));
  ASSERT_TRUE(viewStrides({1, 1, 4, 8}, {32, 8, 8, 1}, {1, 1, 32}, out));
  EXPECT_EQ(out.back(), 1);
  EXPECT_EQ(out[1], 32);
}

TEST(ViewStrides, SizeOneDimsAndEmptyTensors) {
  std::vector<int64_t> out;
  ASSERT_TRUE(viewStrides({6}, {2}, {2, 3, 1}, out)); // every other element of a buffer
  EXPECT_EQ(out, (std::vector<int64_t>{6, 2, 2}));
  ASSERT_TRUE(viewStrides({0, 4}, {4, 1}, {2, 0, 2}, out));
  EXPECT_EQ(out, (std::vector<int64_t>{0, 2, 1}));
}

} // namespace
