//===- ClipImageProcessor.cpp - CLIPImageProcessor and Pillow's bicubic ------===//
#include "runtime/image/ClipImageProcessor.h"

#include "runtime/core/Error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace mm::rt {
namespace {

using json = nlohmann::json;

// ---- Pillow's resampling (libImaging/Resample.c, 8 bits per channel) ------------------

constexpr int kPrecisionBits = 32 - 8 - 2; // Pillow's PRECISION_BITS
constexpr double kBicubicSupport = 2.0;

double bicubicFilter(double x) {
  constexpr double a = -0.5;
  x = std::fabs(x);
  if (x < 1.0)
    return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
  if (x < 2.0)
    return (((x - 5) * x + 8) * x - 4) * a;
  return 0.0;
}

/// For each output index: the first input index, the number of taps, and their fixed-point
/// weights (Pillow's precompute_coeffs + normalize_coeffs_8bpc).
struct Coefficients {
  int64_t taps = 0; ///< weights per output index (ksize)
  std::vector<int64_t> first, count;
  std::vector<int32_t> weights; ///< [out][taps]
};

Coefficients coefficients(int64_t inSize, int64_t outSize) {
  const double scale = double(inSize) / double(outSize);
  const double filterScale = std::max(scale, 1.0);
  const double support = kBicubicSupport * filterScale;
  Coefficients c;
  c.taps = int64_t(std::ceil(support)) * 2 + 1;
  c.first.resize(size_t(outSize));
  c.count.resize(size_t(outSize));
  c.weights.assign(size_t(outSize * c.taps), 0);
  std::vector<double> k(size_t(c.taps));
  for (int64_t xx = 0; xx < outSize; ++xx) {
    const double center = (double(xx) + 0.5) * scale;
    const double ss = 1.0 / filterScale;
    const int64_t xmin = std::max<int64_t>(int64_t(center - support + 0.5), 0);
    const int64_t xmax = std::min<int64_t>(int64_t(center + support + 0.5), inSize) - xmin;
    double ww = 0.0;
    for (int64_t x = 0; x < xmax; ++x) {
      k[size_t(x)] = bicubicFilter((double(x + xmin) - center + 0.5) * ss);
      ww += k[size_t(x)];
    }
    for (int64_t x = 0; x < xmax; ++x) {
      const double w = ww != 0.0 ? k[size_t(x)] / ww : k[size_t(x)];
      const double f = w * double(1 << kPrecisionBits);
      c.weights[size_t(xx * c.taps + x)] = int32_t(w < 0 ? -0.5 + f : 0.5 + f);
    }
    c.first[size_t(xx)] = xmin;
    c.count[size_t(xx)] = xmax;
  }
  return c;
}

uint8_t clip8(int32_t v) { return uint8_t(std::clamp(v >> kPrecisionBits, 0, 255)); }

/// One pass along width (`horizontal`) or height, as ImagingResampleHorizontal_8bpc /
/// ImagingResampleVertical_8bpc.
RgbImage resamplePass(const RgbImage &in, int64_t outSize, bool horizontal) {
  const Coefficients c = coefficients(horizontal ? in.width : in.height, outSize);
  RgbImage out;
  out.height = horizontal ? in.height : outSize;
  out.width = horizontal ? outSize : in.width;
  out.pixels.resize(size_t(out.height * out.width * 3));
  for (int64_t y = 0; y < out.height; ++y)
    for (int64_t x = 0; x < out.width; ++x) {
      const int64_t o = horizontal ? x : y;
      const int32_t *k = &c.weights[size_t(o * c.taps)];
      for (int ch = 0; ch < 3; ++ch) {
        int32_t ss = 1 << (kPrecisionBits - 1);
        for (int64_t t = 0; t < c.count[size_t(o)]; ++t) {
          const int64_t src = c.first[size_t(o)] + t;
          ss += int32_t(horizontal ? in.at(y, src, ch) : in.at(src, x, ch)) * k[t];
        }
        out.pixels[size_t((y * out.width + x) * 3 + ch)] = clip8(ss);
      }
    }
  return out;
}

// ---- config -------------------------------------------------------------------------

bool readBool(const json &j, const char *key, bool fallback, const std::string &what) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null())
    return fallback;
  if (!it->is_boolean())
    fail(what, ": '", key, "' is not true or false");
  return it->get<bool>();
}

