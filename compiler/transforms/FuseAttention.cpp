//===- FuseAttention.cpp - the -mm-fuse-attention pass ---------------------===//
//
// Raises scaled dot-product attention (Vaswani et al. 2017) as the exporters emit it to
// `mm.attention`:
//
//   scores = (q [*|/ c]) @ (kT [*|/ c]) [*|/ c]      scalar constants, any combination
//   scores = scores + mask | where(bool_mask, scores, fill) | scores
//   p      = softmax(scores, axis = last)
//   p      = where(is_nan(p), 0, p)                   (torch's SDPA export; optional)
//   out    = p @ v
//
// with float precision casts anywhere between the product and the softmax, after the
// softmax and on v (HF's islands: scores cast to f32, softmax in f32, probabilities or v
// cast): mm.attention computes in f32, so the casts are absorbed. The op takes q's element
// type; a root of another type (an f32 p @ v) gets a cast after it. A fill hides a key when
// it is at most -1e4 (-inf, finfo.min of any float type, -1e9, -1e4); an additive mask
// where(c, 0, fill) or where(c, fill, 0) is rebuilt in the op's element type with -inf
// (CanonicalMasks), so exports that differ only in the fill or the mask's type give one IR.
// With -inf a query row whose every key is hidden gets zeros instead of the average of v
// that a finite fill gives; only padding rows are hidden entirely, and their outputs are
// not used.
//
// kT is recognised in the three forms the exporters use:
//   transpose(k, [0, 1, 3, 2])                          (TorchScript, decoders)
//   transpose(x, [0, 2, 3, 1]) with x [B, T, H, D]      (TorchScript, CLIP: k is
//                                                         transpose(x, [0, 2, 1, 3]))
//   reshape(transpose(reshape(k, [B*H, T, D]), [0, 2, 1]), [B, H, D, T])   (dynamo)
// GQA's repeat_kv, reshape(expand(unsqueeze(kv, 2), [B, Hkv, n, T, D]), [B, Hkv*n, T, D])
// (the axis may also be inserted by a reshape), is removed from k and v (both or
// neither): mm.attention reads query head h from KV head h / n itself.
//
// Dims the reshapes and expands produce are checked with shape folding's symbolic
// analysis (FusionDims.h), so the pass matches the whole function first and rewrites
// afterwards. The where(is_nan) guard is dropped because mm.attention gives fully masked
// rows zeros instead of NaN (the only way softmax makes NaN from finite scores); the
// additive mask is passed through unchanged (finite minimums stay finite, so rows that
// are fully masked that way still average v, as in the original).
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/FusionDims.h"
#include "compiler/transforms/FusionUtils.h"
#include "compiler/transforms/Passes.h"
#include "runtime/core/MaskRule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <cmath>
#include <limits>

namespace mm {
#define GEN_PASS_DEF_FUSEATTENTION
#include "compiler/transforms/Passes.h.inc"
} // namespace mm

using namespace mlir;
using namespace mm;
using namespace mm::fusion;

