//===- FuseLinear.cpp - the -mm-fuse-linear pass ---------------------------===//
//
// Raises projections to `mm.linear` in three steps:
//
// 1. matmul(x, W) [+ b] -> linear(x, W, b) when W is a weight (`mm.weight` or
//    `mm.constant`, 2-D [K, N] as ONNX MatMul stores it, or a transpose of a weight
//    [N, K] -> [K, N], either behind float casts) and b is 1-D [N] (either add operand
//    order).
// 2. An activation that is the only user of a linear without one becomes its epilogue:
//    gelu -> gelu, gelu<tanh> -> gelu_tanh, quick_gelu, silu, relu.
// 3. Linears without activation that read the same input and whose weights (and biases,
//    all or none) the plan emitter folds into weights read from `mm.weight`s (behind casts
//    and transposes: mm/WeightExpr.h), the weights all or none transposed, are merged into
//    one (Q/K/V projections; gate and up):
//
//      %w = mm.concat %wq, %wk, %wv {axis = 1}    [K, Nq + Nk + Nv]
//      %b = mm.concat %bq, %bk, %bv {axis = 0}    (when biased)
//      %y = mm.linear %x, %w, %b
//      %q, %k, %v = mm.split %y {axis = last, sizes = [Nq, Nk, Nv]}
//
//    The merged weight stays an expression of the original weights (docs/fusion.md):
//    the plan emitter can materialise a concat of weights as one weight at emit time;
//    executed as is, it is an ordinary concat and still correct. Disable with
//    `merge-projections=false`.
//
// Activations are absorbed before merging, so a merged linear has no epilogue (its
// outputs are split). Steps 2 and 3 see the linears step 1 made.
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/FusionUtils.h"
#include "compiler/transforms/Passes.h"
#include "mm/WeightExpr.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/MapVector.h"

namespace mm {
#define GEN_PASS_DEF_FUSELINEAR
#include "compiler/transforms/Passes.h.inc"
} // namespace mm

using namespace mlir;
using namespace mm;
using namespace mm::fusion;

namespace {

/// A value that holds parameters, not activations: a weight, a constant, or a 2-D
/// transpose or float cast of one.
bool isParameter(Value w) {
  if (auto t = defOf<TransposeOp>(w))
    return t.getPerm() == ArrayRef<int64_t>{1, 0} && isParameter(t.getInput());
  if (auto c = defOf<CastOp>(w))
    return isParameter(c.getInput());
  return defOf<WeightOp>(w) || defOf<ConstantOp>(w);
}

/// matmul(x, W) [+ b] -> linear, rooted at the matmul.
struct MatMulToLinearPattern : public OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatMulOp mm, PatternRewriter &rewriter) const override {
    Value x = mm.getLhs(), w = mm.getRhs();
    auto xt = tensorTypeOf(x), wt = tensorTypeOf(w), rt = tensorTypeOf(mm.getResult());
    if (wt.getRank() != 2 || xt.getRank() < 1 || !isParameter(w))
      return rewriter.notifyMatchFailure(mm, "rhs is not a 2-D weight");
    SmallVector<int64_t> expected(xt.getShape().drop_back());
    expected.push_back(wt.getDimSize(1));
    if (rt.getShape() != ArrayRef<int64_t>(expected))
      return rewriter.notifyMatchFailure(mm, "result is not x's shape with N last");
    Operation *last = mm;
    Value bias;
    if (auto add = dyn_cast_or_null<AddOp>(singleUser(mm.getResult()));
        add && add.getType() == rt) {
      eitherOrder(add.getLhs(), add.getRhs(), [&](Value y, Value b) {
        auto bt = tensorTypeOf(b);
        if (y != mm.getResult() || bt.getRank() != 1 || bt.getDimSize(0) != wt.getDimSize(1) ||
            ShapedType::isDynamic(bt.getDimSize(0)))
          return false;
        bias = b;
        last = add;
        return true;
      });
    }
    rewriter.setInsertionPoint(last);
    auto linear = rewriter.create<LinearOp>(last->getLoc(), rt, x, w, bias,
                                            ActivationAttr::get(getContext(), Activation::none));
    rewriter.replaceOp(last, linear.getResult());
    if (last != mm)
      rewriter.eraseOp(mm);
    return success();
  }
};

