//===- HfImporter.h - Hugging Face model folders into the `mm` dialect --------===//
//
// A Hugging Face folder (transformers' save_pretrained layout: config.json and the
// safetensors checkpoint, one file or shards with model.safetensors.index.json) imported
// without ONNX: one builder per config.json `architectures` entry emits the mm dialect at
// the fused level (mm.linear, mm.layer_norm / mm.rms_norm, mm.attention, mm.rotary,
// mm.swiglu, activations as linear epilogues) with the functions, names, roles and
// KV-cache pairs of the ONNX path (compiler/import/onnx), so that every pass after import
// is shared. Weights are `mm.weight` references into the safetensors files (their headers
// are the only bytes read). Supported (Architectures.h): LlavaForConditionalGeneration
// (CLIP or SigLIP vision), PaliGemmaForConditionalGeneration, Idefics3ForConditionalGeneration
// SmolVLMForConditionalGeneration, FuyuForCausalLM and Qwen2VLForConditionalGeneration, with a
// Llama, Mistral, Qwen2, Gemma, Persimmon or Qwen2-VL (M-RoPE) text model;
// tensor names as transformers writes them before and after its 4.52 renames.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_IMPORT_HF_HFIMPORTER_H
#define MM_COMPILER_IMPORT_HF_HFIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mm {

/// Whether `path` is a folder with a config.json and a safetensors checkpoint.
bool isHfFolder(llvm::StringRef path);

/// The config.json `architectures` mmc builds.
const std::vector<std::string> &supportedHfArchitectures();

/// Imports the Hugging Face folder `path`. Errors (no or malformed config.json, an
/// architecture not supported (the message lists those that are), a config field the
/// builders cannot compile, a malformed safetensors header, a missing tensor or one of the
/// wrong shape or dtype, naming the tensor and the file) are MLIR diagnostics located at
/// the folder, and the call returns failure.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>> importHfFolder(llvm::StringRef path,
                                                                  mlir::MLIRContext &ctx);

} // namespace mm

#endif // MM_COMPILER_IMPORT_HF_HFIMPORTER_H