namespace {

/// One attention block found in the function, ready to rewrite.
struct AttentionMatch {
  MatMulOp root; ///< p @ v
  Value query, key, value, mask;
  /// When set, key is transpose(keySource, [0, 2, 1, 3]) and must be created.
  Value keySource;
  double scale = 1;
};

/// A scalar float constant: one element, so multiplying by it changes no shape.
std::optional<double> scalarConstant(Value v) {
  auto t = tensorTypeOf(v);
  if (!t || !t.hasStaticShape() || t.getNumElements() != 1)
    return std::nullopt;
  return uniformFloatConstant(v);
}

/// Strips multiplies and divisions of `v` by scalar constants, folding them into `scale`.
Value peelScalars(Value v, double &scale, SmallVectorImpl<Operation *> &ops) {
  while (true) {
    Operation *op = v.getDefiningOp();
    if (auto mul = dyn_cast_or_null<MulOp>(op)) {
      std::optional<double> c;
      Value rest;
      eitherOrder(mul.getLhs(), mul.getRhs(), [&](Value a, Value k) {
        c = scalarConstant(k);
        rest = a;
        return c.has_value();
      });
      if (!c || rest.getType() != mul.getType())
        return v;
      scale *= *c;
      v = rest;
    } else if (auto div = dyn_cast_or_null<DivOp>(op)) {
      std::optional<double> c = scalarConstant(div.getRhs());
      if (!c || *c == 0 || div.getLhs().getType() != div.getType())
        return v;
      scale /= *c;
      v = div.getLhs();
    } else {
      return v;
    }
    ops.push_back(op);
  }
}

bool hasPerm(TransposeOp t, ArrayRef<int64_t> perm) { return t && t.getPerm() == perm; }

/// x [B, Hkv, T, D] when `v` is x with a size-1 axis inserted at 2 ([B, Hkv, 1, T, D]):
/// unsqueeze(x, [2]) (HF's `x[:, :, None]`), or a reshape that only inserts the axis.
Value insertedAxis2Source(Value v, FunctionDims &dims) {
  if (auto unsq = defOf<UnsqueezeOp>(v))
    return unsq.getAxes().size() == 1 && normalizeAxis(unsq.getAxes()[0], 5) == 2
               ? unsq.getInput()
               : Value();
  auto r = defOf<ReshapeOp>(v);
  if (!r)
    return {};
  Value x = r.getData();
  auto vt = tensorTypeOf(v);
  if (tensorTypeOf(x).getRank() != 4 || vt.getRank() != 5 || vt.getDimSize(2) != 1)
    return {};
  bool inserts = dims.equal(v, 0, x, 0) && dims.equal(v, 1, x, 1) && dims.equal(v, 3, x, 2) &&
                 dims.equal(v, 4, x, 3);
  return inserts ? x : Value();
}

/// Removes GQA's repeat_kv from `kv`: the unrepeated value and the repeat count n, or
/// {kv, 1} when `kv` is not a repeat.
std::pair<Value, int64_t> unrepeat(Value kv, FunctionDims &dims) {
  auto reshape = defOf<ReshapeOp>(kv);
  auto expand = reshape ? defOf<ExpandOp>(reshape.getData()) : ExpandOp();
  Value base = expand ? insertedAxis2Source(expand.getInput(), dims) : Value();
  if (!base)
    return {kv, 1};
  Value e = expand.getResult(), r = reshape.getResult();
  auto bt = tensorTypeOf(base), et = tensorTypeOf(e), rt = tensorTypeOf(r);
  if (bt.getRank() != 4 || et.getRank() != 5 || rt.getRank() != 4 || et.isDynamicDim(2) ||
      bt.isDynamicDim(1) || rt.isDynamicDim(1))
    return {kv, 1};
  int64_t n = et.getDimSize(2), hkv = bt.getDimSize(1);
  bool exact = dims.equal(e, 0, base, 0) && dims.equal(e, 1, base, 1) &&
               dims.equal(e, 3, base, 2) && dims.equal(e, 4, base, 3) &&
               dims.equal(r, 0, base, 0) && rt.getDimSize(1) == hkv * n &&
               dims.equal(r, 2, base, 2) && dims.equal(r, 3, base, 3);
  return exact ? std::make_pair(base, n) : std::make_pair(kv, int64_t(1));
}

/// kT -> k (or the [B, T, H, D] source of a transpose to create), in `m`.
bool matchKeyTransposed(Value kt, FunctionDims &dims, AttentionMatch &m) {
  auto t = defOf<TransposeOp>(kt);
  if (hasPerm(t, {0, 1, 3, 2})) {
    m.key = t.getInput();
    return true;
  }
  if (hasPerm(t, {0, 2, 3, 1})) {
    m.keySource = t.getInput();
    return true;
  }
  // dynamo: reshape(transpose(reshape(k, [B*H, T, D]), [0, 2, 1]), [B, H, D, T]).
  auto outer = defOf<ReshapeOp>(kt);
  auto t3 = outer ? defOf<TransposeOp>(outer.getData()) : TransposeOp();
  auto inner = hasPerm(t3, {0, 2, 1}) ? defOf<ReshapeOp>(t3.getInput()) : ReshapeOp();
  if (!inner)
    return false;
  Value k = inner.getData(), r1 = inner.getResult(), r2 = outer.getResult();
  if (tensorTypeOf(k).getRank() != 4 || tensorTypeOf(r1).getRank() != 3 ||
      tensorTypeOf(r2).getRank() != 4)
    return false;
  // r1 keeps T and D (so it merges B and H); r2 splits them back and swaps T, D.
  if (!dims.equal(r1, 1, k, 2) || !dims.equal(r1, 2, k, 3) || !dims.equal(r2, 0, k, 0) ||
      !dims.equal(r2, 1, k, 1) || !dims.equal(r2, 2, k, 3) || !dims.equal(r2, 3, k, 2))
    return false;
  m.key = k;
  return true;
}

/// The key as [B, H, T, D]: m.key, or its transpose-to-be from m.keySource.
int64_t keyDim(const AttentionMatch &m, int64_t i) {
  static constexpr int64_t fromSource[4] = {0, 2, 1, 3};
  return m.keySource ? tensorTypeOf(m.keySource).getDimSize(fromSource[i])
                     : tensorTypeOf(m.key).getDimSize(i);
}

/// Matches the block ending at `root` (p @ v). When a softmax over the last axis feeds
/// `root` but the block does not match, sets `softmaxOut` to it and `why` to the reason (a
/// near miss); `why` stays empty otherwise.
std::optional<AttentionMatch> matchAttention(MatMulOp root, FunctionDims &dims,
                                             SoftmaxOp &softmaxOut, std::string &why) {
  why.clear();
  AttentionMatch m;
  m.root = root;
  SmallVector<Operation *> interior;
  // Precision casts are skipped around the softmax (HF's softmax(..., dtype=float32) and
  // .to(q.dtype)), on the scores and on v: mm.attention computes in f32.
  Value probs = skipPrecisionCasts(root.getLhs(), interior);
  // where(is_nan(p), 0, p)
  if (auto w = defOf<WhereOp>(probs)) {
    auto isnan = defOf<IsNanOp>(w.getCondition());
    if (!isnan || isnan.getInput() != w.getY() || !isFloatConstant(w.getX(), 0.0) ||
        w.getType() != w.getY().getType()) {
      if ((softmaxOut = defOf<SoftmaxOp>(skipPrecisionCasts(w.getY(), interior))))
        why = "the Where between its softmax and p @ v is not torch's where(is_nan(p), 0, p)";
      return std::nullopt;
    }
    interior.append({w, isnan});
    probs = skipPrecisionCasts(w.getY(), interior);
  }
  auto softmax = defOf<SoftmaxOp>(probs);
  if (!softmax || tensorTypeOf(probs).getRank() != 4 ||
      normalizeAxis(softmax.getAxis(), 4) != 3)
    return std::nullopt;
  interior.push_back(softmax);
  softmaxOut = softmax;
  auto miss = [&](const char *reason) -> std::optional<AttentionMatch> {
    why = reason;
    return std::nullopt;
  };

  // scores [+ mask] with the scale around the q @ kT product.
  Value scores = skipPrecisionCasts(softmax.getInput(), interior);
  auto peelToProduct = [&](Value v) -> MatMulOp {
    SmallVector<Operation *> ops;
    double s = 1;
    Value beforeCasts = skipPrecisionCasts(peelScalars(v, s, ops), ops);
    auto product = defOf<MatMulOp>(peelScalars(beforeCasts, s, ops));
    if (!product)
      return {};
    m.scale = s;
    interior.append(ops);
    return product;
  };
  MatMulOp qk;
  if (auto add = defOf<AddOp>(scores); add && add.getType() == scores.getType()) {
    eitherOrder(add.getLhs(), add.getRhs(), [&](Value s, Value mask) {
      if (s.getType() != add.getType() || !(qk = peelToProduct(s)))
        return false;
      m.mask = mask;
      return true;
    });
    if (qk)
      interior.push_back(add);
  } else if (auto w = defOf<WhereOp>(scores)) {
    std::optional<double> fill = scalarConstant(w.getY());
    if (fill && hidesKey(*fill) && w.getX().getType() == w.getType() &&
        (qk = peelToProduct(w.getX()))) {
      m.mask = w.getCondition();
      interior.push_back(w);
    }
  }
  if (!qk && !(qk = peelToProduct(scores)))
    return miss("the scores are not q @ kT with scalar scales, an additive mask or a "
                "selected hiding fill");
  interior.push_back(qk);
  Value q = peelScalars(qk.getLhs(), m.scale, interior);
  Value kt = peelScalars(qk.getRhs(), m.scale, interior);
  if (!std::isfinite(m.scale) || m.scale == 0)
    return miss("its scale is zero or not finite");
  if (tensorTypeOf(q).getRank() != 4 || tensorTypeOf(kt).getRank() != 4)
    return miss("q or kT is not 4-D [batch, heads, seq, head_dim]");
  if (!matchKeyTransposed(kt, dims, m))
    return miss("kT is not a transposed key (Transpose [0, 1, 3, 2] or [0, 2, 3, 1], or "
                "dynamo's Reshape-Transpose-Reshape)");
  m.query = q;
  m.value = skipPrecisionCasts(root.getRhs(), interior);
  if (tensorTypeOf(m.value).getElementType() != tensorTypeOf(q).getElementType())
    return miss("v's element type differs from q's (after precision casts)");
  if (!usesConfined(interior, root))
    return miss("a value inside it is also used outside it");
  if (m.mask && tensorTypeOf(m.mask).getRank() > 4)
    return miss("its mask has more than 4 dims");

  // GQA: undo repeat_kv on both k and v, or on neither.
  if (!m.keySource) {
    auto [k, nk] = unrepeat(m.key, dims);
    auto [v, nv] = unrepeat(m.value, dims);
    if (nk == nv && nk > 1)
      m.key = k, m.value = v;
  }

  // Shapes: q [B, Hq, S, D], k [B, Hkv, T, D], v [B, Hkv, T, Dv], Hq = n * Hkv.
  Value kRef = m.keySource ? m.keySource : m.key;
  int64_t kb = 0, kh = m.keySource ? 2 : 1, kt2 = m.keySource ? 1 : 2, kd = 3;
  auto qt = tensorTypeOf(q), vt = tensorTypeOf(m.value);
  if (vt.getRank() != 4 || !dims.equal(kRef, kh, m.value, 1))
    return miss("v is not 4-D with k's head count");
  // Heads: equal (possibly dynamic), or a static multiple (GQA).
  int64_t hq = qt.getDimSize(1), hkv = keyDim(m, 1);
  if (!dims.equal(q, 1, kRef, kh) &&
      (ShapedType::isDynamic(hq) || ShapedType::isDynamic(hkv) || hkv == 0 || hq % hkv != 0))
    return miss("q's heads are not provably k's heads or a static multiple of them (GQA)");
  if (!dims.equal(q, 0, kRef, kb) || !dims.equal(q, 0, m.value, 0) ||
      !dims.equal(q, 3, kRef, kd) || !dims.equal(kRef, kt2, m.value, 2))
    return miss("the batch, head dim or key length of q, k and v are not provably equal");
  if (tensorTypeOf(root.getResult()).getRank() != 4)
    return miss("its result is not 4-D");
  return m;
}

/// The masks the rewritten attentions read, one per exported mask and element type (an
/// exported mask is shared by every layer).
class CanonicalMasks {
public:
  /// `mask` as mm.attention of element type `elem` reads it: a boolean mask unchanged;
  /// where(c, 0, m) or where(c, m, 0) with a hiding m (hidesKey) rebuilt as the same
  /// select of 0 and -inf in `elem`, so it means the same whatever fill and type the
  /// exporter chose and the runtime sees what it hides (runtime/exec/MaskPattern.h); any
  /// other additive mask cast to `elem`.
  Value get(Value mask, Type elem, IRRewriter &rewriter) {
    if (!mask || !isa<FloatType>(tensorTypeOf(mask).getElementType()))
      return mask;
    Value &slot = cache_[{mask, elem}];
    if (!slot) {
      OpBuilder::InsertionGuard guard(rewriter);
      if (Operation *def = mask.getDefiningOp())
        rewriter.setInsertionPointAfter(def);
      else
        rewriter.setInsertionPointToStart(mask.getParentBlock());
      slot = rebuildSelect(mask, elem, rewriter);
      if (!slot)
        slot = castElements(rewriter, mask.getLoc(), mask, elem);
    }
    return slot;
  }

private:
  static Value rebuildSelect(Value mask, Type elem, IRRewriter &rewriter) {
    auto w = defOf<WhereOp>(mask);
    if (!w)
      return {};
    std::optional<double> x = scalarConstant(w.getX()), y = scalarConstant(w.getY());
    if (!x || !y || !((*x == 0 && hidesKey(*y)) || (*y == 0 && hidesKey(*x))))
      return {};
    Location loc = w.getLoc();
    auto splat = [&](Value like, double v) {
      double c = v == 0 ? 0.0 : -std::numeric_limits<double>::infinity();
      return createSplatConstant(rewriter, loc, tensorTypeOf(like).clone(elem), c);
    };
    return rewriter
        .create<WhereOp>(loc, tensorTypeOf(mask).clone(elem), w.getCondition(),
                         splat(w.getX(), *x), splat(w.getY(), *y))
        .getResult();
  }