/// The epilogue an activation op becomes, if it is one.
std::optional<Activation> epilogueOf(Operation *op) {
  if (auto g = dyn_cast<GeluOp>(op))
    return g.getApproximate() == GeluApproximation::tanh ? Activation::gelu_tanh : Activation::gelu;
  if (isa<QuickGeluOp>(op))
    return Activation::quick_gelu;
  if (isa<SiluOp>(op))
    return Activation::silu;
  if (isa<ReluOp>(op))
    return Activation::relu;
  return std::nullopt;
}

/// act(linear(...)) -> linear(...){activation = act}, rooted at the activation.
struct AbsorbEpiloguePattern : public RewritePattern {
  explicit AbsorbEpiloguePattern(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    std::optional<Activation> act = epilogueOf(op);
    if (!act)
      return failure();
    // Look through a cast that only refines dims (see refineType in FusionUtils.h).
    Value in = op->getOperand(0);
    CastOp refine = defOf<CastOp>(in);
    if (refine && refine->hasOneUse() &&
        compatibleTypes(refine.getInput().getType(), refine.getType()))
      in = refine.getInput();
    else
      refine = {};
    auto linear = defOf<LinearOp>(in);
    if (!linear || linear.getActivation() != Activation::none || !linear->hasOneUse() ||
        !compatibleTypes(linear.getType(), op->getResult(0).getType()))
      return rewriter.notifyMatchFailure(op, "input is not a private linear without epilogue");
    rewriter.setInsertionPoint(op);
    auto fused = rewriter.create<LinearOp>(op->getLoc(), linear.getType(), linear.getInput(),
                                           linear.getWeight(), linear.getBias(),
                                           ActivationAttr::get(getContext(), *act));
    rewriter.replaceOp(op, refineType(rewriter, op->getLoc(), fused.getResult(),
                                      op->getResult(0).getType()));
    if (refine)
      rewriter.eraseOp(refine);
    rewriter.eraseOp(linear);
    return success();
  }
};

/// True when `l` can take part in a merge: no epilogue, and a weight (and bias) the plan
/// emitter folds into one weight, reading an `mm.weight` (mm/WeightExpr.h: behind casts
/// and transposes); a bias not transposed.
bool isMergeable(LinearOp l) {
  std::optional<WeightExprInfo> w = weightExprOf(l.getWeight());
  std::optional<WeightExprInfo> b = l.getBias() ? weightExprOf(l.getBias()) : std::nullopt;
  return l.getActivation() == Activation::none && w && w->weight &&
         (!l.getBias() || (b && b->weight && !b->transposed)) &&
         tensorTypeOf(l.getWeight()).hasStaticShape();
}

/// Whether `l`'s weight is a transpose (merged only with others that are, so the plan
/// emitter folds the concat: mm/WeightExpr.h).
bool weightTransposed(LinearOp l) { return weightExprOf(l.getWeight())->transposed; }

/// Moves the definition of `v` above `first` when it is below it in the same block, its
/// operands' definitions first (a weight behind casts and a transpose: isMergeable).
void moveAbove(Value v, Operation *first) {
  Operation *def = v ? v.getDefiningOp() : nullptr;
  if (!def || def->getBlock() != first->getBlock() || !first->isBeforeInBlock(def))
    return;
  for (Value operand : def->getOperands())
    moveAbove(operand, first);
  def->moveBefore(first);
}

