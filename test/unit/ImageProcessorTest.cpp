//===- ImageProcessorTest.cpp - the VLM image processors vs Pillow and transformers ---===//
//
// Three kinds of check:
//   - Pillow goldens (test/unit/Inputs/images/gen_processor_fixtures.py, Pillow only): the
//     decoded RGB of 24 PNG fixtures (tiny, 1000 x 7, 6 x 600, grey, alpha, palette, 1-bit,
//     16-bit) and their resizes with every supported filter (lanczos, bilinear, bicubic,
//     box, hamming) to 4 sizes each must hash the same as Pillow's, bit for bit;
//   - transformers' size arithmetic (smart_resize, Idefics3's resizes), prompt strings and
//     Qwen2-VL's patch order, on cases worked out by hand from transformers' code;
//   - parity with transformers itself (processor_refs/, written by processor_reference.py
//     on a machine with transformers 5; skipped, saying so, until it is committed): every
//     fixture through every config, real and scaled down. MM_PROCESSOR_REFS=DIR compares
//     against DIR instead.
//
// Parity tolerance: the pixel values before rescale / normalise must be within 1 level
// (1/255 after rescaling) of transformers' PIL backend, and the normalised ones within
// 1/255 / min(std) (the same level through the normalisation). Both run Pillow's integer
// resampling, so the expected difference is 0 (and the test reports how many values are
// not identical); one level is allowed because the reference machine's Pillow (a
// different version, linked against another libm: lanczos and hamming weights use sin
// and cos) could round one 22-bit weight differently and move a result by one level.
// Shapes, image_grid_thw, rows / cols, frames and the expanded prompt must be identical,
// and an input transformers refuses (Qwen2-VL's aspect ratio over 200) must be refused.
//
//===----------------------------------------------------------------------===//
#include "runtime/core/Error.h"
#include "runtime/image/ImageProcessor.h"
#include "runtime/io/FileUtil.h"
#include "runtime/io/Npy.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <sys/stat.h>
#include <tuple>

namespace mm::rt {
namespace {

using json = nlohmann::json;

const std::string kDir = MM_IMAGE_INPUTS; // test/unit/Inputs/images
const std::string kFixtures = kDir + "/processor_fixtures";
/// The committed references, or MM_PROCESSOR_REFS's folder (to try new ones first).
const std::string kRefs =
    std::getenv("MM_PROCESSOR_REFS") ? std::getenv("MM_PROCESSOR_REFS") : kDir + "/processor_refs";

bool exists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

json readJson(const std::string &path) { return json::parse(io::readFile(path)); }

/// FNV-1a, 64 bits, as gen_processor_fixtures.py hashes Pillow's output.
std::string fnv1a64(const std::vector<uint8_t> &bytes) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (uint8_t b : bytes)
    h = (h ^ b) * 0x100000001B3ull;
  char s[17];
  std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(h));
  return s;
}

const RgbImage &fixture(const std::string &name) {
  static std::map<std::string, RgbImage> cache;
  auto it = cache.find(name);
  if (it == cache.end())
    it = cache.emplace(name, decodeImageFile(kFixtures + "/" + name)).first;
  return it->second;
}

std::string configText(const std::string &config, const char *file) {
  const std::string path = kFixtures + "/configs/" + config + "/" + file;
  return exists(path) ? io::readFile(path) : "";
}

ImageProcessor processorFor(const std::string &config, bool raw = false) {
  std::string pre = configText(config, "preprocessor_config.json");
  if (raw) { // the values before rescale and normalise, as processor_reference.py asks
    json j = json::parse(pre);
    j["do_rescale"] = false;
    j["do_normalize"] = false;
    pre = j.dump();
  }
  return ImageProcessor::fromConfigs(pre, config + "/preprocessor_config.json",
                                     configText(config, "processor_config.json"),
                                     config + "/processor_config.json");
}

std::string errorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "no error";
}

#define EXPECT_ERROR(stmt, text)                                                           \
  do {                                                                                     \
    const std::string message_ = errorOf([&] { stmt; });                                   \
    EXPECT_NE(message_.find(text), std::string::npos) << "error: " << message_;            \
  } while (0)

// ---- Pillow goldens ------------------------------------------------------------------

