//===- InferDims.cpp - symbolic result dims of mm ops ----------------------===//
//
// One rule per op, after the ONNX operator of the same name. A rule gives each result
// dim as a DimExpr over the operands' dims and (for shape operands) elements, or
// std::nullopt where nothing better than the declared type is known.
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/IndexMaps.h"
#include "compiler/transforms/ShapeAnalysis.h"

#include "mm/MMOps.h"
#include "runtime/core/DimRules.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mm;
using namespace mm::shapes;

namespace {

using OptDims = SmallVector<std::optional<DimExpr>, 4>;
using Results = SmallVector<OptDims, 1>;

/// Ends at or past this are "to the end of the dim" for a dynamic dim (exporters write
/// INT64_MAX; real dims stay far below 2^31).
constexpr int64_t kSliceToEnd = int64_t(1) << 31;

int64_t rankOf(Value v) { return cast<RankedTensorType>(v.getType()).getRank(); }

using mm::dims::normalizeAxis;

OptDims known(ArrayRef<DimExpr> d) { return OptDims(d.begin(), d.end()); }

OptDims unknown(Value v) { return OptDims(rankOf(v), std::nullopt); }

/// Removes from `a` and `b` the factors they have in common (both sorted).
void cancelCommon(DimExprs &a, DimExprs &b) {
  DimExprs ra, rb;
  auto i = a.begin(), j = b.begin();
  while (i != a.end() || j != b.end()) {
    if (j == b.end() || (i != a.end() && *i < *j))
      ra.push_back(*i++);
    else if (i == a.end() || *j < *i)
      rb.push_back(*j++);
    else
      ++i, ++j;
  }
  a = std::move(ra);
  b = std::move(rb);
}

class DimRules {
public:
  DimRules(ShapeAnalysis &a) : a_(a), syms_(a.symbols()) {}

  FailureOr<Results> infer(Operation *op) {
    // Elementwise families, by trait.
    if (op->hasTrait<OpTrait::ResultsBroadcastableShape>())
      return broadcastOperands(op);
    if (op->getNumResults() == 1 && op->getNumOperands() >= 1 &&
        (op->hasTrait<OpTrait::SameOperandsAndResultType>() ||
         op->hasTrait<OpTrait::SameOperandsAndResultShape>()))
      return Results{sameAsOperands(op)};
    return llvm::TypeSwitch<Operation *, FailureOr<Results>>(op)
        .Case<ConstantOp, WeightOp>([&](Operation *o) { return Results{unknown(o->getResult(0))}; })
        .Case<MatMulOp>([&](MatMulOp o) { return matmul(o); })
        .Case<ConvOp>([&](ConvOp o) { return one(conv(o)); })
        .Case<ReduceMeanOp, ReduceSumOp, ReduceMaxOp>([&](auto o) {
          return one(reduce(o.getInput(), o.getAxes(), o.getKeepdims()));
        })
        .Case<GatherOp>([&](GatherOp o) { return gather(o); })
        .Case<GatherNDOp>([&](GatherNDOp o) { return one(gatherND(o)); })
        .Case<ConcatOp>([&](ConcatOp o) { return concat(o); })
        .Case<SliceOp>([&](SliceOp o) { return slice(o); })
        .Case<SplitOp>([&](SplitOp o) { return split(o); })
        .Case<ReshapeOp>([&](ReshapeOp o) { return reshape(o); })
        .Case<TransposeOp>([&](TransposeOp o) { return one(transpose(o)); })
        .Case<ExpandOp>([&](ExpandOp o) { return expand(o); })
        .Case<SqueezeOp>([&](SqueezeOp o) { return one(squeeze(o)); })
        .Case<UnsqueezeOp>([&](UnsqueezeOp o) { return one(unsqueeze(o)); })
        .Case<FlattenOp>([&](FlattenOp o) { return one(flatten(o)); })
        .Case<TileOp>([&](TileOp o) { return tile(o); })
        .Case<TriluOp, LayerNormOp, RMSNormOp, RotaryOp, DequantizeLinearOp, QuantizeLinearOp>(
            [&](Operation *o) { return one(known(a_.dims(o->getOperand(0)))); })
        .Case<RangeOp>([&](RangeOp o) { return range(o); })
        .Case<ConstantOfShapeOp>([&](ConstantOfShapeOp o) { return constantOfShape(o); })
        .Case<ShapeOp>([&](ShapeOp o) { return one(shapeOf(o)); })
        .Case<DimOp>([&](DimOp) { return one({DimExpr::constant(1)}); })
        .Case<AttentionOp>([&](AttentionOp o) { return one(attention(o)); })
        .Case<LinearOp>([&](LinearOp o) { return one(linear(o)); })
        .Default([&](Operation *o) {
          Results r;
          for (Value v : o->getResults())
            r.push_back(isa<RankedTensorType>(v.getType()) ? unknown(v) : OptDims{});
          return r;
        });
  }

private:
  static FailureOr<Results> one(OptDims d) { return Results{std::move(d)}; }

