//===- OpsShape.cpp - shape, layout, indexing and constant ops ------------===//
//
// Shape, Reshape, (Un)Squeeze, Concat, Slice, Split, Gather(ND), Expand, Tile, Flatten,
// Transpose, ConstantOfShape, Range, Constant, Pad, Trilu, CumSum, CumProd. Inputs that
// ONNX moved from attributes to operands across opsets (axes, split sizes, slice bounds,
// pads) are read from either form.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/onnx/GraphImporter.h"
#include "compiler/import/onnx/OpBuilders.h"
#include "compiler/import/onnx/ShapeInference.h"

#include "mm/MMOps.h"

#include <numeric>

using namespace mlir;

namespace mm::onnx_import {

namespace {

constexpr int64_t kDyn = ShapedType::kDynamic;

RankedTensorType withShape(RankedTensorType t, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, t.getElementType());
}

/// The static length of a 1-D operand (shape vectors, repeats); error otherwise.
FailureOr<int64_t> vectorLength(NodeContext &c, unsigned i, StringRef what) {
  RankedTensorType t = c.type(i);
  if (t.getRank() != 1)
    return c.error() << what << " must be 1-D, got " << t;
  if (t.isDynamicDim(0))
    return c.unsupported(Twine(what) + " of unknown length (the result rank would be unknown)");
  return t.getDimSize(0);
}

LogicalResult importShape(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  int64_t rank = c.type(0).getRank();
  int64_t start = c.attrInt("start", 0);
  int64_t len = std::max<int64_t>(dims::clampIndex(c.attr("end") ? c.attrInt("end", rank) : rank, rank) - dims::clampIndex(start, rank), 0);
  IntegerAttr endAttr = c.attr("end") ? c.builder().getI64IntegerAttr(c.attrInt("end", rank))
                                      : IntegerAttr();
  auto type = RankedTensorType::get({len}, c.builder().getI64Type());
  c.setOutput(0, c.create<ShapeOp>(type, c.in(0), c.builder().getI64IntegerAttr(start), endAttr));
  return success();
}

LogicalResult importReshape(NodeContext &c) {
  if (failed(c.requireInputs(2)))
    return failure();
  auto len = vectorLength(c, 1, "the shape operand");
  if (failed(len))
    return failure();
  bool allowZero = c.attrInt("allowzero", 0) != 0;
  Shape shape = reshapeShape(c.in(0), c.known(c.in(1)), *len, allowZero);
  auto op = c.create<ReshapeOp>(withShape(c.type(0), shape), c.in(0), c.in(1));
  op.setAllowZero(allowZero);
  c.setOutput(0, op);
  return success();
}

LogicalResult importSqueeze(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  RankedTensorType t = c.type(0);
  auto axesOpt = c.axesOperand(1, 13);
  if (failed(axesOpt))
    return failure();
  SmallVector<int64_t> axes;
  if (*axesOpt) {
    auto n = c.normalizeAxes(**axesOpt, t.getRank());
    if (failed(n))
      return failure();
    axes = *n;
  } else {
    for (int64_t i = 0; i < t.getRank(); ++i) {
      if (t.isDynamicDim(i))
        return c.unsupported("Squeeze without axes of a tensor with dynamic dims " +
                             llvm::Twine("(which dims are 1 is unknown)"));
      if (t.getDimSize(i) == 1)
        axes.push_back(i);
    }
  }
  Shape shape;
  for (int64_t i = 0; i < t.getRank(); ++i) {
    if (!llvm::is_contained(axes, i)) {
      shape.push_back(t.getDimSize(i));
    } else if (!t.isDynamicDim(i) && t.getDimSize(i) != 1) {
      return c.error() << "cannot squeeze dim " << i << " of size " << t.getDimSize(i);
    }
  }
  c.setOutput(0, c.create<SqueezeOp>(withShape(t, shape), c.in(0), axes));
  return success();
}

LogicalResult importUnsqueeze(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  RankedTensorType t = c.type(0);
  auto axesOpt = c.axesOperand(1, 13);
  if (failed(axesOpt))
    return failure();
  if (!*axesOpt)
    return c.error() << "needs axes";
  int64_t outRank = t.getRank() + (*axesOpt)->size();
  auto axes = c.normalizeAxes(**axesOpt, outRank);
  if (failed(axes))
    return failure();
  Shape shape;
  for (int64_t i = 0, next = 0; i < outRank; ++i)
    shape.push_back(llvm::is_contained(*axes, i) ? 1 : t.getDimSize(next++));
  c.setOutput(0, c.create<UnsqueezeOp>(withShape(t, shape), c.in(0), *axes));
  return success();
}

LogicalResult importConcat(NodeContext &c) {
  if (c.numInputs() == 0)
    return c.error() << "needs at least one input";
  if (failed(c.requireInputs(c.numInputs())))
    return failure();
  int64_t rank = c.type(0).getRank();
  auto axis = c.normalizeAxis(c.attrInt("axis", 0), rank, "axis");
  if (failed(axis))
    return failure();
  Shape shape(c.type(0).getShape());
  shape[*axis] = 0;
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < c.numInputs(); ++i) {
    RankedTensorType t = c.type(i);
    if (t.getRank() != rank || t.getElementType() != c.type(0).getElementType())
      return c.error() << "inputs differ in rank or element type: " << c.type(0) << " vs " << t;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t v = t.getDimSize(d);
      if (d == *axis)
        shape[d] = ShapedType::isDynamic(v) || ShapedType::isDynamic(shape[d]) ? kDyn : shape[d] + v;
      else if (ShapedType::isDynamic(shape[d]))
        shape[d] = v;
      else if (!ShapedType::isDynamic(v) && v != shape[d])
        return c.error() << "inputs differ in dim " << d << ": " << c.type(0) << " vs " << t;
    }
    inputs.push_back(c.in(i));
  }
  c.setOutput(0, c.create<ConcatOp>(withShape(c.type(0), shape), inputs, *axis));
  return success();
}

