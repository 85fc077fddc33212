//===- ProcessorUtil.cpp - shared pieces of the image processors -------------===//
#include "runtime/image/ProcessorUtil.h"

#include "runtime/core/Error.h"

#include <sstream>

namespace mm::rt::imgproc {

std::string processorTypeOf(const json &j, const std::string &what, const char **key) {
  for (const char *k : {"image_processor_type", "feature_extractor_type"}) {
    auto it = j.find(k);
    if (it == j.end() || it->is_null())
      continue;
    if (!it->is_string())
      fail(what, ": '", k, "' is not a string");
    if (key)
      *key = k;
    std::string type = it->get<std::string>();
    if (size_t at = type.find("FeatureExtractor"); at != std::string::npos)
      type.replace(at, 16, "ImageProcessor");
    return type;
  }
  return "";
}

bool isProcessorType(const std::string &type, const char *name) {
  for (const char *suffix : {"", "Fast", "Pil"})
    if (type == std::string(name) + suffix)
      return true;
  return false;
}

void checkProcessorType(const json &j, std::initializer_list<const char *> types,
                        const std::string &what) {
  const char *key = nullptr;
  const std::string type = processorTypeOf(j, what, &key);
  if (type.empty())
    return;
  std::ostringstream names;
  for (const char *t : types) {
    if (isProcessorType(type, t))
      return;
    names << (names.tellp() > 0 ? ", " : "") << t;
  }
  fail(what, ": '", key, "' is \"", type, "\"; this reader takes ", names.str(),
       " (or their Fast/Pil spellings)");
}

std::string readString(const json &j, const char *key, const std::string &fallback,
                       const std::string &what) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null())
    return fallback;
  if (!it->is_string() || it->get<std::string>().empty())
    fail(what, ": '", key, "' is not a non-empty string");
  return it->get<std::string>();
}

int64_t readPositive(const json &v, const std::string &key, const std::string &what, int64_t max) {
  if (!v.is_number_integer() || v.get<int64_t>() <= 0 || v.get<int64_t>() > max)
    fail(what, ": '", key, "' is not a positive integer of at most ", max);
  return v.get<int64_t>();
}

int64_t readPositiveKey(const json &j, const char *key, int64_t fallback, const std::string &what,
                        int64_t max) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null())
    return fallback;
  return readPositive(*it, key, what, max);
}

int64_t readNonNegativeKey(const json &j, const char *key, int64_t fallback,
                           const std::string &what, int64_t max) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null())
    return fallback;
  if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() > max)
    fail(what, ": '", key, "' is not an integer in [0, ", max, "]");
  return it->get<int64_t>();
}

std::array<double, 3> readTriple(const json &j, const char *key, std::array<double, 3> fallback,
                                 const std::string &what) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null())
    return fallback;
  if (it->is_number()) // one value for the three channels, as transformers' normalize takes
    return {it->get<double>(), it->get<double>(), it->get<double>()};
  if (!it->is_array() || it->size() != 3)
    fail(what, ": '", key, "' is not a number or a list of 3 numbers");
  std::array<double, 3> v{};
  for (size_t i = 0; i < 3; ++i) {
    if (!(*it)[i].is_number())
      fail(what, ": '", key, "' is not a number or a list of 3 numbers");
    v[i] = (*it)[i].get<double>();
  }
  return v;
}

ResampleFilter readResample(const json &j, ResampleFilter fallback, const std::string &what) {
  auto it = j.find("resample");
  if (it == j.end() || it->is_null())
    return fallback;
  if (!it->is_number_integer())
    fail(what, ": 'resample' is not a Pillow filter id (an integer)");
  return resampleFilterFromId(it->get<int64_t>(), what);
}

double readRescaleFactor(const json &j, double fallback, const std::string &what) {
  auto it = j.find("rescale_factor");
  if (it == j.end() || it->is_null())
    return fallback;
  if (!it->is_number() || !(it->get<double>() > 0))
    fail(what, ": 'rescale_factor' is not a positive number");
  return it->get<double>();
}

void refuseFlag(const json &j, const char *key, const std::string &what, const char *why) {
  if (io::optionalBool(j, key, false, what))
    fail(what, ": '", key, "' true is not supported (", why, ")");
}

PixelSteps readPixelSteps(const json &j, std::array<double, 3> mean, std::array<double, 3> std,
                          const std::string &what) {
  PixelSteps s;
  s.doRescale = io::optionalBool(j, "do_rescale", true, what);
  s.doNormalize = io::optionalBool(j, "do_normalize", true, what);
  s.rescaleFactor = readRescaleFactor(j, 1.0 / 255.0, what);
  mean = readTriple(j, "image_mean", mean, what);
  std = readTriple(j, "image_std", std, what);
  for (size_t c = 0; c < 3; ++c) {
    // np.array(mean, dtype=image.dtype): the config's doubles rounded to float32.
    s.mean[c] = float(mean[c]);
    s.std[c] = float(std[c]);
    if (!(s.std[c] > 0))
      fail(what, ": 'image_std' holds a value that is not positive");
  }
  return s;
}

void checkImage(const RgbImage &image, const char *processor) {
  if (image.height <= 0 || image.width <= 0 || image.height > kMaxImagePixels / image.width ||
      image.pixels.size() != size_t(image.height * image.width * 3))
    fail(processor, ": the image is ", image.width, " x ", image.height, " with ",
         image.pixels.size(), " bytes (it needs at least 1 x 1 and width x height x 3 bytes, "
         "at most ", kMaxImagePixels, " pixels)");
}

void writePlanes(const RgbImage &image, const PixelSteps &s, float *out) {
  const int64_t plane = image.height * image.width;
  for (int ch = 0; ch < 3; ++ch)
    for (int64_t i = 0; i < plane; ++i)
      out[ch * plane + i] = pixelValue(image.pixels[size_t(i * 3 + ch)], ch, s);
}

} // namespace mm::rt::imgproc