TEST(ImageProcessorTest, DecodeAndResizeArePillows) {
  const json golden = readJson(kFixtures + "/pillow.json");
  int64_t resizes = 0;
  ASSERT_GE(golden["fixtures"].size(), 20u);
  for (const auto &[name, f] : golden["fixtures"].items()) {
    const RgbImage &im = fixture(name);
    ASSERT_EQ(im.width, f["width"].get<int64_t>()) << name;
    ASSERT_EQ(im.height, f["height"].get<int64_t>()) << name;
    EXPECT_EQ(fnv1a64(im.pixels), f["rgb"].get<std::string>())
        << name << " (Pillow mode " << f["mode"] << ") decodes unlike Pillow's convert(\"RGB\")";
    for (const json &r : f["resize"]) {
      const auto filter = ResampleFilter(r["resample"].get<int>());
      const RgbImage out = resizePillow(im, r["height"], r["width"], filter);
      EXPECT_EQ(fnv1a64(out.pixels), r["hash"].get<std::string>())
          << name << " resized to " << r["width"] << " x " << r["height"] << " with "
          << resampleFilterName(filter);
      ++resizes;
    }
  }
  EXPECT_GE(resizes, 400);
}

TEST(ImageProcessorTest, ResampleRefusesNearestAndBadSizes) {
  const RgbImage &im = fixture("rgb_3x5.png");
  EXPECT_ERROR(resizePillow(im, 4, 4, ResampleFilter::Nearest), "nearest filter is not supported");
  EXPECT_ERROR(resizePillow(im, 0, 4, ResampleFilter::Bicubic), "is empty");
  EXPECT_ERROR(resampleFilterFromId(0, "x"), "resample 0 (nearest) is not supported");
  EXPECT_ERROR(resampleFilterFromId(6, "x"), "resample 6 is not a Pillow filter id");
  EXPECT_EQ(resizePillow(im, 5, 3, ResampleFilter::Lanczos).pixels, im.pixels);
}

// ---- transformers' arithmetic, worked out by hand ------------------------------------

TEST(ImageProcessorTest, SmartResizeFollowsTransformers) {
  using P = std::pair<int64_t, int64_t>;
  // 7 x 1000: h rounds to 0, the min_pixels branch: beta = sqrt(3136 / 7000).
  EXPECT_EQ(qwen2VlSmartResize(7, 1000, 28, 3136, 12845056), (P{28, 672}));
  // round() is half to even: 70 / 28 = 2.5 -> 2, 42 / 28 = 1.5 -> 2.
  EXPECT_EQ(qwen2VlSmartResize(70, 42, 28, 1, 1 << 30), (P{56, 56}));
  EXPECT_EQ(qwen2VlSmartResize(98, 42, 28, 1, 1 << 30), (P{112, 56})); // 3.5 -> 4, 1.5 -> 2
  // 14 / 28 = 0.5 rounds to 0: the min_pixels branch then makes both sides 28.
  EXPECT_EQ(qwen2VlSmartResize(98, 14, 28, 1, 1 << 30), (P{28, 28}));
  // The max_pixels branch (floor) and the min_pixels one (ceil).
  EXPECT_EQ(qwen2VlSmartResize(500, 300, 28, 1, 3136), (P{56, 28}));
  EXPECT_EQ(qwen2VlSmartResize(20, 30, 28, 3136, 1 << 30), (P{56, 84}));
  // transformers 5's max(factor, ...) keeps a side from flooring to 0.
  EXPECT_EQ(qwen2VlSmartResize(20, 3000, 28, 1, 1568), (P{28, 476}));
  // Aspect ratio: 200 is allowed, over 200 refused.
  EXPECT_NO_THROW(qwen2VlSmartResize(1, 200, 28, 3136, 12845056));
  EXPECT_ERROR(qwen2VlSmartResize(201, 1, 28, 3136, 12845056), "aspect ratio 201 is over 200");
}

