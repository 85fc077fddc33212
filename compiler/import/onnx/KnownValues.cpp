//===- KnownValues.cpp - element values of small integer tensors ----------===//
#include "compiler/import/onnx/KnownValues.h"

#include "compiler/import/onnx/ShapeInference.h"

#include "mm/MMOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace mm::onnx_import {

namespace {

int64_t wrapAdd(int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); }
int64_t wrapSub(int64_t a, int64_t b) { return int64_t(uint64_t(a) - uint64_t(b)); }
int64_t wrapMul(int64_t a, int64_t b) { return int64_t(uint64_t(a) * uint64_t(b)); }

/// Elementwise combination of two known vectors with numpy broadcasting (sizes equal or
/// one of them 1); std::nullopt when the sizes do not broadcast to `n`.
template <typename Fn>
std::optional<KnownInts> broadcast2(const KnownInts &a, const KnownInts &b, int64_t n, Fn fn) {
  int64_t na = a.size(), nb = b.size();
  if (!((na == n || na == 1) && (nb == n || nb == 1)))
    return std::nullopt;
  KnownInts out;
  for (int64_t i = 0; i < n; ++i)
    out.push_back(fn(a[na == 1 ? 0 : i], b[nb == 1 ? 0 : i]));
  return out;
}

KnownInt binaryKnown(Operation *op, KnownInt a, KnownInt b) {
  bool both = a.known && b.known;
  return llvm::TypeSwitch<Operation *, KnownInt>(op)
      .Case([&](AddOp) {
        return both ? KnownInt::of(wrapAdd(a.value, b.value))
                    : KnownInt::unknown(a.nonNegative && b.nonNegative);
      })
      .Case([&](SubOp) { return both ? KnownInt::of(wrapSub(a.value, b.value)) : KnownInt::unknown(); })
      .Case([&](MulOp) {
        return both ? KnownInt::of(wrapMul(a.value, b.value))
                    : KnownInt::unknown(a.nonNegative && b.nonNegative);
      })
      .Case([&](DivOp) {
        if (both && b.value != 0 && !(a.value == INT64_MIN && b.value == -1))
          return KnownInt::of(a.value / b.value);
        return KnownInt::unknown(a.nonNegative && b.known && b.value > 0);
      })
      .Case([&](MaxOp) {
        return both ? KnownInt::of(std::max(a.value, b.value))
                    : KnownInt::unknown(a.nonNegative || b.nonNegative);
      })
      .Case([&](MinOp) {
        return both ? KnownInt::of(std::min(a.value, b.value))
                    : KnownInt::unknown(a.nonNegative && b.nonNegative);
      })
      .Case([&](EqualOp) {
        if (both)
          return KnownInt::of(a.value == b.value);
        if (a.sameDim(b))
          return KnownInt::of(1);
        // A dim size (>= 0) never equals a negative constant: Where(Equal(shape, -1), ...).
        if ((a.nonNegative && b.known && b.value < 0) || (b.nonNegative && a.known && a.value < 0))
          return KnownInt::of(0);
        return KnownInt::unknown(true);
      })
      .Default([&](Operation *) { return KnownInt::unknown(); });
}

/// ONNX Slice on a known 1-D vector with fully known parameters.
std::optional<KnownInts> sliceKnown(const KnownInts &data, ArrayRef<int64_t> starts,
                                    ArrayRef<int64_t> ends, ArrayRef<int64_t> axes,
                                    ArrayRef<int64_t> steps) {
  if (starts.size() != 1 || ends.size() != 1 || axes.size() != 1 || steps.size() != 1)
    return std::nullopt;
  if ((axes[0] != 0 && axes[0] != -1) || steps[0] == 0)
    return std::nullopt;
  std::optional<dims::SliceBounds> b = dims::sliceBounds(data.size(), starts[0], ends[0], steps[0]);
  KnownInts out;
  for (int64_t i = 0, at = b->start; i < b->count; ++i, at += b->step)
    out.push_back(data[at]);
  return out;
}

} // namespace

bool isTrackedIntTensor(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && rt.getRank() <= 1 && rt.hasStaticShape() &&
         rt.getNumElements() <= kMaxKnownElements && isa<IntegerType>(rt.getElementType());
}

