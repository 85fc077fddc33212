//===- SiglipImageProcessor.h - SigLIP image preprocessing -------------------===//
//
// transformers' SiglipImageProcessor (v5: SiglipImageProcessorPil, the PIL backend's
// generic pipeline with SigLIP's defaults) on an 8-bit RGB image, step for step:
//   1. resize to exactly size.height x size.width (no aspect ratio kept, no crop) with
//      Pillow's filter `resample` (bicubic, 3, by default; bilinear 2, lanczos 1, box 4 and
//      hamming 5 too: all bit-exact, Resample.h);
//   2. rescale: float32(pixel * rescale_factor), the product in double;
//   3. normalise: (x - mean[c]) / std[c] in float32 (mean = std = 0.5 by default);
// giving pixel_values [3, H, W]. SiglipProcessor does not expand an image token (SigLIP is
// a contrastive model; models that use its tower have their own processors).
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_IMAGE_SIGLIPIMAGEPROCESSOR_H
#define MM_RUNTIME_IMAGE_SIGLIPIMAGEPROCESSOR_H

#include "runtime/image/Image.h"
#include "runtime/image/Resample.h"

#include <array>
#include <string>
#include <vector>

namespace mm::rt {

struct SiglipProcessorConfig {
  bool doResize = true, doRescale = true, doNormalize = true, doConvertRgb = true;
  int64_t height = 224, width = 224;
  ResampleFilter resample = ResampleFilter::Bicubic;
  double rescaleFactor = 1.0 / 255.0;
  std::array<float, 3> mean{0.5f, 0.5f, 0.5f}, std{0.5f, 0.5f, 0.5f};
};

/// Reads a SiglipImageProcessor preprocessor_config.json. Refuses a size other than
/// {height, width} (an int or shortest_edge size keeps the aspect ratio in transformers:
/// not implemented), do_center_crop / do_pad true, resample 0, and malformed fields.
SiglipProcessorConfig parseSiglipProcessorConfig(const std::string &json, const std::string &what);

/// The processor's pixel_values for one image: [3, H, W] float32.
std::vector<float> siglipPixelValues(const RgbImage &image, const SiglipProcessorConfig &config,
                                     int64_t &height, int64_t &width);

} // namespace mm::rt

#endif
