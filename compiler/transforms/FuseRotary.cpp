//===- FuseRotary.cpp - the -mm-fuse-rotary pass ---------------------------===//
//
// Raises the rotate-half rotary position embedding (RoFormer, Su et al. 2021; the
// GPT-NeoX / Llama form HF exports) to `mm.rotary`:
//
//   rot = concat(neg(slice(x, D/2, end)), slice(x, 0, D/2), axis = last)
//   y   = x * cos + rot * sin                       (x [B, H, S, D])
//
// with cos / sin broadcast over the heads: [B|1, 1, S, D] (HF's unsqueeze(1)), [1, S, D]
// or [S, D]. The unsqueeze is looked through (else a squeeze is added) so mm.rotary gets
// [B|1, S, D] or [S, D]. The cos / sin values themselves (Range or position ids, times
// inv_freq by MatMul or Mul, Cos, Sin) stay as computed: they are shared by all layers
// and cost one small elementwise pass per forward; any cos / sin tensors are accepted,
// since y = x*cos + rotate_half(x)*sin is exactly what mm.rotary computes.
//
// Partial rotary (GPT-NeoX, Phi: only the first R < D channels rotate):
//   concat(rotary(slice(x, 0, R)), slice(x, R, end), axis = last) -> rotary(x) with
//   R-wide cos / sin.
//
// Every slice must be along the last axis with step 1 and constant bounds that are
// exactly the halves (or the R split); anything else is left alone.
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/FusionUtils.h"
#include "compiler/transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace mm {
#define GEN_PASS_DEF_FUSEROTARY
#include "compiler/transforms/Passes.h.inc"
} // namespace mm

using namespace mlir;
using namespace mm;
using namespace mm::fusion;

