//===- FoldShapes.cpp - the -mm-fold-shapes pass ---------------------------===//
//
// Folds the shape computations exported graphs carry (see Passes.td for the contract).
// One iteration walks the function body in order; for each `mm` op it
//  1. infers the result dims (ShapeAnalysis) and refines result types that become
//     more static, where the type is free to change;
//  2. folds it into an `mm.constant` when all operands are constants;
//  3. for a small integer result, infers its elements: all constant -> `mm.constant`;
//     expressible from dims -> rebuilt from constants and `mm.dim` (Materializer);
//  4. applies the op's rewrites: Reshape 0/-1 and Expand 1 entries, identities.
// Then dead ops and common subexpressions go, and iterations repeat until nothing
// changes.
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/ConstantEval.h"
#include "compiler/transforms/Materializer.h"
#include "compiler/transforms/Passes.h"
#include "compiler/transforms/ShapeAnalysis.h"

#include "mm/MMDialect.h"
#include "mm/MMOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/CSE.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <functional>

namespace mm {
#define GEN_PASS_DEF_FOLDSHAPES
#include "compiler/transforms/Passes.h.inc"
} // namespace mm

using namespace mlir;
using namespace mm;
using namespace mm::shapes;

namespace {

/// Iterations of walk + cleanup before giving up on reaching a fixed point.
constexpr int kMaxIterations = 16;
/// Integer tensors of at most this many elements have their elements tracked.
constexpr int64_t kMaxTrackedElements = 64;

RankedTensorType tensorTypeOf(Value v) { return dyn_cast<RankedTensorType>(v.getType()); }

bool isMMOp(Operation *op) { return isa_and_nonnull<MMDialect>(op->getDialect()); }

/// Values whose type must not change: function arguments, values used by ops of other
/// dialects (func.return), and everything tied to them by SameOperandsAndResultType /
/// SameOperandsAndResultShape ops.
class PinnedValues {
public:
  explicit PinnedValues(Block &body) {
    for (BlockArgument a : body.getArguments())
      pin(a);
    for (Operation &op : body) {
      bool tied = op.hasTrait<OpTrait::SameOperandsAndResultType>() ||
                  op.hasTrait<OpTrait::SameOperandsAndResultShape>();
      if (tied && op.getNumResults() == 1)
        for (Value v : op.getOperands())
          join(v, op.getResult(0));
      for (Value v : op.getOperands())
        if (!isMMOp(&op))
          pin(v);
    }
    for (Value v : roots_)
      pinnedLeaders_.insert(find(v));
  }

  bool isPinned(Value v) { return pinnedLeaders_.contains(find(v)); }

private:
  void pin(Value v) { roots_.push_back(v); }
  Value find(Value v) {
    auto it = parent_.find(v);
    if (it == parent_.end() || it->second == v)
      return v;
    Value root = find(it->second);
    parent_[v] = root;
    return root;
  }
  void join(Value a, Value b) {
    Value ra = find(a), rb = find(b);
    if (ra != rb)
      parent_[ra] = rb;
  }

  DenseMap<Value, Value> parent_;
  SmallVector<Value> roots_;
  DenseSet<Value> pinnedLeaders_;
};

/// One walk over the function body.
class FoldIteration {
public:
  FoldIteration(func::FuncOp f, int64_t maxElements)
      : func_(f), body_(f.getBody().front()), builder_(f.getContext()), pinned_(body_),
        a_(kMaxTrackedElements), m_(body_, a_), maxElements_(maxElements) {
    a_.seedArguments(f);
  }

  /// Walks the body; true when the IR changed.
  FailureOr<bool> run() {
    for (Operation &op : llvm::make_early_inc_range(body_))
      if (isMMOp(&op) && failed(visit(&op)))
        return failure();
    return changed_;
  }

private:
  //===--------------------------------------------------------------------===//
  // Per op
  //===--------------------------------------------------------------------===//

  LogicalResult visit(Operation *op) {
    auto inferred = a_.inferDims(op);
    if (failed(inferred))
      return failure();
    for (auto [r, dims] : llvm::zip(op->getResults(), *inferred))
      if (tensorTypeOf(r) && failed(mergeDims(op, r, dims)))
        return failure();
    if (op->getNumResults() != 1 || !tensorTypeOf(op->getResult(0)))
      return success();
    Value result = op->getResult(0);
    if (foldConstantOperands(op))
      return success();
    if (isTrackedIntType(result.getType(), kMaxTrackedElements)) {
      trackElements(op);
      if (replaceByElements(op))
        return success();
    }
    if (auto dim = dyn_cast<DimOp>(op))
      return preferSourceDim(dim), success();
    rewriteConventions(op);
    simplifyStructure(op);
    return success();
  }