TEST(ImageProcessorTest, Idefics3SizesFollowTransformers) {
  using P = std::pair<int64_t, int64_t>;
  // Longest edge to L (up or down), the other int(L / aspect) made even, at least 1.
  EXPECT_EQ(idefics3ResizeSize(7, 1000, 2048), (P{14, 2048}));
  EXPECT_EQ(idefics3ResizeSize(13, 27, 48), (P{24, 48}));   // int(23.1) = 23 -> 24
  EXPECT_EQ(idefics3ResizeSize(600, 6, 48), (P{48, 1}));    // int(0.48) = 0 -> 1
  EXPECT_EQ(idefics3ResizeSize(100, 50, 8192), (P{4096, 2048})); // then under 4096
  // resize_for_vision_encoder: multiples of M, the short side from int(long / aspect).
  EXPECT_EQ(idefics3VisionEncoderSize(14, 2048, 512), (P{512, 2048}));
  EXPECT_EQ(idefics3VisionEncoderSize(24, 48, 16), (P{32, 48}));
  EXPECT_EQ(idefics3VisionEncoderSize(48, 1, 16), (P{48, 16}));
  EXPECT_EQ(idefics3ImageSeqLen(512, 16, 4), 64);  // SmolVLM-256M
  EXPECT_EQ(idefics3ImageSeqLen(364, 14, 2), 169); // Idefics3-8B, the default
  // Splitting into more than 1024 tiles is refused (a 2000 x 2000 image in 16-px tiles).
  Idefics3ProcessorConfig c;
  c.doResize = false;
  c.maxImageSize = 16;
  RgbImage big;
  big.height = big.width = 2000;
  big.pixels.assign(size_t(2000 * 2000 * 3), 0);
  EXPECT_ERROR(idefics3PixelValues(big, c), "over the 1024 tiles allowed");
}

TEST(ImageProcessorTest, Idefics3PromptStrings) {
  const std::string f = "<fake_token_around_image>", g = "<global-img>", i = "<image>";
  EXPECT_EQ(idefics3ImagePromptString(0, 0, 2), f + g + i + i + f);
  EXPECT_EQ(idefics3ImagePromptString(2, 1, 1),
            f + "<row_1_col_1>" + i + "\n" + f + "<row_2_col_1>" + i + "\n" + "\n" + f + g + i + f);
  EXPECT_EQ(idefics3ImagePromptString(1, 2, 1),
            f + "<row_1_col_1>" + i + f + "<row_1_col_2>" + i + "\n\n" + f + g + i + f);
}

TEST(ImageProcessorTest, LlavaPadsToSquareCentred) {
  RgbImage wide; // 5 wide, 2 high: rows go to 1..2 of 5 ((5 - 2) // 2 = 1)
  wide.width = 5;
  wide.height = 2;
  wide.pixels.assign(5 * 2 * 3, 7);
  const RgbImage sq = llavaPadToSquare(wide, {122, 116, 104});
  ASSERT_EQ(sq.width, 5);
  ASSERT_EQ(sq.height, 5);
  for (int64_t y = 0; y < 5; ++y)
    for (int ch = 0; ch < 3; ++ch) {
      const int want = (y == 1 || y == 2) ? 7 : std::array<int, 3>{122, 116, 104}[size_t(ch)];
      EXPECT_EQ(sq.at(y, 0, ch), want) << y;
    }
  RgbImage tall = wide; // 2 wide, 5 high: columns 1..2
  tall.width = 2;
  tall.height = 5;
  const RgbImage sq2 = llavaPadToSquare(tall, {1, 2, 3});
  for (int64_t x = 0; x < 5; ++x)
    EXPECT_EQ(sq2.at(3, x, 0), (x == 1 || x == 2) ? 7 : 1) << x;
  // The background from image_mean: int(0.48145466 * 255) = 122, int(0.5 * 255) = 127.
  EXPECT_EQ(parseLlavaProcessorConfig(R"({"do_pad": true})", "x").background,
            (std::array<uint8_t, 3>{122, 116, 104}));
  EXPECT_EQ(parseLlavaProcessorConfig(R"({"image_mean": [0.5, 0.3, 0.9]})", "x").background,
            (std::array<uint8_t, 3>{127, 76, 229}));
  EXPECT_ERROR(parseLlavaProcessorConfig(R"({"do_pad": true, "image_mean": [2, 0, 0]})", "x"),
               "outside [0, 255]");
  // One number stands for the three channels, as transformers' normalize takes it.
  EXPECT_EQ(parseLlavaProcessorConfig(R"({"image_mean": 0.5})", "x").background,
            (std::array<uint8_t, 3>{127, 127, 127}));
  EXPECT_ERROR(parseLlavaProcessorConfig(R"({"image_mean": "0.5"})", "x"),
               "'image_mean' is not a number or a list of 3 numbers");
  EXPECT_EQ(llavaImageTokens(336, 336, 14, 1, true), 576);
  EXPECT_EQ(llavaImageTokens(336, 336, 14, 1, false), 577);
}