/// Merges `group` (same input, in block order) into one linear + split.
void mergeGroup(ArrayRef<LinearOp> group, IRRewriter &rewriter) {
  LinearOp first = group.front();
  // The weights become operands of ops placed before the first linear: move their
  // definitions above it.
  for (LinearOp l : group)
    for (Value p : {l.getWeight(), l.getBias()})
      moveAbove(p, first);
  rewriter.setInsertionPoint(first);
  Location loc = rewriter.getFusedLoc(llvm::to_vector(
      llvm::map_range(group, [](LinearOp l) { return l.getLoc(); })));
  SmallVector<Value> weights, biases;
  SmallVector<int64_t> sizes;
  for (LinearOp l : group) {
    weights.push_back(l.getWeight());
    if (l.getBias())
      biases.push_back(l.getBias());
    sizes.push_back(tensorTypeOf(l.getWeight()).getDimSize(1));
  }
  int64_t total = 0;
  for (int64_t s : sizes)
    total += s;
  auto w0 = tensorTypeOf(first.getWeight());
  Type elem = w0.getElementType();
  Value w = rewriter.create<ConcatOp>(loc, RankedTensorType::get({w0.getDimSize(0), total}, elem),
                                      weights, rewriter.getI64IntegerAttr(1));
  Value b;
  if (!biases.empty())
    b = rewriter.create<ConcatOp>(loc, RankedTensorType::get({total}, elem), biases,
                                  rewriter.getI64IntegerAttr(0));
  auto xt = tensorTypeOf(first.getInput());
  SmallVector<int64_t> shape(xt.getShape().drop_back());
  shape.push_back(total);
  Value y = rewriter.create<LinearOp>(loc, RankedTensorType::get(shape, elem), first.getInput(), w, b,
                                      ActivationAttr::get(rewriter.getContext(), Activation::none));
  SmallVector<Type> types;
  for (LinearOp l : group)
    types.push_back(l.getType());
  auto split = rewriter.create<SplitOp>(loc, types, y, rewriter.getI64IntegerAttr(xt.getRank() - 1),
                                        rewriter.getDenseI64ArrayAttr(sizes));
  for (auto [l, r] : llvm::zip(group, split.getResults()))
    rewriter.replaceOp(l, r);
}

/// Groups mergeable linears by input and merges each group of two or more.
void mergeSharedInputProjections(func::FuncOp f) {
  llvm::MapVector<Value, SmallVector<LinearOp>> byInput;
  f.walk([&](LinearOp l) {
    if (isMergeable(l))
      byInput[l.getInput()].push_back(l);
  });
  IRRewriter rewriter(f.getContext());
  for (auto &[input, linears] : byInput) {
    // Within one input, merge linears that agree on the weight's type (element type and
    // K rows), on bias presence and on whether the weights are transposes.
    llvm::MapVector<std::tuple<Type, int64_t, unsigned, unsigned>, SmallVector<LinearOp>> groups;
    for (LinearOp l : linears) {
      auto wt = tensorTypeOf(l.getWeight());
      groups[{wt.getElementType(), wt.getDimSize(0), l.getBias() ? 1u : 0u,
              weightTransposed(l) ? 1u : 0u}]
          .push_back(l);
    }
    for (auto &[key, group] : groups) {
      if (group.size() < 2)
        continue;
      llvm::sort(group, [](LinearOp a, LinearOp b) {
        return a->getBlock() == b->getBlock() ? a->isBeforeInBlock(b) : false;
      });
      if (llvm::any_of(group, [&](LinearOp l) { return l->getBlock() != group.front()->getBlock(); }))
        continue;
      mergeGroup(group, rewriter);
    }
  }
}

struct FuseLinearPass : public mm::impl::FuseLinearBase<FuseLinearPass> {
  using FuseLinearBase::FuseLinearBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<MatMulToLinearPattern, AbsorbEpiloguePattern>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    if (mergeProjections)
      mergeSharedInputProjections(getOperation());
  }
};

} // namespace