  /// Result dims: the declared static size wins, else the inferred one, else a fresh
  /// symbol. A static declared size that contradicts a constant inferred one is an error.
  LogicalResult mergeDims(Operation *op, Value r, ArrayRef<std::optional<DimExpr>> inferred) {
    auto t = tensorTypeOf(r);
    if (static_cast<int64_t>(inferred.size()) != t.getRank())
      inferred = {};
    DimExprs dims;
    SmallVector<int64_t> refined(t.getShape());
    for (int64_t i = 0; i < t.getRank(); ++i) {
      std::optional<DimExpr> e = inferred.empty() ? std::nullopt : inferred[i];
      auto c = e ? e->constantValue() : std::nullopt;
      if (!t.isDynamicDim(i)) {
        if (c && *c != t.getDimSize(i))
          return op->emitOpError() << "result dim " << i << " is " << t.getDimSize(i)
                                   << " but the operands make it " << *c;
        dims.push_back(DimExpr::constant(t.getDimSize(i)));
        continue;
      }
      if (c) {
        if (*c < 0)
          return op->emitOpError() << "result dim " << i << " would be " << *c;
        refined[i] = *c;
      }
      dims.push_back(e ? *e : DimExpr::symbol(a_.symbols().fresh(true)));
    }
    auto rt = RankedTensorType::get(refined, t.getElementType(), t.getEncoding());
    // A pinned value keeps its type; its dims stay known to the analysis.
    if (rt != t && !pinned_.isPinned(r)) {
      r.setType(rt);
      changed_ = true;
    }
    a_.set(r, std::move(dims), std::nullopt);
    return success();
  }

  /// All operands constant: evaluate.
  bool foldConstantOperands(Operation *op) {
    if (isa<ConstantOp, WeightOp>(op) || op->getNumOperands() == 0)
      return false;
    auto rt = tensorTypeOf(op->getResult(0));
    if (!rt.hasStaticShape() || rt.getNumElements() > maxElements_)
      return false;
    SmallVector<DenseElementsAttr> operands;
    for (Value v : op->getOperands()) {
      auto c = v.getDefiningOp<ConstantOp>();
      auto attr = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : DenseElementsAttr();
      if (!attr)
        return false;
      operands.push_back(attr);
    }
    DenseElementsAttr value = evaluateConstant(op, operands, rt);
    if (!value)
      return false;
    replace(op->getResult(0), m_.constant(value, op->getLoc(), op));
    return true;
  }

  void trackElements(Operation *op) {
    Value r = op->getResult(0);
    ElemGuesses guesses = a_.inferElems(op);
    DimExprs elems;
    for (auto &g : guesses)
      elems.push_back(g ? *g : DimExpr::symbol(a_.symbols().fresh(false)));
    DimExprs dims = a_.dims(r);
    a_.set(r, std::move(dims), std::move(elems));
  }

  /// A tracked integer result whose elements are known: a constant, or rebuilt from
  /// dims when it is computed some other way (from mm.shape, through Gather...).
  bool replaceByElements(Operation *op) {
    Value r = op->getResult(0);
    if (isa<ConstantOp>(op))
      return false;
    const DimExprs &elems = *a_.elems(r);
    auto rt = tensorTypeOf(r);
    if (llvm::all_of(elems, [](const DimExpr &e) { return e.isConstant(); })) {
      if (rt.getNumElements() > maxElements_)
        return false;
      replace(r, m_.constant(Materializer::intsAttr(elems, rt), op->getLoc(), op));
      return true;
    }
    if (isCanonical(r))
      return false;
    DimExprs copy = elems;
    Value m = m_.elements(copy, rt, op);
    if (!m || m == r)
      return false;
    replace(r, m);
    return true;
  }

