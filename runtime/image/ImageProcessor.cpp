//===- ImageProcessor.cpp - choosing the image processor from the configs ----===//
#include "runtime/image/ImageProcessor.h"

#include "runtime/core/Error.h"
#include "runtime/image/ProcessorUtil.h"

#include <algorithm>
#include <sstream>
#include <type_traits>

namespace mm::rt {
namespace {

using imgproc::json;

struct TypeEntry {
  const char *type;
  ImageProcessorFamily family;
  const char *defaultProcessor;
};

constexpr TypeEntry kTypes[] = {
    {"CLIPImageProcessor", ImageProcessorFamily::Clip, "CLIPProcessor"},
    {"LlavaImageProcessor", ImageProcessorFamily::Llava, "LlavaProcessor"},
    {"SiglipImageProcessor", ImageProcessorFamily::Siglip, "SiglipProcessor"},
    {"Qwen2VLImageProcessor", ImageProcessorFamily::Qwen2Vl, "Qwen2VLProcessor"},
    {"Idefics3ImageProcessor", ImageProcessorFamily::Idefics3, "Idefics3Processor"},
    {"SmolVLMImageProcessor", ImageProcessorFamily::Idefics3, "SmolVLMProcessor"},
};

struct ProcessorEntry {
  const char *name;
  PromptStyle style;
};

constexpr ProcessorEntry kProcessors[] = {
    {"CLIPProcessor", PromptStyle::None},         {"SiglipProcessor", PromptStyle::None},
    {"LlavaProcessor", PromptStyle::Llava},       {"Qwen2VLProcessor", PromptStyle::Qwen2Vl},
    {"Qwen2_5_VLProcessor", PromptStyle::Qwen2Vl}, {"Idefics3Processor", PromptStyle::Idefics3},
    {"SmolVLMProcessor", PromptStyle::Idefics3},
};

template <typename Entries>
std::string listNames(const Entries &entries) {
  std::ostringstream os;
  for (const auto &e : entries) {
    if constexpr (std::is_same_v<std::decay_t<decltype(e)>, TypeEntry>)
      os << (os.tellp() > 0 ? ", " : "") << e.type;
    else
      os << (os.tellp() > 0 ? ", " : "") << e.name;
  }
  return os.str();
}

/// The type AutoImageProcessor reads (imgproc::processorTypeOf), which must be given.
std::string typeOf(const json &j, const std::string &what) {
  std::string type = imgproc::processorTypeOf(j, what);
  if (type.empty())
    fail(what, ": no 'image_processor_type' (transformers would take the model type from "
         "config.json; name the processor, one of ", listNames(kTypes), ")");
  return type;
}

const TypeEntry &typeEntry(const std::string &type, const std::string &what) {
  for (const TypeEntry &e : kTypes)
    if (imgproc::isProcessorType(type, e.type))
      return e;
  fail(what, ": image_processor_type \"", type, "\" is not supported; supported: ",
       listNames(kTypes), " (each also as ...Fast and ...Pil)");
}

bool compatible(PromptStyle style, ImageProcessorFamily family) {
  switch (style) {
  case PromptStyle::None:
    return family == ImageProcessorFamily::Clip || family == ImageProcessorFamily::Siglip;
  case PromptStyle::Llava:
    return family == ImageProcessorFamily::Clip || family == ImageProcessorFamily::Llava;
  case PromptStyle::Qwen2Vl:
    return family == ImageProcessorFamily::Qwen2Vl;
  case PromptStyle::Idefics3:
    return family == ImageProcessorFamily::Idefics3;
  }
  return false;
}

size_t countOf(const std::string &text, const std::string &token) {
  size_t n = 0;
  for (size_t at = text.find(token); at != std::string::npos; at = text.find(token, at + token.size()))
    ++n;
  return n;
}

std::string repeat(const std::string &s, int64_t n) {
  std::string out;
  out.reserve(s.size() * size_t(std::max<int64_t>(n, 0)));
  for (int64_t i = 0; i < n; ++i)
    out += s;
  return out;
}

} // namespace

const std::vector<std::string> &supportedImageProcessorTypes() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const TypeEntry &e : kTypes)
      v.push_back(e.type);
    return v;
  }();
  return names;
}