/// transformers' patchify, done the numpy way: the [T, C, H, W] frames reshaped to
/// [1, 1, T, C, gh/m, m, P, gw/m, m, P], transposed (0, 1, 4, 7, 5, 8, 3, 2, 6, 9) and
/// read out row-major.
std::vector<float> numpyPatchify(const std::vector<float> &planes, int64_t H, int64_t W,
                                 int64_t P, int64_t m, int64_t T) {
  const int64_t gh = H / P, gw = W / P;
  const std::vector<int64_t> dims = {1, 1, T, 3, gh / m, m, P, gw / m, m, P};
  std::vector<int64_t> strides(dims.size());
  int64_t s = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    strides[d] = s;
    s *= dims[d];
  }
  const std::vector<size_t> perm = {0, 1, 4, 7, 5, 8, 3, 2, 6, 9};
  std::vector<float> out;
  std::vector<int64_t> idx(dims.size(), 0);
  const int64_t total = s;
  for (int64_t n = 0; n < total; ++n) {
    int64_t rem = n, offset = 0;
    for (size_t k = perm.size(); k-- > 0;) {
      const int64_t d = dims[perm[k]];
      offset += (rem % d) * strides[perm[k]];
      rem /= d;
    }
    // The source frames: T copies of the planes ([T, C, H, W] -> the same planes).
    out.push_back(planes[size_t(offset % (3 * H * W))]);
  }
  return out;
}

TEST(ImageProcessorTest, Qwen2VlPatchOrderIsTransformers) {
  for (const auto &[file, P, m, T] :
       {std::tuple{"rgb_84x28.png", 14, 2, 2}, {"rgb_84x28.png", 7, 2, 3},
        {"rgb_84x28.png", 2, 1, 1}, {"rgb_56x56.png", 4, 2, 2}}) {
    const RgbImage &im = fixture(file);
    Qwen2VlProcessorConfig c;
    c.doResize = false;
    c.doNormalize = false;
    c.doRescale = false;
    c.patchSize = P;
    c.mergeSize = m;
    c.temporalPatchSize = T;
    const Qwen2VlPixels q = qwen2VlPixelValues(im, c);
    std::vector<float> planes(size_t(3 * im.height * im.width));
    for (int ch = 0; ch < 3; ++ch)
      for (int64_t i = 0; i < im.height * im.width; ++i)
        planes[size_t(ch * im.height * im.width + i)] = im.pixels[size_t(i * 3 + ch)];
    EXPECT_EQ(q.values, numpyPatchify(planes, im.height, im.width, P, m, T)) << P << " " << m;
    EXPECT_EQ(q.gridThw, (std::array<int64_t, 3>{1, im.height / P, im.width / P}));
    EXPECT_EQ(q.patchDim, 3 * T * P * P);
  }
  Qwen2VlProcessorConfig c;
  c.doResize = false;
  EXPECT_ERROR(qwen2VlPixelValues(fixture("rgb_27x13.png"), c), "not multiples of");
}

// ---- the dispatcher ------------------------------------------------------------------