  /// mm.dim of a dim that some earlier value (a function argument first) also has:
  /// read it there, so the dim does not keep an intermediate shape computation alive.
  void preferSourceDim(DimOp op) {
    int64_t index = static_cast<int64_t>(op.getIndex());
    const DimExpr &e = a_.dims(op.getInput())[index];
    auto s = e.singleSymbol();
    if (!s)
      return;
    const Symbol &sym = a_.symbols().get(*s);
    if (!sym.source || !sym.sourceIsDim ||
        (sym.source == op.getInput() && sym.index == index) || !m_.before(sym.source, op))
      return;
    Value d = m_.dim(sym.source, sym.index);
    if (d && d != op.getResult())
      replace(op.getResult(), d);
  }

  //===--------------------------------------------------------------------===//
  // Reshape 0 / -1 and Expand 1 entries
  //===--------------------------------------------------------------------===//

  void rewriteConventions(Operation *op) {
    if (auto r = dyn_cast<ReshapeOp>(op))
      return reshapeEntries(r);
    if (auto e = dyn_cast<ExpandOp>(op))
      return expandEntries(e);
  }

  /// Entries equal to the input dim at the same position become 0 (copy); one remaining
  /// computed entry becomes -1 (infer). Assumes computed sizes are >= 1, as the graph
  /// does when it feeds them to Reshape.
  void reshapeEntries(ReshapeOp op) {
    const DimExprs *shape = a_.elems(op.getShape());
    if (!shape)
      return;
    const DimExprs &in = a_.dims(op.getData());
    DimExprs entries = *shape;
    bool allowZero = op.getAllowZero();
    bool literalZero = llvm::any_of(entries, [](const DimExpr &e) {
      return e.constantValue() == std::optional<int64_t>(0);
    });
    bool usedCopy = false;
    if (!allowZero || !literalZero)
      for (auto [i, e] : llvm::enumerate(entries))
        if (!e.isConstant() && i < in.size() && e == in[i]) {
          e = DimExpr::constant(0);
          usedCopy = true;
        }
    bool hasInfer = llvm::any_of(entries, [](const DimExpr &e) {
      return e.constantValue() == std::optional<int64_t>(-1);
    });
    SmallVector<size_t> computed;
    for (auto [i, e] : llvm::enumerate(entries))
      if (!e.isConstant())
        computed.push_back(i);
    if (!hasInfer && !computed.empty()) {
      // Infer the entry that costs most to compute (the last one on a tie).
      size_t pick = computed.front();
      for (size_t i : computed)
        if (entries[i].terms().size() >= entries[pick].terms().size())
          pick = i;
      if (a_.symbols().isNonNegative(entries[pick]))
        entries[pick] = DimExpr::constant(-1);
    }
    if (entries == *shape)
      return;
    Value s = m_.elements(entries, tensorTypeOf(op.getShape()), op);
    if (!s)
      return;
    op.getShapeMutable().assign(s);
    if (usedCopy && allowZero)
      op.setAllowZero(false);
    changed_ = true;
  }

  /// Entries whose broadcast with the input dim gives the input dim become 1.
  void expandEntries(ExpandOp op) {
    const DimExprs *shape = a_.elems(op.getShape());
    if (!shape)
      return;
    const DimExprs &in = a_.dims(op.getInput());
    DimExprs entries = *shape;
    int64_t rank = std::max(in.size(), entries.size());
    for (auto [k, e] : llvm::enumerate(entries)) {
      int64_t j = k + (rank - entries.size()) - (rank - in.size());
      if (j < 0 || e.isConstant())
        continue;
      auto b = a_.symbols().broadcast({in[j], e});
      if (b && *b == in[j])
        e = DimExpr::constant(1);
    }
    if (entries == *shape)
      return;
    Value s = m_.elements(entries, tensorTypeOf(op.getShape()), op);
    if (!s)
      return;
    op.getShapeMutable().assign(s);
    changed_ = true;
  }

  //===--------------------------------------------------------------------===//
  // Ops that do nothing
  //===--------------------------------------------------------------------===//

  static std::optional<double> splatValue(Value v) {
    auto c = v.getDefiningOp<ConstantOp>();
    auto attr = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : DenseElementsAttr();
    if (!attr || !attr.isSplat())
      return std::nullopt;
    if (isa<FloatType>(attr.getElementType())) {
      APFloat f = attr.getSplatValue<APFloat>();
      bool loses;
      f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &loses);
      return f.convertToDouble();
    }
    if (attr.getElementType().isInteger(1))
      return attr.getSplatValue<bool>() ? 1.0 : 0.0;
    return static_cast<double>(attr.getSplatValue<APInt>().getSExtValue());
  }