std::optional<KnownInts> KnownValues::get(Value v) const {
  if (!v)
    return std::nullopt;
  auto it = known_.find(v);
  if (it == known_.end())
    return std::nullopt;
  return it->second;
}

std::optional<SmallVector<int64_t>> KnownValues::getInts(Value v) const {
  auto k = get(v);
  if (!k)
    return std::nullopt;
  SmallVector<int64_t> out;
  for (const KnownInt &e : *k) {
    if (!e.known)
      return std::nullopt;
    out.push_back(e.value);
  }
  return out;
}

void KnownValues::set(Value v, KnownInts k) {
  auto t = cast<RankedTensorType>(v.getType());
  if (static_cast<int64_t>(k.size()) != t.getNumElements())
    return;
  // Nothing worth recording, unless the tensor is empty (then it is fully known: e.g. an
  // empty `axes` input).
  if (!k.empty() && llvm::none_of(k, [](const KnownInt &e) { return e.known || e.nonNegative; }))
    return;
  known_[v] = std::move(k);
}

void KnownValues::infer(Operation *op) {
  if (op->getNumResults() != 1 || !isTrackedIntTensor(op->getResult(0).getType()))
    return;
  Value r = op->getResult(0);
  int64_t n = cast<RankedTensorType>(r.getType()).getNumElements();
  auto operand = [&](unsigned i) { return get(op->getOperand(i)); };

  llvm::TypeSwitch<Operation *>(op)
      .Case([&](ConstantOp c) {
        auto attr = dyn_cast<DenseIntElementsAttr>(c.getValue());
        if (!attr)
          return;
        bool isUnsigned = attr.getElementType().isUnsignedInteger() ||
                          attr.getElementType().isInteger(1);
        KnownInts k;
        for (const APInt &v : attr.getValues<APInt>())
          k.push_back(KnownInt::of(isUnsigned ? int64_t(v.getZExtValue()) : v.getSExtValue()));
        set(r, std::move(k));
      })
      .Case([&](ShapeOp s) {
        auto in = cast<RankedTensorType>(s.getInput().getType());
        int64_t rank = in.getRank();
        KnownInts k;
        for (int64_t i = dims::clampIndex(s.getStart(), rank), e = dims::clampIndex(s.getEnd().value_or(rank), rank); i < e; ++i)
          k.push_back(in.isDynamicDim(i) ? KnownInt::dimOfValue(s.getInput(), i)
                                         : KnownInt::of(in.getDimSize(i)));
        set(r, std::move(k));
      })
      .Case([&](GatherOp g) {
        auto data = operand(0);
        auto idx = getInts(g.getIndices());
        if (!data || !idx || cast<RankedTensorType>(g.getData().getType()).getRank() != 1)
          return;
        KnownInts k;
        int64_t size = data->size();
        for (int64_t i : *idx) {
          if (i < -size || i >= size)
            return;
          k.push_back((*data)[i < 0 ? i + size : i]);
        }
        set(r, std::move(k));
      })
      .Case([&](ConcatOp c) {
        KnownInts k;
        for (Value in : c.getInputs()) {
          auto part = get(in);
          auto t = cast<RankedTensorType>(in.getType());
          if (!t.hasStaticShape())
            return;
          if (part)
            k.append(part->begin(), part->end());
          else
            k.append(t.getNumElements(), KnownInt::unknown());
        }
        set(r, std::move(k));
      })
      .Case<UnsqueezeOp, SqueezeOp, ReshapeOp, FlattenOp, ExpandOp>([&](Operation *o) {
        auto in = operand(0);
        if (!in)
          return;
        if (static_cast<int64_t>(in->size()) == n)
          set(r, *in);
        else if (in->size() == 1 && isa<ExpandOp>(o))
          set(r, KnownInts(n, (*in)[0]));
      })
      .Case([&](CastOp) {
        auto in = operand(0);
        if (!in)
          return;
        if (cast<RankedTensorType>(r.getType()).getElementType().isInteger(1))
          for (KnownInt &e : *in)
            e = e.known ? KnownInt::of(e.value != 0) : KnownInt::unknown(true);
        set(r, *in);
      })
      .Case<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, EqualOp>([&](Operation *o) {
        auto a = operand(0), b = operand(1);
        auto ta = cast<RankedTensorType>(o->getOperand(0).getType());
        auto tb = cast<RankedTensorType>(o->getOperand(1).getType());
        if (!ta.hasStaticShape() || !tb.hasStaticShape() || (!a && !b))
          return;
        KnownInts ua(ta.getNumElements(), KnownInt::unknown());
        KnownInts ub(tb.getNumElements(), KnownInt::unknown());
        auto k = broadcast2(a ? *a : ua, b ? *b : ub, n,
                            [&](KnownInt x, KnownInt y) { return binaryKnown(o, x, y); });
        if (k)
          set(r, std::move(*k));
      })
      .Case([&](NegOp) {
        auto in = operand(0);
        if (!in)
          return;
        for (KnownInt &e : *in)
          e = e.known ? KnownInt::of(wrapSub(0, e.value)) : KnownInt::unknown();
        set(r, *in);
      })
      .Case([&](NotOp) { // booleans (Optimum's Not(use_cache_branch))
        auto in = operand(0);
        if (!in)
          return;
        for (KnownInt &e : *in)
          e = e.known ? KnownInt::of(e.value == 0 ? 1 : 0) : KnownInt::unknown();
        set(r, *in);
      })
      .Case([&](WhereOp w) {
        auto tx = cast<RankedTensorType>(w.getX().getType());
        auto ty = cast<RankedTensorType>(w.getY().getType());
        auto c = operand(0);
        if (!c || !tx.hasStaticShape() || !ty.hasStaticShape())
          return;
        auto x = operand(1), y = operand(2);
        KnownInts kx = x ? *x : KnownInts(tx.getNumElements(), KnownInt::unknown());
        KnownInts ky = y ? *y : KnownInts(ty.getNumElements(), KnownInt::unknown());
        auto fits = [&](const KnownInts &v) { return int64_t(v.size()) == n || v.size() == 1; };
        if (!fits(*c) || !fits(kx) || !fits(ky))
          return;
        auto at = [](const KnownInts &v, int64_t i) { return v[v.size() == 1 ? 0 : i]; };
        KnownInts k;
        for (int64_t i = 0; i < n; ++i) {
          KnownInt cond = at(*c, i), a = at(kx, i), b = at(ky, i);
          if (cond.known)
            k.push_back(cond.value ? a : b);
          else if ((a.known && b.known && a.value == b.value) || a.sameDim(b))
            k.push_back(a);
          else
            k.push_back(KnownInt::unknown(a.nonNegative && b.nonNegative));
        }
        set(r, std::move(k));
      })
      .Case([&](ConstantOfShapeOp c) {
        auto attr = dyn_cast<IntegerAttr>(c.getValue());
        if (!attr)
          return;
        int64_t v = attr.getType().isInteger(1) ? int64_t(attr.getValue().getZExtValue())
                                                : attr.getValue().getSExtValue();
        set(r, KnownInts(n, KnownInt::of(v)));
      })
      .Case([&](SliceOp s) {
        auto data = operand(0);
        auto starts = getInts(s.getStarts()), ends = getInts(s.getEnds());
        auto axes = getInts(s.getAxes()), steps = getInts(s.getSteps());
        if (!data || !starts || !ends || !axes || !steps)
          return;
        if (auto k = sliceKnown(*data, *starts, *ends, *axes, *steps))
          set(r, std::move(*k));
      })
      .Case([&](RangeOp rg) {
        auto start = getInts(rg.getStart()), limit = getInts(rg.getLimit());
        auto delta = getInts(rg.getDelta());
        if (!start || !limit || !delta || (*delta)[0] == 0)
          return;
        KnownInts k;
        for (int64_t v = (*start)[0]; (*delta)[0] > 0 ? v < (*limit)[0] : v > (*limit)[0];
             v = wrapAdd(v, (*delta)[0])) {
          if (static_cast<int64_t>(k.size()) >= n)
            return;
          k.push_back(KnownInt::of(v));
        }
        set(r, std::move(k));
      });
}

} // namespace mm::onnx_import
