//===- Image.h - decoding PNG and JPEG files into 8-bit RGB ------------------===//
//
// The pixels a Hugging Face image processor starts from: what Pillow's
// `Image.open(path).convert("RGB")` gives (transformers' convert_rgb), for PNG through
// libpng and JPEG through libjpeg-turbo (the decoders Pillow itself uses):
//   - PNG: palette and low bit depths expanded, grey replicated to RGB, alpha (and a
//     tRNS chunk) dropped, not composited; 16-bit samples keep their high byte, except
//     16-bit grey (Pillow's mode I), clamped to 255. Gamma chunks are ignored, as Pillow
//     ignores them, and so is everything after the image data (a missing IEND included).
//   - JPEG: baseline and progressive, greyscale or YCbCr, decoded to RGB with libjpeg's
//     defaults (islow IDCT, fancy upsampling), as Pillow decodes them. CMYK/YCCK JPEGs
//     are refused.
// Errors (missing, unreadable or not a regular file, over 1 GiB, not PNG/JPEG, corrupt or
// truncated data, more than kMaxImagePixels pixels) throw mm::rt::Error naming the file
// and the reason. Damaged files that Pillow decodes leniently (a wrong IDAT CRC, a cut
// inside the last IDAT, palette indices past PLTE) are refused or decode differently.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_IMAGE_IMAGE_H
#define MM_RUNTIME_IMAGE_IMAGE_H

#include <cstdint>
#include <string>
#include <vector>

namespace mm::rt {

/// An 8-bit RGB image, row-major [height, width, 3].
struct RgbImage {
  int64_t height = 0, width = 0;
  std::vector<uint8_t> pixels;
  uint8_t at(int64_t y, int64_t x, int c) const { return pixels[size_t((y * width + x) * 3 + c)]; }
};

/// Largest image decoded (height x width): Pillow's decompression-bomb limit (2 x
/// Image.MAX_IMAGE_PIXELS), above which Pillow, and so transformers, refuses to open one;
/// 512 MiB of RGB.
constexpr int64_t kMaxImagePixels = 178956970;
/// Largest image file read: 1 GiB.
constexpr uint64_t kMaxImageFileBytes = uint64_t(1) << 30;

/// Decodes a PNG or JPEG file (told apart by its signature, not its name).
RgbImage decodeImageFile(const std::string &path);
/// Decodes PNG or JPEG bytes; `what` names them in errors.
RgbImage decodeImage(const std::string &bytes, const std::string &what);

} // namespace mm::rt

#endif