TEST(ImageProcessorTest, DispatchesOnTheType) {
  struct Case {
    const char *config;
    ImageProcessorFamily family;
    PromptStyle style;
  };
  for (const Case &c : {Case{"llava-1.5", ImageProcessorFamily::Clip, PromptStyle::Llava},
                        {"llava-1.5-pad", ImageProcessorFamily::Llava, PromptStyle::Llava},
                        {"siglip-so400m", ImageProcessorFamily::Siglip, PromptStyle::None},
                        {"siglip-bilinear", ImageProcessorFamily::Siglip, PromptStyle::None},
                        {"qwen2-vl-2b", ImageProcessorFamily::Qwen2Vl, PromptStyle::Qwen2Vl},
                        {"qwen-size-tiny", ImageProcessorFamily::Qwen2Vl, PromptStyle::Qwen2Vl},
                        {"smolvlm-256m", ImageProcessorFamily::Idefics3, PromptStyle::Idefics3},
                        {"smolvlm-tiny", ImageProcessorFamily::Idefics3, PromptStyle::Idefics3}}) {
    const ImageProcessor p = processorFor(c.config);
    EXPECT_EQ(p.family(), c.family) << c.config;
    EXPECT_EQ(p.promptStyle(), c.style) << c.config;
  }
  // The real configs' outputs for one fixture: shapes, grids and token counts.
  const RgbImage &im = fixture("rgb_1000x7.png");
  const ProcessedImage llava = processorFor("llava-1.5").process(fixture("rgb_45x90.png"));
  EXPECT_EQ(llava.shape, (std::vector<int64_t>{1, 3, 336, 336}));
  EXPECT_EQ(llava.numImageTokens, 576);
  const ProcessedImage qwen = processorFor("qwen2-vl-2b").process(im);
  EXPECT_EQ(qwen.imageGridThw, (std::vector<int64_t>{1, 2, 48})); // 28 x 672
  EXPECT_EQ(qwen.shape, (std::vector<int64_t>{96, 1176}));
  EXPECT_EQ(qwen.numImageTokens, 24);
  const ImageProcessor smol = processorFor("smolvlm-tiny");
  const ProcessedImage s = smol.process(fixture("rgb_27x13.png")); // 48 x 24 -> 48 x 32
  EXPECT_EQ(s.rows, 2);
  EXPECT_EQ(s.cols, 3);
  EXPECT_EQ(s.shape, (std::vector<int64_t>{1, 7, 3, 16, 16}));
  EXPECT_EQ(s.maskShape, (std::vector<int64_t>{1, 7, 16, 16}));
  EXPECT_EQ(s.numImageTokens, 4 * 7);
  const std::string prompt = smol.expandPrompt("User:<image>Hi", s);
  EXPECT_EQ(prompt.rfind("User:<fake_token_around_image><row_1_col_1><image>", 0), 0u);
  EXPECT_NE(prompt.find("<row_2_col_3><image><image><image><image>\n\n<fake_token_around_image>"
                        "<global-img>"),
            std::string::npos);
  const ImageProcessor q = processorFor("qwen-tiny");
  const ProcessedImage qt = q.process(fixture("rgb_56x56.png"));
  EXPECT_EQ(q.expandPrompt("<|vision_start|><|image_pad|><|vision_end|>", qt),
            "<|vision_start|>" + std::string("<|image_pad|><|image_pad|><|image_pad|><|image_pad|>") +
                "<|vision_end|>");
}

