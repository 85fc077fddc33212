//===- Pipeline.h - the `mmc compile` pass pipeline -------------------------===//
//
// The one place that decides which passes `mmc compile` runs, in order:
//   0. shape folding (-mm-fold-shapes; it removes the ops that pass a value on unchanged),
//   1. -mm-raise-model-contract (function and value roles, KV-cache pairs; after it no
//      pass matches tensor names),
//   2. fusion (-mm-fuse-all: every fusion pass in order) unless --no-fusion,
//   3. -mm-convert-float-type to the compute type (after fusion, whose patterns absorb the
//      exporters' precision islands) unless the compute type is f32 and the module
//      computes in f32 already (an f32 export compiled in f32 is left as it is),
//   4. canonicalize + cse,
//   5. for --target cuda, -mm-lower-patch-embedding (a ViT's patch-embedding convolution
//      as im2col + mm.linear over a plan-held [K, O] weight), -mm-plan-cuda-graphs (op
//      placement and CUDA-graph segments, recorded in the plan; docs/cuda-graphs.md) and
//      -mm-plan-cuda-fusion last (the decode step's fused launches, Op.fusion).
// Passes are looked up by name in the pass registry, so a pass that is not built yet is
// skipped; the names of the passes added are returned (and printed by --stats).
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_PIPELINE_PIPELINE_H
#define MM_COMPILER_PIPELINE_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/LogicalResult.h"

#include <string>
#include <vector>

namespace mm {

struct PipelineOptions {
  bool fusion = true;          ///< run the fusion passes (--no-fusion turns them off)
  /// Fusion passes emit a remark per block they do not raise (fusion::reportNearMiss).
  bool reportNearMisses = false;
  std::string target = "cpu";  ///< "cpu" or "cuda"
  std::string dtype = "f32";   ///< compute type: f32, f16 or bf16 (-mm-convert-float-type)
  /// The module holds f16 or bf16 tensors (runCompilePipeline sets it): a compute type
  /// of f32 then converts them too.
  bool hasHalfFloats = false;
};

/// The float type a model computes in when the user does not say (`mmc compile --dtype
/// auto`): the module's `mm.config_dtype` ("f32", "f16" or "bf16": a Hugging Face
/// config.json's dtype / torch_dtype, set by the HF importer) when it has one, else
/// whichever of f32, f16 and bf16 holds the most bytes of mm.weight (without float
/// weights, the most float arguments); "f32" when there are neither. An f16 export
/// therefore compiles to an f16 plan.
std::string modelFloatType(mlir::ModuleOp module);

/// Adds the compile pipeline's passes to `pm` (a module-level pass manager). Returns the
/// names of the passes added, for --stats and tests; fails (with a diagnostic on
/// `loc`) when options.dtype asks for a conversion whose pass is not registered.
mlir::FailureOr<std::vector<std::string>> buildCompilePipeline(mlir::PassManager &pm,
                                                               const PipelineOptions &options,
                                                               mlir::Location loc);

/// Runs the compile pipeline on `module`; diagnostics go to the context's handler.
mlir::LogicalResult runCompilePipeline(mlir::ModuleOp module, const PipelineOptions &options,
                                       std::vector<std::string> *passNames = nullptr);

} // namespace mm

#endif // MM_COMPILER_PIPELINE_PIPELINE_H
