//===- Idefics3ImageProcessor.h - Idefics3 / SmolVLM image preprocessing -----===//
//
// transformers' Idefics3ImageProcessor and SmolVLMImageProcessor (the same code; v5's
// AutoImageProcessor picks their PIL backends, Idefics3ImageProcessorPil /
// SmolVLMImageProcessorPil, because they resize with Lanczos) for one image, step for
// step (all resizes are Pillow's, with `resample`, LANCZOS = 1 by default, on the uint8
// image; Resample.h, bit-exact):
//   1. do_resize: size {longest_edge: L} resizes the longest side to L, up or down:
//        aspect = w / h; if w >= h: w' = L, h' = int(L / aspect), +1 when odd;
//        else h' = L, w' = int(L * aspect), +1 when odd; both at least 1;
//      then, if the longer side is over 4096 (MAX_IMAGE_SIZE), scaled to 4096 the same way
//      (without the even rounding); size {height, width} resizes to exactly that;
//   2. do_image_splitting (M = max_image_size.longest_edge):
//      resize_for_vision_encoder: aspect = w / h; if w >= h: w' = ceil(w / M) * M,
//        h' = ceil(int(w' / aspect) / M) * M; else h' = ceil(h / M) * M,
//        w' = ceil(int(h' * aspect) / M) * M;
//      split: if h' > M or w' > M: rows = h' / M, cols = w' / M tiles of M x M, row-major,
//        then the global image: the whole h' x w' image resized to M x M; else the one
//        M x M image and rows = cols = 0;
//      without splitting: the image resized to M x M, rows = cols = 0;
//   3. rescale and normalise (mean = std = 0.5 by default) in float32;
//   4. do_pad: frames padded to the batch's largest (for one image every frame is M x M,
//      so nothing is padded) and pixel_attention_mask all ones;
// giving pixel_values [1, frames, 3, M, M] (frames = rows * cols + 1, or 1).
//
// Prompt: Idefics3Processor / SmolVLMProcessor replace "<image>" by, when split,
//   for each row r, col c: "<fake_token_around_image><row_{r}_col_{c}>" + "<image>" * n,
//   "\n" after each row, then "\n<fake_token_around_image><global-img>" + "<image>" * n +
//   "<fake_token_around_image>";
// unsplit: "<fake_token_around_image><global-img>" + "<image>" * n +
// "<fake_token_around_image>"; n = image_seq_len (processor_config.json; 169 by default;
// the model's int((image_size // patch_size)^2 / scale_factor^2)).
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_IMAGE_IDEFICS3IMAGEPROCESSOR_H
#define MM_RUNTIME_IMAGE_IDEFICS3IMAGEPROCESSOR_H

#include "runtime/image/Image.h"
#include "runtime/image/Resample.h"

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace mm::rt {

struct Idefics3ProcessorConfig {
  bool doResize = true, doRescale = true, doNormalize = true, doConvertRgb = true;
  bool doImageSplitting = true, doPad = true;
  int64_t longestEdge = 4 * 364;        ///< size.longest_edge (0 when size is height/width)
  int64_t sizeHeight = 0, sizeWidth = 0; ///< size {height, width}
  int64_t maxImageSize = 364;           ///< max_image_size.longest_edge
  ResampleFilter resample = ResampleFilter::Lanczos;
  double rescaleFactor = 1.0 / 255.0;
  std::array<float, 3> mean{0.5f, 0.5f, 0.5f}, std{0.5f, 0.5f, 0.5f};
};

/// Reads an Idefics3ImageProcessor or SmolVLMImageProcessor preprocessor_config.json.
/// Refuses resample 0, a size or max_image_size of another form, and malformed fields.
Idefics3ProcessorConfig parseIdefics3ProcessorConfig(const std::string &json,
                                                     const std::string &what);

/// Step 1's size for a longest edge of `longestEdge`: {height, width}.
std::pair<int64_t, int64_t> idefics3ResizeSize(int64_t height, int64_t width, int64_t longestEdge);
/// Step 2's resize_for_vision_encoder size: {height, width}.
std::pair<int64_t, int64_t> idefics3VisionEncoderSize(int64_t height, int64_t width,
                                                      int64_t maxImageSize);

struct Idefics3Pixels {
  std::vector<float> values;       ///< [frames, 3, size, size]
  int64_t frames = 0, size = 0;    ///< tiles + global image (or 1), max_image_size
  int64_t rows = 0, cols = 0;      ///< the tile grid (0, 0 when not split)
};

/// The processor's pixel_values for one image.
Idefics3Pixels idefics3PixelValues(const RgbImage &image, const Idefics3ProcessorConfig &config);

/// Idefics3Processor's expansion of one "<image>" for a rows x cols split.
std::string idefics3ImagePromptString(int64_t rows, int64_t cols, int64_t imageSeqLen,
                                      const std::string &fakeToken = "<fake_token_around_image>",
                                      const std::string &imageToken = "<image>",
                                      const std::string &globalToken = "<global-img>");

/// image_seq_len from the model: int(((image_size // patch_size) ** 2) / (scale_factor**2)).
int64_t idefics3ImageSeqLen(int64_t imageSize, int64_t patchSize, int64_t scaleFactor);

} // namespace mm::rt

#endif