LogicalResult importFlatten(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  RankedTensorType t = c.type(0);
  std::optional<int64_t> split = dims::normalizeSplitAxis(c.attrInt("axis", 1), t.getRank());
  if (!split)
    return c.error() << "axis " << c.attrInt("axis", 1) << " is out of range for rank " << t.getRank();
  int64_t axis = *split;
  Shape shape{productOfDims(t.getShape().take_front(axis)),
              productOfDims(t.getShape().drop_front(axis))};
  c.setOutput(0, c.create<FlattenOp>(withShape(t, shape), c.in(0), axis));
  return success();
}

LogicalResult importTranspose(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  RankedTensorType t = c.type(0);
  SmallVector<int64_t> perm;
  if (auto p = c.attrInts("perm")) {
    perm = *p;
  } else {
    for (int64_t i = t.getRank() - 1; i >= 0; --i)
      perm.push_back(i);
  }
  if (static_cast<int64_t>(perm.size()) != t.getRank())
    return c.error() << "perm has " << perm.size() << " entries for rank " << t.getRank();
  auto norm = c.normalizeAxes(perm, t.getRank());
  if (failed(norm))
    return failure();
  Shape shape;
  for (int64_t p : *norm)
    shape.push_back(t.getDimSize(p));
  c.setOutput(0, c.create<TransposeOp>(withShape(t, shape), c.in(0), *norm));
  return success();
}

LogicalResult importExpand(NodeContext &c) {
  if (failed(c.requireInputs(2)))
    return failure();
  auto len = vectorLength(c, 1, "the shape operand");
  if (failed(len))
    return failure();
  Shape shape = expandShape(c.type(0).getShape(), c.known(c.in(1)), *len);
  c.setOutput(0, c.create<ExpandOp>(withShape(c.type(0), shape), c.in(0), c.in(1)));
  return success();
}

