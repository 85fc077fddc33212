//===- FuseAll.cpp - the -mm-fuse-all pass and addFusionPasses() ----------===//
//
// The fusion step of the compile pipeline. Order matters:
//  1. attention first: it proves dims through shape folding's analysis, which is
//     sharpest on the graph as imported;
//  2. layer-norm, rms-norm and activations next (they only read elementwise chains);
//  3. rotary;
//  4. linear after the activations exist, so it can absorb them as epilogues (and after
//     SwiGLU has taken its SiLU, so gate projections stay mergeable with up);
//  5. residual-norm last, on the norms steps 2 made.
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/Passes.h"
#include "mm/MMDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mm {
#define GEN_PASS_DEF_FUSEALL
#include "compiler/transforms/Passes.h.inc"

void addFusionPasses(mlir::OpPassManager &pm, bool reportNearMisses) {
  pm.addPass(createFuseAttention({reportNearMisses}));
  pm.addPass(createFuseLayerNorm({reportNearMisses}));
  pm.addPass(createFuseRMSNorm({reportNearMisses}));
  pm.addPass(createFuseActivations());
  pm.addPass(createFuseRotary());
  pm.addPass(createFuseLinear());
  pm.addPass(createFuseResidualNorm());
}

} // namespace mm

namespace {

/// Runs addFusionPasses() as one pass (for mmc-opt and textual pipelines).
struct FuseAllPass : public mm::impl::FuseAllBase<FuseAllPass> {
  using FuseAllBase::FuseAllBase;
  void runOnOperation() override {
    mlir::OpPassManager pm(mlir::func::FuncOp::getOperationName());
    mm::addFusionPasses(pm, reportNearMisses);
    if (mlir::failed(runPipeline(pm, getOperation())))
      signalPassFailure();
  }
};

} // namespace
