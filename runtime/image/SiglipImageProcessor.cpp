//===- SiglipImageProcessor.cpp - SiglipImageProcessor -----------------------===//
#include "runtime/image/SiglipImageProcessor.h"

#include "runtime/core/Error.h"
#include "runtime/image/ProcessorUtil.h"

namespace mm::rt {

SiglipProcessorConfig parseSiglipProcessorConfig(const std::string &text, const std::string &what) {
  using namespace imgproc;
  const json j = io::parseJsonObject(text, what);
  checkProcessorType(j, {"SiglipImageProcessor"}, what);
  SiglipProcessorConfig c;
  c.doResize = io::optionalBool(j, "do_resize", true, what);
  c.doConvertRgb = io::optionalBool(j, "do_convert_rgb", true, what);
  refuseFlag(j, "do_center_crop", what, "SiglipImageProcessor resizes to the full size");
  refuseFlag(j, "do_pad", what, "SiglipImageProcessor does not pad");
  c.resample = readResample(j, ResampleFilter::Bicubic, what);
  if (auto it = j.find("size"); it != j.end() && !it->is_null()) {
    if (!it->is_object() || !it->contains("height") || !it->contains("width") || it->size() != 2)
      fail(what, ": 'size' ", it->dump(), " is not {\"height\": H, \"width\": W} (the only "
           "SigLIP size supported)");
    c.height = readPositive((*it)["height"], "size.height", what);
    c.width = readPositive((*it)["width"], "size.width", what);
  }
  setPixelSteps(c, readPixelSteps(j, kHalf, kHalf, what));
  return c;
}

std::vector<float> siglipPixelValues(const RgbImage &image, const SiglipProcessorConfig &c,
                                     int64_t &height, int64_t &width) {
  imgproc::checkImage(image, "SiglipImageProcessor");
  const RgbImage resized = c.doResize ? resizePillow(image, c.height, c.width, c.resample) : image;
  height = resized.height;
  width = resized.width;
  const imgproc::PixelSteps s = imgproc::pixelStepsOf(c);
  std::vector<float> out(size_t(3 * height * width));
  imgproc::writePlanes(resized, s, out.data());
  return out;
}

} // namespace mm::rt
