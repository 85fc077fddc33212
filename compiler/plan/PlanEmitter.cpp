//===- PlanEmitter.cpp - write a module of `mm` functions as a plan file ----===//
#include "compiler/plan/PlanEmitter.h"

#include "compiler/plan/FunctionEncoder.h"
#include "compiler/plan/KvCachePattern.h"
#include "compiler/plan/ModelConfig.h"
#include "compiler/plan/PlanWriter.h"
#include "mm/ModelContract.h"
#include "runtime/plan/PlanFormat.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"

using namespace mlir;
namespace fb = mm::plan::fb;

namespace mm {
namespace {

/// Static dim `d` of the type of value `v`, or -1.
int64_t staticDim(Type type, int64_t d) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || d >= t.getRank())
    return -1;
  int64_t i = d < 0 ? d + t.getRank() : d;
  return t.isDynamicDim(i) ? -1 : t.getDimSize(i);
}

/// Prefers the graph's value; warns when config.json says otherwise.
int64_t reconcile(func::FuncOp decoder, const char *what, int64_t graph, int64_t config) {
  if (graph >= 0 && config >= 0 && graph != config)
    emitWarning(decoder.getLoc()) << "config.json gives " << what << " = " << config
                                  << " but the graphs give " << graph << "; using " << graph;
  return graph >= 0 ? graph : config;
}

/// GenerationInfo when the module has functions with the embedding and decoder roles
/// (-mm-raise-model-contract).
FailureOr<flatbuffers::Offset<fb::GenerationInfo>>
encodeGeneration(flatbuffers::FlatBufferBuilder &fbb, ModuleOp module, const PlanEmitOptions &options,
                 PlanStats &stats) {
  using contract::FunctionRole;
  using contract::ValueRole;
  auto decoder = contract::functionWithRole(module, FunctionRole::decoder);
  auto embed = contract::functionWithRole(module, FunctionRole::embedding);
  auto vision = contract::functionWithRole(module, FunctionRole::visionEncoder);
  if (!decoder || !embed)
    return flatbuffers::Offset<fb::GenerationInfo>();

  ModelConfig config;
  std::string configPath =
      options.configPath.empty() ? findModelConfig(options.modelPath) : options.configPath;
  if (!configPath.empty()) {
    std::string error;
    if (failed(readModelConfig(configPath, config, error)))
      return emitError(module.getLoc()) << error;
  }
  stats.configPath = config.path;

  auto slots = findKvCacheSlots(decoder);
  if (failed(slots))
    return failure();
  int64_t layers = -1, kvHeads = -1, headDim = -1;
  for (const KvCacheMatch &m : *slots) {
    layers = std::max<int64_t>(layers, m.layer + 1);
    Type past = decoder.getArgument(m.argIndex).getType();
    kvHeads = staticDim(past, m.headsAxis());
    headDim = staticDim(past, -1);
  }
  int64_t hidden = -1, vocab = -1;
  if (int i = contract::argWithRole(decoder, ValueRole::inputsEmbeds); i >= 0)
    hidden = staticDim(decoder.getArgument(i).getType(), -1);
  if (int i = contract::resultWithRole(decoder, ValueRole::logits); i >= 0)
    vocab = staticDim(decoder.getResultTypes()[i], -1);
  if (vision && config.imageTokenId < 0)
    emitWarning(module.getLoc())
        << "no image token id: no config.json with image_token_index next to the model "
           "(pass --config); prompts with images cannot be run";

  // M-RoPE decoders (position_ids [3, batch, seq]) place image tokens on the merged grid.
  int64_t mropeMergeSize = 0;
  if (int i = contract::argWithRole(decoder, ValueRole::positionIds); i >= 0)
    if (auto t = dyn_cast<RankedTensorType>(decoder.getArgument(i).getType()); t && t.getRank() == 3) {
      mropeMergeSize = std::max<int64_t>(config.spatialMergeSize, 0);
      if (vision && mropeMergeSize == 0)
        emitWarning(module.getLoc())
            << "the decoder takes M-RoPE position ids [3, batch, seq] but config.json gives no "
               "vision_config.spatial_merge_size; prompts with images cannot be run";
    }
  auto str = [&](func::FuncOp f) {
    return f ? fbb.CreateString(f.getSymName().str()) : flatbuffers::Offset<flatbuffers::String>();
  };
  auto visionName = str(vision), embedName = str(embed), decoderName = str(decoder);
  auto eos = fbb.CreateVector(config.eosTokenIds);
  stats.generation = true;
  return fb::CreateGenerationInfo(
      fbb, visionName, embedName, decoderName, config.imageTokenId, config.bosTokenId, eos,
      reconcile(decoder, "hidden_size", hidden, config.hiddenSize),
      reconcile(decoder, "vocab_size", vocab, config.vocabSize),
      static_cast<int32_t>(reconcile(decoder, "num_hidden_layers", layers, config.numLayers)),
      reconcile(decoder, "num_key_value_heads", kvHeads, config.numKvHeads),
      reconcile(decoder, "head_dim", headDim, config.headDim), config.maxPositions, mropeMergeSize);
}