  /// A size computed by a non-affine rule: one symbol per (rule, inputs) key.
  DimExpr derived(StringRef rule, ArrayRef<DimExpr> inputs) {
    std::string key = rule.str() + "(";
    for (const DimExpr &e : inputs)
      key += e.key() + ",";
    return DimExpr::symbol(syms_.derived(key + ")", /*nonNegative=*/true));
  }

  std::optional<DimExpr> product(ArrayRef<DimExpr> f) { return syms_.product(f); }

  /// Merges dims that must be equal: a constant wins, else the first.
  OptDims sameAsOperands(Operation *op) {
    OptDims out;
    for (Value v : op->getOperands()) {
      const DimExprs &d = a_.dims(v);
      if (out.empty()) {
        out = known(d);
        continue;
      }
      if (d.size() != out.size())
        return unknown(op->getResult(0));
      for (auto [o, x] : llvm::zip(out, d))
        if (x.isConstant())
          o = x;
    }
    return out;
  }

  FailureOr<Results> broadcastOperands(Operation *op) {
    int64_t rank = 0;
    for (Value v : op->getOperands())
      rank = std::max(rank, rankOf(v));
    OptDims out;
    for (int64_t i = 0; i < rank; ++i) {
      DimExprs sizes;
      for (Value v : op->getOperands()) {
        const DimExprs &d = a_.dims(v);
        int64_t j = i - (rank - static_cast<int64_t>(d.size()));
        if (j >= 0)
          sizes.push_back(d[j]);
      }
      auto b = syms_.broadcast(sizes);
      if (!b)
        return op->emitOpError() << "operands do not broadcast in dim " << i;
      out.push_back(*b);
    }
    return Results{out};
  }

  FailureOr<Results> matmul(MatMulOp o) {
    DimExprs l = a_.dims(o.getLhs()), r = a_.dims(o.getRhs());
    bool lv = l.size() == 1, rv = r.size() == 1;
    if (lv)
      l.insert(l.begin(), DimExpr::constant(1));
    if (rv)
      r.push_back(DimExpr::constant(1));
    ArrayRef<DimExpr> lb = ArrayRef(l).drop_back(2), rb = ArrayRef(r).drop_back(2);
    size_t n = std::max(lb.size(), rb.size());
    OptDims out;
    for (size_t i = 0; i < n; ++i) {
      DimExprs sizes;
      if (i + lb.size() >= n)
        sizes.push_back(lb[i + lb.size() - n]);
      if (i + rb.size() >= n)
        sizes.push_back(rb[i + rb.size() - n]);
      auto b = syms_.broadcast(sizes);
      if (!b)
        return o.emitOpError() << "batch dims do not broadcast";
      out.push_back(*b);
    }
    if (!lv)
      out.push_back(l[l.size() - 2]);
    if (!rv)
      out.push_back(r.back());
    return Results{out};
  }

