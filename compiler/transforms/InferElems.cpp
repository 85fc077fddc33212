//===- InferElems.cpp - element values of small integer tensors ------------===//
//
// The value of each element of a tracked result (shape vectors, scalars, small masks)
// as a DimExpr, from the operands' elements and dims. Integer ops follow ONNX: Div
// truncates toward zero, comparisons give 0/1, Cast wraps to the target width.
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/IndexMaps.h"
#include "compiler/transforms/ShapeAnalysis.h"

#include "mm/MMOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mm;
using namespace mm::shapes;

namespace {

ArrayRef<int64_t> shapeOf(Value v) { return cast<RankedTensorType>(v.getType()).getShape(); }

class ElemRules {
public:
  ElemRules(ShapeAnalysis &a, Operation *op)
      : a_(a), syms_(a.symbols()), op_(op),
        type_(cast<RankedTensorType>(op->getResult(0).getType())),
        n_(type_.getNumElements()) {}

  ElemGuesses infer() {
    ElemGuesses g =
        llvm::TypeSwitch<Operation *, ElemGuesses>(op_)
            .Case<ConstantOp>([&](ConstantOp o) { return constant(o); })
            .Case<ShapeOp>([&](ShapeOp o) { return shapeElems(o); })
            .Case<DimOp>([&](DimOp o) { return dimElems(o); })
            .Case<GatherOp>([&](GatherOp o) { return gather(o); })
            .Case<ConcatOp>([&](ConcatOp o) { return concat(o); })
            .Case<SliceOp>([&](SliceOp o) { return slice(o); })
            .Case<ReshapeOp, SqueezeOp, UnsqueezeOp, FlattenOp>(
                [&](Operation *o) { return mapped(o->getOperand(0), identity()); })
            .Case<TransposeOp>([&](TransposeOp o) {
              return mapped(o.getInput(), transposeMap(shapeOf(o.getInput()), o.getPerm()));
            })
            .Case<ExpandOp>([&](ExpandOp o) {
              return mapped(o.getInput(), broadcastMap(type_.getShape(), shapeOf(o.getInput())));
            })
            .Case<TileOp>([&](TileOp o) { return tile(o); })
            .Case<CastOp>([&](CastOp o) { return castElems(o); })
            .Case<ConstantOfShapeOp>([&](ConstantOfShapeOp o) { return constantOfShape(o); })
            .Case<RangeOp>([&](RangeOp o) { return range(o); })
            .Case<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, AndOp, OrOp, EqualOp, LessOp,
                  LessOrEqualOp, GreaterOp, GreaterOrEqualOp>(
                [&](Operation *o) { return binary(o); })
            .Case<NegOp, AbsOp, NotOp>([&](Operation *o) { return unary(o); })
            .Case<WhereOp>([&](WhereOp o) { return where(o); })
            .Default([&](Operation *) { return none(); });
    if (static_cast<int64_t>(g.size()) != n_)
      return none();
    unsigned bits = type_.getElementType().getIntOrFloatBitWidth();
    for (auto &e : g)
      if (e)
        e = ShapeAnalysis::fitToWidth(*e, bits);
    return g;
  }

private:
  ElemGuesses none() { return ElemGuesses(n_, std::nullopt); }

  IndexMap identity() {
    IndexMap m;
    for (int64_t i = 0; i < n_; ++i)
      m.push_back(i);
    return m;
  }

  /// result[i] = elems(v)[map[i]].
  ElemGuesses mapped(Value v, const IndexMap &map) {
    const DimExprs *e = a_.elems(v);
    if (!e || static_cast<int64_t>(map.size()) != n_)
      return none();
    ElemGuesses g;
    for (int64_t i : map) {
      if (i < 0 || i >= static_cast<int64_t>(e->size()))
        return none();
      g.push_back((*e)[i]);
    }
    return g;
  }

  ElemGuesses constant(ConstantOp o) {
    auto attr = dyn_cast<DenseIntElementsAttr>(o.getValue());
    if (!attr)
      return none();
    bool isBool = attr.getElementType().isInteger(1);
    ElemGuesses g;
    for (const APInt &v : attr.getValues<APInt>())
      g.push_back(DimExpr::constant(isBool ? v.getZExtValue() : v.getSExtValue()));
    return g;
  }

  ElemGuesses shapeElems(ShapeOp o) {
    const DimExprs &d = a_.dims(o.getInput());
    int64_t rank = d.size();
    int64_t start = mm::dims::clampIndex(o.getStart(), rank), end = mm::dims::clampIndex(o.getEnd().value_or(rank), rank);
    ElemGuesses g;
    for (int64_t i = start; i < end; ++i)
      g.push_back(d[i]);
    return g;
  }

  ElemGuesses dimElems(DimOp o) {
    const DimExprs &d = a_.dims(o.getInput());
    int64_t index = static_cast<int64_t>(o.getIndex());
    if (index < 0 || index >= static_cast<int64_t>(d.size()))
      return none();
    return {d[index]};
  }

