//===- ConstantEval.cpp - evaluate mm ops on constant operands -------------===//
#include "compiler/transforms/ConstantEval.h"

#include "compiler/transforms/IndexMaps.h"

#include "mm/MMOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mm;
using namespace mm::shapes;

namespace {

/// The elements of a constant on the host: integers sign-extended to int64 (i1 as
/// 0/1), floats widened to double.
struct Host {
  SmallVector<int64_t, 4> shape;
  Type elemType;
  bool isFloat = false;
  std::vector<int64_t> ints;
  std::vector<double> floats;

  size_t size() const { return isFloat ? floats.size() : ints.size(); }
};

std::optional<Host> load(DenseElementsAttr a) {
  Host h;
  auto t = cast<RankedTensorType>(a.getType());
  h.shape.assign(t.getShape().begin(), t.getShape().end());
  h.elemType = t.getElementType();
  if (auto it = dyn_cast<IntegerType>(h.elemType)) {
    bool isBool = it.getWidth() == 1;
    for (const APInt &v : a.getValues<APInt>())
      h.ints.push_back(isBool ? v.getZExtValue() : v.getSExtValue());
    return h;
  }
  if (isa<FloatType>(h.elemType)) {
    h.isFloat = true;
    for (APFloat v : a.getValues<APFloat>()) {
      bool loses;
      v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &loses);
      h.floats.push_back(v.convertToDouble());
    }
    return h;
  }
  return std::nullopt;
}

int64_t wrapInt(int64_t v, unsigned bits) {
  if (bits == 1)
    return v != 0;
  if (bits >= 64)
    return v;
  uint64_t mask = (uint64_t(1) << bits) - 1, u = static_cast<uint64_t>(v) & mask;
  if (u >> (bits - 1))
    u |= ~mask;
  return static_cast<int64_t>(u);
}

DenseElementsAttr store(const Host &h, RankedTensorType t) {
  if (static_cast<int64_t>(h.size()) != t.getNumElements())
    return {};
  if (auto it = dyn_cast<IntegerType>(t.getElementType())) {
    if (h.isFloat)
      return {};
    if (it.getWidth() == 1) {
      SmallVector<bool> b(h.ints.begin(), h.ints.end());
      return DenseElementsAttr::get(t, b);
    }
    SmallVector<APInt> v;
    for (int64_t x : h.ints)
      v.push_back(APInt(it.getWidth(), static_cast<uint64_t>(wrapInt(x, it.getWidth())),
                        /*isSigned=*/true));
    return DenseElementsAttr::get(t, v);
  }
  auto ft = dyn_cast<FloatType>(t.getElementType());
  if (!ft || !h.isFloat)
    return {};
  SmallVector<APFloat> v;
  for (double x : h.floats) {
    APFloat f(x);
    bool loses;
    f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &loses);
    v.push_back(f);
  }
  return DenseElementsAttr::get(t, v);
}

Host remap(const Host &in, const IndexMap &map, RankedTensorType t) {
  Host out;
  out.shape.assign(t.getShape().begin(), t.getShape().end());
  out.elemType = in.elemType;
  out.isFloat = in.isFloat;
  for (int64_t i : map) {
    if (in.isFloat)
      out.floats.push_back(in.floats[i]);
    else
      out.ints.push_back(in.ints[i]);
  }
  return out;
}

using mm::dims::normalizeAxis;

class Evaluator {
public:
  Evaluator(Operation *op, ArrayRef<Host> in, RankedTensorType t) : op_(op), in_(in), t_(t) {}

  std::optional<Host> run() {
    return llvm::TypeSwitch<Operation *, std::optional<Host>>(op_)
        .Case<ReshapeOp, SqueezeOp, UnsqueezeOp, FlattenOp>(
            [&](Operation *) { return moved(identityMap()); })
        .Case<TransposeOp>([&](TransposeOp o) { return moved(transposeMap(in_[0].shape, o.getPerm())); })
        .Case<ExpandOp>([&](ExpandOp) { return moved(broadcastMap(t_.getShape(), in_[0].shape)); })
        .Case<TileOp>([&](TileOp) { return moved(tileMap(in_[0].shape, in_[1].ints)); })
        .Case<GatherOp>([&](GatherOp o) { return gather(o); })
        .Case<ConcatOp>([&](ConcatOp o) { return concat(o); })
        .Case<SliceOp>([&](SliceOp) { return slice(); })
        .Case<RangeOp>([&](RangeOp) { return range(); })
        .Case<CastOp>([&](CastOp) { return castTo(); })
        .Case<WhereOp>([&](WhereOp) { return where(); })
        .Case<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, AndOp, OrOp>(
            [&](Operation *o) { return arithmetic(o); })
        .Case<EqualOp, LessOp, LessOrEqualOp, GreaterOp, GreaterOrEqualOp>(
            [&](Operation *o) { return compare(o); })
        .Case<NegOp, AbsOp, ReluOp, NotOp, SqrtOp, ReciprocalOp, FloorOp, CeilOp, IsNanOp>(
            [&](Operation *o) { return unary(o); })
        .Default([](Operation *) { return std::nullopt; });
  }

private:
  Host blank(bool isFloat) {
    Host h;
    h.shape.assign(t_.getShape().begin(), t_.getShape().end());
    h.elemType = t_.getElementType();
    h.isFloat = isFloat;
    return h;
  }