  OptDims conv(ConvOp o) {
    const DimExprs &in = a_.dims(o.getInput()), &w = a_.dims(o.getWeight());
    if (in.size() != 4 || w.size() != 4)
      return unknown(o.getResult());
    OptDims out{in[0], w[0]};
    for (int i = 0; i < 2; ++i) {
      int64_t stride = o.getStrides()[i], dil = o.getDilations()[i];
      int64_t pads = o.getPads()[i] + o.getPads()[i + 2];
      auto k = w[2 + i].constantValue();
      if (!k) {
        out.push_back(std::nullopt);
        continue;
      }
      // (size + pads - dil * (k - 1) - 1) / stride + 1
      auto span = in[2 + i].plus(DimExpr::constant(pads - dil * (*k - 1) - 1));
      if (!span) {
        out.push_back(std::nullopt);
      } else if (auto c = span->constantValue()) {
        out.push_back(*c < 0 ? std::optional<DimExpr>() : DimExpr::constant(*c / stride + 1));
      } else if (auto q = span->exactDiv(stride)) {
        out.push_back(q->plus(DimExpr::constant(1)));
      } else {
        out.push_back(derived("conv", {in[2 + i], DimExpr::constant(pads), w[2 + i],
                                      DimExpr::constant(stride), DimExpr::constant(dil)}));
      }
    }
    return out;
  }

  OptDims reduce(Value input, ArrayRef<int64_t> axes, bool keep) {
    const DimExprs &in = a_.dims(input);
    int64_t rank = in.size();
    SmallVector<int64_t> norm;
    for (int64_t a : axes)
      if (auto n = normalizeAxis(a, rank))
        norm.push_back(*n);
    OptDims out;
    for (int64_t i = 0; i < rank; ++i) {
      bool reduced = axes.empty() || llvm::is_contained(norm, i);
      if (!reduced)
        out.push_back(in[i]);
      else if (keep)
        out.push_back(DimExpr::constant(1));
    }
    return out;
  }

  FailureOr<Results> gather(GatherOp o) {
    const DimExprs &data = a_.dims(o.getData()), &idx = a_.dims(o.getIndices());
    auto axis = normalizeAxis(o.getAxis(), data.size());
    if (!axis)
      return one(unknown(o.getResult()));
    if (auto c = data[*axis].constantValue())
      if (auto vals = a_.constElems(o.getIndices()))
        for (int64_t v : *vals)
          if (v < -*c || v >= *c)
            return o.emitOpError() << "index " << v << " out of range for dim " << *axis
                                   << " of size " << *c;
    OptDims out(data.begin(), data.begin() + *axis);
    out.append(idx.begin(), idx.end());
    out.append(data.begin() + *axis + 1, data.end());
    return one(out);
  }

  OptDims gatherND(GatherNDOp o) {
    const DimExprs &data = a_.dims(o.getData()), &idx = a_.dims(o.getIndices());
    auto last = idx.back().constantValue();
    int64_t b = o.getBatchDims();
    if (!last || b + *last > static_cast<int64_t>(data.size()))
      return unknown(o.getResult());
    OptDims out(idx.begin(), idx.end() - 1);
    out.append(data.begin() + b + *last, data.end());
    return out;
  }

  FailureOr<Results> concat(ConcatOp o) {
    int64_t rank = rankOf(o.getResult());
    auto axis = normalizeAxis(o.getAxis(), rank);
    if (!axis)
      return one(unknown(o.getResult()));
    OptDims out = known(a_.dims(o.getInputs().front()));
    std::optional<DimExpr> sum = DimExpr::constant(0);
    for (Value in : o.getInputs()) {
      const DimExprs &d = a_.dims(in);
      for (int64_t i = 0; i < rank; ++i) {
        if (i == *axis)
          sum = sum ? sum->plus(d[i]) : std::nullopt;
        else if (d[i].isConstant())
          out[i] = d[i];
      }
    }
    out[*axis] = sum;
    return one(out);
  }

