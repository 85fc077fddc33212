//===- Passes.h - the mmc compiler passes ----------------------------------===//
#ifndef MM_TRANSFORMS_PASSES_H
#define MM_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mm {

#define GEN_PASS_DECL
#include "compiler/transforms/Passes.h.inc"

/// Adds the fusion passes, in order, to `pm` (a pass manager on func.func): attention,
/// layer-norm, rms-norm, activations, rotary, linear, residual-norm (docs/fusion.md).
/// The compile pipeline calls it after shape folding unless fusion is off. With
/// `reportNearMisses`, attention and the norms emit a remark for each block they do not
/// raise (see fusion::reportNearMiss).
void addFusionPasses(mlir::OpPassManager &pm, bool reportNearMisses = false);

/// registerMMPasses(): registers every mmc pass (for mmc-opt and pipeline parsing).
#define GEN_PASS_REGISTRATION
#include "compiler/transforms/Passes.h.inc"

} // namespace mm

#endif // MM_TRANSFORMS_PASSES_H
