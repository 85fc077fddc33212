//===- Idefics3ImageProcessor.cpp - Idefics3ImageProcessor / SmolVLM ---------===//
#include "runtime/image/Idefics3ImageProcessor.h"

#include "runtime/core/Error.h"
#include "runtime/image/ProcessorUtil.h"

#include <algorithm>
#include <cmath>

namespace mm::rt {
namespace {

using imgproc::json;

constexpr int64_t kMaxImageSide = 4096; // transformers' MAX_IMAGE_SIZE

/// _resize_output_size_rescale_to_max_len(height, width, min_len=1, max_len).
std::pair<int64_t, int64_t> rescaleToMaxLen(int64_t height, int64_t width, int64_t maxLen) {
  const double aspect = double(width) / double(height);
  if (width >= height) {
    width = maxLen;
    height = int64_t(double(width) / aspect);
    if (height % 2 != 0)
      ++height;
  } else {
    height = maxLen;
    width = int64_t(double(height) * aspect);
    if (width % 2 != 0)
      ++width;
  }
  return {std::max<int64_t>(height, 1), std::max<int64_t>(width, 1)};
}

/// _resize_output_size_scale_below_upper_bound(height, width, max_len).
std::pair<int64_t, int64_t> scaleBelowUpperBound(int64_t height, int64_t width, int64_t maxLen) {
  const double aspect = double(width) / double(height);
  if (width >= height && width > maxLen) {
    width = maxLen;
    height = int64_t(double(width) / aspect);
  } else if (height > width && height > maxLen) {
    height = maxLen;
    width = int64_t(double(height) * aspect);
  }
  return {std::max<int64_t>(height, 1), std::max<int64_t>(width, 1)};
}

/// ceil(v / m) * m, v / m as Python's true division.
int64_t ceilTo(int64_t v, int64_t m) { return int64_t(std::ceil(double(v) / double(m))) * m; }

RgbImage resizeChecked(const RgbImage &image, int64_t height, int64_t width,
                       const Idefics3ProcessorConfig &c, const char *step) {
  if (height <= 0 || width <= 0 || height > kMaxImagePixels / width)
    fail("Idefics3ImageProcessor: ", step, " resizes the ", image.width, " x ", image.height,
         " image to ", width, " x ", height, ", which is empty or over ", kMaxImagePixels,
         " pixels");
  return resizePillow(image, height, width, c.resample);
}

/// `image`'s rows y0.. and columns x0.. of an M x M tile.
RgbImage tile(const RgbImage &image, int64_t y0, int64_t x0, int64_t m) {
  RgbImage out;
  out.height = out.width = m;
  out.pixels.resize(size_t(m * m * 3));
  for (int64_t y = 0; y < m; ++y)
    std::copy_n(&image.pixels[size_t(((y0 + y) * image.width + x0) * 3)], size_t(m * 3),
                &out.pixels[size_t(y * m * 3)]);
  return out;
}

} // namespace

Idefics3ProcessorConfig parseIdefics3ProcessorConfig(const std::string &text,
                                                     const std::string &what) {
  using namespace imgproc;
  const json j = io::parseJsonObject(text, what);
  checkProcessorType(j, {"Idefics3ImageProcessor", "SmolVLMImageProcessor"}, what);
  Idefics3ProcessorConfig c;
  c.doResize = io::optionalBool(j, "do_resize", true, what);
  c.doConvertRgb = io::optionalBool(j, "do_convert_rgb", true, what);
  c.doImageSplitting = io::optionalBool(j, "do_image_splitting", true, what);
  c.doPad = io::optionalBool(j, "do_pad", true, what);
  c.resample = readResample(j, ResampleFilter::Lanczos, what);
  if (auto it = j.find("size"); it != j.end() && !it->is_null()) {
    if (it->is_object() && it->contains("longest_edge")) {
      c.longestEdge = readPositive((*it)["longest_edge"], "size.longest_edge", what);
    } else if (it->is_object() && it->contains("height") && it->contains("width")) {
      c.longestEdge = 0;
      c.sizeHeight = readPositive((*it)["height"], "size.height", what);
      c.sizeWidth = readPositive((*it)["width"], "size.width", what);
    } else {
      fail(what, ": 'size' ", it->dump(), " is neither {\"longest_edge\": L} nor "
           "{\"height\": H, \"width\": W}");
    }
  }
  if (auto it = j.find("max_image_size"); it != j.end() && !it->is_null()) {
    if (!it->is_object() || !it->contains("longest_edge"))
      fail(what, ": 'max_image_size' ", it->dump(), " is not {\"longest_edge\": M}");
    c.maxImageSize = readPositive((*it)["longest_edge"], "max_image_size.longest_edge", what);
  }
  setPixelSteps(c, readPixelSteps(j, kHalf, kHalf, what));
  return c;
}

std::pair<int64_t, int64_t> idefics3ResizeSize(int64_t height, int64_t width, int64_t longestEdge) {
  const auto [h, w] = rescaleToMaxLen(height, width, longestEdge);
  return scaleBelowUpperBound(h, w, kMaxImageSide);
}

std::pair<int64_t, int64_t> idefics3VisionEncoderSize(int64_t height, int64_t width,
                                                      int64_t maxImageSize) {
  const double aspect = double(width) / double(height);
  if (width >= height) {
    width = ceilTo(width, maxImageSize);
    height = ceilTo(int64_t(double(width) / aspect), maxImageSize);
  } else {
    height = ceilTo(height, maxImageSize);
    width = ceilTo(int64_t(double(height) * aspect), maxImageSize);
  }
  return {height, width};
}

Idefics3Pixels idefics3PixelValues(const RgbImage &image, const Idefics3ProcessorConfig &c) {
  imgproc::checkImage(image, "Idefics3ImageProcessor");
  const int64_t m = c.maxImageSize;
  RgbImage im = image;
  if (c.doResize) {
    const auto [h, w] = c.longestEdge > 0
                            ? idefics3ResizeSize(im.height, im.width, c.longestEdge)
                            : std::pair<int64_t, int64_t>{c.sizeHeight, c.sizeWidth};
    im = resizeChecked(im, h, w, c, "size");
  }
  Idefics3Pixels out;
  out.size = m;
  std::vector<RgbImage> frames;
  if (c.doImageSplitting) {
    const auto [h, w] = idefics3VisionEncoderSize(im.height, im.width, m);
    im = resizeChecked(im, h, w, c, "resize_for_vision_encoder");
    if (im.height > m || im.width > m) {
      out.rows = (im.height - m) / m + 1;
      out.cols = (im.width - m) / m + 1;
      // Real configs give at most a few dozen tiles (SmolVLM: 4 x 4 at 1536 / 384); a tiny
      // max_image_size with do_resize false would give millions of separate images.
      constexpr int64_t kMaxTiles = 1024;
      if (out.rows * out.cols > kMaxTiles)
        fail("Idefics3ImageProcessor: ", im.width, " x ", im.height, " pixels split into ",
             out.rows, " x ", out.cols, " tiles of ", m, " px, over the ", kMaxTiles,
             " tiles allowed (raise max_image_size or resize)");
      for (int64_t r = 0; r < out.rows; ++r)
        for (int64_t col = 0; col < out.cols; ++col)
          frames.push_back(tile(im, r * m, col * m, m));
      frames.push_back(resizeChecked(im, m, m, c, "the global image"));
    } else {
      frames.push_back(std::move(im));
    }
  } else {
    frames.push_back(resizeChecked(im, m, m, c, "max_image_size"));
  }
  out.frames = int64_t(frames.size());
  const imgproc::PixelSteps s = imgproc::pixelStepsOf(c);
  out.values.resize(size_t(out.frames * 3 * m * m));
  for (size_t f = 0; f < frames.size(); ++f)
    imgproc::writePlanes(frames[f], s, &out.values[f * size_t(3 * m * m)]);
  return out;
}

std::string idefics3ImagePromptString(int64_t rows, int64_t cols, int64_t imageSeqLen,
                                      const std::string &fakeToken, const std::string &imageToken,
                                      const std::string &globalToken) {
  std::string images;
  for (int64_t i = 0; i < imageSeqLen; ++i)
    images += imageToken;
  if (rows == 0 && cols == 0)
    return fakeToken + globalToken + images + fakeToken;
  std::string text;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t col = 0; col < cols; ++col)
      text += fakeToken + "<row_" + std::to_string(r + 1) + "_col_" + std::to_string(col + 1) +
              ">" + images;
    text += "\n";
  }
  return text + "\n" + fakeToken + globalToken + images + fakeToken;
}

int64_t idefics3ImageSeqLen(int64_t imageSize, int64_t patchSize, int64_t scaleFactor) {
  if (imageSize <= 0 || patchSize <= 0 || scaleFactor <= 0)
    fail("image_seq_len: image_size ", imageSize, ", patch_size ", patchSize,
         " and scale_factor ", scaleFactor, " must be positive");
  const int64_t side = imageSize / patchSize;
  return side * side / (scaleFactor * scaleFactor);
}

} // namespace mm::rt
