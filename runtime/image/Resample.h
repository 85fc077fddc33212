//===- Resample.h - Pillow's convolution resampling, bit-exact ---------------===//
//
// Pillow's Image.resize((width, height), filter) of an 8-bit RGB image for the filters
// that go through its convolution resampler (libImaging/Resample.c): box, bilinear,
// hamming, bicubic (a = -0.5) and lanczos (a = 3). Each is separable: a horizontal pass,
// then a vertical one (a pass is skipped when its side keeps its size), each tap's weight
// the filter at (x + xmin - center + 0.5) / filterscale normalised to sum 1 and rounded to
// 22-bit fixed point, each pass rounding to 8 bits and clamping, so results are identical
// to Pillow's. The filter is widened by the scale when shrinking (filterscale = max(in /
// out, 1)). Pillow's nearest-neighbour resize uses another algorithm (an affine
// transform) and is refused, as is a reducing_gap (transformers passes none).
//
// The ids are Pillow's (PIL.Image.Resampling), as preprocessor_config.json's `resample`
// writes them.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_IMAGE_RESAMPLE_H
#define MM_RUNTIME_IMAGE_RESAMPLE_H

#include "runtime/image/Image.h"

#include <cstdint>

namespace mm::rt {

/// PIL.Image.Resampling ids.
enum class ResampleFilter : int {
  Nearest = 0,
  Lanczos = 1,
  Bilinear = 2,
  Bicubic = 3,
  Box = 4,
  Hamming = 5,
};

/// "bicubic", "lanczos", ... (Pillow's names, lower case).
const char *resampleFilterName(ResampleFilter filter);

/// The filter with Pillow id `id` (0-5); throws Error (naming `what`) for other ids and
/// for nearest (0), whose Pillow algorithm this does not implement.
ResampleFilter resampleFilterFromId(int64_t id, const std::string &what);

/// Pillow's image.resize((width, height), filter): the image itself when the size is
/// unchanged. Throws Error for an empty image or target, a target over kMaxImagePixels,
/// and the nearest filter.
RgbImage resizePillow(const RgbImage &image, int64_t height, int64_t width, ResampleFilter filter);

} // namespace mm::rt

#endif
