//===- LlavaImageProcessor.cpp - LlavaImageProcessor (pad to square) ---------===//
#include "runtime/image/LlavaImageProcessor.h"

#include "runtime/core/Error.h"
#include "runtime/image/ProcessorUtil.h"

#include <algorithm>
#include <cmath>

namespace mm::rt {

LlavaProcessorConfig parseLlavaProcessorConfig(const std::string &text, const std::string &what) {
  const imgproc::json j = io::parseJsonObject(text, what);
  imgproc::checkProcessorType(j, {"LlavaImageProcessor", "CLIPImageProcessor"}, what);
  LlavaProcessorConfig c;
  c.clip = imgproc::parseClipFields(j, what);
  c.doPad = io::optionalBool(j, "do_pad", false, what);
  // background_color = tuple(int(x * 255) for x in image_mean), in double precision.
  const std::array<double, 3> mean = imgproc::readTriple(j, "image_mean", imgproc::kClipMean, what);
  for (size_t ch = 0; ch < 3; ++ch) {
    const double v = std::trunc(mean[ch] * 255.0);
    if (c.doPad && !(v >= 0 && v <= 255))
      fail(what, ": image_mean ", mean[ch], " gives the pad colour ", v,
           ", outside [0, 255]");
    c.background[ch] = uint8_t(std::clamp(v, 0.0, 255.0));
  }
  return c;
}

RgbImage llavaPadToSquare(const RgbImage &image, const std::array<uint8_t, 3> &background) {
  if (image.height == image.width)
    return image;
  const int64_t side = std::max(image.height, image.width);
  if (side > kMaxImagePixels / side)
    fail("pad to square: the ", image.width, " x ", image.height, " image pads to over ",
         kMaxImagePixels, " pixels");
  RgbImage out;
  out.height = out.width = side;
  out.pixels.resize(size_t(side * side * 3));
  for (size_t i = 0; i < out.pixels.size(); ++i)
    out.pixels[i] = background[i % 3];
  const int64_t top = image.width > image.height ? (side - image.height) / 2 : 0;
  const int64_t left = image.width > image.height ? 0 : (side - image.width) / 2;
  for (int64_t y = 0; y < image.height; ++y)
    std::copy_n(&image.pixels[size_t(y * image.width * 3)], size_t(image.width * 3),
                &out.pixels[size_t(((y + top) * side + left) * 3)]);
  return out;
}

std::vector<float> llavaPixelValues(const RgbImage &image, const LlavaProcessorConfig &c,
                                    int64_t &height, int64_t &width) {
  imgproc::checkImage(image, "LlavaImageProcessor");
  if (!c.doPad)
    return clipPixelValues(image, c.clip, height, width);
  return clipPixelValues(llavaPadToSquare(image, c.background), c.clip, height, width);
}

int64_t llavaImageTokens(int64_t height, int64_t width, int64_t patchSize,
                         int64_t numAdditionalImageTokens, bool defaultStrategy) {
  if (patchSize <= 0)
    fail("LlavaProcessor: patch_size ", patchSize, " is not positive");
  return (height / patchSize) * (width / patchSize) + numAdditionalImageTokens -
         (defaultStrategy ? 1 : 0);
}

} // namespace mm::rt
