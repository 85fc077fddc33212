//===- LlavaImageProcessor.h - LLaVA-1.5's pad-to-square preprocessing -------===//
//
// transformers' LlavaImageProcessor (v5: LlavaImageProcessorPil, the PIL backend), which
// is CLIPImageProcessor with one step in front when `do_pad` is true: llava-1.5's
// `image_aspect_ratio: pad` (expand2square of the LLaVA repository):
//   0. pad_to_square: a max(h, w) square filled with background = tuple(int(m * 255) for m
//      in image_mean) (int() truncates: OpenAI CLIP's mean gives (122, 116, 104)), the
//      image pasted at offset (max - h) // 2 down or (max - w) // 2 across (rounded down,
//      as the LLaVA repository's paste); a square image is left as it is;
//   1-4. CLIPImageProcessor's resize, center crop, rescale, normalise (ClipImageProcessor.h),
// on the padded uint8 image. Without do_pad (the class default) it is CLIPImageProcessor.
//
// Prompt: LlavaProcessor (transformers v5 replace_image_token) expands each "<image>" to
//   (crop_h // patch_size) * (crop_w // patch_size) + num_additional_image_tokens
// copies, one fewer when vision_feature_select_strategy is "default"; llava-1.5-hf
// (patch 14, 336 crop, one additional token for CLS, "default") gives 576.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_IMAGE_LLAVAIMAGEPROCESSOR_H
#define MM_RUNTIME_IMAGE_LLAVAIMAGEPROCESSOR_H

#include "runtime/image/ClipImageProcessor.h"

#include <array>
#include <string>
#include <vector>

namespace mm::rt {

struct LlavaProcessorConfig {
  ClipProcessorConfig clip;
  bool doPad = false;
  std::array<uint8_t, 3> background{122, 116, 104}; ///< int(image_mean * 255)
};

/// Reads a LlavaImageProcessor (or CLIPImageProcessor) preprocessor_config.json: the CLIP
/// fields and do_pad. Refuses a background colour outside [0, 255] and malformed fields.
LlavaProcessorConfig parseLlavaProcessorConfig(const std::string &json, const std::string &what);

/// The pad_to_square step.
RgbImage llavaPadToSquare(const RgbImage &image, const std::array<uint8_t, 3> &background);

/// The processor's pixel_values for one image: [3, H, W] float32.
std::vector<float> llavaPixelValues(const RgbImage &image, const LlavaProcessorConfig &config,
                                    int64_t &height, int64_t &width);

/// LlavaProcessor's number of image tokens for pixel values of height x width.
int64_t llavaImageTokens(int64_t height, int64_t width, int64_t patchSize,
                         int64_t numAdditionalImageTokens, bool defaultStrategy);

} // namespace mm::rt

#endif
