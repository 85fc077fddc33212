//===- Materializer.cpp - IR for values known as DimExprs ------------------===//
#include "compiler/transforms/Materializer.h"

#include "mm/MMOps.h"

using namespace mlir;
using namespace mm;
using namespace mm::shapes;

namespace {
RankedTensorType tensorTypeOf(Value v) { return dyn_cast<RankedTensorType>(v.getType()); }
} // namespace

Materializer::Materializer(Block &body, ShapeAnalysis &analysis)
    : body_(body), a_(analysis), builder_(body.getParentOp()->getContext()) {
  for (Operation &op : body)
    if (auto d = dyn_cast<DimOp>(op))
      dimCache_.try_emplace({d.getInput(), static_cast<int64_t>(d.getIndex())}, d.getResult());
}

/// True when `v` is available before `user`.
bool Materializer::before(Value v, Operation *user) const {
  Operation *def = v.getDefiningOp();
  if (!def)
    return cast<BlockArgument>(v).getOwner() == &body_;
  return def->getBlock() == &body_ && def->isBeforeInBlock(user);
}

/// Sets the insertion point after the last definition among `operands`.
void Materializer::insertAfterDefs(ValueRange operands) {
  Operation *last = nullptr;
  for (Value v : operands)
    if (Operation *d = v.getDefiningOp())
      if (!last || last->isBeforeInBlock(d))
        last = d;
  if (last)
    builder_.setInsertionPointAfter(last);
  else
    builder_.setInsertionPointToStart(&body_);
}

/// `elems` as a value of type `t` computed before `user`: constants, mm.dim and
/// arithmetic on them; null when some symbol has no source available there.
Value Materializer::elements(ArrayRef<DimExpr> elems, RankedTensorType t, Operation *user) {
  auto elemType = dyn_cast<IntegerType>(t.getElementType());
  if (!elemType || static_cast<int64_t>(elems.size()) != t.getNumElements())
    return {};
  Location loc = user->getLoc();
  if (llvm::all_of(elems, [](const DimExpr &e) { return e.isConstant(); })) {
    return constant(intsAttr(elems, t), loc);
  }
  if (elemType.getWidth() == 1)
    return {};
  SmallVector<Value> pieces;
  DimExprs run;
  auto flush = [&] {
    if (run.empty())
      return;
    auto rt = RankedTensorType::get({static_cast<int64_t>(run.size())}, i64());
    pieces.push_back(constant(intsAttr(run, rt), loc));
    run.clear();
  };
  for (const DimExpr &e : elems) {
    if (e.isConstant()) {
      run.push_back(e);
      continue;
    }
    flush();
    Value v = scalar(e, user);
    if (!v)
      return {};
    pieces.push_back(v);
  }
  flush();
  Value flat = pieces.front();
  auto flatType = RankedTensorType::get({static_cast<int64_t>(elems.size())}, i64());
  if (pieces.size() > 1) {
    insertAfterDefs(pieces);
    flat = builder_.create<ConcatOp>(loc, flatType, pieces, builder_.getI64IntegerAttr(0));
    a_.set(flat, {DimExpr::constant(elems.size())}, DimExprs(elems));
  }
  return reshapeTo(flat, t, DimExprs(elems), loc);
}

/// A tensor<Nxi64> reshaped (and cast) to `t`.
Value Materializer::reshapeTo(Value flat, RankedTensorType t, DimExprs elems, Location loc) {
  Value v = flat;
  if (t.getElementType() != i64()) {
    auto ct = RankedTensorType::get(tensorTypeOf(v).getShape(), t.getElementType());
    insertAfterDefs(v);
    v = builder_.create<CastOp>(loc, ct, v);
    a_.set(v, a_.dims(flat), elems);
  }
  if (tensorTypeOf(v).getShape() == t.getShape())
    return v;
  insertAfterDefs(v);
  if (t.getRank() == 0) {
    v = builder_.create<SqueezeOp>(loc, t, v, builder_.getDenseI64ArrayAttr({0}));
  } else {
    auto st = RankedTensorType::get({t.getRank()}, i64());
    Value shape = constant(DenseElementsAttr::get(st, t.getShape()), loc);
    insertAfterDefs({v, shape});
    v = builder_.create<ReshapeOp>(loc, t, v, shape, builder_.getBoolAttr(false));
  }
  DimExprs dims;
  for (int64_t d : t.getShape())
    dims.push_back(DimExpr::constant(d));
  a_.set(v, std::move(dims), std::move(elems));
  return v;
}

/// One non-constant element as a tensor<1xi64>: c + sum(k * symbol).
Value Materializer::scalar(const DimExpr &e, Operation *user) {
  auto it = scalarCache_.find(e.key());
  if (it != scalarCache_.end() && before(it->second, user))
    return it->second;
  Location loc = user->getLoc();
  auto terms = SmallVector<std::pair<SymbolId, int64_t>>(e.terms());
  llvm::stable_sort(terms, [](auto a, auto b) { return a.second > b.second; });
  Value acc;
  DimExpr accExpr;
  auto combine = [&](Value rhs, const DimExpr &rhsExpr, bool subtract) -> bool {
    if (!acc) {
      acc = rhs;
      accExpr = rhsExpr;
      return true;
    }
    auto next = subtract ? accExpr.minus(rhsExpr) : accExpr.plus(rhsExpr);
    if (!next)
      return false;
    insertAfterDefs({acc, rhs});
    acc = subtract ? builder_.create<SubOp>(loc, scalarType(), acc, rhs).getResult()
                   : builder_.create<AddOp>(loc, scalarType(), acc, rhs).getResult();
    accExpr = *next;
    a_.set(acc, {DimExpr::constant(1)}, DimExprs{accExpr});
    return true;
  };
  for (auto [s, k] : terms) {
    Value base = symbolValue(s, user);
    if (!base)
      return {};
    bool subtract = acc && k < 0;
    int64_t mag = subtract ? -k : k;
    Value term = base;
    DimExpr termExpr = DimExpr::symbol(s);
    if (mag != 1) {
      auto scaled = termExpr.scaled(mag);
      if (!scaled)
        return {};
      Value factor = constScalar(mag, loc);
      insertAfterDefs({base, factor});
      term = builder_.create<MulOp>(loc, scalarType(), base, factor);
      termExpr = *scaled;
      a_.set(term, {DimExpr::constant(1)}, DimExprs{termExpr});
    }
    if (!combine(term, termExpr, subtract))
      return {};
  }
  if (int64_t c = e.constantPart(); c != 0)
    if (!combine(constScalar(c < 0 ? -c : c, loc), DimExpr::constant(c < 0 ? -c : c), c < 0))
      return {};
  scalarCache_[e.key()] = acc;
  return acc;
}

