//===- ModelConfig.h - generation metadata from a Hugging Face config.json -===//
//
// Reads the fields a multimodal generator needs from config.json (LLaVA-style nesting:
// top-level image_token_index, text_config.{hidden_size, ...}; flat for text-only
// models) and generation_config.json (eos/bos token ids) next to it.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_PLAN_MODELCONFIG_H
#define MM_COMPILER_PLAN_MODELCONFIG_H

#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mm {

/// Fields are -1 / empty when the file does not give them.
struct ModelConfig {
  std::string path;              ///< the config.json read ("" if none was found)
  int64_t imageTokenId = -1;     ///< image_token_index or image_token_id (else the family's default)
  int64_t bosTokenId = -1;
  std::vector<int64_t> eosTokenIds;
  int64_t hiddenSize = -1;
  int64_t vocabSize = -1;
  int64_t numLayers = -1;        ///< num_hidden_layers
  int64_t numKvHeads = -1;       ///< num_key_value_heads (else num_attention_heads)
  int64_t headDim = -1;          ///< head_dim (else hidden_size / num_attention_heads)
  int64_t maxPositions = -1;     ///< max_position_embeddings
  int64_t spatialMergeSize = -1; ///< vision_config.spatial_merge_size (Qwen2-VL's M-RoPE grids)
};

/// The config.json that belongs to the model at `modelPath` (an .onnx or .mlir file or a
/// folder): in its folder, or in the parent when that folder is named `onnx`. Returns ""
/// when there is none.
std::string findModelConfig(llvm::StringRef modelPath);

/// Parses `configPath` (and generation_config.json in the same folder, when present).
/// On a malformed file, writes a message naming the file and field to `error` and fails.
mlir::LogicalResult readModelConfig(const std::string &configPath, ModelConfig &out,
                                    std::string &error);

/// A file of the model folder the plan keeps for the runtime (plan.fbs ModelFile).
struct ModelFile {
  std::string name, contents;
};

/// A model-folder file the plan keeps when the folder has it.
struct ModelFileKind {
  const char *name;
  bool json; ///< must parse as JSON (chat_template.jinja is Jinja text)
};

/// What the runtime's text and image path reads (runtime/chat/Processor.h), in the HF
/// layout (transformers' save_pretrained; Optimum and transformers.js ONNX folders keep
/// them next to config.json): tokenizer.json, tokenizer_config.json,
/// special_tokens_map.json, chat_template.json, chat_template.jinja,
/// preprocessor_config.json, processor_config.json, generation_config.json.
const std::vector<ModelFileKind> &keptModelFiles();

/// The files of keptModelFiles() that the folder of `configPath` (the config.json in use;
/// none when it is "") holds. Each must be a regular file of at most 64 MiB, and a JSON
/// one must parse; otherwise writes a message naming the file to `error` and fails.
mlir::LogicalResult readModelFiles(const std::string &configPath, std::vector<ModelFile> &out,
                                   std::string &error);

} // namespace mm

#endif // MM_COMPILER_PLAN_MODELCONFIG_H