LogicalResult importTile(NodeContext &c) {
  if (failed(c.requireInputs(2)))
    return failure();
  RankedTensorType t = c.type(0);
  auto len = vectorLength(c, 1, "repeats");
  if (failed(len))
    return failure();
  if (*len != t.getRank())
    return c.error() << "repeats has " << *len << " entries for rank " << t.getRank();
  Shape repeats = shapeFromKnown(c.known(c.in(1)), *len);
  Shape shape;
  for (int64_t i = 0; i < t.getRank(); ++i)
    shape.push_back(productOfDims({t.getDimSize(i), repeats[i]}));
  c.setOutput(0, c.create<TileOp>(withShape(t, shape), c.in(0), c.in(1)));
  return success();
}

LogicalResult importConstantOfShape(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  auto len = vectorLength(c, 0, "the shape operand");
  if (failed(len))
    return failure();
  TypedAttr value = c.builder().getF32FloatAttr(0);
  if (const auto *a = c.attr("value")) {
    const onnx::TensorProto &t = a->t();
    auto type = tensorType(t, c.loc(), "the value attribute");
    if (failed(type))
      return failure();
    if (type->getNumElements() != 1)
      return c.error() << "value must hold one element, not " << type->getNumElements();
    std::optional<ArrayRef<char>> raw;
    if (t.has_raw_data())
      raw = ArrayRef<char>(t.raw_data().data(), t.raw_data().size());
    auto attr = tensorValue(t, *type, raw, c.loc(), "the value attribute");
    if (failed(attr))
      return failure();
    value = cast<TypedAttr>(attr->getSplatValue<Attribute>());
  }
  auto type = RankedTensorType::get(shapeFromKnown(c.known(c.in(0)), *len), value.getType());
  c.setOutput(0, c.create<ConstantOfShapeOp>(type, c.in(0), value));
  return success();
}

/// Range(start, limit, delta): scalars, or one-element vectors as onnxruntime also takes
/// (ONNX's AffineGrid function body feeds Split outputs), squeezed to scalars.
LogicalResult importRange(NodeContext &c) {
  if (failed(c.requireInputs(3)))
    return failure();
  Value operands[3];
  for (unsigned i = 0; i < 3; ++i) {
    RankedTensorType t = c.type(i);
    if (t.getRank() == 1 && t.getDimSize(0) == 1)
      operands[i] = buildSqueeze(c, c.in(i), 0);
    else if (t.getRank() == 0)
      operands[i] = c.in(i);
    else
      return c.error() << "start, limit and delta must be scalars (or one-element vectors), got "
                       << t;
  }
  int64_t len = kDyn;
  auto start = c.constScalar(0), limit = c.constScalar(1), delta = c.constScalar(2);
  auto ks = c.constInts(c.in(0)), kl = c.constInts(c.in(1)), kd = c.constInts(c.in(2));
  if (ks && kl && kd) {
    start = (*ks)[0];
    limit = (*kl)[0];
    delta = (*kd)[0];
  }
  if (start && limit && delta && *delta != 0) {
    double n = std::ceil((*limit - *start) / *delta);
    if (n <= 0)
      len = 0;
    else if (n <= static_cast<double>(kMaxDim))
      len = static_cast<int64_t>(n);
  }
  auto type = RankedTensorType::get({len}, c.type(0).getElementType());
  c.setOutput(0, c.create<RangeOp>(type, operands[0], operands[1], operands[2]));
  return success();
}