TEST(ImageProcessorTest, ConfigErrorsNameTheFileAndField) {
  auto pre = [](const std::string &text, const std::string &proc = "") {
    return errorOf([&] { ImageProcessor::fromConfigs(text, "pre.json", proc, "proc.json"); });
  };
  auto has = [](const std::string &message, const std::string &text) {
    return message.find(text) != std::string::npos;
  };
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "LlavaNextImageProcessor"})"),
                  "pre.json: image_processor_type \"LlavaNextImageProcessor\" is not supported; "
                  "supported: CLIPImageProcessor, LlavaImageProcessor, SiglipImageProcessor, "
                  "Qwen2VLImageProcessor, Idefics3ImageProcessor, SmolVLMImageProcessor"));
  EXPECT_TRUE(has(pre(R"({"size": 3})"), "pre.json: no 'image_processor_type'"));
  EXPECT_TRUE(has(pre("[]"), "pre.json: not a JSON object"));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": 3})"), "'image_processor_type' is not a string"));
  EXPECT_EQ(pre(R"({"feature_extractor_type": "CLIPFeatureExtractor"})"), "no error");
  EXPECT_EQ(pre(R"({"image_processor_type": "Qwen2VLImageProcessorPil"})"), "no error");
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "Qwen2VLImageProcessor", "size": {"shortest_edge": 9}})"),
                  "needs shortest_edge and longest_edge"));
  EXPECT_EQ(pre(R"({"image_processor_type": "Qwen2VLImageProcessor", "size": {"shortest_edge": 9},
                   "max_pixels": 99})"), "no error");
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "Qwen2VLImageProcessor", "size": {"min_pixels": 9,
                   "longest_edge": 99}})"), "'size' has a key 'min_pixels'"));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "Qwen2VLImageProcessor", "patch_size": 0})"),
                  "'patch_size' is not a positive integer"));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "SiglipImageProcessor", "size": {"shortest_edge": 9}})"),
                  "the only SigLIP size supported"));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "SiglipImageProcessor", "do_center_crop": true})"),
                  "'do_center_crop' true is not supported"));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "SiglipImageProcessor", "resample": 0})"),
                  "resample 0 (nearest) is not supported"));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "SiglipImageProcessor", "resample": "bicubic"})"),
                  "'resample' is not a Pillow filter id"));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "Idefics3ImageProcessor", "max_image_size": 364})"),
                  "'max_image_size' 364 is not {\"longest_edge\": M}"));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "Idefics3ImageProcessor", "size": {"shortest_edge": 3}})"),
                  "is neither {\"longest_edge\": L}"));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "Idefics3ImageProcessor", "image_std": [1, 0, 1]})"),
                  "'image_std' holds a value that is not positive"));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "CLIPImageProcessor", "do_pad": true})"),
                  "'do_pad' true is not supported"));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "CLIPImageProcessor"})", R"({"processor_class": "LlavaNextProcessor"})"),
                  "proc.json: processor_class \"LlavaNextProcessor\" is not supported"));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "SiglipImageProcessor"})", R"({"processor_class": "LlavaProcessor"})"),
                  "does not go with SiglipImageProcessor"));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "Idefics3ImageProcessor"})", R"({"image_seq_len": -1})"),
                  "proc.json: 'image_seq_len' is not a positive integer"));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "CLIPImageProcessor"})",
                      R"({"processor_class": "LlavaProcessor", "num_additional_image_tokens": -1})"),
                  "'num_additional_image_tokens' is not an integer in [0, 65536]"));
  EXPECT_TRUE(has(pre("", "{}"), "pre.json: empty, and proc.json has no \"image_processor\""));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "CLIPImageProcessor"})",
                      R"({"processor_class": "LlavaProcessor", "patch_size": 0})"),
                  "proc.json: 'patch_size' is not a positive integer"));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "CLIPImageProcessor"})",
                      R"({"processor_class": "LlavaProcessor", "image_token": 5})"),
                  "proc.json: 'image_token' is not a non-empty string"));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "CLIPImageProcessor", "size": {"shortest_edge": -3}})"),
                  "'size.shortest_edge' is not a positive integer"));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "CLIPImageProcessor", "crop_size": {"height": 65536, "width": 65536}})"),
                  "crop_size 65536 x 65536 is over"));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "SiglipImageProcessor", "size": {"height": 1e9, "width": 2}})"),
                  "'size.height' is not a positive integer"));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "Qwen2VLImageProcessor", "merge_size": 0})"),
                  "'merge_size' is not a positive integer"));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "Idefics3ImageProcessor", "do_resize": "yes"})"),
                  "'do_resize' is not true or false"));
  EXPECT_TRUE(has(pre(R"({"image_processor_type": "Idefics3ImageProcessor", "size": {"longest_edge": 0}})"),
                  "'size.longest_edge' is not a positive integer"));
  // transformers v5's processor_config.json with the image processor nested in it.
  const ImageProcessor nested = ImageProcessor::fromConfigs(
      "", "pre.json", R"({"image_processor": {"image_processor_type": "SiglipImageProcessor"}})");
  EXPECT_EQ(nested.family(), ImageProcessorFamily::Siglip);
  // Prompts: LlavaProcessor without patch_size, no placeholder, two, and a processor that
  // expands none.
  const ImageProcessor llava = ImageProcessor::fromConfigs(
      R"({"image_processor_type": "CLIPImageProcessor", "processor_class": "LlavaProcessor",
          "size": 4, "crop_size": 4})", "pre.json");
  const ProcessedImage im = llava.process(fixture("rgb_3x5.png"));
  EXPECT_ERROR(llava.expandPrompt("<image>", im), "LlavaProcessor needs patch_size");
  const ImageProcessor q = processorFor("qwen-tiny");
  const ProcessedImage qi = q.process(fixture("rgb_3x5.png"));
  EXPECT_ERROR(q.expandPrompt("no image", qi), "holds 0 \"<|image_pad|>\" placeholders");
  EXPECT_ERROR(q.expandPrompt("<|image_pad|><|image_pad|>", qi), "holds 2");
  EXPECT_ERROR(processorFor("siglip-tiny").expandPrompt("<image>", qi), "expands no image token");
  // Qwen2-VL refuses what transformers refuses: an aspect ratio over 200.
  EXPECT_ERROR(q.process(fixture("rgb_1x201.png")), "over 200");
}

