//===- PositionIds.h - the decoder's position ids, 1-D or M-RoPE -------------===//
//
// The position_ids a decoder step takes. Most decoders take 1-D positions [batch, seq]:
// past .. past + seq - 1. A decoder with multimodal rotary embeddings (M-RoPE, Qwen2-VL:
// Wang et al. 2024) takes [3, batch, seq], a temporal, a height and a width row, which
// transformers' Qwen2VLModel.get_rope_index (v5) computes from the prompt:
//   - text tokens: the same position p on all three rows, counting on from the last
//     token's position + 1 (0 at the start);
//   - an image of image_grid_thw (t, h, w) patches, merged m x m (vision_config.
//     spatial_merge_size), is the run of t * (h / m) * (w / m) image tokens; its token
//     (ti, hi, wi) of the merged grid, in row-major order, has positions (p + ti, p + hi,
//     p + wi) for the position p the next text token would take; the text after it
//     counts on from p + max(h, w) / m;
//   - rope_deltas = (the prompt's largest position + 1) - prompt tokens; the decode steps
//     after the prompt take past + s + rope_deltas on all three rows.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_EXEC_POSITIONIDS_H
#define MM_RUNTIME_EXEC_POSITIONIDS_H

#include "runtime/core/Tensor.h"

#include <array>
#include <cstdint>
#include <vector>

namespace mm::rt {

/// One generation's position ids (see the file comment).
struct PositionIds {
  /// Rows of the decoder's position_ids: 1 ([batch, seq]) or 3 (M-RoPE, [3, batch, seq]).
  int64_t rows = 1;
  /// M-RoPE: the prompt's positions [3, prompt tokens], row-major; empty for 1-D positions.
  std::vector<int64_t> prompt;
  /// M-RoPE: rope_deltas, added to the positions of the steps after the prompt.
  int64_t delta = 0;

  /// The position ids of a step of `seq` tokens after `past` cached ones, of dtype `t`
  /// (i64, i32 or f32): [1, seq], or [3, 1, seq] with M-RoPE (the prompt's rows for the
  /// first step, which must be the whole prompt; past + s + delta after it). Throws Error
  /// for an M-RoPE first step over part of the prompt.
  Tensor forStep(DType t, int64_t past, int64_t seq) const;
};

/// The largest t, h or w of an image grid: 2^20 patches (past any image), so that t * h * w
/// cannot overflow.
constexpr int64_t kMaxGridSide = int64_t{1} << 20;

/// Throws Error unless image grid `g` (number `index` of `count`, for the message) has
/// t, h and w in [1, kMaxGridSide] and, with mergeSize > 0, h and w multiples of it.
void checkImageGrid(const std::array<int64_t, 3> &g, size_t index, size_t count, int64_t mergeSize);

/// Throws Error unless every grid passes checkImageGrid and together they cover exactly
/// `patchRows` patch rows (the pixel values [patches, C * T * P * P] of the vision
/// encoder `function`, named in the message). Grids are checked in order and summed only
/// while the sum still fits, so no product or sum overflows.
void checkImageGrids(const std::vector<std::array<int64_t, 3>> &grids, int64_t patchRows, int64_t mergeSize,
                     const std::string &function);

/// The M-RoPE position ids of `ids`: the runs of `imageTokenId` are the images of
/// `gridThw` (each {t, h, w} in patches), in order, merged `mergeSize` x `mergeSize`.
/// Throws Error when the runs and the grids differ in number, a run's length is not its
/// grid's t * (h / m) * (w / m), a grid fails checkImageGrid, or the prompt has image
/// tokens and mergeSize is not positive.
PositionIds mropePositionIds(const std::vector<int64_t> &ids, int64_t imageTokenId,
                             const std::vector<std::array<int64_t, 3>> &gridThw, int64_t mergeSize);

/// The grids of an image_grid_thw tensor ([images, 3] i64, the vision encoder's type).
/// Throws Error naming the shape or dtype for another.
std::vector<std::array<int64_t, 3>> imageGrids(const Tensor &imageGridThw);

} // namespace mm::rt

#endif // MM_RUNTIME_EXEC_POSITIONIDS_H
