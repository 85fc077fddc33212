//===- ImageProcessor.h - the image processor a model's configs name ---------===//
//
// One entry point for the vision-language image processors of transformers (v5): the
// one preprocessor_config.json's `image_processor_type` names, with the prompt expansion
// of the processor (processor_config.json's, else preprocessor_config.json's,
// `processor_class`, else the processor that goes with the image processor):
//
//   image_processor_type                      implementation          prompt (processor)
//   CLIPImageProcessor                        ClipImageProcessor.h    none (CLIPProcessor),
//                                                                     or LlavaProcessor
//   LlavaImageProcessor                       LlavaImageProcessor.h   LlavaProcessor
//   SiglipImageProcessor                      SiglipImageProcessor.h  none (SiglipProcessor)
//   Qwen2VLImageProcessor                     Qwen2VlImageProcessor.h Qwen2VLProcessor,
//                                                                     Qwen2_5_VLProcessor
//   Idefics3ImageProcessor,
//   SmolVLMImageProcessor                     Idefics3ImageProcessor.h Idefics3Processor,
//                                                                     SmolVLMProcessor
//
// Each also under its "Fast" and "Pil" spellings, and `feature_extractor_type`
// (FeatureExtractor read as ImageProcessor) when `image_processor_type` is absent, as
// AutoImageProcessor reads them. Every one computes what transformers' PIL backend
// computes (Pillow's resize, bit for bit; numpy's float32 rescale and normalise).
//
// Backends, and what AutoImageProcessor picks (transformers v5,
// models/auto/image_processing_auto.py, _resolve_backend): a "Fast" suffix on the type is
// stripped and no longer names a backend; with no `backend=` (or deprecated `use_fast=`)
// argument, Idefics3ImageProcessor and SmolVLMImageProcessor (with Chameleon and Flava:
// they resize with Lanczos) get the PIL backend, every other type the torchvision backend
// when torchvision is installed, else PIL. The torchvision backend resizes with
// torchvision's antialiased tensor resize, not Pillow's fixed-point one, and fuses
// rescale and normalise into (x - mean / factor) / (std / factor), so its pixel values can
// differ from the PIL backend's (processor_reference.py records by how much, per config).
// Consequence: CLIP, LLaVA, SigLIP and Qwen2-VL pixel values here are those of
// AutoImageProcessor.from_pretrained(..., backend="pil") (the XxxImageProcessorPil
// classes), not of its default on a machine with torchvision; Idefics3 / SmolVLM ones are
// its default's. "Xxx" and "XxxFast" load the same class in v5, so they are the same
// processor here too.
//
// Not applied, as in ClipImageProcessor: EXIF orientation and do_convert_rgb false (the
// decoder always gives RGB, as Pillow's convert("RGB")).
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_IMAGE_IMAGEPROCESSOR_H
#define MM_RUNTIME_IMAGE_IMAGEPROCESSOR_H

#include "runtime/image/ClipImageProcessor.h"
#include "runtime/image/Idefics3ImageProcessor.h"
#include "runtime/image/LlavaImageProcessor.h"
#include "runtime/image/Qwen2VlImageProcessor.h"
#include "runtime/image/SiglipImageProcessor.h"

#include <string>
#include <variant>
#include <vector>

namespace mm::rt {

enum class ImageProcessorFamily { Clip, Llava, Siglip, Qwen2Vl, Idefics3 };
/// How a prompt's image placeholder is expanded.
enum class PromptStyle {
  None,     ///< CLIPProcessor / SiglipProcessor: no image token
  Llava,    ///< LlavaProcessor: "<image>" repeated
  Qwen2Vl,  ///< Qwen2VLProcessor: "<|image_pad|>" repeated
  Idefics3, ///< Idefics3Processor / SmolVLMProcessor: tiles and the global image
};

/// One image through the processor: what transformers' processor returns for it.
struct ProcessedImage {
  std::vector<float> pixelValues;
  /// [1, 3, H, W] (CLIP, LLaVA, SigLIP); [patches, C*T*P*P] (Qwen2-VL);
  /// [1, frames, 3, M, M] (Idefics3).
  std::vector<int64_t> shape;
  /// Qwen2-VL's image_grid_thw [1, 3]: {grid_t, grid_h, grid_w}; empty for the others.
  std::vector<int64_t> imageGridThw;
  /// Idefics3's pixel_attention_mask [1, frames, M, M] when do_pad (1 = pixel, 0 = padding;
  /// transformers' PIL backend gives int64): all ones for one image.
  std::vector<uint8_t> pixelAttentionMask;
  std::vector<int64_t> maskShape;
  int64_t rows = 0, cols = 0; ///< Idefics3's tile grid (0, 0 when not split)
  int64_t frames = 1;         ///< Idefics3's tiles + global image; 1 for the others
  /// The image tokens the prompt's placeholder becomes (Idefics3: "<image>" tokens only,
  /// without the wrapper tokens); 0 when the processor expands nothing.
  int64_t numImageTokens = 0;
};

class ImageProcessor {
public:
  /// From preprocessor_config.json's text (`what` names it in errors) and
  /// processor_config.json's ("" when the model has none). An empty preprocessor config
  /// takes processor_config.json's nested "image_processor" object, as transformers v5
  /// saves it. Throws Error for an unknown type (listing the supported ones), an unknown
  /// processor_class, and malformed fields.
  static ImageProcessor fromConfigs(const std::string &preprocessorJson, const std::string &what,
                                    const std::string &processorJson = "",
                                    const std::string &processorWhat = "processor_config.json");

  ImageProcessorFamily family() const { return family_; }
  PromptStyle promptStyle() const { return style_; }
  /// image_processor_type as written (after the FeatureExtractor rename).
  const std::string &typeName() const { return type_; }
  /// The processor class whose prompt expansion this applies ("" for none).
  const std::string &processorClass() const { return processorClass_; }
  /// The placeholder a prompt holds for one image ("" for PromptStyle::None).
  const std::string &imageToken() const { return imageToken_; }
  /// Qwen2-VL's merge_size (its image tokens are merge_size^2 patches); 0 for the others.
  int64_t mergeSize() const;

  /// The processor's outputs for one image.
  ProcessedImage process(const RgbImage &image) const;
  /// The text one placeholder becomes for `image`.
  std::string imagePromptString(const ProcessedImage &image) const;
  /// `prompt` with its one placeholder replaced by imagePromptString; Error when it holds
  /// none or several, when the processor expands nothing, or when LlavaProcessor has no
  /// patch_size.
  std::string expandPrompt(const std::string &prompt, const ProcessedImage &image) const;

private:
  ImageProcessorFamily family_ = ImageProcessorFamily::Clip;
  PromptStyle style_ = PromptStyle::None;
  std::string type_, processorClass_, imageToken_, what_;
  std::variant<LlavaProcessorConfig, SiglipProcessorConfig, Qwen2VlProcessorConfig,
               Idefics3ProcessorConfig>
      config_;
  // LlavaProcessor's fields (processor_config.json).
  int64_t patchSize_ = 0, numAdditionalImageTokens_ = 0;
  bool defaultStrategy_ = false;
  // Idefics3Processor's image_seq_len.
  int64_t imageSeqLen_ = 169;
};

/// The image_processor_type values fromConfigs takes (without the Fast/Pil spellings).
const std::vector<std::string> &supportedImageProcessorTypes();

} // namespace mm::rt

#endif