TEST(ImageProcessorTest, EmptyOrInconsistentImagesAreErrors) {
  // Every family divides by the image's sides (CLIP's shortest-edge ratio, Idefics3's
  // aspect ratio): an empty image used to be undefined behaviour, not an error.
  RgbImage empty;
  RgbImage inconsistent; // 2 x 2 but 3 bytes
  inconsistent.height = inconsistent.width = 2;
  inconsistent.pixels.assign(3, 0);
  for (const char *config : {"llava-1.5", "llava-1.5-pad", "siglip-so400m", "qwen2-vl-2b",
                             "smolvlm-256m"}) {
    const ImageProcessor p = processorFor(config);
    EXPECT_ERROR(p.process(empty), "the image is 0 x 0 with 0 bytes");
    EXPECT_ERROR(p.process(inconsistent), "the image is 2 x 2 with 3 bytes");
  }
  ClipProcessorConfig noResize;
  noResize.doResize = false;
  int64_t h = 0, w = 0;
  EXPECT_ERROR(clipPixelValues(empty, noResize, h, w), "CLIPImageProcessor: the image is 0 x 0");
}

// ---- parity with transformers --------------------------------------------------------

struct Stats {
  int64_t entries = 0, values = 0, inexact = 0, prompts = 0, refusals = 0;
  int maxLevel = 0;
};

/// Flat indices k * n / count, as processor_reference.py samples (all when n <= count).
std::vector<int64_t> samplePositions(int64_t n, int64_t count) {
  std::vector<int64_t> idx;
  if (n <= count) {
    for (int64_t i = 0; i < n; ++i)
      idx.push_back(i);
  } else {
    for (int64_t k = 0; k < count; ++k)
      idx.push_back(k * n / count);
  }
  return idx;
}

std::string firstDifference(const std::string &a, const std::string &b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i])
    ++i;
  return "lengths " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) +
         ", first difference at " + std::to_string(i) + ": \"" + a.substr(i, 40) + "\" vs \"" +
         b.substr(i, 40) + "\"";
}

