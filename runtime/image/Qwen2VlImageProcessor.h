//===- Qwen2VlImageProcessor.h - Qwen2-VL image preprocessing ----------------===//
//
// transformers' Qwen2VLImageProcessor as its PIL backend (v5: Qwen2VLImageProcessorPil)
// computes it, for one image, step for step:
//   1. smart_resize(h, w, factor = patch_size * merge_size, min_pixels, max_pixels), as
//      transformers v5 writes it:
//        aspect max/min > 200: error;
//        h', w' = round(h / factor) * factor, round(w / factor) * factor (Python round:
//        half to even);
//        if h' * w' > max_pixels: beta = sqrt(h * w / max_pixels),
//          h' = max(factor, floor(h / beta / factor) * factor), w' likewise;
//        elif h' * w' < min_pixels: beta = sqrt(min_pixels / (h * w)),
//          h' = ceil(h * beta / factor) * factor, w' likewise;
//      (transformers 4.x also refused sides under `factor`; v5 resizes them up), then
//      Pillow's resize to h' x w' with `resample` (bicubic by default; Resample.h);
//   2. rescale and normalise (OpenAI CLIP mean/std by default) in float32;
//   3. patchify: the image is one frame, repeated temporal_patch_size times (grid_t = 1);
//      patches [1, grid_t, T, C, gh/m, m, P, gw/m, m, P] transposed to
//      (0, 1, 4, 7, 5, 8, 3, 2, 6, 9) and flattened to
//      pixel_values [grid_t * gh * gw, C * T * P * P], gh = h' / P, gw = w' / P: row
//      (t, bh, bw, mh, mw) holds pixel (y, x) = ((bh*m + mh)*P + ph, (bw*m + mw)*P + pw) of
//      channel c at column ((c*T + tt)*P + ph)*P + pw;
//   image_grid_thw = [[grid_t, gh, gw]].
// The size limits come from min_pixels / max_pixels (top-level, as the Qwen2-VL configs
// write them) or size {shortest_edge, longest_edge} (the former win, as in transformers'
// __init__). Qwen2VLProcessor replaces "<|image_pad|>" by grid_t*gh*gw / merge_size^2
// copies of it (the prompt's "<|vision_start|><|image_pad|><|vision_end|>" keeps its
// delimiters).
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_IMAGE_QWEN2VLIMAGEPROCESSOR_H
#define MM_RUNTIME_IMAGE_QWEN2VLIMAGEPROCESSOR_H

#include "runtime/image/Image.h"
#include "runtime/image/Resample.h"

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace mm::rt {

struct Qwen2VlProcessorConfig {
  bool doResize = true, doRescale = true, doNormalize = true, doConvertRgb = true;
  int64_t minPixels = 56 * 56, maxPixels = 28 * 28 * 1280;
  int64_t patchSize = 14, temporalPatchSize = 2, mergeSize = 2;
  ResampleFilter resample = ResampleFilter::Bicubic;
  double rescaleFactor = 1.0 / 255.0;
  std::array<float, 3> mean{0.48145466f, 0.4578275f, 0.40821073f};
  std::array<float, 3> std{0.26862954f, 0.26130258f, 0.27577711f};
};

/// Reads a Qwen2VLImageProcessor preprocessor_config.json. Refuses a size without
/// shortest_edge and longest_edge (after min_pixels / max_pixels override them), resample
/// 0, and malformed fields.
Qwen2VlProcessorConfig parseQwen2VlProcessorConfig(const std::string &json,
                                                   const std::string &what);

/// transformers' smart_resize: {height, width}. Throws Error for an aspect ratio over 200.
std::pair<int64_t, int64_t> qwen2VlSmartResize(int64_t height, int64_t width, int64_t factor,
                                               int64_t minPixels, int64_t maxPixels);

struct Qwen2VlPixels {
  std::vector<float> values;        ///< [patches, patchDim]
  int64_t patches = 0, patchDim = 0; ///< grid_t * gh * gw, C * T * P * P
  std::array<int64_t, 3> gridThw{};  ///< grid_t, gh, gw
};

/// The processor's pixel_values and image_grid_thw for one image.
Qwen2VlPixels qwen2VlPixelValues(const RgbImage &image, const Qwen2VlProcessorConfig &config);

/// Qwen2VLProcessor's number of image tokens: grid_t * gh * gw / merge_size^2.
int64_t qwen2VlImageTokens(const std::array<int64_t, 3> &gridThw, int64_t mergeSize);

} // namespace mm::rt

#endif