  /// The operand `op` passes through unchanged, if any.
  Value identityOperand(Operation *op) {
    Value r = op->getResult(0);
    auto same = [&](Value v) { return v.getType() == r.getType() ? v : Value(); };
    auto sameDims = [&](Value v) { return a_.dims(v) == a_.dims(r) ? same(v) : Value(); };
    bool isFloat = isa<FloatType>(tensorTypeOf(r).getElementType());
    return llvm::TypeSwitch<Operation *, Value>(op)
        .Case<ReshapeOp, ExpandOp, SqueezeOp, UnsqueezeOp, FlattenOp>(
            [&](Operation *o) { return sameDims(o->getOperand(0)); })
        .Case<CastOp>([&](CastOp o) { return same(o.getInput()); })
        .Case<ConcatOp>([&](ConcatOp o) {
          return o.getInputs().size() == 1 ? same(o.getInputs().front()) : Value();
        })
        .Case<TransposeOp>([&](TransposeOp o) {
          for (auto [i, p] : llvm::enumerate(o.getPerm()))
            if (static_cast<int64_t>(i) != p)
              return Value();
          return same(o.getInput());
        })
        .Case<SliceOp>([&](SliceOp o) {
          auto steps = a_.constElems(o.getSteps());
          bool unit = steps && llvm::all_of(*steps, [](int64_t s) { return s == 1; });
          return unit ? sameDims(o.getData()) : Value();
        })
        .Case<TileOp>([&](TileOp o) {
          auto reps = a_.constElems(o.getRepeats());
          bool ones = reps && llvm::all_of(*reps, [](int64_t r) { return r == 1; });
          return ones ? same(o.getInput()) : Value();
        })
        .Case<MulOp, AndOp>([&](Operation *o) {
          if (splatValue(o->getOperand(1)) == 1.0)
            return same(o->getOperand(0));
          return splatValue(o->getOperand(0)) == 1.0 ? same(o->getOperand(1)) : Value();
        })
        .Case<DivOp>([&](DivOp o) {
          return splatValue(o.getRhs()) == 1.0 ? same(o.getLhs()) : Value();
        })
        .Case<SubOp>([&](SubOp o) {
          return splatValue(o.getRhs()) == 0.0 ? same(o.getLhs()) : Value();
        })
        .Case<AddOp, OrOp>([&](Operation *o) {
          // x + 0.0 is not x for x = -0.0: only integers and booleans.
          if (isFloat)
            return Value();
          if (splatValue(o->getOperand(1)) == 0.0)
            return same(o->getOperand(0));
          return splatValue(o->getOperand(0)) == 0.0 ? same(o->getOperand(1)) : Value();
        })
        .Case<WhereOp>([&](WhereOp o) {
          auto c = splatValue(o.getCondition());
          return c ? same(*c != 0.0 ? o.getX() : o.getY()) : Value();
        })
        .Default([](Operation *) { return Value(); });
  }

  void simplifyStructure(Operation *op) {
    if (Value v = identityOperand(op)) {
      replace(op->getResult(0), v);
      return;
    }
    if (auto outer = dyn_cast<ReshapeOp>(op)) {
      if (foldReshapeTransposeReshape(outer))
        return;
      // reshape(reshape(x)) reads x directly when the outer shape copies no dim (0).
      if (auto inner = outer.getData().getDefiningOp<ReshapeOp>()) {
        auto entries = a_.constElems(outer.getShape());
        if (outer.getAllowZero() || (entries && !llvm::is_contained(*entries, 0))) {
          outer.getDataMutable().assign(inner.getData());
          changed_ = true;
        }
      }
      return;
    }
    if (auto outer = dyn_cast<TransposeOp>(op))
      if (auto inner = outer.getInput().getDefiningOp<TransposeOp>()) {
        SmallVector<int64_t> perm;
        for (int64_t p : outer.getPerm())
          perm.push_back(inner.getPerm()[p]);
        outer.getInputMutable().assign(inner.getInput());
        outer.setPerm(perm);
        changed_ = true;
        return;
      }
    if (auto concat = dyn_cast<ConcatOp>(op))
      return mergeConcatInputs(concat);
    // unsqueeze(squeeze(x)) and squeeze(unsqueeze(x)) on the same axes are x.
    auto sameAxes = [](ArrayRef<int64_t> a, ArrayRef<int64_t> b, int64_t rank) {
      auto norm = [&](ArrayRef<int64_t> axes) {
        SmallVector<int64_t> n;
        for (int64_t x : axes)
          n.push_back(x < 0 ? x + rank : x);
        llvm::sort(n);
        return n;
      };
      return norm(a) == norm(b);
    };
    if (auto u = dyn_cast<UnsqueezeOp>(op))
      if (auto sq = u.getInput().getDefiningOp<SqueezeOp>();
          sq && sq.getInput().getType() == u.getType() &&
          sameAxes(u.getAxes(), sq.getAxes(), u.getType().getRank()))
        return replace(u.getResult(), sq.getInput());
    if (auto sq = dyn_cast<SqueezeOp>(op))
      if (auto u = sq.getInput().getDefiningOp<UnsqueezeOp>();
          u && u.getInput().getType() == sq.getType() &&
          sameAxes(u.getAxes(), sq.getAxes(), u.getType().getRank()))
        return replace(sq.getResult(), u.getInput());
  }