  llvm::DenseMap<std::pair<Value, Type>, Value> cache_;
};

void rewrite(AttentionMatch &m, CanonicalMasks &masks, IRRewriter &rewriter) {
  rewriter.setInsertionPoint(m.root);
  Value key = m.key;
  if (m.keySource) {
    auto st = tensorTypeOf(m.keySource);
    auto kt = RankedTensorType::get({st.getDimSize(0), st.getDimSize(2), st.getDimSize(1),
                                     st.getDimSize(3)},
                                    st.getElementType());
    key = rewriter.create<TransposeOp>(m.root.getLoc(), kt, m.keySource,
                                       rewriter.getDenseI64ArrayAttr({0, 2, 1, 3}));
  }
  // The op computes in q's element type (f32 inside); a root in another type (the f32
  // p @ v of an island) gets a cast.
  Type elem = tensorTypeOf(m.query).getElementType();
  auto rootType = tensorTypeOf(m.root.getResult());
  Value mask = masks.get(m.mask, elem, rewriter);
  auto attn = rewriter.create<AttentionOp>(m.root.getLoc(), rootType.clone(elem), m.query, key,
                                           m.value, mask, f32Attr(rewriter, m.scale),
                                           rewriter.getBoolAttr(false));
  rewriter.replaceOp(m.root, castElements(rewriter, m.root.getLoc(), attn.getResult(),
                                          rootType.getElementType()));
}

/// Erases the ops in `worklist` that have no users left, then their producers that become
/// unused, and so on (the subgraphs the fused ops replaced).
void eraseDeadProducers(SmallVector<Operation *> worklist) {
  llvm::SmallPtrSet<Operation *, 32> erased;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (erased.contains(op) || !isa_and_nonnull<MMDialect>(op->getDialect()) ||
        !op->use_empty() || !isMemoryEffectFree(op))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.push_back(def);
    erased.insert(op);
    op->erase();
  }
}

