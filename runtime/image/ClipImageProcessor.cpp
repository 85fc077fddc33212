//===- ClipImageProcessor.cpp - CLIPImageProcessor ---------------------------===//
#include "runtime/image/ClipImageProcessor.h"

#include "runtime/core/Error.h"
#include "runtime/image/ProcessorUtil.h"

#include <algorithm>
#include <cmath>

namespace mm::rt {

using imgproc::json;

RgbImage resizeBicubic(const RgbImage &image, int64_t height, int64_t width) {
  return resizePillow(image, height, width, ResampleFilter::Bicubic);
}

namespace imgproc {

ClipProcessorConfig parseClipFields(const json &j, const std::string &what) {
  ClipProcessorConfig c;
  c.doResize = io::optionalBool(j, "do_resize", true, what);
  c.doCenterCrop = io::optionalBool(j, "do_center_crop", true, what);
  c.doConvertRgb = io::optionalBool(j, "do_convert_rgb", true, what);
  c.resample = readResample(j, ResampleFilter::Bicubic, what);
  if (auto it = j.find("size"); it != j.end() && !it->is_null()) {
    if (it->is_object()) {
      if (!it->contains("shortest_edge"))
        fail(what, ": 'size' ", it->dump(), " has no shortest_edge (height/width resizes "
             "are not supported)");
      if (it->contains("longest_edge"))
        fail(what, ": 'size' ", it->dump(), " has a longest_edge, which is not supported");
      c.shortestEdge = readPositive((*it)["shortest_edge"], "size.shortest_edge", what);
    } else
      c.shortestEdge = readPositive(*it, "size", what);
  }
  if (auto it = j.find("crop_size"); it != j.end() && !it->is_null()) {
    if (it->is_object()) {
      if (!it->contains("height") || !it->contains("width"))
        fail(what, ": 'crop_size' needs height and width");
      c.cropHeight = readPositive((*it)["height"], "crop_size.height", what);
      c.cropWidth = readPositive((*it)["width"], "crop_size.width", what);
    } else
      c.cropHeight = c.cropWidth = readPositive(*it, "crop_size", what);
    if (c.cropHeight * c.cropWidth > kMaxImagePixels)
      fail(what, ": crop_size ", c.cropWidth, " x ", c.cropHeight, " is over ", kMaxImagePixels,
           " pixels");
  }
  setPixelSteps(c, readPixelSteps(j, kClipMean, kClipStd, what));
  return c;
}

} // namespace imgproc

ClipProcessorConfig parseClipProcessorConfig(const std::string &text, const std::string &what) {
  const json j = io::parseJsonObject(text, what);
  imgproc::checkProcessorType(j, {"CLIPImageProcessor"}, what);
  imgproc::refuseFlag(j, "do_pad", what, "CLIPImageProcessor pads only to a pad_size");
  return imgproc::parseClipFields(j, what);
}

std::vector<float> clipPixelValues(const RgbImage &image, const ClipProcessorConfig &c,
                                   int64_t &height, int64_t &width) {
  imgproc::checkImage(image, "CLIPImageProcessor");
  const RgbImage *im = &image;
  RgbImage resized;
  if (c.doResize) {
    // transformers' get_resize_output_image_size(default_to_square=False).
    const bool portrait = im->width <= im->height;
    const int64_t shortSide = portrait ? im->width : im->height;
    const int64_t longSide = portrait ? im->height : im->width;
    const int64_t newLong = int64_t(double(c.shortestEdge * longSide) / double(shortSide));
    if (newLong > kMaxImagePixels / c.shortestEdge)
      fail("the processor's shortest_edge ", c.shortestEdge, " resizes the ", image.width, " x ",
           image.height, " image to over ", kMaxImagePixels, " pixels");
    resized = resizePillow(image, portrait ? newLong : c.shortestEdge,
                           portrait ? c.shortestEdge : newLong, c.resample);
    im = &resized;
  }
  // transformers' center_crop: a window at floor((h - ch) / 2), zero padding where the
  // window leaves the image (centered with the padding rounded up on the top and left).
  int64_t top = 0, left = 0, padTop = 0, padLeft = 0;
  height = im->height;
  width = im->width;
  if (c.doCenterCrop) {
    auto floorHalf = [](int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); };
    top = floorHalf(im->height - c.cropHeight);
    left = floorHalf(im->width - c.cropWidth);
    if (top < 0 || left < 0) {
      padTop = (std::max(c.cropHeight, im->height) - im->height + 1) / 2;
      padLeft = (std::max(c.cropWidth, im->width) - im->width + 1) / 2;
      top = std::max<int64_t>(0, top + padTop);
      left = std::max<int64_t>(0, left + padLeft);
    }
    height = std::min(c.cropHeight, std::max(c.cropHeight, im->height) - top);
    width = std::min(c.cropWidth, std::max(c.cropWidth, im->width) - left);
  }
  const imgproc::PixelSteps steps = imgproc::pixelStepsOf(c);
  std::vector<float> out(size_t(3 * height * width));
  for (int ch = 0; ch < 3; ++ch)
    for (int64_t y = 0; y < height; ++y)
      for (int64_t x = 0; x < width; ++x) {
        // Position in the (padded) image: padding rows and columns are zero.
        const int64_t sy = y + top - padTop, sx = x + left - padLeft;
        const bool inside = sy >= 0 && sy < im->height && sx >= 0 && sx < im->width;
        out[size_t((ch * height + y) * width + x)] =
            imgproc::pixelValue(inside ? im->at(sy, sx, ch) : uint8_t(0), ch, steps);
      }
  return out;
}

} // namespace mm::rt
