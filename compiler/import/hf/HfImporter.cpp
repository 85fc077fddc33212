//===- HfImporter.cpp - Hugging Face model folders into the `mm` dialect -----===//
#include "compiler/import/hf/HfImporter.h"

#include "compiler/import/hf/Architectures.h"
#include "compiler/import/hf/ConfigFields.h"
#include "compiler/import/hf/Safetensors.h"
#include "compiler/support/JsonFile.h"
#include "mm/MMDialect.h"
#include "mm/ModelContract.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace mm {
namespace {

using Builder = mlir::LogicalResult (*)(mlir::ModuleOp, const nlohmann::json &, const std::string &,
                                        const hf::TensorMap &, std::string &);

struct Architecture {
  std::string name;
  Builder build;
};

const std::vector<Architecture> &architectures() {
  static const std::vector<Architecture> all = {
      {"LlavaForConditionalGeneration", hf::buildLlava},
      {"PaliGemmaForConditionalGeneration", hf::buildPaliGemma},
      {"Idefics3ForConditionalGeneration", hf::buildIdefics3},
      {"SmolVLMForConditionalGeneration", hf::buildIdefics3},
      {"FuyuForCausalLM", hf::buildFuyu},
      {"Qwen2VLForConditionalGeneration", hf::buildQwen2VL}};
  return all;
}

/// The compute type config.json's dtype (transformers 5) or torch_dtype (4.x) names:
/// float32 (and float64, which mmc computes in f32), float16 or bfloat16; "" for none or
/// another value ("auto"), which leaves the choice to the weights.
std::string configDtype(const nlohmann::json &config) {
  for (const char *key : {"dtype", "torch_dtype"})
    if (config.contains(key) && config[key].is_string()) {
      const std::string v = config[key].get<std::string>();
      if (v == "float32" || v == "float64")
        return "f32";
      if (v == "float16")
        return "f16";
      if (v == "bfloat16")
        return "bf16";
    }
  return "";
}

std::string configPathOf(llvm::StringRef folder) {
  llvm::SmallString<256> p(folder);
  llvm::sys::path::append(p, "config.json");
  return std::string(p);
}

} // namespace

const std::vector<std::string> &supportedHfArchitectures() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Architecture &a : architectures())
      out.push_back(a.name);
    return out;
  }();
  return names;
}

bool isHfFolder(llvm::StringRef path) {
  return llvm::sys::fs::is_directory(path) && llvm::sys::fs::exists(configPathOf(path)) &&
         hf::hasCheckpoint(path.str());
}

mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>> importHfFolder(llvm::StringRef path,
                                                                  mlir::MLIRContext &ctx) {
  ctx.loadDialect<MMDialect, mlir::func::FuncDialect>();
  mlir::Location loc = mlir::FileLineColLoc::get(&ctx, path, 0, 0);
  const std::string configPath = configPathOf(path);
  nlohmann::json config;
  std::string error;
  if (mlir::failed(readJsonObject(configPath, config, error)))
    return mlir::emitError(loc) << error;
  std::vector<std::string> names;
  if (config.contains("architectures") && config["architectures"].is_array())
    for (const nlohmann::json &a : config["architectures"])
      if (a.is_string())
        names.push_back(a.get<std::string>());
  if (config.contains("architectures") && config["architectures"].is_string()) // one, not a list
    names.push_back(config["architectures"].get<std::string>());
  const Architecture *chosen = nullptr;
  for (const std::string &n : names)
    for (const Architecture &a : architectures())
      if (!chosen && a.name == n)
        chosen = &a;
  if (!chosen) {
    // At most 8 names, each bounded (hf::shownValue): a config.json cannot flood the message.
    std::string given, supported;
    for (size_t i = 0; i < names.size() && i < 8; ++i) {
      const std::string q = hf::shownValue(names[i]);
      given += (given.empty() ? "" : ", ") + q.substr(1, q.size() - 2);
    }
    if (names.size() > 8)
      given += ", ... (" + std::to_string(names.size()) + " in all)";
    for (const std::string &n : supportedHfArchitectures())
      supported += (supported.empty() ? "" : ", ") + n;
    return mlir::emitError(loc) << configPath << ": architectures ["
                                << (given.empty() ? "none given" : given)
                                << "] holds none that mmc builds from safetensors (supported: "
                                << supported << ")";
  }
  hf::TensorMap tensors;
  if (mlir::failed(hf::readCheckpoint(path.str(), tensors, error)))
    return mlir::emitError(loc) << error;
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(loc);
  if (mlir::failed(chosen->build(*module, config, configPath, tensors, error)))
    return mlir::emitError(loc) << chosen->name << ": " << error;
  if (mlir::failed(mlir::verify(*module)))
    return mlir::emitError(loc) << chosen->name << ": the built module does not verify";
  if (std::string dtype = configDtype(config); !dtype.empty())
    (*module)->setAttr(contract::kConfigDtypeAttr, mlir::StringAttr::get(&ctx, dtype));
  return module;
}

} // namespace mm