  int64_t n() const { return t_.getNumElements(); }

  IndexMap identityMap() {
    IndexMap m;
    for (int64_t i = 0; i < n(); ++i)
      m.push_back(i);
    return m;
  }

  std::optional<Host> moved(const IndexMap &map) {
    if (static_cast<int64_t>(map.size()) != n())
      return std::nullopt;
    for (int64_t i : map)
      if (i < 0 || i >= static_cast<int64_t>(in_[0].size()))
        return std::nullopt;
    return remap(in_[0], map, t_);
  }

  std::optional<Host> gather(GatherOp o) {
    const Host &data = in_[0];
    auto axis = normalizeAxis(o.getAxis(), data.shape.size());
    if (!axis)
      return std::nullopt;
    std::vector<int64_t> idx = in_[1].ints;
    int64_t dim = data.shape[*axis];
    for (int64_t &i : idx) {
      if (i < -dim || i >= dim)
        return std::nullopt;
      i = i < 0 ? i + dim : i;
    }
    return moved(gatherMap(data.shape, *axis, idx, in_[1].shape));
  }

  std::optional<Host> concat(ConcatOp o) {
    auto axis = normalizeAxis(o.getAxis(), t_.getRank());
    if (!axis)
      return std::nullopt;
    SmallVector<SmallVector<int64_t, 4>> shapes;
    for (const Host &h : in_)
      shapes.push_back(h.shape);
    Host out = blank(in_[0].isFloat);
    for (auto [which, i] : concatMap(shapes, *axis)) {
      if (out.isFloat)
        out.floats.push_back(in_[which].floats[i]);
      else
        out.ints.push_back(in_[which].ints[i]);
    }
    return out;
  }

  std::optional<Host> slice() {
    const Host &data = in_[0];
    const auto &starts = in_[1].ints, &ends = in_[2].ints, &axes = in_[3].ints,
               &steps = in_[4].ints;
    if (starts.size() != axes.size() || ends.size() != axes.size() || steps.size() != axes.size())
      return std::nullopt;
    SmallVector<SliceDim> dims;
    for (int64_t d : data.shape)
      dims.push_back({0, 1, d});
    for (size_t k = 0; k < axes.size(); ++k) {
      auto axis = normalizeAxis(axes[k], data.shape.size());
      if (!axis)
        return std::nullopt;
      auto s = mm::dims::sliceBounds(data.shape[*axis], starts[k], ends[k], steps[k]);
      if (!s)
        return std::nullopt;
      dims[*axis] = *s;
    }
    return moved(sliceMap(data.shape, dims));
  }

  std::optional<Host> range() {
    if (in_[0].isFloat || in_[1].isFloat || in_[2].isFloat || in_[2].ints[0] == 0)
      return std::nullopt;
    Host out = blank(false);
    for (int64_t i = 0; i < n(); ++i)
      out.ints.push_back(in_[0].ints[0] + i * in_[2].ints[0]);
    return out;
  }

  std::optional<Host> castTo() {
    const Host &x = in_[0];
    auto it = dyn_cast<IntegerType>(t_.getElementType());
    Host out = blank(!it);
    for (size_t i = 0; i < x.size(); ++i) {
      if (!x.isFloat) {
        int64_t v = x.ints[i];
        if (it) {
          out.ints.push_back(wrapInt(v, it.getWidth()));
        } else {
          if (std::abs(static_cast<double>(v)) > 9007199254740992.0) // 2^53: exact in double
            return std::nullopt;
          out.floats.push_back(static_cast<double>(v));
        }
        continue;
      }
      double v = x.floats[i];
      if (!it) {
        out.floats.push_back(v);
      } else if (it.getWidth() == 1) {
        out.ints.push_back(v != 0.0);
      } else {
        double limit = std::ldexp(1.0, it.getWidth() - 1);
        if (std::isnan(v) || std::trunc(v) >= limit || std::trunc(v) < -limit)
          return std::nullopt;
        out.ints.push_back(static_cast<int64_t>(std::trunc(v)));
      }
    }
    return out;
  }

  std::optional<Host> where() {
    IndexMap cm = broadcastMap(t_.getShape(), in_[0].shape);
    IndexMap xm = broadcastMap(t_.getShape(), in_[1].shape);
    IndexMap ym = broadcastMap(t_.getShape(), in_[2].shape);
    Host out = blank(in_[1].isFloat);
    for (int64_t i = 0; i < n(); ++i) {
      bool c = in_[0].ints[cm[i]] != 0;
      const Host &src = c ? in_[1] : in_[2];
      int64_t j = c ? xm[i] : ym[i];
      if (out.isFloat)
        out.floats.push_back(src.floats[j]);
      else
        out.ints.push_back(src.ints[j]);
    }
    return out;
  }