struct FuseAttentionPass : public mm::impl::FuseAttentionBase<FuseAttentionPass> {
  using FuseAttentionBase::FuseAttentionBase;
  void runOnOperation() override {
    func::FuncOp f = getOperation();
    FunctionDims dims(f);
    SmallVector<AttentionMatch> matches;
    llvm::SmallPtrSet<Operation *, 8> explained; // softmaxes matched or reported
    std::string why;
    f.walk([&](MatMulOp product) {
      SoftmaxOp softmax;
      if (auto m = matchAttention(product, dims, softmax, why)) {
        matches.push_back(*m);
        explained.insert(softmax);
      } else if (!why.empty() && reportNearMisses && explained.insert(softmax).second) {
        reportNearMiss(softmax, "attention", why);
      }
    });
    if (reportNearMisses)
      f.walk([&](SoftmaxOp softmax) {
        if (!explained.contains(softmax) && tensorTypeOf(softmax.getResult()).getRank() == 4 &&
            normalizeAxis(softmax.getAxis(), 4) == 3)
          reportNearMiss(softmax, "attention",
                         "no p @ v reads this softmax over the last axis of a 4-D tensor");
      });
    if (matches.empty())
      return;
    IRRewriter rewriter(&getContext());
    CanonicalMasks masks;
    SmallVector<Operation *> replaced;
    for (AttentionMatch &m : matches) {
      for (Value operand : m.root->getOperands())
        if (Operation *def = operand.getDefiningOp())
          replaced.push_back(def);
      if (m.mask)
        if (Operation *def = m.mask.getDefiningOp())
          replaced.push_back(def);
      rewrite(m, masks, rewriter);
    }
    eraseDeadProducers(std::move(replaced));
  }
};

} // namespace
