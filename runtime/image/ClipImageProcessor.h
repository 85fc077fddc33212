//===- ClipImageProcessor.h - CLIP-style image preprocessing -----------------===//
//
// transformers' CLIPImageProcessor (used by LLaVA-1.5 and most CLIP/SigLIP towers) on an
// 8-bit RGB image, step for step:
//   1. resize so that the shorter side is `shortestEdge` (the longer one
//      int(shortestEdge * long / short)), with Pillow's filter `resample` (bicubic by
//      default; Resample.h, bit-exact);
//   2. center crop to cropHeight x cropWidth (top = (h - ch) / 2, left = (w - cw) / 2,
//      rounded down; a crop larger than the image pads with zeros, as transformers does);
//   3. rescale: float32(pixel * rescaleFactor), the product in double;
//   4. normalise: (x - mean[c]) / std[c] in float32;
// giving pixel_values [3, H, W] float32, channel-first. Each step can be switched off as
// the preprocessor_config.json flags do.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_IMAGE_CLIPIMAGEPROCESSOR_H
#define MM_RUNTIME_IMAGE_CLIPIMAGEPROCESSOR_H

#include "runtime/image/Image.h"
#include "runtime/image/Resample.h"

#include <array>
#include <string>
#include <vector>

namespace mm::rt {

/// The fields of a CLIPImageProcessor preprocessor_config.json this implements.
struct ClipProcessorConfig {
  bool doResize = true, doCenterCrop = true, doRescale = true, doNormalize = true;
  bool doConvertRgb = true;
  ResampleFilter resample = ResampleFilter::Bicubic;
  int64_t shortestEdge = 224;
  int64_t cropHeight = 224, cropWidth = 224;
  double rescaleFactor = 1.0 / 255.0;
  std::array<float, 3> mean{0.48145466f, 0.4578275f, 0.40821073f}; // OpenAI CLIP's
  std::array<float, 3> std{0.26862954f, 0.26130258f, 0.27577711f};
};

/// Reads a preprocessor_config.json (its text; `what` names it in errors). Refuses an
/// image_processor_type other than CLIPImageProcessor, resample 0 (nearest, not
/// implemented), a size given as height/width (or with a longest_edge) instead of
/// shortest_edge, do_pad true, and malformed fields. (ImageProcessor.h reads every
/// supported type, this one included.)
ClipProcessorConfig parseClipProcessorConfig(const std::string &json, const std::string &what);

/// Pillow's Image.resize((width, height), Image.BICUBIC) of an RGB image:
/// resizePillow(image, height, width, ResampleFilter::Bicubic) (Resample.h).
RgbImage resizeBicubic(const RgbImage &image, int64_t height, int64_t width);

/// The processor's pixel_values for one image: [3, H, W] float32.
std::vector<float> clipPixelValues(const RgbImage &image, const ClipProcessorConfig &config,
                                   int64_t &height, int64_t &width);

} // namespace mm::rt

#endif
