//===- DimRulesTest.cpp - the shared ONNX axis, broadcast and slice rules ----===//
//
// runtime/core/DimRules.h is the one copy of these rules for the importer, the verifiers,
// the passes and both backends, so its edge cases are pinned here: expected values follow
// the ONNX spec (Broadcasting.md; Slice-13's clamping, which onnxruntime implements) and
// are worked out by hand in the comments.
//
//===----------------------------------------------------------------------===//
#include "runtime/core/DimRules.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace {

using mm::dims::SliceBounds;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kDyn = kMin; // MLIR's ShapedType::kDynamic

TEST(DimRules, NormalizeAxis) {
  EXPECT_EQ(mm::dims::normalizeAxis(-1, 3), 2);
  EXPECT_EQ(mm::dims::normalizeAxis(-3, 3), 0);
  EXPECT_EQ(mm::dims::normalizeAxis(2, 3), 2);
  EXPECT_EQ(mm::dims::normalizeAxis(3, 3), std::nullopt);
  EXPECT_EQ(mm::dims::normalizeAxis(-4, 3), std::nullopt);
  EXPECT_EQ(mm::dims::normalizeAxis(0, 0), std::nullopt); // a scalar has no axis
  EXPECT_EQ(mm::dims::normalizeAxis(kMin, 3), std::nullopt);
  // Flatten's axis may be the rank itself.
  EXPECT_EQ(mm::dims::normalizeSplitAxis(3, 3), 3);
  EXPECT_EQ(mm::dims::normalizeSplitAxis(-3, 3), 0);
  EXPECT_EQ(mm::dims::normalizeSplitAxis(0, 0), 0);
  EXPECT_EQ(mm::dims::normalizeSplitAxis(4, 3), std::nullopt);
  EXPECT_EQ(mm::dims::normalizeSplitAxis(-4, 3), std::nullopt);
}

TEST(DimRules, ClampIndex) {
  EXPECT_EQ(mm::dims::clampIndex(-1, 4), 3);
  EXPECT_EQ(mm::dims::clampIndex(-4, 4), 0);
  EXPECT_EQ(mm::dims::clampIndex(-9, 4), 0);
  EXPECT_EQ(mm::dims::clampIndex(9, 4), 4);
  EXPECT_EQ(mm::dims::clampIndex(kMin, 4), 0); // no overflow
  EXPECT_EQ(mm::dims::clampIndex(kMax, 4), 4);
}

void expectSlice(int64_t dim, int64_t start, int64_t end, int64_t step, int64_t wantStart,
                 int64_t wantCount) {
  std::optional<SliceBounds> b = mm::dims::sliceBounds(dim, start, end, step);
  ASSERT_TRUE(b) << dim << " " << start << ":" << end << ":" << step;
  EXPECT_EQ(b->count, wantCount) << dim << " " << start << ":" << end << ":" << step;
  if (wantCount > 0)
    EXPECT_EQ(b->start, wantStart) << dim << " " << start << ":" << end << ":" << step;
  EXPECT_EQ(b->step, step);
}

TEST(DimRules, SlicePositiveSteps) {
  expectSlice(5, 1, 4, 1, 1, 3);        // 1 2 3
  expectSlice(5, 0, 5, 2, 0, 3);        // 0 2 4
  expectSlice(5, -2, kMax, 1, 3, 2);    // 3 4 (an "to the end" end)
  expectSlice(5, kMin, kMax, 1, 0, 5);  // every element, no overflow
  expectSlice(5, -9, 2, 1, 0, 2);       // a start before the first element clamps to 0
  expectSlice(5, 3, 1, 1, 0, 0);        // end before start: empty
  expectSlice(5, 0, 5, kMax, 0, 1);     // a huge step takes the first element only
  expectSlice(0, 0, 5, 1, 0, 0);        // an empty dim
}

TEST(DimRules, SliceNegativeSteps) {
  expectSlice(5, 4, -6, -1, 4, 5);      // 4 3 2 1 0 (an end below -dim: before the first)
  expectSlice(5, -1, -100, -2, 4, 3);   // 4 2 0
  expectSlice(5, 10, 0, -1, 4, 4);      // start clamps to dim - 1: 4 3 2 1
  expectSlice(5, 4, kMin, kMin, 4, 1);  // INT64_MIN step: one element, no overflow
  // A start below -dim clamps to 0 (Slice-13: starts clamp into [0, dim - 1] for negative
  // steps; onnxruntime agrees), so one element is taken. numpy would take none.
  expectSlice(5, -10, -20, -1, 0, 1);
  expectSlice(5, 1, 3, -1, 0, 0);       // end after start: empty
}

TEST(DimRules, SliceStepZeroIsRefused) {
  EXPECT_EQ(mm::dims::sliceBounds(5, 0, 5, 0), std::nullopt);
}

