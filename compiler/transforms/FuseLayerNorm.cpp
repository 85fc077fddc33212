//===- FuseLayerNorm.cpp - the -mm-fuse-layer-norm pass --------------------===//
//
// Raises the decomposed LayerNorm (Ba et al. 2016) that exporters emit for
// `F.layer_norm` when LayerNormalization is unavailable, and hand-written variants, to
// `mm.layer_norm` (ONNX LayerNormalization itself imports directly as mm.layer_norm):
//
//   xf   = [cast to f32](x)
//   mean = reduce_mean(xf, axes, keepdims)
//   d    = xf - mean
//   var  = reduce_mean(pow(d, 2) | mul(d, d), axes, keepdims)
//   s    = sqrt(var + eps)
//   n    = div(d, s) | mul(d, reciprocal(s)) | mul(d, div(1, s)) | mul(d, pow(var + eps, -0.5))
//   y    = [cast]( n [* scale] [+ bias] ) [cast]
//
// `axes` must be the trailing dims [axis, rank) (the same in both means); the scale and
// bias must have the normalized dims' shape (or a suffix of it). Epsilon comes from the
// graph. Without a scale multiply the scale is a splat of ones (static dims needed).
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/FusionUtils.h"
#include "compiler/transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mm {
#define GEN_PASS_DEF_FUSELAYERNORM
#include "compiler/transforms/Passes.h.inc"
} // namespace mm

using namespace mlir;
using namespace mm;
using namespace mm::fusion;

