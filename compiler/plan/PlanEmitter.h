//===- PlanEmitter.h - write a module of `mm` functions as a plan file ------===//
//
// emitPlan walks every func.func of the module (after the compile pipeline), numbers
// its tensors (arguments, mm.weight and mm.constant results, op results), records each
// activation's liveness (producing op, last reading op; function results live to the
// end), converts op attributes generically, marks KV-cache slots (KvCachePattern.h),
// fills the generation metadata from the graphs and config.json, and writes the plan:
// header, FlatBuffer, then the weights, from their mapped source files, into a blob
// after the FlatBuffer (never all in memory: PlanWriter.h). The file is written under a temporary name
// and renamed, so a failure leaves no plan behind. See docs/plan-format.md.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_PLAN_PLANEMITTER_H
#define MM_COMPILER_PLAN_PLANEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mm {

struct PlanEmitOptions {
  std::string target = "cpu";   ///< "cpu" or "cuda" (recorded in the plan)
  std::string producer = "mmc"; ///< recorded in the plan, e.g. "mmc 0.1.0"
  std::string computeDType = "f32"; ///< recorded in the plan: f32, f16 or bf16
  /// The model the module came from: relative weight sources are resolved against its
  /// folder, and config.json is looked up next to it (ModelConfig.h).
  std::string modelPath;
  /// An explicit config.json ("" = look next to modelPath).
  std::string configPath;
};

struct FunctionPlanStats {
  std::string name;
  uint64_t ops = 0, tensors = 0, activations = 0, weights = 0, constants = 0, kvSlots = 0;
  uint64_t foldedConcats = 0; ///< concats of weights written as one weight (no op)
  uint64_t foldedCasts = 0;   ///< casts of weights written as converted weights (no op)
  uint64_t foldedTransposes = 0; ///< 2-D transposes of weights written transposed (no op)
  uint64_t foldedReshapes = 0;   ///< reshapes of weights written as they are (no op)
  bool planned = false;       ///< placed by -mm-plan-cuda-graphs (--target cuda)
  uint64_t hostOps = 0, deviceOps = 0, segments = 0; ///< when planned
};

struct PlanStats {
  std::vector<FunctionPlanStats> functions;
  uint64_t weights = 0;       ///< distinct weights in the blob
  uint64_t weightBytes = 0;   ///< blob size
  uint64_t constantBytes = 0; ///< inline constants
  uint64_t flatbufferBytes = 0;
  uint64_t fileBytes = 0;
  bool generation = false;    ///< GenerationInfo written
  std::string configPath;     ///< the config.json used ("" if none)
  std::vector<std::string> modelFiles; ///< model-folder files kept (readModelFiles)

  void print(llvm::raw_ostream &os) const;
};

/// Writes `module` as a plan to `outputPath`. Errors are emitted as diagnostics located
/// at the offending op or function (unsupported op, type or attribute; unreadable weight
/// source; weight bytes past the end of their file; I/O errors) and the call fails
/// without leaving a file at `outputPath`.
mlir::LogicalResult emitPlan(mlir::ModuleOp module, const PlanEmitOptions &options,
                             llvm::StringRef outputPath, PlanStats *stats = nullptr);

} // namespace mm

#endif // MM_COMPILER_PLAN_PLANEMITTER_H
