//===- FuseRMSNorm.cpp - the -mm-fuse-rms-norm pass ------------------------===//
//
// Raises the RMSNorm decompositions of Llama / Qwen2 / Mistral / Gemma
// (Zhang & Sennrich 2019) to `mm.rms_norm`:
//
//   xf  = [cast to f32](x)
//   ms  = reduce_mean(pow(xf, 2) | mul(xf, xf), axes = [last], keepdims)
//   inv = reciprocal(sqrt(ms + eps)) | div(1, sqrt(ms + eps)) | pow(ms + eps, -0.5)
//   n   = mul(xf, inv) | div(xf, sqrt(ms + eps))
//   y   = [cast](n) * w | [cast](n * w) | n * (1 + w)   (w 1-D, the last dim's size)
//
// The match is rooted at `n` and grows forward through the optional casts and the
// weight multiply; commutative operands are tried both ways. Epsilon comes from the
// graph; the exponent must be 2 and the numerator 1. Gemma's `1 + w` becomes
// scale_offset = 1. Without a weight multiply the scale is a splat of ones.
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/FusionUtils.h"
#include "compiler/transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mm {
#define GEN_PASS_DEF_FUSERMSNORM
#include "compiler/transforms/Passes.h.inc"
} // namespace mm

using namespace mlir;
using namespace mm;
using namespace mm::fusion;

