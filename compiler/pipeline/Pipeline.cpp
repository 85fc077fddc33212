//===- Pipeline.cpp - the `mmc compile` pass pipeline -----------------------===//
#include "compiler/pipeline/Pipeline.h"

#include "compiler/transforms/Passes.h"

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
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  if (addRegisteredPass(fpm, "mm-fold-shapes"))
    names.push_back("mm-fold-shapes");
  if (options.fusion && addRegisteredPass(fpm, "mm-fuse-all"))
    names.push_back("mm-fuse-all");
  if (options.dtype != "f32") {
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
    if (!addRegisteredPass(fpm, "mm-plan-cuda-graphs"))
      return emitError(loc) << "cannot compile for cuda: -mm-plan-cuda-graphs is not available";
    names.push_back("mm-plan-cuda-graphs");
  }
  return names;
}

LogicalResult runCompilePipeline(ModuleOp module, const PipelineOptions &options,
                                 std::vector<std::string> *passNames) {
  PassManager pm(module.getContext());
  auto names = buildCompilePipeline(pm, options, module.getLoc());
  if (failed(names))
    return failure();
  if (passNames)
    *passNames = *names;
  return pm.run(module);
}

} // namespace mm