/// The run-time value of a symbol as a tensor<1xi64>, read where the symbol was
/// first seen (a dim via mm.dim, an element via a gather / reshape of its tensor).
Value Materializer::symbolValue(SymbolId s, Operation *user) {
  const Symbol &sym = a_.symbols().get(s);
  if (!sym.source || !before(sym.source, user))
    return {};
  if (sym.sourceIsDim)
    return dim(sym.source, sym.index);
  Value src = sym.source;
  auto st = tensorTypeOf(src);
  if (!st || !isa<IntegerType>(st.getElementType()) || st.getElementType().isInteger(1))
    return {};
  Location loc = user->getLoc();
  Value v = src;
  DimExprs one{DimExpr::symbol(s)};
  if (st.getNumElements() != 1) {
    if (st.getRank() != 1)
      return {};
    auto it = RankedTensorType::get({1}, i64());
    Value idx = constant(DenseElementsAttr::get(it, ArrayRef<int64_t>{sym.index}), loc);
    insertAfterDefs({src, idx});
    v = builder_.create<GatherOp>(loc, RankedTensorType::get({1}, st.getElementType()), src, idx,
                                  builder_.getI64IntegerAttr(0));
    a_.set(v, {DimExpr::constant(1)}, one);
  }
  if (tensorTypeOf(v).getElementType() != i64()) {
    insertAfterDefs(v);
    v = builder_.create<CastOp>(loc, RankedTensorType::get(tensorTypeOf(v).getShape(), i64()), v);
    a_.set(v, DimExprs(tensorTypeOf(v).getRank(), DimExpr::constant(1)), one);
  }
  if (tensorTypeOf(v).getRank() == 1)
    return v;
  insertAfterDefs(v);
  if (tensorTypeOf(v).getRank() == 0) {
    v = builder_.create<UnsqueezeOp>(loc, scalarType(), v, builder_.getDenseI64ArrayAttr({0}));
  } else {
    auto shapeType = RankedTensorType::get({1}, i64());
    Value shape = constant(DenseElementsAttr::get(shapeType, ArrayRef<int64_t>{1}), loc);
    insertAfterDefs({v, shape});
    v = builder_.create<ReshapeOp>(loc, scalarType(), v, shape, builder_.getBoolAttr(false));
  }
  a_.set(v, {DimExpr::constant(1)}, one);
  return v;
}

/// mm.dim(v, i), one per (value, dim).
Value Materializer::dim(Value v, int64_t i) {
  auto [it, inserted] = dimCache_.try_emplace({v, i}, Value());
  if (!inserted)
    return it->second;
  insertAfterDefs(v);
  Value d = builder_.create<DimOp>(v.getLoc(), scalarType(), v, builder_.getI64IntegerAttr(i));
  a_.set(d, {DimExpr::constant(1)}, DimExprs{a_.dims(v)[i]});
  it->second = d;
  return d;
}

Value Materializer::constScalar(int64_t c, Location loc) {
  return constant(DenseElementsAttr::get(scalarType(), ArrayRef<int64_t>{c}), loc);
}

Value Materializer::constant(DenseElementsAttr value, Location loc, Operation *insertBefore) {
  if (insertBefore)
    builder_.setInsertionPoint(insertBefore);
  else
    builder_.setInsertionPointToStart(&body_);
  auto t = cast<RankedTensorType>(value.getType());
  Value c = builder_.create<ConstantOp>(loc, t, value);
  DimExprs dims;
  for (int64_t d : t.getShape())
    dims.push_back(DimExpr::constant(d));
  std::optional<DimExprs> elems;
  if (auto ints = dyn_cast<DenseIntElementsAttr>(value);
      ints && t.getNumElements() <= a_.maxTrackedElements()) {
    bool isBool = t.getElementType().isInteger(1);
    elems.emplace();
    for (const APInt &v : ints.getValues<APInt>())
      elems->push_back(DimExpr::constant(isBool ? v.getZExtValue() : v.getSExtValue()));
  }
  a_.set(c, std::move(dims), std::move(elems));
  return c;
}

DenseElementsAttr Materializer::intsAttr(ArrayRef<DimExpr> elems, RankedTensorType t) {
  unsigned bits = t.getElementType().getIntOrFloatBitWidth();
  if (bits == 1) {
    SmallVector<bool> b;
    for (const DimExpr &e : elems)
      b.push_back(*e.constantValue() != 0);
    return DenseElementsAttr::get(t, b);
  }
  SmallVector<APInt> v;
  for (const DimExpr &e : elems)
    v.push_back(APInt(bits, static_cast<uint64_t>(*ShapeAnalysis::fitToWidth(e, bits)->constantValue()),
                      /*isSigned=*/true));
  return DenseElementsAttr::get(t, v);
}