  ElemGuesses gather(GatherOp o) {
    ArrayRef<int64_t> data = shapeOf(o.getData());
    auto idx = a_.constElems(o.getIndices());
    int64_t rank = data.size();
    std::optional<int64_t> norm = mm::dims::normalizeAxis(o.getAxis(), rank);
    if (!idx || !norm || ShapedType::isDynamicShape(data))
      return none();
    const int64_t axis = *norm;
    for (int64_t &i : *idx) {
      if (i < -data[axis] || i >= data[axis])
        return none();
      i = i < 0 ? i + data[axis] : i;
    }
    return mapped(o.getData(), gatherMap(data, axis, *idx, shapeOf(o.getIndices())));
  }

  ElemGuesses concat(ConcatOp o) {
    SmallVector<SmallVector<int64_t, 4>> shapes;
    SmallVector<const DimExprs *> ins;
    for (Value in : o.getInputs()) {
      ins.push_back(a_.elems(in));
      if (!ins.back())
        return none();
      shapes.push_back(SmallVector<int64_t, 4>(shapeOf(in)));
    }
    int64_t rank = type_.getRank();
    std::optional<int64_t> axis = mm::dims::normalizeAxis(o.getAxis(), rank);
    if (!axis)
      return none();
    ElemGuesses g;
    for (auto [which, i] : concatMap(shapes, *axis))
      g.push_back((*ins[which])[i]);
    return g;
  }

  ElemGuesses slice(SliceOp o) {
    ArrayRef<int64_t> data = shapeOf(o.getData());
    auto starts = a_.constElems(o.getStarts()), ends = a_.constElems(o.getEnds());
    auto axes = a_.constElems(o.getAxes()), steps = a_.constElems(o.getSteps());
    if (!starts || !ends || !axes || !steps || ShapedType::isDynamicShape(data))
      return none();
    SmallVector<SliceDim> dims;
    for (int64_t d : data)
      dims.push_back({0, 1, d});
    int64_t rank = data.size();
    for (size_t k = 0; k < axes->size() && k < starts->size() && k < ends->size() &&
                       k < steps->size();
         ++k) {
      std::optional<int64_t> axis = mm::dims::normalizeAxis((*axes)[k], rank);
      if (!axis)
        return none();
      auto s = mm::dims::sliceBounds(data[*axis], (*starts)[k], (*ends)[k], (*steps)[k]);
      if (!s)
        return none();
      dims[*axis] = *s;
    }
    return mapped(o.getData(), sliceMap(data, dims));
  }

  ElemGuesses tile(TileOp o) {
    auto reps = a_.constElems(o.getRepeats());
    ArrayRef<int64_t> in = shapeOf(o.getInput());
    if (!reps || reps->size() != in.size() || llvm::any_of(*reps, [](int64_t r) { return r < 0; }))
      return none();
    return mapped(o.getInput(), tileMap(in, *reps));
  }

  ElemGuesses castElems(CastOp o) {
    const DimExprs *in = a_.elems(o.getInput());
    if (!in)
      return none();
    bool toBool = type_.getElementType().isInteger(1);
    ElemGuesses g;
    for (const DimExpr &e : *in) {
      if (!toBool) {
        g.push_back(e);
        continue;
      }
      Sign s = syms_.sign(e);
      g.push_back(s == Sign::Zero ? std::optional<DimExpr>(DimExpr::constant(0))
                  : s == Sign::Positive || s == Sign::Negative
                      ? std::optional<DimExpr>(DimExpr::constant(1))
                      : std::nullopt);
    }
    return g;
  }

  ElemGuesses constantOfShape(ConstantOfShapeOp o) {
    auto v = dyn_cast<IntegerAttr>(o.getValue());
    if (!v)
      return none();
    int64_t c = v.getType().isInteger(1) ? v.getValue().getZExtValue() : v.getValue().getSExtValue();
    return ElemGuesses(n_, DimExpr::constant(c));
  }

  ElemGuesses range(RangeOp o) {
    auto s = a_.constElems(o.getStart()), d = a_.constElems(o.getDelta());
    if (!s || !d || (*d)[0] == 0)
      return none();
    ElemGuesses g;
    for (int64_t i = 0; i < n_; ++i)
      g.push_back(DimExpr::constant((*s)[0] + i * (*d)[0]));
    return g;
  }

  /// a - b's sign, for comparisons, max and min.
  Sign diffSign(const DimExpr &a, const DimExpr &b) {
    auto d = a.minus(b);
    return d ? syms_.sign(*d) : Sign::Unknown;
  }

  std::optional<DimExpr> boolean(std::optional<bool> b) {
    return b ? std::optional<DimExpr>(DimExpr::constant(*b)) : std::nullopt;
  }