/// Constant: `value` (a tensor) or value_float(s) / value_int(s).
LogicalResult importConstant(NodeContext &c) {
  Builder &b = c.builder();
  DenseElementsAttr attr;
  if (const auto *a = c.attr("value")) {
    const onnx::TensorProto &t = a->t();
    if (t.data_location() == onnx::TensorProto::EXTERNAL)
      return c.unsupported("a Constant with external data");
    auto type = tensorType(t, c.loc(), "the value attribute");
    if (failed(type))
      return failure();
    std::optional<ArrayRef<char>> raw;
    if (t.has_raw_data())
      raw = ArrayRef<char>(t.raw_data().data(), t.raw_data().size());
    auto v = tensorValue(t, *type, raw, c.loc(), "the value attribute");
    if (failed(v))
      return failure();
    attr = *v;
  } else if (const auto *f = c.attr("value_float")) {
    attr = DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()), f->f());
  } else if (const auto *fs = c.attr("value_floats")) {
    SmallVector<float> v(fs->floats().begin(), fs->floats().end());
    attr = DenseElementsAttr::get(
        RankedTensorType::get({static_cast<int64_t>(v.size())}, b.getF32Type()), ArrayRef(v));
  } else if (const auto *i = c.attr("value_int")) {
    attr = DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()), i->i());
  } else if (const auto *is = c.attr("value_ints")) {
    SmallVector<int64_t> v(is->ints().begin(), is->ints().end());
    attr = DenseElementsAttr::get(
        RankedTensorType::get({static_cast<int64_t>(v.size())}, b.getI64Type()), ArrayRef(v));
  } else if (c.attr("sparse_value") || c.attr("value_string") || c.attr("value_strings")) {
    return c.unsupported("sparse and string constants");
  } else {
    return c.error() << "has no value attribute";
  }
  c.setOutput(0, c.create<ConstantOp>(attr.getType(), attr));
  return success();
}

LogicalResult importGather(NodeContext &c) {
  if (failed(c.requireInputs(2)))
    return failure();
  RankedTensorType data = c.type(0), idx = c.type(1);
  if (data.getRank() < 1)
    return c.error() << "data must have rank >= 1";
  auto axis = c.normalizeAxis(c.attrInt("axis", 0), data.getRank(), "axis");
  if (failed(axis))
    return failure();
  Shape shape(data.getShape().take_front(*axis));
  llvm::append_range(shape, idx.getShape());
  llvm::append_range(shape, data.getShape().drop_front(*axis + 1));
  c.setOutput(0, c.create<GatherOp>(withShape(data, shape), c.in(0), c.in(1), *axis));
  return success();
}

LogicalResult importGatherND(NodeContext &c) {
  if (failed(c.requireInputs(2)))
    return failure();
  RankedTensorType data = c.type(0), idx = c.type(1);
  int64_t b = c.attrInt("batch_dims", 0);
  if (idx.getRank() < 1 || idx.isDynamicDim(idx.getRank() - 1))
    return c.unsupported("GatherND indices whose last dim is not static");
  int64_t last = idx.getShape().back();
  if (b < 0 || b >= std::min(data.getRank(), idx.getRank()) || last > data.getRank() - b)
    return c.error() << "batch_dims " << b << " / index depth " << last << " do not fit data "
                     << data << " and indices " << idx;
  Shape shape(idx.getShape().drop_back());
  llvm::append_range(shape, data.getShape().drop_front(b + last));
  c.setOutput(0, c.create<GatherNDOp>(withShape(data, shape), c.in(0), c.in(1), b));
  return success();
}

/// Slice: starts/ends/axes/steps from inputs (opset >= 10) or attributes; missing axes
/// and steps become constants so that mm.slice always has all four.
LogicalResult importSlice(NodeContext &c) {
  if (failed(c.requireInputs(c.opset() >= 10 ? 3 : 1)))
    return failure();
  RankedTensorType t = c.type(0);
  Value starts, ends, axes, steps;
  if (c.opset() < 10) {
    auto s = c.attrInts("starts"), e = c.attrInts("ends");
    if (!s || !e)
      return c.error() << "needs starts and ends";
    starts = c.constI64(*s);
    ends = c.constI64(*e);
    if (auto a = c.attrInts("axes"))
      axes = c.constI64(*a);
  } else {
    starts = c.in(1);
    ends = c.in(2);
    axes = c.in(3);
    steps = c.in(4);
  }
  auto len = cast<RankedTensorType>(starts.getType());
  if (len.getRank() != 1 || len.isDynamicDim(0))
    return c.unsupported("Slice starts of unknown length");
  int64_t n = len.getDimSize(0);
  if (!axes) {
    SmallVector<int64_t> all(n);
    std::iota(all.begin(), all.end(), 0);
    axes = c.constI64(all);
  }
  if (!steps)
    steps = c.constI64(SmallVector<int64_t>(n, 1));

  Shape shape(t.getRank(), kDyn);
  auto axesKnown = c.constInts(axes);
  if (axesKnown && static_cast<int64_t>(axesKnown->size()) == n) {
    auto norm = c.normalizeAxes(*axesKnown, t.getRank());
    if (failed(norm))
      return failure();
    shape.assign(t.getShape().begin(), t.getShape().end());
    auto ks = c.known(starts), ke = c.known(ends), kst = c.known(steps);
    auto elem = [&](const std::optional<KnownInts> &k, int64_t i) -> std::optional<int64_t> {
      if (!k || static_cast<int64_t>(k->size()) != n || !(*k)[i].known)
        return std::nullopt;
      return (*k)[i].value;
    };
    for (int64_t i = 0; i < n; ++i)
      shape[(*norm)[i]] = slicedDim(t.getDimSize((*norm)[i]), elem(ks, i), elem(ke, i), elem(kst, i));
  }
  c.setOutput(0, c.create<SliceOp>(withShape(t, shape), c.in(0), starts, ends, axes, steps));
  return success();
}

