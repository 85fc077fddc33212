//===- FuseActivations.cpp - the -mm-fuse-activations pass -----------------===//
//
// Raises decomposed activations to one op each (ONNX Gelu imports as mm.gelu already):
//
//   GELU, erf form (Hendrycks & Gimpel 2016):
//     0.5 * x * (1 + erf(x / sqrt(2)))           (x * 0.70710678 also accepted)
//   GELU, tanh form:
//     0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
//     (x^3 as pow(x, 3), x * (x * x) or (x * x) * x)
//   QuickGELU (CLIP):   x * sigmoid(1.702 * x)
//   SiLU / swish:       x * sigmoid(x)
//   SwiGLU (Shazeer 2020):  silu(gate) * up   (after the SiLU above has formed)
//   GeGLU (Shazeer 2020):   gelu(gate) * up   (either GELU; its approximation kept)
//
// The 0.5, x and (1 + ...) factors of GELU may be multiplied in any order and
// association; every constant is checked against its exact value within the tolerance
// of its element type (FusionUtils.h), so 1.7 * x or 0.5 * x * (1 + erf(x / 1.5)) stay
// as they are.
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/FusionUtils.h"
#include "compiler/transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mm {
#define GEN_PASS_DEF_FUSEACTIVATIONS
#include "compiler/transforms/Passes.h.inc"
} // namespace mm

using namespace mlir;
using namespace mm;
using namespace mm::fusion;

namespace {

constexpr double kSqrt2 = 1.4142135623730951;
constexpr double kSqrt2OverPi = 0.7978845608028654;
constexpr double kGeluTanhCubic = 0.044715;
constexpr double kQuickGeluAlpha = 1.702;

/// x * c or c * x (c a uniform constant equal to `c`): x, else null.
Value matchScaledBy(Value v, double c) {
  auto mul = defOf<MulOp>(v);
  if (!mul)
    return {};
  Value x;
  eitherOrder(mul.getLhs(), mul.getRhs(), [&](Value a, Value k) {
    if (!isFloatConstant(k, c))
      return false;
    x = a;
    return true;
  });
  return x && compatibleTypes(mul.getType(), x.getType()) ? x : Value();
}

/// Starting at `onePlus` = 1 + f(x), follows single-use multiplies by x and 0.5 (in any
/// order, or by one factor x * 0.5) up to the op computing 0.5 * x * (1 + f(x)); returns
/// it (null on mismatch) and appends the ops it passes to `interior`.
Operation *matchHalfXProduct(Value onePlus, Value x, SmallVectorImpl<Operation *> &interior) {
  bool needX = true, needHalf = true;
  Value cur = onePlus;
  while (needX || needHalf) {
    auto mul = dyn_cast_or_null<MulOp>(singleUser(cur));
    if (!mul)
      return nullptr;
    Value other = mul.getLhs() == cur ? mul.getRhs() : mul.getLhs();
    if (needX && other == x) {
      needX = false;
    } else if (needHalf && isFloatConstant(other, 0.5)) {
      needHalf = false;
    } else if (needX && needHalf && matchScaledBy(other, 0.5) == x && other.hasOneUse()) {
      needX = needHalf = false;
      interior.push_back(other.getDefiningOp());
    } else {
      return nullptr;
    }
    interior.push_back(cur.getDefiningOp());
    cur = mul.getResult();
  }
  return compatibleTypes(cur.getType(), x.getType()) ? cur.getDefiningOp() : nullptr;
}

/// 1 + v: the add, when `v`'s single user adds a constant 1 to it.
AddOp matchOnePlus(Value v) {
  auto add = dyn_cast_or_null<AddOp>(singleUser(v));
  if (!add || !compatibleTypes(add.getType(), v.getType()))
    return {};
  Value other = add.getLhs() == v ? add.getRhs() : add.getLhs();
  return isFloatConstant(other, 1.0) ? add : AddOp();
}

/// Replaces the product ending at `last` by a gelu of `x` once the interior is private.
LogicalResult replaceByGelu(PatternRewriter &rewriter, Operation *last, Value x,
                            ArrayRef<Operation *> interior, GeluApproximation approx) {
  if (!last || !usesConfined(interior, last))
    return failure();
  rewriter.setInsertionPoint(last);
  Type t = last->getResult(0).getType();
  auto gelu = rewriter.create<GeluOp>(last->getLoc(), t, refineType(rewriter, x.getLoc(), x, t),
                                      GeluApproximationAttr::get(rewriter.getContext(), approx));
  rewriter.replaceOp(last, gelu.getResult());
  return success();
}

/// 0.5 * x * (1 + erf(x / sqrt(2))), rooted at the erf.
struct GeluErfPattern : public OpRewritePattern<ErfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ErfOp erf, PatternRewriter &rewriter) const override {
    Value x;
    Operation *argOp = erf.getInput().getDefiningOp();
    if (auto div = dyn_cast_or_null<DivOp>(argOp); div && isFloatConstant(div.getRhs(), kSqrt2))
      x = div.getLhs();
    else
      x = matchScaledBy(erf.getInput(), 1.0 / kSqrt2);
    if (!x || !compatibleTypes(x.getType(), erf.getType()))
      return rewriter.notifyMatchFailure(erf, "erf argument is not x / sqrt(2)");
    AddOp onePlus = matchOnePlus(erf.getResult());
    if (!onePlus)
      return rewriter.notifyMatchFailure(erf, "erf is not followed by + 1");
    SmallVector<Operation *> interior{argOp, erf};
    Operation *last = matchHalfXProduct(onePlus.getResult(), x, interior);
    return replaceByGelu(rewriter, last, x, interior, GeluApproximation::none);
  }
};