  std::optional<Host> arithmetic(Operation *o) {
    const Host &l = in_[0], &r = in_[1];
    IndexMap lm = broadcastMap(t_.getShape(), l.shape), rm = broadcastMap(t_.getShape(), r.shape);
    Host out = blank(l.isFloat);
    for (int64_t i = 0; i < n(); ++i) {
      if (l.isFloat) {
        double a = l.floats[lm[i]], b = r.floats[rm[i]], v;
        if (isa<AddOp>(o))
          v = a + b;
        else if (isa<SubOp>(o))
          v = a - b;
        else if (isa<MulOp>(o))
          v = a * b;
        else if (isa<DivOp>(o))
          v = a / b;
        else if (isa<MaxOp, MinOp>(o) && !std::isnan(a) && !std::isnan(b))
          v = isa<MaxOp>(o) ? std::max(a, b) : std::min(a, b);
        else
          return std::nullopt;
        out.floats.push_back(v);
        continue;
      }
      int64_t a = l.ints[lm[i]], b = r.ints[rm[i]], v;
      if (isa<AddOp>(o))
        v = static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
      else if (isa<SubOp>(o))
        v = static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
      else if (isa<MulOp>(o))
        v = static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
      else if (isa<DivOp>(o)) {
        if (b == 0 || (a == INT64_MIN && b == -1))
          return std::nullopt;
        v = a / b; // C++ truncates toward zero, as ONNX integer Div
      } else if (isa<MaxOp>(o))
        v = std::max(a, b);
      else if (isa<MinOp>(o))
        v = std::min(a, b);
      else if (isa<AndOp>(o))
        v = (a != 0) && (b != 0);
      else
        v = (a != 0) || (b != 0);
      out.ints.push_back(v);
    }
    return out;
  }

  std::optional<Host> compare(Operation *o) {
    const Host &l = in_[0], &r = in_[1];
    IndexMap lm = broadcastMap(t_.getShape(), l.shape), rm = broadcastMap(t_.getShape(), r.shape);
    Host out = blank(false);
    for (int64_t i = 0; i < n(); ++i) {
      auto cmp = [&](auto a, auto b) -> int64_t {
        if (isa<EqualOp>(o))
          return a == b;
        if (isa<LessOp>(o))
          return a < b;
        if (isa<LessOrEqualOp>(o))
          return a <= b;
        if (isa<GreaterOp>(o))
          return a > b;
        return a >= b;
      };
      out.ints.push_back(l.isFloat ? cmp(l.floats[lm[i]], r.floats[rm[i]])
                                   : cmp(l.ints[lm[i]], r.ints[rm[i]]));
    }
    return out;
  }

  std::optional<Host> unary(Operation *o) {
    const Host &x = in_[0];
    if (isa<IsNanOp>(o)) {
      Host out = blank(false);
      for (double v : x.floats)
        out.ints.push_back(std::isnan(v));
      return out;
    }
    Host out = blank(x.isFloat);
    for (size_t i = 0; i < x.size(); ++i) {
      if (!x.isFloat) {
        int64_t v = x.ints[i];
        if (isa<NegOp>(o))
          out.ints.push_back(static_cast<int64_t>(0 - static_cast<uint64_t>(v)));
        else if (isa<AbsOp>(o))
          out.ints.push_back(v < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(v)) : v);
        else if (isa<ReluOp>(o))
          out.ints.push_back(std::max<int64_t>(v, 0));
        else if (isa<NotOp>(o))
          out.ints.push_back(v == 0);
        else
          return std::nullopt;
        continue;
      }
      double v = x.floats[i];
      if (isa<NegOp>(o))
        out.floats.push_back(-v);
      else if (isa<AbsOp>(o))
        out.floats.push_back(std::fabs(v));
      else if (isa<ReluOp>(o))
        out.floats.push_back(std::isnan(v) ? v : std::max(v, 0.0));
      else if (isa<SqrtOp>(o))
        out.floats.push_back(std::sqrt(v));
      else if (isa<ReciprocalOp>(o))
        out.floats.push_back(1.0 / v);
      else if (isa<FloorOp>(o))
        out.floats.push_back(std::floor(v));
      else if (isa<CeilOp>(o))
        out.floats.push_back(std::ceil(v));
      else
        return std::nullopt;
    }
    return out;
  }

  Operation *op_;
  ArrayRef<Host> in_;
  RankedTensorType t_;
};

} // namespace

DenseElementsAttr mm::shapes::evaluateConstant(Operation *op, ArrayRef<DenseElementsAttr> operands,
                                               RankedTensorType resultType) {
  if (auto cos = dyn_cast<ConstantOfShapeOp>(op)) {
    auto value = dyn_cast<TypedAttr>(cos.getValue());
    if (!value || value.getType() != resultType.getElementType())
      return {};
    return DenseElementsAttr::get(resultType, ArrayRef<Attribute>(value));
  }
  SmallVector<Host, 4> in;
  for (DenseElementsAttr a : operands) {
    auto h = load(a);
    if (!h)
      return {};
    in.push_back(std::move(*h));
  }
  auto out = Evaluator(op, in, resultType).run();
  return out ? store(*out, resultType) : DenseElementsAttr();
}