  /// Size of a slice of a dim `d` from start to end by step, where the bounds may be
  /// symbolic; nullopt when unknown.
  std::optional<DimExpr> sliceSize(const DimExpr &d, const DimExpr &start, const DimExpr &end,
                                   int64_t step) {
    auto dc = d.constantValue(), sc = start.constantValue(), ec = end.constantValue();
    if (dc && sc && ec) {
      auto s = mm::dims::sliceBounds(*dc, *sc, *ec, step);
      return s ? std::optional<DimExpr>(DimExpr::constant(s->count)) : std::nullopt;
    }
    if (step != 1 || !sc || *sc < 0)
      return derived("slice", {d, start, end, DimExpr::constant(step)});
    // From a non-negative start to the end of the dim: d - start (d >= start assumed).
    if ((ec && *ec >= kSliceToEnd) || end == d)
      return d.minus(start);
    // From the start of the dim to an end that cannot pass it: end - start.
    if (syms_.isNonNegative(end) && !ec) {
      auto rest = d.minus(end);
      if (rest && syms_.isNonNegative(*rest))
        return end.minus(start);
    }
    return derived("slice", {d, start, end, DimExpr::constant(step)});
  }

  FailureOr<Results> slice(SliceOp o) {
    const DimExprs &data = a_.dims(o.getData());
    const DimExprs *starts = a_.elems(o.getStarts()), *ends = a_.elems(o.getEnds());
    auto axes = a_.constElems(o.getAxes());
    auto steps = a_.constElems(o.getSteps());
    if (!starts || !ends || !axes || !steps || starts->size() != axes->size() ||
        ends->size() != axes->size() || steps->size() != axes->size())
      return one(unknown(o.getResult()));
    OptDims out = known(data);
    for (size_t k = 0; k < axes->size(); ++k) {
      auto axis = normalizeAxis((*axes)[k], data.size());
      if (!axis)
        return o.emitOpError() << "axis " << (*axes)[k] << " out of range for rank " << data.size();
      if ((*steps)[k] == 0)
        return o.emitOpError() << "step of axis " << *axis << " is 0";
      out[*axis] = sliceSize(data[*axis], (*starts)[k], (*ends)[k], (*steps)[k]);
    }
    return one(out);
  }

  FailureOr<Results> split(SplitOp o) {
    const DimExprs &in = a_.dims(o.getInput());
    auto axis = normalizeAxis(o.getAxis(), in.size());
    Results r;
    for (auto [res, size] : llvm::zip(o.getResults(), o.getSizes())) {
      if (!axis) {
        r.push_back(unknown(res));
        continue;
      }
      OptDims d = known(in);
      d[*axis] = DimExpr::constant(size);
      r.push_back(d);
    }
    return r;
  }

  FailureOr<Results> reshape(ReshapeOp o) {
    const DimExprs &in = a_.dims(o.getData());
    const DimExprs *shape = a_.elems(o.getShape());
    if (!shape)
      return one(unknown(o.getResult()));
    OptDims out;
    std::optional<size_t> inferAt;
    for (auto [i, e] : llvm::enumerate(*shape)) {
      auto c = e.constantValue();
      if (!c) {
        // A computed entry is a size when it cannot be -1; a dynamic size is taken to be
        // >= 1 (a 0 would mean "copy" without allow_zero).
        out.push_back(syms_.isNonNegative(e) ? std::optional<DimExpr>(e) : std::nullopt);
        continue;
      }
      switch (mm::dims::reshapeEntry(*c, o.getAllowZero())) {
      case mm::dims::ReshapeEntry::infer:
        if (inferAt)
          return o.emitOpError() << "shape " << formatShape(*shape) << " has more than one -1";
        inferAt = i;
        out.push_back(std::nullopt);
        break;
      case mm::dims::ReshapeEntry::invalid:
        return o.emitOpError() << "shape " << formatShape(*shape) << " has invalid entry " << *c;
      case mm::dims::ReshapeEntry::copy:
        if (i >= in.size())
          return o.emitOpError() << "shape " << formatShape(*shape) << " copies dim " << i
                                 << " (0) but the input has rank " << in.size();
        out.push_back(in[i]);
        break;
      case mm::dims::ReshapeEntry::size:
        out.push_back(e);
        break;
      }
    }
    bool othersKnown = llvm::all_of(llvm::enumerate(out), [&](auto p) {
      return p.value().has_value() || (inferAt && p.index() == *inferAt);
    });
    if (!othersKnown)
      return one(out);
    DimExprs outKnown;
    for (auto [i, d] : llvm::enumerate(out))
      if (!inferAt || i != *inferAt)
        outKnown.push_back(*d);
    auto num = syms_.factorize(in), den = syms_.factorize(outKnown);
    if (!num || !den)
      return one(out);
    std::string inCount = formatCount(*num), outCount = formatCount(*den);
    cancelCommon(num->second, den->second);
    if (!inferAt) {
      if (num->second.empty() && den->second.empty() && num->first != den->first)
        return o.emitOpError() << "cannot reshape " << formatShape(in) << " (" << inCount
                               << " elements) to " << formatShape(*shape) << " (" << outCount
                               << " elements)";
      return one(out);
    }
    // A quotient that is not a product of known sizes: one symbol per (numerator,
    // denominator), so identical reshapes infer the same size.
    auto quotient = [&] {
      DimExprs key = num->second;
      key.push_back(DimExpr::constant(num->first));
      key.push_back(DimExpr::constant(-1)); // separator
      llvm::append_range(key, den->second);
      key.push_back(DimExpr::constant(den->first));
      return derived("div", key);
    };
    if (!den->second.empty() || den->first == 0) {
      out[*inferAt] = quotient();
      return one(out);
    }
    if (num->first % den->first != 0) {
      if (num->second.empty())
        return o.emitOpError() << "cannot reshape " << formatShape(in) << " (" << num->first
                               << " elements) to " << formatShape(*shape)
                               << ": the -1 entry would not be an integer";
      out[*inferAt] = quotient();
      return one(out);
    }
    DimExprs f = num->second;
    f.push_back(DimExpr::constant(num->first / den->first));
    out[*inferAt] = product(f);
    return one(out);
  }