namespace {

struct LayerNormCore {
  Value xf;
  int64_t axis = 0; ///< first normalized dim, in [0, rank)
  double epsilon = 0;
  SmallVector<Operation *> interior;
};

/// The first dim of `axes` when they are exactly the trailing dims [axis, rank).
std::optional<int64_t> trailingAxes(ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> norm;
  for (int64_t a : axes) {
    auto n = normalizeAxis(a, rank);
    if (!n)
      return std::nullopt;
    norm.push_back(*n);
  }
  llvm::sort(norm);
  if (norm.empty())
    return std::nullopt;
  for (size_t i = 0; i < norm.size(); ++i)
    if (norm[i] != rank - static_cast<int64_t>(norm.size()) + static_cast<int64_t>(i))
      return std::nullopt;
  return norm.front();
}

/// reduce_mean(d^2) + eps with d = xf - reduce_mean(xf), both means over the same
/// trailing axes: the value under the root. Fills `core` (interior appended).
bool matchVariancePlusEps(Value radicand, Value d, LayerNormCore &core) {
  auto add = defOf<AddOp>(radicand);
  if (!add)
    return false;
  ReduceMeanOp var;
  Value eps;
  if (!eitherOrder(add.getLhs(), add.getRhs(), [&](Value a, Value b) {
        var = defOf<ReduceMeanOp>(a);
        eps = b;
        return var && uniformFloatConstant(b);
      }))
    return false;
  Operation *square = nullptr;
  if (auto pow = defOf<PowOp>(var.getInput()); pow && pow.getLhs() == d &&
                                                isFloatConstant(pow.getRhs(), 2.0))
    square = pow;
  else if (auto mul = defOf<MulOp>(var.getInput()); mul && mul.getLhs() == d && mul.getRhs() == d)
    square = mul;
  auto sub = defOf<SubOp>(d);
  if (!square || !sub || square->getResult(0).getType() != d.getType())
    return false;
  auto mean = defOf<ReduceMeanOp>(sub.getRhs());
  Value xf = sub.getLhs();
  if (!mean || mean.getInput() != xf || sub.getType() != xf.getType() || add.getType() != var.getType())
    return false;
  int64_t rank = tensorTypeOf(xf).getRank();
  auto axis = trailingAxes(var.getAxes(), rank);
  if (!axis || trailingAxes(mean.getAxes(), rank) != axis || !var.getKeepdims() ||
      !mean.getKeepdims())
    return false;
  core.xf = xf;
  core.axis = *axis;
  core.epsilon = *uniformFloatConstant(eps);
  core.interior.append({add, var, square, sub, mean});
  return true;
}

/// n = div(d, sqrt(...)) | mul(d, 1 / sqrt(...)) in any rsqrt form.
std::optional<LayerNormCore> matchCore(Operation *op) {
  LayerNormCore core;
  if (!matchScaledByInverseRoot(op, core.interior,
                                [&](Value r, Value x) { return matchVariancePlusEps(r, x, core); }) ||
      op->getResult(0).getType() != core.xf.getType())
    return std::nullopt;
  return core;
}

/// True when `p` can scale / shift the normalized dims `normalized`: its dims equal a
/// suffix of them (static sizes compared; dynamic ones accepted).
bool isAffineParam(Value p, ArrayRef<int64_t> normalized) {
  auto t = tensorTypeOf(p);
  if (!t || t.getRank() == 0 || t.getRank() > static_cast<int64_t>(normalized.size()))
    return false;
  ArrayRef<int64_t> suffix = normalized.take_back(t.getRank());
  for (auto [a, b] : llvm::zip(t.getShape(), suffix))
    if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
      return false;
  return true;
}

/// One LayerNorm ready to rewrite: `last` (the op whose result the norm replaces) and what
/// the fused op reads.
struct LayerNormMatch {
  Operation *last = nullptr;
  Value input, scale, bias; ///< scale null: a splat of ones in the norm's type
  int64_t axis = 0;
  double epsilon = 0;
  RankedTensorType resultType;
};

/// Matches the LayerNorm whose normalising divide (or multiply) is `op`. Without a core
/// at `op` returns nullopt with `why` empty; a core whose norm cannot be raised returns
/// nullopt with `why` set (a near miss).
std::optional<LayerNormMatch> matchLayerNorm(Operation *op, std::string &why) {
  why.clear();
  if (!isa<MulOp, DivOp>(op))
    return std::nullopt;
  std::optional<LayerNormCore> core = matchCore(op);
  if (!core)
    return std::nullopt;
  ArrayRef<int64_t> normalized = tensorTypeOf(core->xf).getShape().drop_front(core->axis);

  // Grow forward: [cast] [* scale] [+ bias] [cast].
  SmallVector<Operation *> interior = core->interior;
  LayerNormMatch m;
  m.axis = core->axis;
  m.epsilon = core->epsilon;
  Operation *last = op;
  int casts = 0;
  while (Operation *user = singleUser(last->getResult(0))) {
    Value cur = last->getResult(0);
    auto other = [&](Operation *bin) {
      return bin->getOperand(0) == cur ? bin->getOperand(1) : bin->getOperand(0);
    };
    if (auto cast = dyn_cast<CastOp>(user); cast && casts < 2 &&
        isa<FloatType>(tensorTypeOf(cast.getResult()).getElementType())) {
      ++casts;
    } else if (isa<MulOp>(user) && !m.scale && !m.bias && other(user) != cur &&
               isAffineParam(other(user), normalized) && user->getResult(0).getType() == cur.getType()) {
      m.scale = other(user);
    } else if (isa<AddOp>(user) && !m.bias && other(user) != cur &&
               isAffineParam(other(user), normalized) && user->getResult(0).getType() == cur.getType()) {
      m.bias = other(user);
    } else {
      break;
    }
    interior.push_back(last);
    last = user;
  }

  // As in -mm-fuse-rms-norm: the norm reads and writes the result's element type when
  // the island's casts return to it, else x's own type, followed by a cast.
  m.last = last;
  m.resultType = tensorTypeOf(last->getResult(0));
  m.input = normInput(core->xf, m.resultType.getElementType());
  why = normMatchProblem(m.input, m.resultType, interior, last);
  if (why.empty() && !m.scale &&
      !RankedTensorType::get(normalized, m.resultType.getElementType()).hasStaticShape())
    why = "it has no scale and dynamic normalized dims";
  if (!why.empty())
    return std::nullopt;
  return m;
}

void rewriteLayerNorm(LayerNormMatch m, PatternRewriter &rewriter) {
  rewriter.setInsertionPoint(m.last);
  Location loc = m.last->getLoc();
  Type normElem = tensorTypeOf(m.input).getElementType();
  ArrayRef<int64_t> normalized = tensorTypeOf(m.input).getShape().drop_front(m.axis);
  Value scale = m.scale ? castElements(rewriter, loc, m.scale, normElem)
                        : createSplatConstant(rewriter, loc, RankedTensorType::get(normalized, normElem), 1.0);
  Value bias = m.bias ? castElements(rewriter, loc, m.bias, normElem) : Value();
  int64_t rank = m.resultType.getRank();
  auto fused = rewriter.create<LayerNormOp>(loc, m.resultType.clone(normElem), m.input, scale, bias,
                                            rewriter.getI64IntegerAttr(m.axis - rank),
                                            f32Attr(rewriter, m.epsilon));
  rewriter.replaceOp(m.last, castElements(rewriter, loc, fused.getResult(), m.resultType.getElementType()));
}

struct FuseLayerNormPattern : public RewritePattern {
  explicit FuseLayerNormPattern(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    std::string why;
    std::optional<LayerNormMatch> m = matchLayerNorm(op, why);
    if (!m)
      return rewriter.notifyMatchFailure(op, why.empty() ? "not a layer normalisation core" : why);
    rewriteLayerNorm(*m, rewriter);
    return success();
  }
};

struct FuseLayerNormPass : public mm::impl::FuseLayerNormBase<FuseLayerNormPass> {
  using FuseLayerNormBase::FuseLayerNormBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseLayerNormPattern>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    if (reportNearMisses)
      fusion::reportNearMisses(getOperation(), "layer_norm", matchLayerNorm);
  }
};

} // namespace
