//===- Resample.cpp - Pillow's convolution resampling (libImaging/Resample.c) -===//
#include "runtime/image/Resample.h"

#include "runtime/core/Error.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace mm::rt {
namespace {

constexpr int kPrecisionBits = 32 - 8 - 2; // Pillow's PRECISION_BITS
constexpr double kPi = 3.14159265358979323846; // M_PI

// ---- Pillow's filters (Resample.c), with their supports ------------------------------

double boxFilter(double x) { return x > -0.5 && x <= 0.5 ? 1.0 : 0.0; }

double bilinearFilter(double x) {
  x = std::fabs(x);
  return x < 1.0 ? 1.0 - x : 0.0;
}

double hammingFilter(double x) {
  x = std::fabs(x);
  if (x == 0.0)
    return 1.0;
  if (x >= 1.0)
    return 0.0;
  x = x * kPi;
  // Pillow writes the window's constants as float literals: 0.54f + 0.46f * cos(x).
  return std::sin(x) / x * (double(0.54f) + double(0.46f) * std::cos(x));
}

double bicubicFilter(double x) {
  constexpr double a = -0.5;
  x = std::fabs(x);
  if (x < 1.0)
    return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
  if (x < 2.0)
    return (((x - 5) * x + 8) * x - 4) * a;
  return 0.0;
}

double sincFilter(double x) {
  if (x == 0.0)
    return 1.0;
  x = x * kPi;
  return std::sin(x) / x;
}

double lanczosFilter(double x) {
  // Truncated sinc, a = 3.
  if (-3.0 <= x && x < 3.0)
    return sincFilter(x) * sincFilter(x / 3);
  return 0.0;
}

struct Filter {
  double (*fn)(double);
  double support;
};

Filter filterOf(ResampleFilter f) {
  switch (f) {
  case ResampleFilter::Box:
    return {boxFilter, 0.5};
  case ResampleFilter::Bilinear:
    return {bilinearFilter, 1.0};
  case ResampleFilter::Hamming:
    return {hammingFilter, 1.0};
  case ResampleFilter::Bicubic:
    return {bicubicFilter, 2.0};
  case ResampleFilter::Lanczos:
    return {lanczosFilter, 3.0};
  case ResampleFilter::Nearest:
    break;
  }
  fail("resize: the nearest filter is not supported (Pillow resizes with it by an affine "
       "transform, not implemented here)");
}

/// For each output index: the first input index, the number of taps, and their fixed-point
/// weights (Pillow's precompute_coeffs + normalize_coeffs_8bpc).
struct Coefficients {
  int64_t taps = 0; ///< weights per output index (ksize)
  std::vector<int64_t> first, count;
  std::vector<int32_t> weights; ///< [out][taps]
};

Coefficients coefficients(int64_t inSize, int64_t outSize, const Filter &filter) {
  const double scale = double(inSize) / double(outSize);
  const double filterScale = std::max(scale, 1.0);
  const double support = filter.support * filterScale;
  Coefficients c;
  c.taps = int64_t(std::ceil(support)) * 2 + 1;
  c.first.resize(size_t(outSize));
  c.count.resize(size_t(outSize));
  c.weights.assign(size_t(outSize * c.taps), 0);
  std::vector<double> k(size_t(c.taps));
  for (int64_t xx = 0; xx < outSize; ++xx) {
    const double center = (double(xx) + 0.5) * scale;
    const double ss = 1.0 / filterScale;
    // Pillow rounds with (int)(v + 0.5); v + 0.5 is positive or truncates towards zero.
    const int64_t xmin = std::max<int64_t>(int64_t(center - support + 0.5), 0);
    const int64_t xmax = std::min<int64_t>(int64_t(center + support + 0.5), inSize) - xmin;
    double ww = 0.0;
    for (int64_t x = 0; x < xmax; ++x) {
      k[size_t(x)] = filter.fn((double(x + xmin) - center + 0.5) * ss);
      ww += k[size_t(x)];
    }
    for (int64_t x = 0; x < xmax; ++x) {
      const double w = ww != 0.0 ? k[size_t(x)] / ww : k[size_t(x)];
      const double f = w * double(1 << kPrecisionBits);
      c.weights[size_t(xx * c.taps + x)] = int32_t(w < 0 ? -0.5 + f : 0.5 + f);
    }
    c.first[size_t(xx)] = xmin;
    c.count[size_t(xx)] = std::max<int64_t>(xmax, 0);
  }
  return c;
}

uint8_t clip8(int32_t v) { return uint8_t(std::clamp(v >> kPrecisionBits, 0, 255)); }

/// One pass along the width, as ImagingResampleHorizontal_8bpc.
RgbImage resampleHorizontal(const RgbImage &in, int64_t outWidth, const Filter &filter) {
  const Coefficients c = coefficients(in.width, outWidth, filter);
  RgbImage out;
  out.height = in.height;
  out.width = outWidth;
  out.pixels.resize(size_t(out.height * out.width * 3));
  for (int64_t y = 0; y < in.height; ++y) {
    const uint8_t *row = &in.pixels[size_t(y * in.width * 3)];
    uint8_t *dst = &out.pixels[size_t(y * outWidth * 3)];
    for (int64_t x = 0; x < outWidth; ++x) {
      const int32_t *k = &c.weights[size_t(x * c.taps)];
      const uint8_t *src = row + c.first[size_t(x)] * 3;
      int32_t s0 = 1 << (kPrecisionBits - 1), s1 = s0, s2 = s0;
      for (int64_t t = 0; t < c.count[size_t(x)]; ++t, src += 3) {
        s0 += int32_t(src[0]) * k[t];
        s1 += int32_t(src[1]) * k[t];
        s2 += int32_t(src[2]) * k[t];
      }
      dst[x * 3 + 0] = clip8(s0);
      dst[x * 3 + 1] = clip8(s1);
      dst[x * 3 + 2] = clip8(s2);
    }
  }
  return out;
}

/// One pass along the height, as ImagingResampleVertical_8bpc (a whole row at a time: the
/// integer sums do not depend on the order of the taps).
RgbImage resampleVertical(const RgbImage &in, int64_t outHeight, const Filter &filter) {
  const Coefficients c = coefficients(in.height, outHeight, filter);
  RgbImage out;
  out.height = outHeight;
  out.width = in.width;
  const size_t rowBytes = size_t(in.width * 3);
  out.pixels.resize(size_t(outHeight) * rowBytes);
  std::vector<int32_t> acc(rowBytes);
  for (int64_t y = 0; y < outHeight; ++y) {
    std::fill(acc.begin(), acc.end(), 1 << (kPrecisionBits - 1));
    const int32_t *k = &c.weights[size_t(y * c.taps)];
    for (int64_t t = 0; t < c.count[size_t(y)]; ++t) {
      const uint8_t *src = &in.pixels[size_t(c.first[size_t(y)] + t) * rowBytes];
      const int32_t w = k[t];
      for (size_t i = 0; i < rowBytes; ++i)
        acc[i] += int32_t(src[i]) * w;
    }
    uint8_t *dst = &out.pixels[size_t(y) * rowBytes];
    for (size_t i = 0; i < rowBytes; ++i)
      dst[i] = clip8(acc[i]);
  }
  return out;
}

} // namespace

