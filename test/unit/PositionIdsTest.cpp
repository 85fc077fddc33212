//===- PositionIdsTest.cpp - 1-D and M-RoPE position ids ---------------------===//
//
// mropePositionIds (runtime/exec/PositionIds.h) against the rows transformers 5.17's
// Qwen2VLModel.get_rope_index gave for the prompts of test/models/hf-qwen2vl (its
// reference/ and reference-two-images/ generation.json: mrope_position_ids and
// rope_deltas), the steps after the prompt, and the errors for grids that do not fit.
//
//===----------------------------------------------------------------------===//
#include "runtime/exec/PositionIds.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

namespace {
using mm::rt::DType;
using mm::rt::PositionIds;
using mm::rt::Tensor;
using mm::test::runError;

constexpr int64_t kImage = 300;

/// [11, 298, image tokens of each grid (merged 2 x 2) between 298 and 299 (a 5 before each
/// after the first), 23, 57, 88, 4]: the prompts of gen_hf_models.py's qwen2vl references.
std::vector<int64_t> prompt(const std::vector<int64_t> &tokensPerImage) {
  std::vector<int64_t> ids = {11};
  for (size_t k = 0; k < tokensPerImage.size(); ++k) {
    if (k)
      ids.push_back(5);
    ids.push_back(298);
    ids.insert(ids.end(), static_cast<size_t>(tokensPerImage[k]), kImage);
    ids.push_back(299);
  }
  ids.insert(ids.end(), {23, 57, 88, 4});
  return ids;
}

std::vector<int64_t> rows(const std::vector<std::vector<int64_t>> &r) {
  std::vector<int64_t> flat;
  for (const auto &row : r)
    flat.insert(flat.end(), row.begin(), row.end());
  return flat;
}

TEST(PositionIdsTest, OneImageAsTransformers) {
  PositionIds p = mm::rt::mropePositionIds(prompt({12}), kImage, {{1, 6, 8}}, 2);
  EXPECT_EQ(p.rows, 3);
  EXPECT_EQ(p.prompt, rows({{0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 6, 7, 8, 9, 10},
                            {0, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 6, 7, 8, 9, 10},
                            {0, 1, 2, 3, 4, 5, 2, 3, 4, 5, 2, 3, 4, 5, 6, 7, 8, 9, 10}}));
  EXPECT_EQ(p.delta, -8);
}

TEST(PositionIdsTest, TwoImagesAsTransformers) {
  PositionIds p = mm::rt::mropePositionIds(prompt({12, 4}), kImage, {{1, 6, 8}, {1, 4, 4}}, 2);
  EXPECT_EQ(p.prompt,
            rows({{0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 6, 7, 8, 9, 9, 9, 9, 11, 12, 13, 14, 15},
                  {0, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 6, 7, 8, 9, 9, 10, 10, 11, 12, 13, 14, 15},
                  {0, 1, 2, 3, 4, 5, 2, 3, 4, 5, 2, 3, 4, 5, 6, 7, 8, 9, 10, 9, 10, 11, 12, 13, 14, 15}}));
  EXPECT_EQ(p.delta, -10);
}

TEST(PositionIdsTest, StepsTakeThePromptRowsThenPastPlusDelta) {
  PositionIds p = mm::rt::mropePositionIds(prompt({12}), kImage, {{1, 6, 8}}, 2);
  Tensor first = p.forStep(DType::i64, 0, 19);
  ASSERT_EQ(first.shape, (mm::rt::Shape{3, 1, 19}));
  EXPECT_EQ(std::vector<int64_t>(first.as<int64_t>(), first.as<int64_t>() + 57), p.prompt);
  // Decode step after the prompt: position 19 - 8 = 11 on every row.
  Tensor next = p.forStep(DType::i64, 19, 1);
  ASSERT_EQ(next.shape, (mm::rt::Shape{3, 1, 1}));
  for (int r = 0; r < 3; ++r)
    EXPECT_EQ(next.as<int64_t>()[r], 11);
}

TEST(PositionIdsTest, TextOnlyAndOneDimensional) {
  PositionIds text = mm::rt::mropePositionIds({7, 8, 9}, kImage, {}, 2);
  EXPECT_EQ(text.prompt, rows({{0, 1, 2}, {0, 1, 2}, {0, 1, 2}}));
  EXPECT_EQ(text.delta, 0);
  Tensor plain = PositionIds{}.forStep(DType::i32, 4, 2);
  ASSERT_EQ(plain.shape, (mm::rt::Shape{1, 2}));
  EXPECT_EQ(plain.as<int32_t>()[0], 4);
  EXPECT_EQ(plain.as<int32_t>()[1], 5);
}

TEST(PositionIdsTest, GridsThatDoNotFitAreErrors) {
  EXPECT_EQ(runError([] { mm::rt::mropePositionIds(prompt({12}), kImage, {{1, 4, 4}}, 2); }),
            "the prompt's run of 12 image tokens at position 2 does not fit image grid (1, 4, 4): it "
            "merges to 4 tokens");
  EXPECT_EQ(runError([] { mm::rt::mropePositionIds(prompt({12}), kImage, {}, 2); }),
            "the prompt has more runs of image tokens (id 300) than the 0 image grids given");
  EXPECT_EQ(runError([] { mm::rt::mropePositionIds(prompt({12}), kImage, {{1, 6, 8}, {1, 4, 4}}, 2); }),
            "2 image grids were given but the prompt has 1 run of image tokens (id 300)");
  EXPECT_EQ(runError([] { mm::rt::mropePositionIds({7, 8}, kImage, {{1, 6, 8}}, 2); }),
            "1 image grid was given but the prompt has 0 runs of image tokens (id 300)");
  EXPECT_EQ(runError([] { mm::rt::mropePositionIds(prompt({12}), kImage, {{1, 6, 7}}, 2); }),
            "image grid (1, 6, 7) (t, h, w patches): h and w must be multiples of the merge size 2");
  EXPECT_EQ(runError([] { mm::rt::mropePositionIds(prompt({12, 4}), kImage, {{1, 6, 8}, {0, 4, 4}}, 2); }),
            "image grid 2 (0, 4, 4) (t, h, w patches) must hold sides from 1 to 1048576");
  EXPECT_EQ(runError([] { mm::rt::mropePositionIds(prompt({12}), kImage, {{1, 6, 8}}, 0); }),
            "the plan's M-RoPE decoder has no spatial merge size (vision_config.spatial_merge_size): it "
            "cannot place image tokens");
  Tensor bad = Tensor::host(DType::i32, {1, 3});
  EXPECT_EQ(runError([&] { mm::rt::imageGrids(bad); }), "image_grid_thw is i32 [1, 3]; expected i64 [images, 3]");
}

TEST(PositionIdsTest, TheFirstStepTakesTheWholePrompt) {
  PositionIds p = mm::rt::mropePositionIds(prompt({12}), kImage, {{1, 6, 8}}, 2);
  EXPECT_EQ(runError([&] { p.forStep(DType::i64, 0, 5); }),
            "the first decoder step takes 5 of the prompt's 19 tokens; M-RoPE positions are placed for the "
            "whole prompt at once");
}

} // namespace