namespace {

/// The normalisation core: `xf` normalised by its root mean square.
struct RMSCore {
  Value xf;
  double epsilon = 0;
  SmallVector<Operation *> interior; ///< the ops feeding the core (not the core itself)
};

/// mean(xf^2) + eps, the value under the root: fills core.epsilon and appends to
/// core.interior; `xf` must be the value squared.
bool matchMeanSquarePlusEps(Value radicand, Value xf, RMSCore &core) {
  auto add = defOf<AddOp>(radicand);
  if (!add)
    return false;
  ReduceMeanOp mean;
  Value eps;
  if (!eitherOrder(add.getLhs(), add.getRhs(), [&](Value a, Value b) {
        mean = defOf<ReduceMeanOp>(a);
        eps = b;
        return mean && uniformFloatConstant(b);
      }))
    return false;
  if (add.getType() != mean.getType() || !mean.getKeepdims() ||
      !isLastAxis(mean.getAxes(), tensorTypeOf(xf).getRank()))
    return false;
  Operation *square = nullptr;
  if (auto pow = defOf<PowOp>(mean.getInput())) {
    if (pow.getLhs() == xf && isFloatConstant(pow.getRhs(), 2.0))
      square = pow;
  } else if (auto mul = defOf<MulOp>(mean.getInput())) {
    if (mul.getLhs() == xf && mul.getRhs() == xf)
      square = mul;
  }
  if (!square || square->getResult(0).getType() != xf.getType())
    return false;
  core.xf = xf;
  core.epsilon = *uniformFloatConstant(eps);
  core.interior.append({add, mean, square});
  return true;
}

/// n = mul(xf, 1 / sqrt(...)) in any rsqrt form | div(xf, sqrt(...)).
std::optional<RMSCore> matchCore(Operation *op) {
  RMSCore core;
  if (!matchScaledByInverseRoot(op, core.interior,
                                [&](Value r, Value x) { return matchMeanSquarePlusEps(r, x, core); }) ||
      op->getResult(0).getType() != core.xf.getType())
    return std::nullopt;
  return core;
}

/// A 1-D value with `size` elements (size may be dynamic on either side).
bool isVectorOfSize(Value v, int64_t size) {
  auto t = tensorTypeOf(v);
  return t && t.getRank() == 1 &&
         (t.isDynamicDim(0) || ShapedType::isDynamic(size) || t.getDimSize(0) == size);
}

/// One RMSNorm ready to rewrite: `last` (the op whose result the norm replaces) and what
/// the fused op reads.
struct RMSMatch {
  Operation *last = nullptr;
  Value input, scale; ///< scale null: a splat of ones in the norm's type
  double epsilon = 0, offset = 0;
  RankedTensorType resultType;
};

/// Matches the RMSNorm whose normalising multiply (or divide) is `op`. Without a core at
/// `op` returns nullopt with `why` empty; a core whose norm cannot be raised returns
/// nullopt with `why` set (a near miss).
std::optional<RMSMatch> matchRMSNorm(Operation *op, std::string &why) {
  why.clear();
  if (!isa<MulOp, DivOp>(op))
    return std::nullopt;
  std::optional<RMSCore> core = matchCore(op);
  if (!core)
    return std::nullopt;
  int64_t lastDim = tensorTypeOf(core->xf).getShape().back();

  // Grow forward: [cast] [mul by the weight] [cast].
  SmallVector<Operation *> interior = core->interior;
  RMSMatch m;
  m.epsilon = core->epsilon;
  Operation *last = op;
  int casts = 0;
  while (Operation *user = singleUser(last->getResult(0))) {
    if (auto cast = dyn_cast<CastOp>(user); cast && casts < 2 &&
        isa<FloatType>(tensorTypeOf(cast.getResult()).getElementType())) {
      ++casts;
    } else if (auto mul = dyn_cast<MulOp>(user); mul && !m.scale) {
      Value cur = last->getResult(0);
      Value w = mul.getLhs() == cur ? mul.getRhs() : mul.getLhs();
      if (w == cur || !isVectorOfSize(w, lastDim) || mul.getType() != cur.getType())
        break;
      m.scale = w;
      // Gemma: n * (1 + w) with the sum used nowhere else.
      if (auto add = defOf<AddOp>(w); add && add->hasOneUse()) {
        eitherOrder(add.getLhs(), add.getRhs(), [&](Value a, Value one) {
          if (!isVectorOfSize(a, lastDim) || !isFloatConstant(one, 1.0) ||
              a.getType() != add.getType())
            return false;
          m.scale = a;
          m.offset = 1.0;
          interior.push_back(add);
          return true;
        });
      }
    } else {
      break;
    }
    interior.push_back(last);
    last = user;
  }

  // The fused op reads x in the result's element type when the island's casts return to
  // it (normInput), else in x's own type (an f32 residual stream normalised into f16:
  // the norm writes f32 and a cast follows).
  m.last = last;
  m.resultType = tensorTypeOf(last->getResult(0));
  m.input = normInput(core->xf, m.resultType.getElementType());
  why = normMatchProblem(m.input, m.resultType, interior, last);
  if (why.empty() && !m.scale && ShapedType::isDynamic(lastDim))
    why = "it has no weight and a dynamic last dim";
  if (!why.empty())
    return std::nullopt;
  return m;
}

void rewriteRMSNorm(RMSMatch m, PatternRewriter &rewriter) {
  rewriter.setInsertionPoint(m.last);
  Location loc = m.last->getLoc();
  Type normElem = tensorTypeOf(m.input).getElementType();
  int64_t lastDim = m.resultType.getShape().back();
  // The scale keeps its own type (mm.rms_norm takes any float scale: Gemma's f32 1 + w).
  Value scale = m.scale ? m.scale
                        : createSplatConstant(rewriter, loc, RankedTensorType::get({lastDim}, normElem), 1.0);
  auto fused = rewriter.create<RMSNormOp>(loc, m.resultType.clone(normElem), m.input, scale,
                                          f32Attr(rewriter, m.epsilon), f32Attr(rewriter, m.offset));
  rewriter.replaceOp(m.last, castElements(rewriter, loc, fused.getResult(), m.resultType.getElementType()));
}

struct FuseRMSNormPattern : public RewritePattern {
  explicit FuseRMSNormPattern(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    std::string why;
    std::optional<RMSMatch> m = matchRMSNorm(op, why);
    if (!m)
      return rewriter.notifyMatchFailure(op, why.empty() ? "not an RMS normalisation core" : why);
    rewriteRMSNorm(*m, rewriter);
    return success();
  }
};

struct FuseRMSNormPass : public mm::impl::FuseRMSNormBase<FuseRMSNormPass> {
  using FuseRMSNormBase::FuseRMSNormBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseRMSNormPattern>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    if (reportNearMisses)
      fusion::reportNearMisses(getOperation(), "rms_norm", matchRMSNorm);
  }
};

} // namespace