const char *resampleFilterName(ResampleFilter filter) {
  switch (filter) {
  case ResampleFilter::Nearest:
    return "nearest";
  case ResampleFilter::Lanczos:
    return "lanczos";
  case ResampleFilter::Bilinear:
    return "bilinear";
  case ResampleFilter::Bicubic:
    return "bicubic";
  case ResampleFilter::Box:
    return "box";
  case ResampleFilter::Hamming:
    return "hamming";
  }
  return "?";
}

ResampleFilter resampleFilterFromId(int64_t id, const std::string &what) {
  if (id == 0)
    fail(what, ": resample 0 (nearest) is not supported (Pillow resizes with it by an affine "
         "transform, not implemented); supported: 1 lanczos, 2 bilinear, 3 bicubic, 4 box, "
         "5 hamming");
  if (id < 0 || id > 5)
    fail(what, ": resample ", id, " is not a Pillow filter id (1 lanczos, 2 bilinear, "
         "3 bicubic, 4 box, 5 hamming)");
  return ResampleFilter(int(id));
}

RgbImage resizePillow(const RgbImage &image, int64_t height, int64_t width, ResampleFilter filter) {
  if (height <= 0 || width <= 0 || height > kMaxImagePixels / width)
    fail("resize: ", width, " x ", height, " is empty or over ", kMaxImagePixels, " pixels");
  if (image.height <= 0 || image.width <= 0)
    fail("resize: empty image");
  const Filter f = filterOf(filter);
  if (width == image.width && height == image.height)
    return image;
  if (width == image.width)
    return resampleVertical(image, height, f);
  const RgbImage horizontal = resampleHorizontal(image, width, f);
  return height == image.height ? horizontal : resampleVertical(horizontal, height, f);
}

} // namespace mm::rt
