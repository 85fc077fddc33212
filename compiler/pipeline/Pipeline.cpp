//===- Pipeline.cpp - the `mmc compile` pass pipeline -----------------------===//
#include "compiler/pipeline/Pipeline.h"

#include "compiler/transforms/Passes.h"
#include "mm/MMOps.h"
#include "mm/ModelContract.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace mm {
namespace {

/// Adds the registered pass `name` (nested on func.func) if it exists. Passes are looked
/// up by name so the pipeline builds while passes are still being written.
bool addRegisteredPass(OpPassManager &fpm, StringRef name, StringRef options = "") {
  const PassInfo *info = PassInfo::lookup(name);
  if (!info)
    return false;
  return succeeded(info->addToPipeline(fpm, options, [](const Twine &) { return failure(); }));
}

} // namespace

FailureOr<std::vector<std::string>> buildCompilePipeline(PassManager &pm,
                                                         const PipelineOptions &options,
                                                         Location loc) {
  static const bool registered = [] {
    registerMMPasses();
    return true;
  }();
  (void)registered;
  std::vector<std::string> names;
  if (addRegisteredPass(pm.nest<func::FuncOp>(), "mm-fold-shapes"))
    names.push_back("mm-fold-shapes");
  // Right after shape folding (which removes the ops that pass a value on unchanged, such
  // as a cast of a KV-cache input to its own type): nothing after it matches tensor names.
  pm.addPass(createRaiseModelContract());
  names.push_back("mm-raise-model-contract");
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  if (options.fusion &&
      addRegisteredPass(fpm, "mm-fuse-all", options.reportNearMisses ? "report-near-misses=true" : ""))
    names.push_back("mm-fuse-all");
  if (options.dtype != "f32" || options.hasHalfFloats) {
    if (!addRegisteredPass(fpm, "mm-convert-float-type", "to=" + options.dtype))
      return emitError(loc) << "cannot convert to " << options.dtype
                            << ": -mm-convert-float-type is not available";
    names.push_back("mm-convert-float-type{to=" + options.dtype + "}");
  }
  fpm.addPass(createCanonicalizerPass());
  fpm.addPass(createCSEPass());
  names.push_back("canonicalize");
  names.push_back("cse");
  if (options.target == "cuda") {
    if (!addRegisteredPass(fpm, "mm-lower-patch-embedding"))
      return emitError(loc) << "cannot compile for cuda: -mm-lower-patch-embedding is not available";
    names.push_back("mm-lower-patch-embedding");
    if (!addRegisteredPass(fpm, "mm-plan-cuda-graphs"))
      return emitError(loc) << "cannot compile for cuda: -mm-plan-cuda-graphs is not available";
    names.push_back("mm-plan-cuda-graphs");
    if (!addRegisteredPass(fpm, "mm-plan-cuda-fusion"))
      return emitError(loc) << "cannot compile for cuda: -mm-plan-cuda-fusion is not available";
    names.push_back("mm-plan-cuda-fusion");
  }
  return names;
}

namespace {

/// The element type of `t` when it is a float tensor of f16 or bf16, else null.
Type halfElementType(Type t) {
  auto r = dyn_cast<RankedTensorType>(t);
  return r && (r.getElementType().isF16() || r.getElementType().isBF16()) ? r.getElementType()
                                                                         : Type();
}

bool holdsHalfFloats(ModuleOp module) {
  bool found = false;
  module.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      found |= static_cast<bool>(halfElementType(t));
    if (auto fn = dyn_cast<func::FuncOp>(op))
      for (Type t : fn.getArgumentTypes())
        found |= static_cast<bool>(halfElementType(t));
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}

} // namespace

std::string modelFloatType(ModuleOp module) {
  if (auto given = module->getAttrOfType<StringAttr>(contract::kConfigDtypeAttr))
    if (llvm::is_contained({"f32", "f16", "bf16"}, given.getValue()))
      return given.str();
  int64_t f32 = 0, f16 = 0, bf16 = 0;
  auto count = [&](Type t, int64_t amount) {
    Type e = cast<RankedTensorType>(t).getElementType();
    if (e.isF32())
      f32 += amount;
    else if (e.isF16())
      f16 += amount;
    else if (e.isBF16())
      bf16 += amount;
  };
  module.walk([&](WeightOp w) { count(w.getType(), w.getLength()); });
  if (f32 + f16 + bf16 == 0) // no float weights: the float arguments decide
    module.walk([&](func::FuncOp fn) {
      for (Type t : fn.getArgumentTypes())
        if (isa<RankedTensorType>(t))
          count(t, 1);
    });
  if (f16 > f32 && f16 >= bf16)
    return "f16";
  if (bf16 > f32 && bf16 > f16)
    return "bf16";
  return "f32";
}

LogicalResult runCompilePipeline(ModuleOp module, const PipelineOptions &given,
                                 std::vector<std::string> *passNames) {
  PipelineOptions options = given;
  options.hasHalfFloats = holdsHalfFloats(module);
  PassManager pm(module.getContext());
  auto names = buildCompilePipeline(pm, options, module.getLoc());
  if (failed(names))
    return failure();
  if (passNames)
    *passNames = *names;
  return pm.run(module);
}

} // namespace mm