TEST(DimRules, BroadcastDim) {
  const int64_t none = mm::dims::kNoDynamic;
  EXPECT_EQ(mm::dims::broadcastDim(3, 1, none), 3);
  EXPECT_EQ(mm::dims::broadcastDim(1, 3, none), 3);
  EXPECT_EQ(mm::dims::broadcastDim(3, 3, none), 3);
  EXPECT_EQ(mm::dims::broadcastDim(0, 1, none), 0);
  EXPECT_EQ(mm::dims::broadcastDim(1, 0, none), 0);
  EXPECT_EQ(mm::dims::broadcastDim(3, 4, none), std::nullopt);
  EXPECT_EQ(mm::dims::broadcastDim(0, 3, none), std::nullopt);
  // Unknown dims (MLIR's rule): a static dim above 1 wins, else the result stays unknown.
  EXPECT_EQ(mm::dims::broadcastDim(kDyn, 3, kDyn), 3);
  EXPECT_EQ(mm::dims::broadcastDim(3, kDyn, kDyn), 3);
  EXPECT_EQ(mm::dims::broadcastDim(kDyn, 1, kDyn), kDyn);
  EXPECT_EQ(mm::dims::broadcastDim(1, kDyn, kDyn), kDyn);
  EXPECT_EQ(mm::dims::broadcastDim(kDyn, kDyn, kDyn), kDyn);
  EXPECT_EQ(mm::dims::broadcastDim(kDyn, 0, kDyn), kDyn);
}

TEST(DimRules, BroadcastShapes) {
  std::vector<int64_t> out;
  ASSERT_TRUE(mm::dims::broadcastShapes(std::vector<int64_t>{2, 1, 4}, std::vector<int64_t>{3, 1}, out,
                                        mm::dims::kNoDynamic));
  EXPECT_EQ(out, (std::vector<int64_t>{2, 3, 4}));
  ASSERT_TRUE(mm::dims::broadcastShapes(std::vector<int64_t>{}, std::vector<int64_t>{5}, out,
                                        mm::dims::kNoDynamic));
  EXPECT_EQ(out, (std::vector<int64_t>{5}));
  ASSERT_TRUE(mm::dims::broadcastShapes(std::vector<int64_t>{kDyn, 1}, std::vector<int64_t>{4, 7}, out, kDyn));
  EXPECT_EQ(out, (std::vector<int64_t>{4, 7}));
  EXPECT_FALSE(mm::dims::broadcastShapes(std::vector<int64_t>{2, 3}, std::vector<int64_t>{4}, out,
                                         mm::dims::kNoDynamic));
}

// ONNX Reshape: 0 copies the input dim (a size with allowzero), -1 is inferred, < -1 is
// invalid; the element count must not change.
TEST(DimRules, Reshape) {
  using mm::dims::ReshapeEntry;
  using mm::dims::ReshapeError;
  EXPECT_EQ(mm::dims::reshapeEntry(0, false), ReshapeEntry::copy);
  EXPECT_EQ(mm::dims::reshapeEntry(0, true), ReshapeEntry::size);
  EXPECT_EQ(mm::dims::reshapeEntry(-1, false), ReshapeEntry::infer);
  EXPECT_EQ(mm::dims::reshapeEntry(-2, true), ReshapeEntry::invalid);
  EXPECT_EQ(mm::dims::reshapeEntry(7, false), ReshapeEntry::size);
  const std::vector<int64_t> in{2, 3, 4};
  std::vector<int64_t> out;
  auto reshape = [&](std::vector<int64_t> req, bool allowZero = false) {
    return mm::dims::reshape(in, req, allowZero, out);
  };
  ASSERT_EQ(reshape({0, -1}), ReshapeError::none);
  EXPECT_EQ(out, (std::vector<int64_t>{2, 12}));
  ASSERT_EQ(reshape({-1, 0, 2}), ReshapeError::none);
  EXPECT_EQ(out, (std::vector<int64_t>{4, 3, 2}));
  EXPECT_EQ(reshape({-1, -1}), ReshapeError::twoInferred);
  EXPECT_EQ(reshape({5, -1}), ReshapeError::cannotInfer);
  EXPECT_EQ(reshape({5, 5}), ReshapeError::countChanges);
  EXPECT_EQ(reshape({0, 0, 0, 0}), ReshapeError::copyPastRank);
  EXPECT_EQ(reshape({2, -3, 4}), ReshapeError::invalidEntry);
  EXPECT_EQ(reshape({0, 12}, true), ReshapeError::countChanges); // a literal 0 with allowzero
  const std::vector<int64_t> empty{0, 3};
  ASSERT_EQ(mm::dims::reshape(empty, std::vector<int64_t>{3, 0}, true, out), ReshapeError::none);
  EXPECT_EQ(out, (std::vector<int64_t>{3, 0}));
  EXPECT_EQ(mm::dims::reshape(empty, std::vector<int64_t>{-1, 0}, true, out), ReshapeError::cannotInfer);
}

} // namespace