/// Split: sizes from the `split` input (opset >= 13) or attribute, else equal parts
/// (opset 18 num_outputs: the last part may be smaller).
LogicalResult importSplit(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  RankedTensorType t = c.type(0);
  auto axis = c.normalizeAxis(c.attrInt("axis", 0), t.getRank(), "axis");
  if (failed(axis))
    return failure();
  int64_t parts = c.numOutputs();
  SmallVector<int64_t> sizes;
  if (c.opset() >= 13 && c.has(1)) {
    auto s = c.requireConstInts(1, "split");
    if (failed(s))
      return failure();
    sizes = *s;
  } else if (c.opset() < 13 && c.attr("split")) {
    sizes = *c.attrInts("split");
  } else {
    int64_t dim = t.getDimSize(*axis);
    if (ShapedType::isDynamic(dim))
      return c.unsupported("Split of a dynamic dim without split sizes");
    if (c.attr("num_outputs")) {
      int64_t chunk = (dim + parts - 1) / std::max<int64_t>(parts, 1);
      for (int64_t i = 0; i < parts; ++i)
        sizes.push_back(std::max<int64_t>(std::min(chunk, dim - i * chunk), 0));
    } else {
      if (parts == 0 || dim % parts != 0)
        return c.error() << "cannot split dim of size " << dim << " into " << parts
                         << " equal parts";
      sizes.assign(parts, dim / parts);
    }
  }
  if (static_cast<int64_t>(sizes.size()) != parts)
    return c.error() << "has " << parts << " outputs but " << sizes.size() << " split sizes";
  if (llvm::any_of(sizes, [](int64_t s) { return s < 0 || s > kMaxDim; }))
    return c.error() << "split sizes must be in [0, " << kMaxDim << "]";
  int64_t dim = t.getDimSize(*axis), total = 0;
  for (int64_t s : sizes)
    total += s;
  if (!ShapedType::isDynamic(dim) && total != dim)
    return c.error() << "split sizes add up to " << total << " but the dim is " << dim;
  SmallVector<Type> types;
  for (int64_t s : sizes) {
    Shape shape(t.getShape());
    shape[*axis] = s;
    types.push_back(withShape(t, shape));
  }
  auto op = c.create<SplitOp>(types, c.in(0), *axis, sizes);
  for (int64_t i = 0; i < parts; ++i)
    c.setOutput(i, op.getResult(i));
  return success();
}

LogicalResult importTrilu(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  int64_t k = 0;
  if (c.has(1)) {
    auto kv = c.requireConstInts(1, "k");
    if (failed(kv))
      return failure();
    if (kv->size() != 1)
      return c.error() << "k must hold one value";
    k = (*kv)[0];
  }
  auto op = c.create<TriluOp>(c.type(0), c.in(0), k, c.attrInt("upper", 1) != 0);
  c.setOutput(0, op);
  return success();
}