void checkEntry(const json &e, const json &meta, Stats &stats) {
  const std::string config = e["config"], name = e["fixture"];
  const std::string what = config + " / " + name;
  const ImageProcessor p = processorFor(config), raw = processorFor(config, true);
  const RgbImage &im = fixture(name);
  if (e.contains("error")) {
    EXPECT_NE(errorOf([&] { p.process(im); }), "no error")
        << what << ": transformers refused it (" << e["error"] << ") but this did not";
    ++stats.refusals;
    return;
  }
  ProcessedImage got;
  const std::string err = errorOf([&] { got = p.process(im); });
  ASSERT_EQ(err, "no error") << what << " (transformers processed it)";
  const ProcessedImage gotRaw = raw.process(im);
  ++stats.entries;
  ASSERT_EQ(got.shape, e["shape"].get<std::vector<int64_t>>()) << what;
  if (e.contains("image_grid_thw")) {
    EXPECT_EQ(got.imageGridThw, e["image_grid_thw"].get<std::vector<int64_t>>()) << what;
  }
  if (e.contains("rows")) {
    EXPECT_EQ(got.rows, e["rows"].get<int64_t>()) << what;
    EXPECT_EQ(got.cols, e["cols"].get<int64_t>()) << what;
  }
  if (e.contains("mask_shape")) {
    EXPECT_EQ(got.maskShape, e["mask_shape"].get<std::vector<int64_t>>()) << what;
    EXPECT_TRUE(e["mask_all_ones"].get<bool>()) << what << ": transformers' mask has zeros";
  }
  // Before normalisation: within one level.
  const Tensor want = io::readNpy(kRefs + "/raw/" + config + "/" + name + ".npy");
  ASSERT_EQ(want.dtype, DType::u8) << what;
  const int64_t n = int64_t(gotRaw.pixelValues.size());
  const std::vector<int64_t> at =
      samplePositions(n, e["raw_sampled"].get<bool>() ? meta["raw_samples"].get<int64_t>() : n);
  ASSERT_EQ(int64_t(at.size()), want.numel()) << what;
  int64_t bad = 0;
  for (size_t k = 0; k < at.size(); ++k) {
    const float g = gotRaw.pixelValues[size_t(at[k])];
    const float w = float(want.as<uint8_t>()[k]);
    const float d = std::fabs(g - w);
    stats.inexact += d != 0;
    stats.maxLevel = std::max(stats.maxLevel, int(std::ceil(d)));
    if (!(d <= 1.0f) && bad++ < 3)
      ADD_FAILURE() << what << ": value " << at[k] << " is " << g << ", transformers' " << w;
  }
  stats.values += int64_t(at.size());
  // Normalised: the same level through (x / 255 - mean) / std.
  const json pre = json::parse(configText(config, "preprocessor_config.json"));
  const bool halfStd = p.family() == ImageProcessorFamily::Siglip ||
                       p.family() == ImageProcessorFamily::Idefics3;
  double minStd = halfStd ? 0.5 : 0.26130258; // the class defaults' smallest std
  if (pre.contains("image_std")) {
    minStd = 1e9;
    for (const json &s : pre["image_std"])
      minStd = std::min(minStd, s.get<double>());
  }
  const double tol = 1.0 / 255.0 / minStd * (1 + 1e-6) + 1e-6;
  const std::vector<float> norm = e["norm_sample"].get<std::vector<float>>();
  const std::vector<int64_t> nat = samplePositions(n, meta["norm_samples"].get<int64_t>());
  ASSERT_EQ(nat.size(), norm.size()) << what;
  for (size_t k = 0; k < nat.size(); ++k)
    EXPECT_NEAR(got.pixelValues[size_t(nat[k])], norm[k], tol) << what << " normalised value " << nat[k];
  // The prompt after the processor's expansion.
  if (e.contains("prompt_template")) {
    ASSERT_TRUE(e.contains("prompt"))
        << what << ": the reference has no prompt (" << e.value("prompt_error", json()).dump()
        << "; processor: " << e.value("prompt_processor_error", json()).dump()
        << "): fix processor_reference.py";
    const std::string mine = p.expandPrompt(e["prompt_template"], got);
    EXPECT_EQ(mine, e["prompt"].get<std::string>())
        << what << " (" << e["prompt_source"] << "): " << firstDifference(mine, e["prompt"]);
    ++stats.prompts;
  }
}

TEST(ImageProcessorTest, MatchesTransformers) {
  if (!exists(kRefs + "/reference.json"))
    GTEST_SKIP() << "no transformers references in " << kRefs
                 << ": run `python3 processor_reference.py processor_fixtures processor_refs` in "
                    "test/unit/Inputs/images on a machine with transformers 5 (see the "
                    "script's docstring) and commit processor_refs/";
  const json ref = readJson(kRefs + "/reference.json");
  const json &meta = ref["meta"];
  std::cout << "references: transformers " << meta["transformers"] << ", Pillow " << meta["pillow"]
            << ", torch " << meta["torch"] << "\n";
  for (const auto &[config, choice] : meta["auto"].items())
    std::cout << "  AutoImageProcessor for " << config << ": " << choice.dump() << "\n";
  Stats stats;
  std::map<std::string, std::pair<int64_t, int64_t>> tvDiff; // config -> max level, values
  for (const json &e : ref["entries"]) {
    checkEntry(e, meta, stats);
    if (e.contains("torchvision_vs_pil") && e["torchvision_vs_pil"].contains("max_abs_diff")) {
      auto &d = tvDiff[e["config"]];
      d.first = std::max(d.first, e["torchvision_vs_pil"]["max_abs_diff"].get<int64_t>());
      d.second += e["torchvision_vs_pil"]["values_differing"].get<int64_t>();
    }
  }
  for (const auto &[config, d] : tvDiff)
    std::cout << "  torchvision backend vs PIL, " << config << ": up to " << d.first
              << " levels, " << d.second << " values differ\n";
  std::cout << stats.entries << " outputs, " << stats.refusals << " refusals, " << stats.values
            << " pixel values (" << stats.inexact << " not identical, max " << stats.maxLevel
            << " level), " << stats.prompts << " prompts compared\n";
  EXPECT_GE(stats.entries, 20 * 5);
}

} // namespace
} // namespace mm::rt