/// The model-folder files kept for the runtime (readModelFiles), next to the config.json
/// in use.
FailureOr<flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::ModelFile>>>>
encodeModelFiles(flatbuffers::FlatBufferBuilder &fbb, ModuleOp module,
                 const PlanEmitOptions &options, PlanStats &stats) {
  const std::string configPath =
      options.configPath.empty() ? findModelConfig(options.modelPath) : options.configPath;
  std::vector<ModelFile> files;
  std::string error;
  if (failed(readModelFiles(configPath, files, error)))
    return emitError(module.getLoc()) << error;
  std::vector<flatbuffers::Offset<fb::ModelFile>> encoded;
  for (const ModelFile &f : files) {
    encoded.push_back(fb::CreateModelFile(fbb, fbb.CreateString(f.name),
                                          fbb.CreateString(f.contents)));
    stats.modelFiles.push_back(f.name);
  }
  return fbb.CreateVector(encoded);
}

std::string modelDirOf(StringRef modelPath) {
  if (modelPath.empty())
    return "";
  if (llvm::sys::fs::is_directory(modelPath))
    return modelPath.str();
  return llvm::sys::path::parent_path(modelPath).str();
}

} // namespace

void PlanStats::print(llvm::raw_ostream &os) const {
  os << "plan: " << functions.size() << " function(s), " << weights << " weights ("
     << weightBytes << " bytes), inline constants " << constantBytes << " bytes, FlatBuffer "
     << flatbufferBytes << " bytes, file " << fileBytes << " bytes\n";
  for (const FunctionPlanStats &f : functions) {
    os << "  @" << f.name << ": " << f.ops << " ops, " << f.tensors << " tensors ("
       << f.activations << " activations, " << f.weights << " weights, " << f.constants
       << " constants), " << f.kvSlots << " KV-cache slots, " << f.foldedConcats
       << " weight concats and " << f.foldedCasts << " weight casts folded";
    if (f.foldedTransposes > 0)
      os << ", " << f.foldedTransposes << " weight transposes folded";
    if (f.foldedReshapes > 0)
      os << ", " << f.foldedReshapes << " weight reshapes folded";
    os << "\n";
  }
  for (const FunctionPlanStats &f : functions)
    if (f.planned)
      os << "  @" << f.name << " on cuda: " << f.hostOps << " host ops, " << f.deviceOps
         << " device ops, " << f.segments << " CUDA-graph segments\n";
  os << "  generation metadata: " << (generation ? "yes" : "no");
  if (generation)
    os << " (config: " << (configPath.empty() ? "none found" : configPath) << ")";
  os << "\n";
  if (!modelFiles.empty()) {
    os << "  model files kept:";
    for (const std::string &f : modelFiles)
      os << " " << f;
    os << "\n";
  }
}

LogicalResult emitPlan(ModuleOp module, const PlanEmitOptions &options, StringRef outputPath,
                       PlanStats *statsOut) {
  PlanStats stats;
  flatbuffers::FlatBufferBuilder fbb(1 << 20);
  WeightTable weights;
  std::vector<flatbuffers::Offset<fb::Function>> functions;
  for (auto fn : module.getOps<func::FuncOp>()) {
    FunctionPlanStats fstats;
    auto encoded = encodeFunction(fbb, fn, weights, fstats, stats.constantBytes);
    if (failed(encoded))
      return failure();
    functions.push_back(*encoded);
    stats.functions.push_back(fstats);
  }
  if (functions.empty())
    return emitError(module.getLoc()) << "the module has no function to put in a plan";
  auto generation = encodeGeneration(fbb, module, options, stats);
  if (failed(generation))
    return failure();
  auto modelFiles = encodeModelFiles(fbb, module, options, stats);
  if (failed(modelFiles))
    return failure();

  std::vector<flatbuffers::Offset<fb::WeightRef>> weightRefs;
  for (const WeightEntry &w : weights.entries())
    weightRefs.push_back(fb::CreateWeightRef(fbb, fbb.CreateString(w.name), w.blobOffset, w.length));
  auto producer = fbb.CreateString(options.producer);
  auto target = fbb.CreateString(options.target);
  auto functionsVec = fbb.CreateVector(functions);
  auto weightsVec = fbb.CreateVector(weightRefs);
  fb::DType computeDType = options.computeDType == "bf16"  ? fb::DType::bf16
                          : options.computeDType == "f16" ? fb::DType::f16
                                                          : fb::DType::f32;
  auto root = fb::CreatePlan(fbb, plan::kPlanFormatVersion, producer, target, computeDType,
                             functionsVec, weightsVec, plan::kWeightAlignment, weights.blobSize(),
                             *generation, *modelFiles);
  fb::FinishPlanBuffer(fbb, root);
  if (fbb.GetSize() >= (1u << 31))
    return emitError(module.getLoc()) << "the plan's FlatBuffer is " << fbb.GetSize()
                                      << " bytes, over the 2 GiB limit";

  stats.weights = weights.entries().size();
  stats.weightBytes = weights.blobSize();
  stats.flatbufferBytes = fbb.GetSize();
  if (failed(writePlanFile(outputPath, llvm::ArrayRef<uint8_t>(fbb.GetBufferPointer(), fbb.GetSize()),
                           weights, modelDirOf(options.modelPath), module.getLoc(),
                           stats.fileBytes)))
    return failure();
  if (statsOut)
    *statsOut = std::move(stats);
  return success();
}

} // namespace mm