/// CumSum (-> mm.cumsum) and CumProd (opset 26, -> mm.cumprod): the axis input must be
/// a constant.
template <typename OpT> LogicalResult importCumulative(NodeContext &c) {
  if (failed(c.requireInputs(2)))
    return failure();
  auto axis = c.requireConstInts(1, "axis");
  if (failed(axis))
    return failure();
  if (axis->size() != 1)
    return c.error() << "axis must hold one value";
  auto norm = c.normalizeAxis((*axis)[0], c.type(0).getRank(), "axis");
  if (failed(norm))
    return failure();
  if (c.type(0).getElementType().isInteger(1))
    return c.unsupported(c.opType() + " of bool");
  c.setOutput(0, c.create<OpT>(c.type(0), c.in(0), *norm, c.attrInt("exclusive", 0) != 0,
                               c.attrInt("reverse", 0) != 0));
  return success();
}

/// Pad: pads (and axes, opset 18) must be constant; the fill value may be computed.
LogicalResult importPad(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  RankedTensorType t = c.type(0);
  int64_t rank = t.getRank();
  std::string modeName = c.attrString("mode", "constant");
  auto mode = symbolizePadMode(modeName);
  if (!mode)
    return c.unsupported("Pad mode '" + modeName + "'");
  SmallVector<int64_t> pads;
  Value value;
  if (c.opset() < 11) {
    pads = c.attrInts("pads").value_or(SmallVector<int64_t>());
    if (c.attrFloat("value", 0) != 0)
      value = c.scalar(t.getElementType(), c.attrFloat("value", 0));
  } else {
    auto p = c.requireConstInts(1, "pads");
    if (failed(p))
      return failure();
    pads = *p;
    value = c.in(2);
    if (c.has(3)) {
      auto axes = c.requireConstInts(3, "axes");
      if (failed(axes))
        return failure();
      auto norm = c.normalizeAxes(*axes, rank);
      if (failed(norm))
        return failure();
      if (pads.size() != 2 * norm->size())
        return c.error() << "pads has " << pads.size() << " entries for " << norm->size() << " axes";
      SmallVector<int64_t> full(2 * rank, 0);
      for (auto [i, a] : llvm::enumerate(*norm)) {
        full[a] = pads[i];
        full[rank + a] = pads[norm->size() + i];
      }
      pads = full;
    }
  }
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    return c.error() << "pads has " << pads.size() << " entries for rank " << rank;
  if (llvm::any_of(pads, [](int64_t p) { return p < -kMaxDim || p > kMaxDim; }))
    return c.error() << "pads must be within +-" << kMaxDim;
  Shape shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t d = t.getDimSize(i);
    shape.push_back(ShapedType::isDynamic(d) ? kDyn : d + pads[i] + pads[rank + i]);
    if (!ShapedType::isDynamic(d) && shape.back() < 0)
      return c.error() << "pads crop dim " << i << " of size " << d << " below zero";
  }
  c.setOutput(0, c.create<PadOp>(withShape(t, shape), c.in(0), value, pads, *mode));
  return success();
}

} // namespace

void addShapeOps(OpTable &t) {
  t["Shape"] = importShape;
  t["Reshape"] = importReshape;
  t["Squeeze"] = importSqueeze;
  t["Unsqueeze"] = importUnsqueeze;
  t["Concat"] = importConcat;
  t["Flatten"] = importFlatten;
  t["Transpose"] = importTranspose;
  t["Expand"] = importExpand;
  t["Tile"] = importTile;
  t["ConstantOfShape"] = importConstantOfShape;
  t["Range"] = importRange;
  t["Constant"] = importConstant;
  t["Gather"] = importGather;
  t["GatherND"] = importGatherND;
  t["Slice"] = importSlice;
  t["Split"] = importSplit;
  t["Trilu"] = importTrilu;
  t["CumSum"] = importCumulative<CumSumOp>;
  t["CumProd"] = importCumulative<CumProdOp>;
  t["Pad"] = importPad;
}

} // namespace mm::onnx_import
