//===- Processor.cpp - a model's text and image front end, from its plan ----===//
#include "runtime/chat/Processor.h"

#include "runtime/core/Error.h"
#include "runtime/io/JsonFields.h"

#include <algorithm>
#include <cstring>

namespace mm::rt {

using json = nlohmann::json;

namespace {

/// A special token as tokenizer_config.json writes it: a string or an AddedToken object
/// {"content": ...}; nullopt when absent or null.
std::optional<std::string> specialToken(const json &config, const char *name,
                                        const std::string &what) {
  if (!config.contains(name) || config.at(name).is_null())
    return std::nullopt;
  const json &v = config.at(name);
  if (v.is_string())
    return v.get<std::string>();
  if (v.is_object())
    return io::requiredString(v, "content", what + " " + name);
  fail(what, ": \"", name, "\" is neither a string nor an object with \"content\"");
}

/// tokenizer_config.json's chat_template: a string, or a list of {name, template} (the
/// one named "default"). nullopt when absent.
std::optional<std::string> templateOfTokenizerConfig(const json &config, const std::string &what) {
  if (!config.contains("chat_template") || config.at("chat_template").is_null())
    return std::nullopt;
  const json &t = config.at("chat_template");
  if (t.is_string())
    return t.get<std::string>();
  if (t.is_array()) {
    for (const json &entry : t)
      if (io::requiredString(entry, "name", what + " chat_template entry") == "default")
        return io::requiredString(entry, "template", what + " chat_template 'default'");
    fail(what, ": chat_template is a list with no template named \"default\"");
  }
  fail(what, ": chat_template is neither a string nor a list of {name, template}");
}

/// The chat template source and the file it came from, in transformers' order of
/// precedence; nullopt when the model has none.
std::optional<std::pair<std::string, std::string>>
findChatTemplate(const Processor::FileLookup &file, const json &tokenizerConfig,
                 const std::string &origin) {
  if (const std::string *jinja = file("chat_template.jinja"))
    return std::pair{*jinja, origin + ": chat_template.jinja"};
  if (const std::string *text = file("chat_template.json")) {
    const std::string what = origin + ": chat_template.json";
    return std::pair{io::requiredString(io::parseJsonObject(*text, what), "chat_template", what), what};
  }
  const std::string what = origin + ": tokenizer_config.json";
  if (std::optional<std::string> t = templateOfTokenizerConfig(tokenizerConfig, what))
    return std::pair{*t, what};
  return std::nullopt;
}

/// generation_config.json's do_sample, temperature, top_k, top_p, repetition_penalty
/// and max_new_tokens, with GenerationConfig's defaults (temperature 1, top_k 50, top_p 1).
GenerationDefaults readGenerationDefaults(const std::string *text, const std::string &what) {
  GenerationDefaults d;
  if (!text)
    return d;
  const json j = io::parseJsonObject(*text, what);
  d.doSample = io::optionalBool(j, "do_sample", false, what);
  d.sampling.temperature = io::optionalNumber(j, "temperature", 1.0, what);
  d.sampling.topK = io::optionalInt(j, "top_k", 50, what);
  d.sampling.topP = io::optionalNumber(j, "top_p", 1.0, what);
  d.sampling.repetitionPenalty = io::optionalNumber(j, "repetition_penalty", 1.0, what);
  d.maxNewTokens = io::optionalInt(j, "max_new_tokens", -1, what);
  if (j.contains("max_new_tokens") && !j.at("max_new_tokens").is_null() && d.maxNewTokens < 1)
    fail(what, ": max_new_tokens must be at least 1, got ", d.maxNewTokens);
  if (d.doSample && d.sampling.temperature == 0)
    fail(what, ": do_sample with temperature 0 (transformers refuses it too)");
  try {
    d.sampling.check();
  } catch (const Error &e) {
    fail(what, ": ", e.what());
  }
  return d;
}

} // namespace

SamplingOptions GenerationDefaults::choose(std::optional<double> temperature) const {
  SamplingOptions s = sampling;
  if (temperature)
    s.temperature = *temperature;
  else if (!doSample)
    s.temperature = 0;
  return s;
}

namespace {

/// The rows the vision encoder gives for one image when its result [batch, N, hidden] has
/// a static N; -1 otherwise.
int64_t staticFeaturesPerImage(const Plan &plan) {
  const GenerationInfo &g = plan.generation();
  if (g.visionFunction.empty())
    return -1;
  const FunctionInfo &fn = plan.function(g.visionFunction);
  const int features = fn.outputWithRole(ValueRole::imageFeatures);
  if (features < 0)
    return -1;
  const Shape &shape = fn.tensors[fn.outputs[features].tensor].shape;
  return shape.size() == 3 && shape[1] > 0 ? shape[1] : -1;
}

} // namespace

std::optional<ImageProcessor> imageProcessorOf(const ModelFileLookup &file, const std::string &origin) {
  const std::string *preprocessor = file("preprocessor_config.json");
  const std::string *processor = file("processor_config.json");
  if (!preprocessor &&
      !(processor && io::parseJsonObject(*processor, origin + ": processor_config.json")
                         .contains("image_processor")))
    return std::nullopt;
  return ImageProcessor::fromConfigs(preprocessor ? *preprocessor : "",
                                     origin + ": preprocessor_config.json",
                                     processor ? *processor : "", origin + ": processor_config.json");
}

namespace {

/// Qwen2-VL's patch rows [patches, dim] of each image, one image after another.
Tensor concatPatches(const ImageProcessor &processor, const std::vector<ProcessedImage> &images) {
  int64_t rows = 0;
  const int64_t dim = images.front().shape.back();
  for (const ProcessedImage &p : images) {
    if (p.shape.size() != 2 || p.shape[1] != dim)
      fail(processor.typeName(), " gives patches of different widths; they cannot be batched");
    rows += p.shape[0];
  }
  Tensor t = Tensor::host(DType::f32, {rows, dim});
  float *out = t.as<float>();
  for (const ProcessedImage &p : images)
    out = std::copy(p.pixelValues.begin(), p.pixelValues.end(), out);
  return t;
}

} // namespace

void checkProcessorFitsPlan(const ImageProcessor &processor, const Plan &plan) {
  const int64_t planned = plan.generation().mropeSpatialMergeSize;
  if (processor.mergeSize() > 0 && planned > 0 && processor.mergeSize() != planned)
    fail(plan.origin(), ": ", processor.typeName(), " merges ", processor.mergeSize(), " x ",
         processor.mergeSize(), " patches (merge_size) but the model's vision encoder merges ", planned, " x ",
         planned, " (vision_config.spatial_merge_size)");
}

Tensor batchImageGrids(const std::vector<ProcessedImage> &images) {
  if (images.empty() || images.front().imageGridThw.size() != 3)
    return Tensor();
  Tensor t = Tensor::host(DType::i64, {static_cast<int64_t>(images.size()), 3});
  for (size_t i = 0; i < images.size(); ++i)
    std::copy_n(images[i].imageGridThw.begin(), 3, t.as<int64_t>() + 3 * i);
  return t;
}

Tensor batchPixelValues(const ImageProcessor &processor, const std::vector<ProcessedImage> &images) {
  if (images.empty())
    return Tensor();
  if (images.front().imageGridThw.size() == 3)
    return concatPatches(processor, images);
  // Each image is one frame [1, 3, H, W] (CLIP, LLaVA, SigLIP) or its tiles and global
  // image [1, frames, 3, M, M] (Idefics3), stacked in order: the splice fills the image
  // tokens with the frames' features in the order the processor's prompt string has them.
  std::vector<int64_t> frame;
  int64_t frames = 0;
  for (const ProcessedImage &p : images) {
    const std::vector<int64_t> &s = p.shape;
    if (!((s.size() == 4 || s.size() == 5) && s[0] == 1))
      fail(processor.typeName(), " gives pixel values of rank ", s.size(),
           "; the generator feeds the vision encoder frames [1, 3, H, W] (CLIP, LLaVA, SigLIP), "
           "[1, frames, 3, M, M] (Idefics3) or patches with their grids (Qwen2-VL)");
    std::vector<int64_t> f(s.end() - 3, s.end());
    if (!frame.empty() && f != frame)
      fail("the images' pixel values differ in shape (", processor.typeName(),
           "); they cannot be batched for the vision encoder");
    frame = f;
    if (std::find(p.pixelAttentionMask.begin(), p.pixelAttentionMask.end(), 0) != p.pixelAttentionMask.end())
      fail(processor.typeName(), " padded a frame (its pixel_attention_mask has zeros: the global "
           "frame of a non-square image); the vision encoder mmc compiles takes full frames only");
    frames += s.size() == 5 ? s[1] : 1;
  }
  Tensor t = Tensor::host(DType::f32, {frames, frame[0], frame[1], frame[2]});
  float *out = t.as<float>();
  for (const ProcessedImage &p : images)
    out = std::copy(p.pixelValues.begin(), p.pixelValues.end(), out);
  return t;
}

Processor Processor::fromFiles(const FileLookup &file, const std::string &origin,
                               int64_t imageTokenId, int64_t featuresPerImage) {
  Processor p;
  p.origin_ = origin;
  p.featuresPerImage_ = featuresPerImage;
  const std::string *tokenizerJson = file("tokenizer.json");
  if (!tokenizerJson)
    fail(origin, ": the plan has no tokenizer.json (compile a model folder that holds one; "
                 "--input-ids still works)");
  p.tokenizer_ = std::make_shared<const Tokenizer>(
      Tokenizer::fromJson(*tokenizerJson, origin + ": tokenizer.json"));

  json tokenizerConfig = json::object();
  if (const std::string *text = file("tokenizer_config.json"))
    tokenizerConfig = io::parseJsonObject(*text, origin + ": tokenizer_config.json");
  json specialMap = json::object();
  if (const std::string *text = file("special_tokens_map.json"))
    specialMap = io::parseJsonObject(*text, origin + ": special_tokens_map.json");
  for (auto [name, out] : {std::pair{"bos_token", &p.bosToken_}, {"eos_token", &p.eosToken_}}) {
    *out = specialToken(tokenizerConfig, name, origin + ": tokenizer_config.json");
    if (!*out)
      *out = specialToken(specialMap, name, origin + ": special_tokens_map.json");
  }
  if (auto t = findChatTemplate(file, tokenizerConfig, origin))
    p.chatTemplate_ = ChatTemplate::parse(t->first, t->second);

  p.imageProcessor_ = imageProcessorOf(file, origin);
  if (p.imageProcessor_ && p.imageProcessor_->promptStyle() != PromptStyle::None)
    p.imagePlaceholder_ = p.imageProcessor_->imageToken();
  else if (imageTokenId >= 0)
    p.imagePlaceholder_ = p.tokenizer_->token(static_cast<int32_t>(imageTokenId)).value_or("");
  p.defaults_ = readGenerationDefaults(file("generation_config.json"),
                                       origin + ": generation_config.json");
  return p;
}

Processor Processor::fromPlan(const Plan &plan) {
  Processor p = fromFiles([&](const std::string &name) { return plan.modelFile(name); }, plan.origin(),
                          plan.generation().present ? plan.generation().imageTokenId : -1,
                          staticFeaturesPerImage(plan));
  if (p.imageProcessor_)
    checkProcessorFitsPlan(*p.imageProcessor_, plan);
  return p;
}

std::string Processor::renderChat(const nlohmann::ordered_json &messages,
                                  bool addGenerationPrompt) const {
  if (!chatTemplate_)
    fail(origin_, ": the model has no chat template (tokenizer_config.json chat_template, "
                  "chat_template.json or chat_template.jinja)");
  return chatTemplate_->apply(messages, addGenerationPrompt, bosToken_, eosToken_);
}

std::string Processor::plainPrompt(const std::string &text, size_t images) const {
  if (!imagePlaceholder_.empty() && text.find(imagePlaceholder_) != std::string::npos)
    return text; // the user placed the images
  std::string out;
  for (size_t i = 0; i < images; ++i)
    out += imagePlaceholder_ + "\n";
  return out + text;
}

ProcessedImage Processor::processImage(const RgbImage &image) const {
  if (!imageProcessor_)
    fail(origin_, ": the plan has no image processor (preprocessor_config.json or "
                  "processor_config.json), so it cannot take images");
  return imageProcessor_->process(image);
}

EncodedPrompt Processor::encode(const std::string &prompt,
                                const std::vector<ProcessedImage> &processed) const {
  EncodedPrompt e;
  // Each placeholder, in order, becomes its image's tokens.
  const bool processorExpands = imageProcessor_ && imageProcessor_->promptStyle() != PromptStyle::None;
  size_t found = 0, pos = 0;
  while (!imagePlaceholder_.empty()) {
    size_t at = prompt.find(imagePlaceholder_, pos);
    if (at == std::string::npos)
      break;
    e.text.append(prompt, pos, at - pos);
    if (found < processed.size()) {
      if (processorExpands) {
        e.text += imageProcessor_->imagePromptString(processed[found]);
      } else {
        if (featuresPerImage_ < 1)
          fail(origin_, ": cannot expand '", imagePlaceholder_, "': the processor expands "
                        "nothing and the vision encoder's feature count is not static");
        for (int64_t k = 0; k < featuresPerImage_; ++k)
          e.text += imagePlaceholder_;
      }
    }
    ++found;
    pos = at + imagePlaceholder_.size();
  }
  e.text.append(prompt, pos, std::string::npos);
  if (found != processed.size())
    fail("the prompt has ", found, " image placeholder", found == 1 ? "" : "s",
         imagePlaceholder_.empty() ? "" : " ('" + imagePlaceholder_ + "')", " but ",
         processed.size(), " image", processed.size() == 1 ? " was" : "s were", " given");

  const bool startsWithBos = bosToken_ && !bosToken_->empty() &&
                             e.text.compare(0, bosToken_->size(), *bosToken_) == 0;
  for (int32_t id : tokenizer_->encode(e.text, !startsWithBos))
    e.ids.push_back(id);

  if (!processed.empty()) {
    e.pixelValues = batchPixelValues(*imageProcessor_, processed);
    e.imageGridThw = batchImageGrids(processed);
  }
  return e;
}

} // namespace mm::rt
