//===- ProcessorUtil.h - shared pieces of the image processors (internal) -----===//
//
// Reading preprocessor_config.json fields (every malformed field is an Error naming the
// file and the field) and the last two steps all of transformers' PIL-backend processors
// share: rescale (image.astype(float64) * factor, then float32) and normalise ((x - mean)
// / std in float32, mean and std rounded to float32 first), giving channel-first planes.
// Included by runtime/image/*.cpp only; it exposes nlohmann::json.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_IMAGE_PROCESSORUTIL_H
#define MM_RUNTIME_IMAGE_PROCESSORUTIL_H

#include "runtime/image/ClipImageProcessor.h"
#include "runtime/image/Resample.h"

#include "runtime/io/JsonFields.h"

#include <nlohmann/json.hpp>

#include <array>
#include <initializer_list>
#include <string>
#include <vector>

namespace mm::rt::imgproc {

using json = nlohmann::json;

/// `image_processor_type`, or when absent or null `feature_extractor_type` with
/// FeatureExtractor read as ImageProcessor (AutoImageProcessor's fallback); "" when
/// neither is given. `key` (when not null) is set to the key read. Throws Error for a
/// type that is not a string.
std::string processorTypeOf(const json &j, const std::string &what, const char **key = nullptr);
/// Whether `type` is `name` or its "Fast" or "Pil" spelling.
bool isProcessorType(const std::string &type, const char *name);
/// Throws unless processorTypeOf(j) is one of `types` (isProcessorType). An absent type
/// is accepted.
void checkProcessorType(const json &j, std::initializer_list<const char *> types,
                        const std::string &what);

/// `j[key]` as a non-empty string; `fallback` when absent or null.
std::string readString(const json &j, const char *key, const std::string &fallback,
                       const std::string &what);
/// `v` (named `key` in errors) as an integer in [1, max].
int64_t readPositive(const json &v, const std::string &key, const std::string &what,
                     int64_t max = 65536);
/// `j[key]` as an integer in [1, max]; `fallback` when absent or null.
int64_t readPositiveKey(const json &j, const char *key, int64_t fallback, const std::string &what,
                        int64_t max = 65536);
/// `j[key]` as an integer in [0, max]; `fallback` when absent or null.
int64_t readNonNegativeKey(const json &j, const char *key, int64_t fallback,
                           const std::string &what, int64_t max = 65536);
/// `j[key]` as a list of 3 numbers, or one number for all three (in double precision); `fallback` when absent or null.
std::array<double, 3> readTriple(const json &j, const char *key, std::array<double, 3> fallback,
                                 const std::string &what);
/// `j["resample"]` as a Pillow filter; `fallback` when absent or null.
ResampleFilter readResample(const json &j, ResampleFilter fallback, const std::string &what);
/// `j["rescale_factor"]`, a positive number; `fallback` when absent or null.
double readRescaleFactor(const json &j, double fallback, const std::string &what);
/// Throws when `j[key]` is true: a step this processor does not implement.
void refuseFlag(const json &j, const char *key, const std::string &what, const char *why);

/// Rescale and normalise, as the PIL backend does them.
struct PixelSteps {
  bool doRescale = true, doNormalize = true;
  double rescaleFactor = 1.0 / 255.0;
  std::array<float, 3> mean{}, std{};
};
/// Reads do_rescale, rescale_factor, do_normalize, image_mean, image_std (positive std).
PixelSteps readPixelSteps(const json &j, std::array<double, 3> mean, std::array<double, 3> std,
                          const std::string &what);
/// The steps of a processor config (its doRescale, doNormalize, rescaleFactor, mean, std).
template <typename Config> PixelSteps pixelStepsOf(const Config &c) {
  PixelSteps s;
  s.doRescale = c.doRescale;
  s.doNormalize = c.doNormalize;
  s.rescaleFactor = c.rescaleFactor;
  s.mean = c.mean;
  s.std = c.std;
  return s;
}
/// Writes `s` into a processor config's fields of the same names.
template <typename Config> void setPixelSteps(Config &c, const PixelSteps &s) {
  c.doRescale = s.doRescale;
  c.doNormalize = s.doNormalize;
  c.rescaleFactor = s.rescaleFactor;
  c.mean = s.mean;
  c.std = s.std;
}
/// Throws Error (naming `processor`) unless `image` is non-empty and holds height x
/// width x 3 bytes: every size computation divides by its sides.
void checkImage(const RgbImage &image, const char *processor);
/// One value through the steps.
inline float pixelValue(uint8_t v, int ch, const PixelSteps &s) {
  float x = float(v);
  if (s.doRescale)
    x = float(double(x) * s.rescaleFactor);
  if (s.doNormalize)
    x = (x - s.mean[size_t(ch)]) / s.std[size_t(ch)];
  return x;
}
/// The image as [3, H, W] float32 planes through the steps, written to `out`.
void writePlanes(const RgbImage &image, const PixelSteps &s, float *out);

/// The CLIPImageProcessor fields of a config (ClipImageProcessor.cpp), whatever its type.
ClipProcessorConfig parseClipFields(const json &j, const std::string &what);

/// transformers' defaults: OPENAI_CLIP_MEAN / STD and IMAGENET_STANDARD_MEAN / STD.
constexpr std::array<double, 3> kClipMean{0.48145466, 0.4578275, 0.40821073};
constexpr std::array<double, 3> kClipStd{0.26862954, 0.26130258, 0.27577711};
constexpr std::array<double, 3> kHalf{0.5, 0.5, 0.5};

} // namespace mm::rt::imgproc

#endif