namespace {

/// A slice of `data` along its last (static) dim with step 1: [begin, end) clamped.
struct LastDimSlice {
  Value data;
  int64_t begin = 0, end = 0;
};

std::optional<LastDimSlice> matchLastDimSlice(Value v) {
  auto slice = defOf<SliceOp>(v);
  if (!slice)
    return std::nullopt;
  auto t = tensorTypeOf(slice.getData());
  int64_t rank = t.getRank();
  if (rank == 0 || t.isDynamicDim(rank - 1))
    return std::nullopt;
  int64_t dim = t.getDimSize(rank - 1);
  auto starts = intConstantElements(slice.getStarts()), ends = intConstantElements(slice.getEnds());
  auto axes = intConstantElements(slice.getAxes()), steps = intConstantElements(slice.getSteps());
  if (!starts || !ends || !axes || !steps || starts->size() != 1 || ends->size() != 1 ||
      axes->size() != 1 || steps->size() != 1 || (*steps)[0] != 1 ||
      normalizeAxis((*axes)[0], rank) != rank - 1)
    return std::nullopt;
  auto clamp = [&](int64_t i) {
    if (i < 0)
      i += dim;
    return std::clamp<int64_t>(i, 0, dim);
  };
  return LastDimSlice{slice.getData(), clamp((*starts)[0]), clamp((*ends)[0])};
}

/// True when `c` concatenates along the last axis.
bool concatsLastAxis(ConcatOp c) {
  int64_t rank = tensorTypeOf(c.getResult()).getRank();
  return normalizeAxis(c.getAxis(), rank) == rank - 1;
}

/// concat(-x[h:], x[:h]) with h = D/2: x, else null; appends the ops to `ops`.
Value matchRotateHalf(Value v, SmallVectorImpl<Operation *> &ops) {
  auto cat = defOf<ConcatOp>(v);
  if (!cat || cat.getInputs().size() != 2 || !concatsLastAxis(cat))
    return {};
  auto neg = defOf<NegOp>(cat.getInputs()[0]);
  if (!neg)
    return {};
  auto hi = matchLastDimSlice(neg.getInput()), lo = matchLastDimSlice(cat.getInputs()[1]);
  if (!hi || !lo || hi->data != lo->data)
    return {};
  auto t = tensorTypeOf(hi->data);
  int64_t dim = t.getShape().back();
  if (dim % 2 != 0 || lo->begin != 0 || lo->end != dim / 2 || hi->begin != dim / 2 ||
      hi->end != dim || t.getRank() != 4 || cat.getType() != t)
    return {};
  ops.append({cat, neg, neg.getInput().getDefiningOp(), cat.getInputs()[1].getDefiningOp()});
  return hi->data;
}

/// How a cos / sin table multiplied with x [B, H, S, D] becomes the [B|1, S, D] or
/// [S, D] form mm.rotary takes: `source` as is, or with dim 1 squeezed out.
struct RotaryTable {
  Value source;
  bool squeeze = false;
  RankedTensorType type; ///< the mm.rotary operand's type
};

/// std::nullopt when the table does not broadcast over the heads only.
std::optional<RotaryTable> planRotaryTable(Value table, RankedTensorType x) {
  auto t = tensorTypeOf(table);
  if (!t || t.getShape().back() != x.getShape().back())
    return std::nullopt;
  auto staticIs = [](int64_t d, int64_t v) { return !ShapedType::isDynamic(d) && d == v; };
  RotaryTable plan{table, false, t};
  if (t.getRank() == 4) {
    if (!staticIs(t.getDimSize(1), 1))
      return std::nullopt;
    if (auto u = defOf<UnsqueezeOp>(table);
        u && u.getAxes().size() == 1 && normalizeAxis(u.getAxes()[0], 4) == 1) {
      plan.source = u.getInput();
    } else {
      plan.squeeze = true;
    }
    plan.type = RankedTensorType::get({t.getDimSize(0), t.getDimSize(2), t.getDimSize(3)},
                                      t.getElementType());
  } else if (t.getRank() == 3) {
    if (!staticIs(t.getDimSize(0), 1))
      return std::nullopt;
  } else if (t.getRank() != 2) {
    return std::nullopt;
  }
  RankedTensorType ot = plan.type;
  int64_t seq = ot.getDimSize(ot.getRank() - 2), xSeq = x.getDimSize(2);
  // A static table length must be x's; a static 1 against a dynamic x length could be a
  // broadcast, which mm.rotary does not do.
  if (!ShapedType::isDynamic(seq) &&
      (ShapedType::isDynamic(xSeq) ? seq == 1 : seq != xSeq))
    return std::nullopt;
  if (ot.getRank() == 3) {
    int64_t b = ot.getDimSize(0), xb = x.getDimSize(0);
    if (!ShapedType::isDynamic(b) && b != 1 && !ShapedType::isDynamic(xb) && b != xb)
      return std::nullopt;
  }
  return plan;
}

Value materialize(PatternRewriter &rewriter, const RotaryTable &plan) {
  if (!plan.squeeze)
    return plan.source;
  return rewriter.create<SqueezeOp>(plan.source.getLoc(), plan.type, plan.source,
                                    rewriter.getDenseI64ArrayAttr({1}));
}

/// x * cos + rotate_half(x) * sin, rooted at the add.
struct RotateHalfPattern : public OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp add, PatternRewriter &rewriter) const override {
    Value x, cos, sin;
    SmallVector<Operation *> interior;
    bool found = eitherOrder(add.getLhs(), add.getRhs(), [&](Value xc, Value rs) {
      auto mulC = defOf<MulOp>(xc), mulS = defOf<MulOp>(rs);
      if (!mulC || !mulS)
        return false;
      return eitherOrder(mulS.getLhs(), mulS.getRhs(), [&](Value rot, Value s) {
        SmallVector<Operation *> ops;
        Value src = matchRotateHalf(rot, ops);
        if (!src)
          return false;
        return eitherOrder(mulC.getLhs(), mulC.getRhs(), [&](Value a, Value c) {
          if (a != src)
            return false;
          x = src, cos = c, sin = s;
          interior.assign({mulC, mulS});
          interior.append(ops);
          return true;
        });
      });
    });
    if (!found)
      return rewriter.notifyMatchFailure(add, "not x * cos + rotate_half(x) * sin");
    auto xt = tensorTypeOf(x);
    for (Operation *op : {interior[0], interior[1], add.getOperation()})
      if (op->getResult(0).getType() != xt)
        return rewriter.notifyMatchFailure(add, "cos / sin broadcast beyond x's shape");
    if (cos.getType() != sin.getType())
      return rewriter.notifyMatchFailure(add, "cos and sin types differ");
    if (!usesConfined(interior, add))
      return rewriter.notifyMatchFailure(add, "an intermediate value is used elsewhere");
    auto c = planRotaryTable(cos, xt), s = planRotaryTable(sin, xt);
    if (!c || !s || c->type != s->type)
      return rewriter.notifyMatchFailure(add, "cos / sin do not broadcast over the heads only");
    rewriter.setInsertionPoint(add);
    Value cv = materialize(rewriter, *c), sv = materialize(rewriter, *s);
    rewriter.replaceOpWithNewOp<RotaryOp>(add, xt, x, cv, sv, /*interleaved=*/false);
    return success();
  }
};

/// concat(rotary(x[..., :R]), x[..., R:]) -> rotary(x) with R-wide tables.
struct PartialRotaryPattern : public OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp cat, PatternRewriter &rewriter) const override {
    if (cat.getInputs().size() != 2 || !concatsLastAxis(cat))
      return failure();
    auto rot = defOf<RotaryOp>(cat.getInputs()[0]);
    auto pass = matchLastDimSlice(cat.getInputs()[1]);
    auto head = rot ? matchLastDimSlice(rot.getInput()) : std::nullopt;
    if (!rot || !pass || !head || head->data != pass->data)
      return rewriter.notifyMatchFailure(cat, "not concat(rotary(x[:R]), x[R:])");
    auto xt = tensorTypeOf(pass->data);
    int64_t dim = xt.getShape().back(), width = tensorTypeOf(rot.getInput()).getShape().back();
    if (head->begin != 0 || head->end != width || pass->begin != width || pass->end != dim ||
        cat.getType() != xt)
      return rewriter.notifyMatchFailure(cat, "slices do not split x at the rotary width");
    SmallVector<Operation *> interior{rot, rot.getInput().getDefiningOp(),
                                      cat.getInputs()[1].getDefiningOp()};
    if (!usesConfined(interior, cat))
      return rewriter.notifyMatchFailure(cat, "an intermediate value is used elsewhere");
    rewriter.replaceOpWithNewOp<RotaryOp>(cat, xt, pass->data, rot.getCos(), rot.getSin(),
                                          rot.getInterleaved());
    return success();
  }
};

struct FuseRotaryPass : public mm::impl::FuseRotaryBase<FuseRotaryPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RotateHalfPattern, PartialRotaryPattern>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