ImageProcessor ImageProcessor::fromConfigs(const std::string &preprocessorJson,
                                           const std::string &what,
                                           const std::string &processorJson,
                                           const std::string &processorWhat) {
  json proc = json::object();
  if (!processorJson.empty())
    proc = io::parseJsonObject(processorJson, processorWhat);
  std::string preText = preprocessorJson, preWhat = what;
  if (preText.empty()) {
    auto it = proc.find("image_processor");
    if (it == proc.end() || !it->is_object())
      fail(what, ": empty, and ", processorWhat, " has no \"image_processor\" object");
    preText = it->dump();
    preWhat = processorWhat + ": image_processor";
  }
  const json pre = io::parseJsonObject(preText, preWhat);

  ImageProcessor p;
  p.what_ = preWhat;
  p.type_ = typeOf(pre, preWhat);
  const TypeEntry &entry = typeEntry(p.type_, preWhat);
  p.family_ = entry.family;
  switch (p.family_) {
  case ImageProcessorFamily::Clip:
    imgproc::refuseFlag(pre, "do_pad", preWhat, "CLIPImageProcessor pads only to a pad_size");
    [[fallthrough]];
  case ImageProcessorFamily::Llava:
    p.config_ = parseLlavaProcessorConfig(preText, preWhat);
    break;
  case ImageProcessorFamily::Siglip:
    p.config_ = parseSiglipProcessorConfig(preText, preWhat);
    break;
  case ImageProcessorFamily::Qwen2Vl:
    p.config_ = parseQwen2VlProcessorConfig(preText, preWhat);
    break;
  case ImageProcessorFamily::Idefics3:
    p.config_ = parseIdefics3ProcessorConfig(preText, preWhat);
    break;
  }

  // The processor: processor_config.json's class, else the one preprocessor_config.json
  // was saved with, else the image processor's own.
  const std::string procWhat = proc.contains("processor_class") ? processorWhat : preWhat;
  const std::string savedClass =
      imgproc::readString(pre, "processor_class", entry.defaultProcessor, preWhat);
  p.processorClass_ = imgproc::readString(proc, "processor_class", savedClass, processorWhat);
  const ProcessorEntry *pe = nullptr;
  for (const ProcessorEntry &e : kProcessors)
    if (p.processorClass_ == e.name)
      pe = &e;
  if (!pe)
    fail(procWhat, ": processor_class \"", p.processorClass_,
         "\" is not supported (its prompt expansion is not implemented); supported: ",
         listNames(kProcessors));
  if (!compatible(pe->style, p.family_))
    fail(procWhat, ": processor_class \"", p.processorClass_, "\" does not go with ", p.type_);
  p.style_ = pe->style;
  switch (p.style_) {
  case PromptStyle::None:
    break;
  case PromptStyle::Llava: {
    p.imageToken_ = imgproc::readString(proc, "image_token", "<image>", processorWhat);
    p.patchSize_ = imgproc::readPositiveKey(proc, "patch_size", 0, processorWhat);
    p.numAdditionalImageTokens_ =
        imgproc::readNonNegativeKey(proc, "num_additional_image_tokens", 0, processorWhat);
    p.defaultStrategy_ = imgproc::readString(proc, "vision_feature_select_strategy", "full",
                                             processorWhat) == "default";
    break;
  }
  case PromptStyle::Qwen2Vl:
    p.imageToken_ = "<|image_pad|>";
    break;
  case PromptStyle::Idefics3:
    p.imageToken_ = "<image>";
    p.imageSeqLen_ = imgproc::readPositiveKey(proc, "image_seq_len", 169, processorWhat);
    break;
  }
  return p;
}

int64_t ImageProcessor::mergeSize() const {
  const auto *q = std::get_if<Qwen2VlProcessorConfig>(&config_);
  return q ? q->mergeSize : 0;
}

ProcessedImage ImageProcessor::process(const RgbImage &image) const {
  ProcessedImage out;
  switch (family_) {
  case ImageProcessorFamily::Clip:
  case ImageProcessorFamily::Llava: {
    const auto &c = std::get<LlavaProcessorConfig>(config_);
    int64_t h = 0, w = 0;
    out.pixelValues = llavaPixelValues(image, c, h, w);
    out.shape = {1, 3, h, w};
    if (style_ == PromptStyle::Llava && patchSize_ > 0)
      out.numImageTokens =
          llavaImageTokens(h, w, patchSize_, numAdditionalImageTokens_, defaultStrategy_);
    break;
  }
  case ImageProcessorFamily::Siglip: {
    int64_t h = 0, w = 0;
    out.pixelValues = siglipPixelValues(image, std::get<SiglipProcessorConfig>(config_), h, w);
    out.shape = {1, 3, h, w};
    break;
  }
  case ImageProcessorFamily::Qwen2Vl: {
    const auto &c = std::get<Qwen2VlProcessorConfig>(config_);
    Qwen2VlPixels q = qwen2VlPixelValues(image, c);
    out.pixelValues = std::move(q.values);
    out.shape = {q.patches, q.patchDim};
    out.imageGridThw = {q.gridThw[0], q.gridThw[1], q.gridThw[2]};
    out.numImageTokens = qwen2VlImageTokens(q.gridThw, c.mergeSize);
    break;
  }
  case ImageProcessorFamily::Idefics3: {
    const auto &c = std::get<Idefics3ProcessorConfig>(config_);
    Idefics3Pixels d = idefics3PixelValues(image, c);
    out.pixelValues = std::move(d.values);
    out.shape = {1, d.frames, 3, d.size, d.size};
    out.rows = d.rows;
    out.cols = d.cols;
    out.frames = d.frames;
    if (c.doPad) {
      out.maskShape = {1, d.frames, d.size, d.size};
      out.pixelAttentionMask.assign(size_t(d.frames * d.size * d.size), 1);
    }
    out.numImageTokens = imageSeqLen_ * (d.rows * d.cols + 1);
    break;
  }
  }
  return out;
}

std::string ImageProcessor::imagePromptString(const ProcessedImage &image) const {
  switch (style_) {
  case PromptStyle::None:
    fail(what_, ": ", processorClass_, " expands no image token in the prompt");
  case PromptStyle::Llava:
    if (patchSize_ <= 0)
      fail(what_, ": LlavaProcessor needs patch_size (and vision_feature_select_strategy, "
           "num_additional_image_tokens) from processor_config.json to expand \"",
           imageToken_, "\"");
    return repeat(imageToken_, image.numImageTokens);
  case PromptStyle::Qwen2Vl:
    return repeat(imageToken_, image.numImageTokens);
  case PromptStyle::Idefics3:
    return idefics3ImagePromptString(image.rows, image.cols, imageSeqLen_);
  }
  return "";
}

std::string ImageProcessor::expandPrompt(const std::string &prompt,
                                         const ProcessedImage &image) const {
  const std::string expansion = imagePromptString(image);
  const size_t n = countOf(prompt, imageToken_);
  if (n != 1)
    fail(processorClass_, ": the prompt holds ", n, " \"", imageToken_,
         "\" placeholders for one image (it needs exactly one)");
  std::string out = prompt;
  out.replace(out.find(imageToken_), imageToken_.size(), expansion);
  return out;
}

} // namespace mm::rt
