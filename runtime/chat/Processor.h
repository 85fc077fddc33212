//===- Processor.h - a model's text and image front end, from its plan ------===//
//
// What transformers' AutoProcessor does before generate, from the model-folder files a plan
// keeps (compiler/plan/ModelConfig.h keptModelFiles): the tokenizer (tokenizer.json), the
// chat template (chat_template.jinja, else chat_template.json, else tokenizer_config.json's
// chat_template; the one named "default" when it is a list), the special tokens
// (tokenizer_config.json, else special_tokens_map.json), the image processor
// (preprocessor_config.json, else processor_config.json's "image_processor") with its
// processor's expansion of each image placeholder, and generation_config.json's defaults.
//
// Tokenization adds the tokenizer's special tokens (Llama-2's <s>) unless the prompt
// already starts with the BOS token's text, as ProcessorMixin.apply_chat_template does
// for templates that write it themselves (Llama-3's {{ bos_token }}).
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CHAT_PROCESSOR_H
#define MM_RUNTIME_CHAT_PROCESSOR_H

#include "runtime/core/Tensor.h"
#include "runtime/exec/Sampler.h"
#include "runtime/image/ImageProcessor.h"
#include "runtime/plan/Plan.h"
#include "runtime/text/ChatTemplate.h"
#include "runtime/text/Tokenizer.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mm::rt {

/// A prompt ready for the generator.
struct EncodedPrompt {
  std::string text;             ///< the prompt after the image-placeholder expansion
  std::vector<int64_t> ids;     ///< its token ids
  /// The images' pixel values stacked along the batch: [images, 3, H, W] f32 (Qwen2-VL:
  /// their patches [patches, C * T * P * P]); empty (no data) without images.
  Tensor pixelValues;
  /// Qwen2-VL: the images' image_grid_thw [images, 3] i64; empty for the others.
  Tensor imageGridThw;
};

/// generation_config.json's defaults for generate, with GenerationConfig's own defaults
/// (temperature 1, top_k 50, top_p 1, repetition_penalty 1) for what it leaves out.
struct GenerationDefaults {
  bool doSample = false;       ///< do_sample: sample, else greedy (temperature unused)
  SamplingOptions sampling;    ///< the warpers' settings, used when sampling
  int64_t maxNewTokens = -1;   ///< max_new_tokens; -1 when not given

  /// The options a request gets: sampling as the config says, greedy otherwise; with
  /// `temperature` given, that temperature (0: greedy, else sampling with the config's
  /// top_k and top_p).
  SamplingOptions choose(std::optional<double> temperature) const;
};

/// A model file by name, or nullptr when the plan has none.
using ModelFileLookup = std::function<const std::string *(const std::string &name)>;

/// The image processor the files configure (preprocessor_config.json, else
/// processor_config.json's "image_processor"; processor_config.json also gives the
/// prompt expansion); nullopt when there is neither. Throws Error for a malformed one.
std::optional<ImageProcessor> imageProcessorOf(const ModelFileLookup &file, const std::string &origin);

/// Throws Error when `processor` merges patches otherwise than the plan's M-RoPE decoder
/// places them (Qwen2-VL's merge_size against the plan's mrope_spatial_merge_size): the
/// image tokens would sit at the wrong positions.
void checkProcessorFitsPlan(const ImageProcessor &processor, const Plan &plan);

/// Processed images stacked for the vision encoder: [frames, 3, H, W] f32, one frame per
/// image ([1, 3, H, W]: CLIP, LLaVA, SigLIP) or each image's tiles and global image
/// ([1, frames, 3, M, M]: Idefics3), in order; Qwen2-VL's patch rows [patches, C * T * P *
/// P] one image after another. Throws Error naming `processor` for other pixel values,
/// frames that differ in shape, or a padded frame (a zero in pixel_attention_mask: the
/// compiled encoder takes full frames).
Tensor batchPixelValues(const ImageProcessor &processor, const std::vector<ProcessedImage> &images);
/// The images' image_grid_thw stacked: [images, 3] i64 when the processor gives grids
/// (Qwen2-VL), else an empty tensor.
Tensor batchImageGrids(const std::vector<ProcessedImage> &images);

class Processor {
public:
  using FileLookup = ModelFileLookup;

  /// From the files `file` finds; `origin` names their source in errors (the plan);
  /// `imageTokenId` is the model's image token (-1: none) and `featuresPerImage` the rows the
  /// vision encoder gives for one image (-1 when not static), which expand a placeholder
  /// when the processor expands nothing itself (CLIPProcessor configs of LLaVA models).
  /// Throws Error when tokenizer.json is missing or malformed, or another file is.
  static Processor fromFiles(const FileLookup &file, const std::string &origin,
                             int64_t imageTokenId, int64_t featuresPerImage);
  /// fromFiles with the plan's model files and generation metadata.
  static Processor fromPlan(const Plan &plan);

  const Tokenizer &tokenizer() const { return *tokenizer_; }
  bool hasChatTemplate() const { return chatTemplate_.has_value(); }
  bool hasImageProcessor() const { return imageProcessor_.has_value(); }
  /// The text a prompt holds for one image (e.g. "<image>"); "" when the model has none.
  const std::string &imagePlaceholder() const { return imagePlaceholder_; }
  const GenerationDefaults &generationDefaults() const { return defaults_; }

  /// The chat template rendered for `messages` (transformers' format: role and content, a
  /// string or a list of {"type": "text", "text": ...} and {"type": "image"} parts), with
  /// the BOS and EOS tokens. Throws ChatTemplateError, or Error when there is no template.
  std::string renderChat(const nlohmann::ordered_json &messages, bool addGenerationPrompt) const;
  /// A prompt without a template: `text` as it is when it holds an image placeholder,
  /// else one placeholder and a newline per image, then `text`.
  std::string plainPrompt(const std::string &text, size_t images) const;

  /// An image through the model's image processor (so a caller keeps the pixel values,
  /// not the decoded image). Throws Error when the model has no image processor or the
  /// image cannot be processed.
  ProcessedImage processImage(const RgbImage &image) const;
  /// Tokenizes `prompt` after expanding its image placeholders, one per image in order,
  /// and stacks the images' pixel values. Throws Error when the placeholders and images
  /// differ in number or the prompt is not valid UTF-8.
  EncodedPrompt encode(const std::string &prompt, const std::vector<ProcessedImage> &images) const;

private:
  Processor() = default;
  std::string origin_;
  std::shared_ptr<const Tokenizer> tokenizer_;
  std::optional<ChatTemplate> chatTemplate_;
  std::optional<ImageProcessor> imageProcessor_;
  std::optional<std::string> bosToken_, eosToken_;
  std::string imagePlaceholder_;
  int64_t featuresPerImage_ = -1;
  GenerationDefaults defaults_;
};

} // namespace mm::rt

#endif // MM_RUNTIME_CHAT_PROCESSOR_H