int64_t readPositive(const json &j, const char *key, const std::string &what) {
  if (!j.is_number_integer() || j.get<int64_t>() <= 0 || j.get<int64_t>() > 65536)
    fail(what, ": '", key, "' is not a positive integer of at most 65536");
  return j.get<int64_t>();
}

std::array<float, 3> readTriple(const json &j, const char *key, std::array<float, 3> fallback,
                                const std::string &what) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null())
    return fallback;
  if (!it->is_array() || it->size() != 3)
    fail(what, ": '", key, "' is not a list of 3 numbers");
  std::array<float, 3> v{};
  for (size_t i = 0; i < 3; ++i) {
    if (!(*it)[i].is_number())
      fail(what, ": '", key, "' is not a list of 3 numbers");
    v[i] = float((*it)[i].get<double>());
  }
  return v;
}

} // namespace

RgbImage resizeBicubic(const RgbImage &image, int64_t height, int64_t width) {
  if (height <= 0 || width <= 0 || height > kMaxImagePixels / width)
    fail("resize: ", width, " x ", height, " is empty or over ", kMaxImagePixels, " pixels");
  if (image.height <= 0 || image.width <= 0)
    fail("resize: empty image");
  if (width == image.width && height == image.height)
    return image;
  if (width == image.width)
    return resamplePass(image, height, false);
  const RgbImage horizontal = resamplePass(image, width, true);
  return height == image.height ? horizontal : resamplePass(horizontal, height, false);
}

ClipProcessorConfig parseClipProcessorConfig(const std::string &text, const std::string &what) {
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    fail(what, ": not a JSON object");
  for (const char *key : {"image_processor_type", "feature_extractor_type"}) {
    auto it = j.find(key);
    if (it != j.end() && !(it->is_string() && (*it == "CLIPImageProcessor" ||
                                              *it == "CLIPFeatureExtractor")))
      fail(what, ": '", key, "' is ", it->dump(), "; only CLIPImageProcessor is supported");
  }
  ClipProcessorConfig c;
  c.doResize = readBool(j, "do_resize", true, what);
  c.doCenterCrop = readBool(j, "do_center_crop", true, what);
  c.doRescale = readBool(j, "do_rescale", true, what);
  c.doNormalize = readBool(j, "do_normalize", true, what);
  c.doConvertRgb = readBool(j, "do_convert_rgb", true, what);
  if (auto it = j.find("resample"); it != j.end() && !it->is_null() && *it != 3)
    fail(what, ": resample ", it->dump(), " is not supported (only 3, bicubic)");
  if (auto it = j.find("size"); it != j.end() && !it->is_null()) {
    if (it->is_object()) {
      if (!it->contains("shortest_edge"))
        fail(what, ": 'size' ", it->dump(), " has no shortest_edge (height/width resizes "
             "are not supported)");
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
  if (auto it = j.find("rescale_factor"); it != j.end() && !it->is_null()) {
    if (!it->is_number() || !(it->get<double>() > 0))
      fail(what, ": 'rescale_factor' is not a positive number");
    c.rescaleFactor = it->get<double>();
  }
  c.mean = readTriple(j, "image_mean", c.mean, what);
  c.std = readTriple(j, "image_std", c.std, what);
  for (float s : c.std)
    if (!(s > 0))
      fail(what, ": 'image_std' holds a value that is not positive");
  return c;
}

std::vector<float> clipPixelValues(const RgbImage &image, const ClipProcessorConfig &c,
                                   int64_t &height, int64_t &width) {
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
    resized = resizeBicubic(image, portrait ? newLong : c.shortestEdge,
                            portrait ? c.shortestEdge : newLong);
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
  std::vector<float> out(size_t(3 * height * width));
  for (int ch = 0; ch < 3; ++ch)
    for (int64_t y = 0; y < height; ++y)
      for (int64_t x = 0; x < width; ++x) {
        // Position in the (padded) image: padding rows and columns are zero.
        const int64_t sy = y + top - padTop, sx = x + left - padLeft;
        const bool inside = sy >= 0 && sy < im->height && sx >= 0 && sx < im->width;
        float v = inside ? float(im->at(sy, sx, ch)) : 0.0f;
        if (c.doRescale)
          v = float(double(v) * c.rescaleFactor);
        if (c.doNormalize)
          v = (v - c.mean[size_t(ch)]) / c.std[size_t(ch)];
        out[size_t((ch * height + y) * width + x)] = v;
      }
  return out;
}

} // namespace mm::rt