  std::string formatShape(ArrayRef<DimExpr> d) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "[";
    llvm::interleave(d, os, [&](const DimExpr &e) { syms_.print(os, e); }, ", ");
    os << "]";
    return s;
  }

  /// "6" or "6 * batch": an element count from factorize().
  std::string formatCount(const std::pair<int64_t, DimExprs> &count) {
    std::string s = std::to_string(count.first);
    llvm::raw_string_ostream os(s);
    for (const DimExpr &f : count.second) {
      bool paren = !f.singleSymbol();
      os << " * " << (paren ? "(" : "");
      syms_.print(os, f);
      os << (paren ? ")" : "");
    }
    return s;
  }

  OptDims transpose(TransposeOp o) {
    const DimExprs &in = a_.dims(o.getInput());
    OptDims out;
    for (int64_t p : o.getPerm()) {
      if (p < 0 || p >= static_cast<int64_t>(in.size()))
        return unknown(o.getResult());
      out.push_back(in[p]);
    }
    return out;
  }

  FailureOr<Results> expand(ExpandOp o) {
    const DimExprs &in = a_.dims(o.getInput());
    const DimExprs *shape = a_.elems(o.getShape());
    if (!shape)
      return one(unknown(o.getResult()));
    int64_t rank = std::max(in.size(), shape->size());
    OptDims out;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t j = i - (rank - in.size()), k = i - (rank - shape->size());
      DimExpr d = j >= 0 ? in[j] : DimExpr::constant(1);
      DimExpr e = k >= 0 ? (*shape)[k] : DimExpr::constant(1);
      auto b = syms_.broadcast({d, e});
      if (!b)
        return o.emitOpError() << "cannot expand " << formatShape(in) << " to "
                               << formatShape(*shape);
      out.push_back(*b);
    }
    return one(out);
  }

  OptDims squeeze(SqueezeOp o) {
    const DimExprs &in = a_.dims(o.getInput());
    SmallVector<int64_t> axes;
    for (int64_t a : o.getAxes())
      if (auto n = normalizeAxis(a, in.size()))
        axes.push_back(*n);
    OptDims out;
    for (auto [i, d] : llvm::enumerate(in))
      if (!llvm::is_contained(axes, static_cast<int64_t>(i)))
        out.push_back(d);
    return out;
  }

  OptDims unsqueeze(UnsqueezeOp o) {
    const DimExprs &in = a_.dims(o.getInput());
    int64_t rank = in.size() + o.getAxes().size();
    SmallVector<int64_t> axes;
    for (int64_t a : o.getAxes())
      if (auto n = normalizeAxis(a, rank))
        axes.push_back(*n);
    OptDims out;
    auto it = in.begin();
    for (int64_t i = 0; i < rank; ++i) {
      if (llvm::is_contained(axes, i))
        out.push_back(DimExpr::constant(1));
      else if (it != in.end())
        out.push_back(*it++);
    }
    return out;
  }

  OptDims flatten(FlattenOp o) {
    const DimExprs &in = a_.dims(o.getInput());
    std::optional<int64_t> split = mm::dims::normalizeSplitAxis(o.getAxis(), in.size());
    if (!split)
      return unknown(o.getResult());
    int64_t axis = *split;
    return {product(ArrayRef(in).take_front(axis)), product(ArrayRef(in).drop_front(axis))};
  }

  FailureOr<Results> tile(TileOp o) {
    const DimExprs &in = a_.dims(o.getInput());
    const DimExprs *reps = a_.elems(o.getRepeats());
    if (!reps || reps->size() != in.size())
      return one(unknown(o.getResult()));
    OptDims out;
    for (auto [d, r] : llvm::zip(in, *reps)) {
      if (auto c = r.constantValue(); c && *c < 0)
        return o.emitOpError() << "repeat " << *c << " is negative";
      out.push_back(product({d, r}));
    }
    return one(out);
  }

  FailureOr<Results> range(RangeOp o) {
    const DimExprs *s = a_.elems(o.getStart()), *l = a_.elems(o.getLimit()),
                   *d = a_.elems(o.getDelta());
    if (!s || !l || !d)
      return one(unknown(o.getResult()));
    auto sc = (*s)[0].constantValue(), lc = (*l)[0].constantValue(), dc = (*d)[0].constantValue();
    if (dc && *dc == 0)
      return o.emitOpError("delta is 0");
    if (sc && lc && dc) {
      // max(ceil((limit - start) / delta), 0)
      int64_t diff = *lc - *sc, n = 0;
      if ((diff > 0 && *dc > 0) || (diff < 0 && *dc < 0))
        n = (diff + *dc + (*dc > 0 ? -1 : 1)) / *dc;
      return one({DimExpr::constant(n)});
    }
    if (dc && *dc == 1)
      if (auto n = (*l)[0].minus((*s)[0]); n && syms_.isNonNegative(*n))
        return one({*n});
    return one({derived("range", {(*s)[0], (*l)[0], (*d)[0]})});
  }

  FailureOr<Results> constantOfShape(ConstantOfShapeOp o) {
    const DimExprs *shape = a_.elems(o.getShape());
    if (!shape)
      return one(unknown(o.getResult()));
    for (const DimExpr &e : *shape)
      if (auto c = e.constantValue(); c && *c < 0)
        return o.emitOpError() << "shape " << formatShape(*shape) << " has a negative dim";
    return one(known(*shape));
  }

  OptDims shapeOf(ShapeOp o) {
    int64_t rank = rankOf(o.getInput());
    int64_t start = mm::dims::clampIndex(o.getStart(), rank), end = mm::dims::clampIndex(o.getEnd().value_or(rank), rank);
    return {DimExpr::constant(std::max<int64_t>(end - start, 0))};
  }

  OptDims attention(AttentionOp o) {
    const DimExprs &q = a_.dims(o.getQuery()), &v = a_.dims(o.getValue());
    if (q.size() != 4 || v.size() != 4)
      return unknown(o.getResult());
    return {q[0], q[1], q[2], v[3]};
  }

  OptDims linear(LinearOp o) {
    const DimExprs &in = a_.dims(o.getInput()), &w = a_.dims(o.getWeight());
    if (in.empty() || w.size() != 2)
      return unknown(o.getResult());
    OptDims out(in.begin(), in.end() - 1);
    out.push_back(w[1]);
    return out;
  }

  ShapeAnalysis &a_;
  DimSymbolTable &syms_;
};

} // namespace

FailureOr<SmallVector<SmallVector<std::optional<DimExpr>, 4>, 1>>
ShapeAnalysis::inferDims(Operation *op) {
  return DimRules(*this).infer(op);
}
