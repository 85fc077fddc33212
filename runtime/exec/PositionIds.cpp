//===- PositionIds.cpp - the decoder's position ids, 1-D or M-RoPE -----------===//
#include "runtime/exec/PositionIds.h"

#include "runtime/core/Error.h"

#include <algorithm>

namespace mm::rt {
namespace {

void store(Tensor &out, size_t i, int64_t v) {
  switch (out.dtype) {
  case DType::i64: out.as<int64_t>()[i] = v; break;
  case DType::i32: out.as<int32_t>()[i] = static_cast<int32_t>(v); break;
  case DType::f32: out.as<float>()[i] = static_cast<float>(v); break;
  default: fail("cannot build ", dtypeName(out.dtype), " position ids");
  }
}

std::string gridString(const std::array<int64_t, 3> &g) {
  return "(" + std::to_string(g[0]) + ", " + std::to_string(g[1]) + ", " + std::to_string(g[2]) + ")";
}

} // namespace

void checkImageGrid(const std::array<int64_t, 3> &g, size_t index, size_t count, int64_t mergeSize) {
  const std::string which = "image grid " + (count > 1 ? std::to_string(index + 1) + " " : std::string()) +
                            gridString(g) + " (t, h, w patches)";
  for (int64_t side : g)
    if (side < 1 || side > kMaxGridSide)
      fail(which, " must hold sides from 1 to ", kMaxGridSide);
  if (mergeSize > 0 && (g[1] % mergeSize != 0 || g[2] % mergeSize != 0))
    fail(which, ": h and w must be multiples of the merge size ", mergeSize);
}

void checkImageGrids(const std::vector<std::array<int64_t, 3>> &grids, int64_t patchRows, int64_t mergeSize,
                     const std::string &function) {
  int64_t rows = 0;
  for (size_t i = 0; i < grids.size() && rows <= patchRows; ++i) {
    checkImageGrid(grids[i], i, grids.size(), mergeSize);
    rows += grids[i][0] * grids[i][1] * grids[i][2];
  }
  if (rows != patchRows)
    fail("image_grid_thw's grids cover ",
         rows > patchRows ? "more than " + std::to_string(patchRows) : std::to_string(rows), " patches but the '",
         function, "' pixel values have ", patchRows, " patch rows");
}

Tensor PositionIds::forStep(DType t, int64_t past, int64_t seq) const {
  Tensor out = Tensor::host(t, rows == 1 ? Shape{1, seq} : Shape{rows, 1, seq});
  const bool wholePrompt = past == 0 && !prompt.empty();
  if (wholePrompt && static_cast<int64_t>(prompt.size()) != rows * seq)
    fail("the first decoder step takes ", seq, " of the prompt's ", static_cast<int64_t>(prompt.size()) / rows,
         " tokens; M-RoPE positions are placed for the whole prompt at once");
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t s = 0; s < seq; ++s) {
      const size_t i = static_cast<size_t>(r * seq + s);
      store(out, i, wholePrompt ? prompt[i] : past + s + delta);
    }
  return out;
}

PositionIds mropePositionIds(const std::vector<int64_t> &ids, int64_t imageTokenId,
                             const std::vector<std::array<int64_t, 3>> &gridThw, int64_t mergeSize) {
  const int64_t n = static_cast<int64_t>(ids.size());
  PositionIds p;
  p.rows = 3;
  p.prompt.assign(static_cast<size_t>(3 * n), 0);
  auto set = [&](int64_t i, int64_t t, int64_t h, int64_t w) {
    p.prompt[static_cast<size_t>(i)] = t;
    p.prompt[static_cast<size_t>(n + i)] = h;
    p.prompt[static_cast<size_t>(2 * n + i)] = w;
  };
  int64_t next = 0, largest = -1;
  size_t image = 0;
  for (int64_t i = 0; i < n;) {
    if (imageTokenId < 0 || ids[static_cast<size_t>(i)] != imageTokenId) {
      set(i++, next, next, next);
      largest = next++;
      continue;
    }
    int64_t end = i;
    while (end < n && ids[static_cast<size_t>(end)] == imageTokenId)
      ++end;
    if (mergeSize < 1)
      fail("the plan's M-RoPE decoder has no spatial merge size (vision_config.spatial_merge_size): "
           "it cannot place image tokens");
    if (image >= gridThw.size())
      fail("the prompt has more runs of image tokens (id ", imageTokenId, ") than the ",
           gridThw.size(), " image grid", gridThw.size() == 1 ? "" : "s", " given");
    const std::array<int64_t, 3> &g = gridThw[image];
    checkImageGrid(g, image++, gridThw.size(), mergeSize);
    const int64_t gh = g[1] / mergeSize, gw = g[2] / mergeSize;
    if (end - i != g[0] * gh * gw)
      fail("the prompt's run of ", end - i, " image tokens at position ", i, " does not fit image grid ",
           gridString(g), ": it merges to ", g[0] * gh * gw, " tokens");
    for (int64_t k = 0; k < end - i; ++k) {
      const int64_t t = k / (gh * gw), h = k / gw % gh, w = k % gw;
      set(i + k, next + t, next + h, next + w);
      largest = std::max(largest, next + std::max({t, h, w}));
    }
    next += std::max(g[1], g[2]) / mergeSize;
    i = end;
  }
  if (image != gridThw.size())
    fail(gridThw.size(), " image grid", gridThw.size() == 1 ? " was" : "s were", " given but the prompt has ",
         image, " run", image == 1 ? "" : "s", " of image tokens (id ", imageTokenId, ")");
  p.delta = largest + 1 - n;
  return p;
}

std::vector<std::array<int64_t, 3>> imageGrids(const Tensor &t) {
  if (t.rank() != 2 || t.shape[1] != 3 || t.dtype != DType::i64)
    fail("image_grid_thw is ", dtypeName(t.dtype), " ", shapeString(t.shape), "; expected i64 [images, 3]");
  std::vector<std::array<int64_t, 3>> grids(static_cast<size_t>(t.shape[0]));
  for (size_t i = 0; i < grids.size(); ++i)
    std::copy_n(t.as<int64_t>() + 3 * i, 3, grids[i].begin());
  return grids;
}

} // namespace mm::rt