  /// reshape(transpose(reshape(x))) where the first reshape only merges runs of x's
  /// dims, the transpose moves whole runs and the last reshape splits them back as they
  /// were (dynamo's K^T in attention: [B, H, T, D] -> [B*H, T, D] -> [B*H, D, T] ->
  /// [B, H, D, T]) is one transpose of x, and needs no shape computation.
  bool foldReshapeTransposeReshape(ReshapeOp outer) {
    auto tr = outer.getData().getDefiningOp<TransposeOp>();
    auto inner = tr ? tr.getInput().getDefiningOp<ReshapeOp>() : ReshapeOp();
    if (!inner)
      return false;
    Value x = inner.getData();
    const DimExprs &in = a_.dims(x), &mid = a_.dims(inner.getResult());
    const DimExprs &out = a_.dims(outer.getResult());
    DimSymbolTable &syms = a_.symbols();
    SmallVector<SmallVector<int64_t, 2>> runs;
    size_t next = 0;
    for (const DimExpr &m : mid) {
      auto want = syms.factorize({m});
      SmallVector<int64_t, 2> run;
      DimExprs factors;
      while (next < in.size()) {
        run.push_back(next);
        factors.push_back(in[next++]);
        if (syms.factorize(factors) == want)
          break;
      }
      if (run.empty() || syms.factorize(factors) != want)
        return false;
      runs.push_back(run);
    }
    if (next != in.size() || out.size() != in.size())
      return false;
    SmallVector<int64_t> perm;
    for (int64_t p : tr.getPerm())
      llvm::append_range(perm, runs[p]);
    for (auto [o, p] : llvm::zip(out, perm))
      if (o != in[p])
        return false;
    builder_.setInsertionPoint(outer);
    Value t = builder_.create<TransposeOp>(outer.getLoc(), outer.getType(), x,
                                           builder_.getDenseI64ArrayAttr(perm));
    a_.set(t, out, std::nullopt);
    replace(outer.getResult(), t);
    return true;
  }

  /// A 1-D concat of shape pieces: nested concats inlined, neighbouring constants
  /// merged into one.
  void mergeConcatInputs(ConcatOp op) {
    auto rt = tensorTypeOf(op.getResult());
    if (rt.getRank() != 1 || !isa<IntegerType>(rt.getElementType()))
      return;
    // Flatten, then group runs of constants.
    SmallVector<Value> flat;
    bool nested = false;
    std::function<void(Value)> add = [&](Value v) {
      auto c = v.getDefiningOp<ConcatOp>();
      if (c && tensorTypeOf(v).getRank() == 1) {
        nested = true;
        for (Value n : c.getInputs())
          add(n);
        return;
      }
      flat.push_back(v);
    };
    for (Value v : op.getInputs())
      add(v);
    auto isConst = [&](Value v) {
      return v.getDefiningOp<ConstantOp>() && a_.constElems(v).has_value();
    };
    bool adjacent = false;
    for (size_t i = 1; i < flat.size(); ++i)
      adjacent |= isConst(flat[i - 1]) && isConst(flat[i]);
    if (!nested && !adjacent)
      return;
    SmallVector<Value> inputs;
    DimExprs run;
    auto flush = [&] {
      if (run.empty())
        return;
      auto t = RankedTensorType::get({static_cast<int64_t>(run.size())}, rt.getElementType());
      inputs.push_back(m_.constant(Materializer::intsAttr(run, t), op.getLoc()));
      run.clear();
    };
    for (Value v : flat) {
      if (isConst(v)) {
        llvm::append_range(run, *a_.elems(v));
        continue;
      }
      flush();
      inputs.push_back(v);
    }
    flush();
    if (inputs.size() == 1 && inputs[0].getType() == rt) {
      replace(op.getResult(), inputs[0]);
      return;
    }
    op.getInputsMutable().assign(inputs);
    changed_ = true;
  }

