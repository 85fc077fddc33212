//===- Qwen2VlImageProcessor.cpp - Qwen2VLImageProcessor ---------------------===//
#include "runtime/image/Qwen2VlImageProcessor.h"

#include "runtime/core/Error.h"
#include "runtime/image/ProcessorUtil.h"

#include <algorithm>
#include <cmath>

namespace mm::rt {
namespace {

using imgproc::json;

/// Python's round() of a double to an integer: half to even (nearbyint in the default
/// rounding mode).
int64_t pythonRound(double v) { return int64_t(std::nearbyint(v)); }

/// The min/max pixel limits, as Qwen2VLImageProcessor.__init__ settles them: size (or
/// the class default), then top-level min_pixels / max_pixels written over its
/// shortest_edge / longest_edge (dropping size.min_pixels / size.max_pixels), and both
/// keys required.
void readPixelLimits(const json &j, Qwen2VlProcessorConfig &c, const std::string &what) {
  constexpr int64_t kMaxLimit = int64_t(1) << 40;
  json size = json{{"shortest_edge", c.minPixels}, {"longest_edge", c.maxPixels}};
  if (auto it = j.find("size"); it != j.end() && !it->is_null()) {
    if (!it->is_object())
      fail(what, ": 'size' is not an object {\"shortest_edge\": min_pixels, \"longest_edge\": "
           "max_pixels}");
    size = *it;
  }
  for (const auto &[key, sizeKey] : {std::pair{"min_pixels", "shortest_edge"},
                                     std::pair{"max_pixels", "longest_edge"}})
    if (auto it = j.find(key); it != j.end() && !it->is_null()) {
      size[sizeKey] = *it;
      size.erase(key);
    }
  for (const auto &[key, value] : size.items())
    if (key != "shortest_edge" && key != "longest_edge")
      fail(what, ": 'size' has a key '", key, "' (Qwen2VLImageProcessor takes shortest_edge "
           "and longest_edge, or top-level min_pixels and max_pixels)");
  if (!size.contains("shortest_edge") || !size.contains("longest_edge"))
    fail(what, ": 'size' ", size.dump(), " needs shortest_edge and longest_edge (or give "
         "min_pixels and max_pixels)");
  c.minPixels = imgproc::readPositive(size["shortest_edge"], "size.shortest_edge (min_pixels)",
                                      what, kMaxImagePixels);
  c.maxPixels = imgproc::readPositive(size["longest_edge"], "size.longest_edge (max_pixels)",
                                      what, kMaxLimit);
}

} // namespace

Qwen2VlProcessorConfig parseQwen2VlProcessorConfig(const std::string &text,
                                                   const std::string &what) {
  using namespace imgproc;
  const json j = io::parseJsonObject(text, what);
  checkProcessorType(j, {"Qwen2VLImageProcessor"}, what);
  Qwen2VlProcessorConfig c;
  c.doResize = io::optionalBool(j, "do_resize", true, what);
  c.doConvertRgb = io::optionalBool(j, "do_convert_rgb", true, what);
  refuseFlag(j, "do_center_crop", what, "Qwen2VLImageProcessor does not crop");
  refuseFlag(j, "do_pad", what, "Qwen2VLImageProcessor does not pad");
  c.resample = readResample(j, ResampleFilter::Bicubic, what);
  readPixelLimits(j, c, what);
  c.patchSize = readPositiveKey(j, "patch_size", c.patchSize, what, 4096);
  c.temporalPatchSize = readPositiveKey(j, "temporal_patch_size", c.temporalPatchSize, what, 64);
  c.mergeSize = readPositiveKey(j, "merge_size", c.mergeSize, what, 64);
  setPixelSteps(c, readPixelSteps(j, kClipMean, kClipStd, what));
  return c;
}

std::pair<int64_t, int64_t> qwen2VlSmartResize(int64_t height, int64_t width, int64_t factor,
                                               int64_t minPixels, int64_t maxPixels) {
  if (height <= 0 || width <= 0 || factor <= 0)
    fail("smart_resize: ", width, " x ", height, " (factor ", factor, ") is empty");
  const double aspect = double(std::max(height, width)) / double(std::min(height, width));
  if (aspect > 200)
    fail("smart_resize: the ", width, " x ", height, " image's aspect ratio ", aspect,
         " is over 200, which Qwen2VLImageProcessor refuses");
  const double f = double(factor);
  int64_t hBar = pythonRound(double(height) / f) * factor;
  int64_t wBar = pythonRound(double(width) / f) * factor;
  const double area = double(height * width);
  if (hBar * wBar > maxPixels) {
    const double beta = std::sqrt(area / double(maxPixels));
    hBar = std::max(factor, int64_t(std::floor(double(height) / beta / f)) * factor);
    wBar = std::max(factor, int64_t(std::floor(double(width) / beta / f)) * factor);
  } else if (hBar * wBar < minPixels) {
    const double beta = std::sqrt(double(minPixels) / area);
    hBar = int64_t(std::ceil(double(height) * beta / f)) * factor;
    wBar = int64_t(std::ceil(double(width) * beta / f)) * factor;
  }
  return {hBar, wBar};
}

Qwen2VlPixels qwen2VlPixelValues(const RgbImage &image, const Qwen2VlProcessorConfig &c) {
  imgproc::checkImage(image, "Qwen2VLImageProcessor");
  const int64_t P = c.patchSize, m = c.mergeSize, T = c.temporalPatchSize;
  const int64_t factor = P * m;
  RgbImage resized;
  const RgbImage *im = &image;
  if (c.doResize) {
    const auto [h, w] = qwen2VlSmartResize(image.height, image.width, factor, c.minPixels,
                                           c.maxPixels);
    if (h > kMaxImagePixels / w)
      fail("Qwen2VLImageProcessor: smart_resize gives ", w, " x ", h, ", over ", kMaxImagePixels,
           " pixels");
    resized = resizePillow(image, h, w, c.resample);
    im = &resized;
  } else if (image.height % factor != 0 || image.width % factor != 0) {
    fail("Qwen2VLImageProcessor with do_resize false: the ", image.width, " x ", image.height,
         " image's sides are not multiples of patch_size * merge_size = ", factor,
         " (transformers' reshape into patches fails)");
  }
  Qwen2VlPixels out;
  const int64_t gh = im->height / P, gw = im->width / P;
  out.gridThw = {1, gh, gw};
  out.patches = gh * gw;
  out.patchDim = 3 * T * P * P;
  if (out.patches > kMaxImagePixels / out.patchDim)
    fail("Qwen2VLImageProcessor: ", out.patches, " patches of ", out.patchDim,
         " values are too many");
  const imgproc::PixelSteps s = imgproc::pixelStepsOf(c);
  std::vector<float> planes(size_t(3 * im->height * im->width));
  imgproc::writePlanes(*im, s, planes.data());
  out.values.resize(size_t(out.patches * out.patchDim));
  float *dst = out.values.data();
  // Rows in (bh, bw, mh, mw) order, columns in (c, t, ph, pw) order; the T frames are the
  // same image.
  for (int64_t bh = 0; bh < gh / m; ++bh)
    for (int64_t bw = 0; bw < gw / m; ++bw)
      for (int64_t mh = 0; mh < m; ++mh)
        for (int64_t mw = 0; mw < m; ++mw) {
          const int64_t y0 = (bh * m + mh) * P, x0 = (bw * m + mw) * P;
          for (int64_t ch = 0; ch < 3; ++ch)
            for (int64_t t = 0; t < T; ++t)
              for (int64_t ph = 0; ph < P; ++ph) {
                const float *src = &planes[size_t((ch * im->height + y0 + ph) * im->width + x0)];
                dst = std::copy_n(src, size_t(P), dst);
              }
        }
  return out;
}

int64_t qwen2VlImageTokens(const std::array<int64_t, 3> &gridThw, int64_t mergeSize) {
  return gridThw[0] * gridThw[1] * gridThw[2] / (mergeSize * mergeSize);
}

} // namespace mm::rt