  std::optional<DimExpr> apply(Operation *o, const DimExpr &a, const DimExpr &b) {
    Sign s = diffSign(a, b);
    bool lt = s == Sign::Negative, gt = s == Sign::Positive, eq = s == Sign::Zero;
    bool le = lt || eq || s == Sign::NonPositive, ge = gt || eq || s == Sign::NonNegative;
    auto ca = a.constantValue(), cb = b.constantValue();
    return llvm::TypeSwitch<Operation *, std::optional<DimExpr>>(o)
        .Case<AddOp>([&](auto) { return a.plus(b); })
        .Case<SubOp>([&](auto) { return a.minus(b); })
        .Case<MulOp>([&](auto) -> std::optional<DimExpr> {
          if (cb)
            return a.scaled(*cb);
          if (ca)
            return b.scaled(*ca);
          return syms_.product({a, b});
        })
        .Case<DivOp>([&](auto) -> std::optional<DimExpr> {
          if (!cb || *cb == 0)
            return std::nullopt;
          if (ca)
            return (*ca == INT64_MIN && *cb == -1) ? std::nullopt
                                                   : std::optional(DimExpr::constant(*ca / *cb));
          return a.exactDiv(*cb);
        })
        .Case<MaxOp>([&](auto) -> std::optional<DimExpr> {
          if (ge)
            return a;
          if (le)
            return b;
          return std::nullopt;
        })
        .Case<MinOp>([&](auto) -> std::optional<DimExpr> {
          if (le)
            return a;
          if (ge)
            return b;
          return std::nullopt;
        })
        .Case<AndOp>([&](auto) -> std::optional<DimExpr> {
          if ((ca && *ca == 0) || (cb && *cb == 0))
            return DimExpr::constant(0);
          if (ca)
            return b;
          if (cb)
            return a;
          return a == b ? std::optional(a) : std::nullopt;
        })
        .Case<OrOp>([&](auto) -> std::optional<DimExpr> {
          if ((ca && *ca != 0) || (cb && *cb != 0))
            return DimExpr::constant(1);
          if (ca)
            return b;
          if (cb)
            return a;
          return a == b ? std::optional(a) : std::nullopt;
        })
        .Case<EqualOp>([&](auto) {
          return boolean(eq ? std::optional(true) : lt || gt ? std::optional(false) : std::nullopt);
        })
        .Case<LessOp>([&](auto) {
          return boolean(lt ? std::optional(true) : ge ? std::optional(false) : std::nullopt);
        })
        .Case<LessOrEqualOp>([&](auto) {
          return boolean(le ? std::optional(true) : gt ? std::optional(false) : std::nullopt);
        })
        .Case<GreaterOp>([&](auto) {
          return boolean(gt ? std::optional(true) : le ? std::optional(false) : std::nullopt);
        })
        .Case<GreaterOrEqualOp>([&](auto) {
          return boolean(ge ? std::optional(true) : lt ? std::optional(false) : std::nullopt);
        })
        .Default([](Operation *) { return std::nullopt; });
  }

  ElemGuesses binary(Operation *o) {
    Value l = o->getOperand(0), r = o->getOperand(1);
    const DimExprs *le = a_.elems(l), *re = a_.elems(r);
    if (!le || !re)
      return none();
    IndexMap lm = broadcastMap(type_.getShape(), shapeOf(l));
    IndexMap rm = broadcastMap(type_.getShape(), shapeOf(r));
    ElemGuesses g;
    for (int64_t i = 0; i < n_; ++i)
      g.push_back(apply(o, (*le)[lm[i]], (*re)[rm[i]]));
    return g;
  }

  ElemGuesses unary(Operation *o) {
    const DimExprs *in = a_.elems(o->getOperand(0));
    if (!in)
      return none();
    ElemGuesses g;
    for (const DimExpr &e : *in) {
      Sign s = syms_.sign(e);
      auto c = e.constantValue();
      if (isa<NegOp>(o))
        g.push_back(e.scaled(-1));
      else if (isa<NotOp>(o))
        g.push_back(c ? std::optional(DimExpr::constant(*c == 0)) : std::nullopt);
      else if (s == Sign::Zero || s == Sign::Positive || s == Sign::NonNegative)
        g.push_back(e);
      else if (s == Sign::Negative || s == Sign::NonPositive)
        g.push_back(e.scaled(-1));
      else
        g.push_back(std::nullopt);
    }
    return g;
  }

  ElemGuesses where(WhereOp o) {
    const DimExprs *c = a_.elems(o.getCondition()), *x = a_.elems(o.getX()),
                   *y = a_.elems(o.getY());
    if (!c || !x || !y)
      return none();
    IndexMap cm = broadcastMap(type_.getShape(), shapeOf(o.getCondition()));
    IndexMap xm = broadcastMap(type_.getShape(), shapeOf(o.getX()));
    IndexMap ym = broadcastMap(type_.getShape(), shapeOf(o.getY()));
    ElemGuesses g;
    for (int64_t i = 0; i < n_; ++i) {
      const DimExpr &xv = (*x)[xm[i]], &yv = (*y)[ym[i]];
      auto cv = (*c)[cm[i]].constantValue();
      if (cv)
        g.push_back(*cv ? xv : yv);
      else
        g.push_back(xv == yv ? std::optional(xv) : std::nullopt);
    }
    return g;
  }

  ShapeAnalysis &a_;
  DimSymbolTable &syms_;
  Operation *op_;
  RankedTensorType type_;
  int64_t n_;
};

} // namespace

ElemGuesses ShapeAnalysis::inferElems(Operation *op) { return ElemRules(*this, op).infer(); }