  //===--------------------------------------------------------------------===//
  // Rebuilding values from DimExprs
  //===--------------------------------------------------------------------===//

  /// True when `v` is already computed from constants, mm.dim, arguments and values
  /// nobody can compute, through concat / squeeze / unsqueeze / cast / add / sub / mul:
  /// what materialize() builds.
  bool isCanonical(Value v) {
    auto it = canonical_.find(v);
    if (it != canonical_.end())
      return it->second;
    bool result = computeCanonical(v);
    canonical_[v] = result;
    return result;
  }

  bool computeCanonical(Value v) {
    Operation *def = v.getDefiningOp();
    if (!def || isa<ConstantOp, DimOp>(def) || isSelfSourced(v))
      return true;
    auto constant = [](Value x) { return static_cast<bool>(x.getDefiningOp<ConstantOp>()); };
    if (isa<ConcatOp, SqueezeOp, UnsqueezeOp, CastOp, AddOp, SubOp, MulOp>(def))
      return llvm::all_of(def->getOperands(), [&](Value x) { return isCanonical(x); });
    // Reading elements out of a tensor nobody can compute (materialize()'s element
    // sources); out of anything else the elements are known and can be rebuilt.
    if (isa<GatherOp, SliceOp, ReshapeOp>(def)) {
      Value src = def->getOperand(0);
      return (!src.getDefiningOp() || isSelfSourced(src)) &&
             llvm::all_of(def->getOperands().drop_front(), constant);
    }
    return false;
  }

  /// Every element of v is a symbol first seen in v (nobody computes it from dims).
  bool isSelfSourced(Value v) {
    const DimExprs *e = a_.elems(v);
    if (!e)
      return false;
    for (auto [i, x] : llvm::enumerate(*e)) {
      auto s = x.singleSymbol();
      if (!s)
        return false;
      const Symbol &sym = a_.symbols().get(*s);
      if (sym.source != v || sym.sourceIsDim || sym.index != static_cast<int64_t>(i))
        return false;
    }
    return true;
  }

  void replace(Value from, Value to) {
    from.replaceAllUsesWith(to);
    canonical_.erase(from);
    changed_ = true;
  }

  func::FuncOp func_;
  Block &body_;
  OpBuilder builder_;
  PinnedValues pinned_;
  ShapeAnalysis a_;
  Materializer m_;
  int64_t maxElements_;
  bool changed_ = false;
  DenseMap<Value, bool> canonical_;
};

/// Erases `mm` ops whose results are unused (all `mm` ops are Pure), to a fixed point.
bool eraseDeadOps(Block &body) {
  bool changed = false;
  for (bool again = true; again;) {
    again = false;
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (isMMOp(&op) && isOpTriviallyDead(&op)) {
        op.erase();
        again = changed = true;
      }
  }
  return changed;
}

struct FoldShapesPass : mm::impl::FoldShapesBase<FoldShapesPass> {
  using FoldShapesBase::FoldShapesBase;

  void runOnOperation() override {
    func::FuncOp f = getOperation();
    if (f.isExternal())
      return;
    if (!f.getBody().hasOneBlock()) {
      f.emitError("mm-fold-shapes expects a function body of one block");
      return signalPassFailure();
    }
    Block &body = f.getBody().front();
    IRRewriter rewriter(&getContext());
    for (int i = 0; i < kMaxIterations; ++i) {
      FailureOr<bool> changed = FoldIteration(f, maxElements).run();
      if (failed(changed))
        return signalPassFailure();
      bool more = *changed;
      more |= eraseDeadOps(body);
      DominanceInfo dom(f);
      bool cseChanged = false;
      eliminateCommonSubExpressions(rewriter, dom, f, &cseChanged);
      more |= cseChanged;
      if (!more)
        break;
    }
  }
};

} // namespace
