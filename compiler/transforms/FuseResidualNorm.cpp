//===- FuseResidualNorm.cpp - the -mm-fuse-residual-norm pass --------------===//
//
// A pre-norm transformer adds each block's output to the residual stream and normalises
// the sum for the next block:
//
//   %sum = mm.add %residual, %block_out        (same type: no broadcasting)
//   %y   = mm.rms_norm %sum, %w                (or mm.layer_norm)
//
// becomes one op with two results, the normalised value and the sum (which the next
// residual add reads):
//
//   %y, %sum = mm.add_rms_norm %residual, %block_out, %w
//
// so the sum is written once and the norm reads it from cache. Runs after the norm
// passes (it needs mm.rms_norm / mm.layer_norm). A broadcasting add (ViT's position
// embedding [1, S, C] + [B, S, C]) is left alone.
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/FusionUtils.h"
#include "compiler/transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mm {
#define GEN_PASS_DEF_FUSERESIDUALNORM
#include "compiler/transforms/Passes.h.inc"
} // namespace mm

using namespace mlir;
using namespace mm;
using namespace mm::fusion;

namespace {

/// The residual add feeding `normInput` when its operands, result and the norm's result
/// all have one type; else null.
AddOp residualAdd(Value normInput, Value normResult) {
  auto add = defOf<AddOp>(normInput);
  if (!add || add.getLhs().getType() != add.getType() ||
      add.getRhs().getType() != add.getType() || normResult.getType() != add.getType())
    return {};
  return add;
}

/// Whether a weight-like value (an operand-free definition: a weight or a constant, or a
/// transform of such values by pure ops: a checkpoint's bf16 norm scale cast to the compute
/// type) `v` can be made available before `add`: defined there already, or by ops that can
/// move above it, appended to `moves` operands first. Activations (block arguments, ops
/// reading them) do not move: only weight transforms, at most 8 deep.
bool weightHoistable(Value v, AddOp add, SmallVectorImpl<Operation *> &moves, int depth) {
  Operation *def = v.getDefiningOp();
  if (!def || def == add.getOperation() || def->getBlock() != add->getBlock() || depth > 8 ||
      !isMemoryEffectFree(def) || def->getNumRegions() != 0)
    return false;
  if (llvm::is_contained(moves, def))
    return true;
  for (Value operand : def->getOperands())
    if (!weightHoistable(operand, add, moves, depth + 1))
      return false;
  if (add->isBeforeInBlock(def))
    moves.push_back(def);
  return true;
}

/// Whether the norm parameter `p` is available at `add`: defined before it (or outside its
/// block, or absent), or a weight-like value that can move above it (weightHoistable).
bool hoistable(Value p, AddOp add, SmallVectorImpl<Operation *> &moves) {
  Operation *def = p ? p.getDefiningOp() : nullptr;
  if (!def || def->getBlock() != add->getBlock() || def->isBeforeInBlock(add))
    return true;
  return weightHoistable(p, add, moves, 0);
}

/// Makes the norm's parameters available at the add, where the fused op goes (the sum's
/// other users may sit between the add and the norm): their definitions placed after the
/// add move above it when `hoistable`; false (nothing moved) when one cannot.
bool hoistParamsAbove(AddOp add, ArrayRef<Value> params, PatternRewriter &rewriter) {
  SmallVector<Operation *> moves;
  for (Value p : params)
    if (!hoistable(p, add, moves))
      return false;
  for (Operation *op : moves)
    rewriter.moveOpBefore(op, add);
  return true;
}

struct AddRMSNormPattern : public OpRewritePattern<RMSNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RMSNormOp norm, PatternRewriter &rewriter) const override {
    AddOp add = residualAdd(norm.getInput(), norm.getResult());
    if (!add)
      return rewriter.notifyMatchFailure(norm, "input is not a same-type add");
    if (!hoistParamsAbove(add, {norm.getScale()}, rewriter))
      return rewriter.notifyMatchFailure(norm, "the scale is computed after the add, not from weights");
    rewriter.setInsertionPoint(add);
    auto fused = rewriter.create<AddRMSNormOp>(
        norm.getLoc(), TypeRange{norm.getType(), add.getType()}, add.getLhs(), add.getRhs(),
        norm.getScale(), norm.getEpsilonAttr(), norm.getScaleOffsetAttr());
    rewriter.replaceOp(norm, fused.getResult());
    rewriter.replaceOp(add, fused.getSum());
    return success();
  }
};

struct AddLayerNormPattern : public OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp norm, PatternRewriter &rewriter) const override {
    AddOp add = residualAdd(norm.getInput(), norm.getResult());
    if (!add)
      return rewriter.notifyMatchFailure(norm, "input is not a same-type add");
    if (!hoistParamsAbove(add, {norm.getScale(), norm.getBias()}, rewriter))
      return rewriter.notifyMatchFailure(norm, "the scale or bias is computed after the add, not from weights");
    rewriter.setInsertionPoint(add);
    auto fused = rewriter.create<AddLayerNormOp>(
        norm.getLoc(), TypeRange{norm.getType(), add.getType()}, add.getLhs(), add.getRhs(),
        norm.getScale(), norm.getBias(), norm.getAxisAttr(), norm.getEpsilonAttr());
    rewriter.replaceOp(norm, fused.getResult());
    rewriter.replaceOp(add, fused.getSum());
    return success();
  }
};

struct FuseResidualNormPass : public mm::impl::FuseResidualNormBase<FuseResidualNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<AddRMSNormPattern, AddLayerNormPattern>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