/// x^3 as pow(x, 3), x * (x * x) or (x * x) * x: x, else null; appends the ops.
Value matchCube(Value v, SmallVectorImpl<Operation *> &ops) {
  if (auto pow = defOf<PowOp>(v)) {
    if (!isFloatConstant(pow.getRhs(), 3.0))
      return {};
    ops.push_back(pow);
    return pow.getLhs();
  }
  auto mul = defOf<MulOp>(v);
  if (!mul)
    return {};
  Value x;
  eitherOrder(mul.getLhs(), mul.getRhs(), [&](Value a, Value sq) {
    auto sqMul = defOf<MulOp>(sq);
    if (!sqMul || sqMul.getLhs() != a || sqMul.getRhs() != a)
      return false;
    ops.append({mul, sqMul});
    x = a;
    return true;
  });
  return x;
}

/// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), rooted at the tanh.
struct GeluTanhPattern : public OpRewritePattern<TanhOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TanhOp tanh, PatternRewriter &rewriter) const override {
    SmallVector<Operation *> interior;
    Value inner = matchScaledBy(tanh.getInput(), kSqrt2OverPi);
    auto add = defOf<AddOp>(inner);
    if (!add)
      return rewriter.notifyMatchFailure(tanh, "tanh argument is not sqrt(2/pi) * (...)");
    interior.append({tanh.getInput().getDefiningOp(), add});
    Value x;
    eitherOrder(add.getLhs(), add.getRhs(), [&](Value a, Value term) {
      Value cube = matchScaledBy(term, kGeluTanhCubic);
      SmallVector<Operation *> ops;
      if (!cube || matchCube(cube, ops) != a)
        return false;
      interior.push_back(term.getDefiningOp());
      interior.append(ops);
      x = a;
      return true;
    });
    if (!x || !compatibleTypes(x.getType(), tanh.getType()))
      return rewriter.notifyMatchFailure(tanh, "not x + 0.044715 * x^3");
    AddOp onePlus = matchOnePlus(tanh.getResult());
    if (!onePlus)
      return rewriter.notifyMatchFailure(tanh, "tanh is not followed by + 1");
    interior.push_back(tanh);
    Operation *last = matchHalfXProduct(onePlus.getResult(), x, interior);
    return replaceByGelu(rewriter, last, x, interior, GeluApproximation::tanh);
  }
};

/// x * sigmoid(x) -> silu(x); x * sigmoid(1.702 * x) -> quick_gelu(x); rooted at the
/// sigmoid.
struct SigmoidGatePattern : public OpRewritePattern<SigmoidOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SigmoidOp sig, PatternRewriter &rewriter) const override {
    auto mul = dyn_cast_or_null<MulOp>(singleUser(sig.getResult()));
    if (!mul)
      return rewriter.notifyMatchFailure(sig, "sigmoid does not feed one multiply");
    Value x = mul.getLhs() == sig.getResult() ? mul.getRhs() : mul.getLhs();
    Type t = mul.getType();
    if (x == sig.getResult() || !compatibleTypes(t, x.getType()) ||
        !compatibleTypes(sig.getType(), x.getType()))
      return rewriter.notifyMatchFailure(sig, "operand types differ");
    rewriter.setInsertionPoint(mul);
    if (sig.getInput() == x) {
      rewriter.replaceOpWithNewOp<SiluOp>(mul, t, refineType(rewriter, x.getLoc(), x, t));
      return success();
    }
    if (matchScaledBy(sig.getInput(), kQuickGeluAlpha) == x && sig.getInput().hasOneUse()) {
      rewriter.replaceOpWithNewOp<QuickGeluOp>(mul, t, refineType(rewriter, x.getLoc(), x, t));
      return success();
    }
    return rewriter.notifyMatchFailure(sig, "not x * sigmoid(x) or x * sigmoid(1.702 x)");
  }
};

/// The gated op of an activation: SiLU -> SwiGLU, GELU -> GeGLU (its approximation kept).
Value createGated(PatternRewriter &r, MulOp at, SiluOp, Type t, Value gate, Value up) {
  return r.create<SwiGLUOp>(at.getLoc(), t, gate, up);
}
Value createGated(PatternRewriter &r, MulOp at, GeluOp act, Type t, Value gate, Value up) {
  return r.create<GeGLUOp>(at.getLoc(), t, gate, up, act.getApproximate());
}

/// act(gate) * up -> swiglu(gate, up) for SiLU, geglu(gate, up) for GELU: the activation
/// read only by the product, all three of one type.
template <typename ActOp> struct GatedActivationPattern : public OpRewritePattern<MulOp> {
  using OpRewritePattern<MulOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp mul, PatternRewriter &rewriter) const override {
    ActOp act;
    Value up;
    if (!eitherOrder(mul.getLhs(), mul.getRhs(), [&](Value s, Value u) {
          act = defOf<ActOp>(s);
          up = u;
          return act && s.hasOneUse() && compatibleTypes(u.getType(), mul.getType()) &&
                 compatibleTypes(s.getType(), mul.getType());
        }))
      return rewriter.notifyMatchFailure(mul, "not act(gate) * up of one type");
    Type t = mul.getType();
    Value gate = act.getInput();
    rewriter.replaceOp(mul, createGated(rewriter, mul, act, t, refineType(rewriter, gate.getLoc(), gate, t),
                                        refineType(rewriter, up.getLoc(), up, t)));
    return success();
  }
};

struct FuseActivationsPass : public mm::impl::FuseActivationsBase<FuseActivationsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<GeluErfPattern, GeluTanhPattern, SigmoidGatePattern, GatedActivationPattern<SiluOp>,
                 GatedActivationPattern<GeluOp>>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
