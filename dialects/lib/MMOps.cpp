//===- MMOps.cpp - verifiers and folders of the `mm` ops -----------------===//
//
// Verifiers check what the op's semantics need and what is known statically: ranks, axes,
// and dims that are static on both sides. Dynamic dims (`?`) are accepted wherever a
// static dim would be.
//
//===----------------------------------------------------------------------===//
#include "mm/MMOps.h"
#include "runtime/core/DimRules.h"

#include "mlir/IR/TypeUtilities.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace mm;

namespace {

RankedTensorType tensorType(Value v) { return cast<RankedTensorType>(v.getType()); }

using mm::dims::normalizeAxis;

/// True when two dims can be equal (equal, or either is dynamic).
bool dimsCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

LogicalResult verifyAxis(Operation *op, StringRef what, int64_t axis, int64_t rank) {
  if (!normalizeAxis(axis, rank))
    return op->emitOpError() << what << " " << axis << " out of range for rank " << rank;
  return success();
}

/// Checks a list of axes: each in range for `rank`, none repeated.
FailureOr<SmallVector<int64_t>> verifyAxes(Operation *op, ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> out;
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t a : axes) {
    auto n = normalizeAxis(a, rank);
    if (!n)
      return op->emitOpError() << "axis " << a << " out of range for rank " << rank;
    if (!seen.insert(*n).second)
      return op->emitOpError() << "axis " << a << " repeated";
    out.push_back(*n);
  }
  return out;
}

/// Checks a result shape against an expected one where both are static.
LogicalResult verifyShape(Operation *op, ArrayRef<int64_t> expected, RankedTensorType result) {
  if (result.getRank() != static_cast<int64_t>(expected.size()))
    return op->emitOpError() << "result rank " << result.getRank() << " does not match expected rank "
                             << expected.size();
  for (auto [i, e] : llvm::enumerate(expected))
    if (!dimsCompatible(e, result.getDimSize(i)))
      return op->emitOpError() << "result dim " << i << " is " << result.getDimSize(i)
                               << " but should be " << e;
  return success();
}

LogicalResult verifyRankedOneD(Operation *op, StringRef what, Value v) {
  if (tensorType(v).getRank() != 1)
    return op->emitOpError() << what << " must be 1-D";
  return success();
}

/// An optional operand (a bias) must have the input's element type; ODS's
/// AllElementTypesMatch cannot name optional operands.
LogicalResult verifyOptionalElementType(Operation *op, StringRef what, Value v, Value input) {
  if (v && getElementTypeOrSelf(v) != getElementTypeOrSelf(input))
    return op->emitOpError() << what << " element type " << getElementTypeOrSelf(v)
                             << " differs from the input's " << getElementTypeOrSelf(input);
  return success();
}

int64_t mulDims(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) ? ShapedType::kDynamic : a * b;
}

} // namespace

//===----------------------------------------------------------------------===//
// Contraction and structure
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::verify() {
  auto lhs = tensorType(getLhs()), rhs = tensorType(getRhs());
  if (lhs.getRank() < 1 || rhs.getRank() < 1)
    return emitOpError("operands must have rank >= 1");
  SmallVector<int64_t> l(lhs.getShape()), r(rhs.getShape());
  bool lhsVec = l.size() == 1, rhsVec = r.size() == 1;
  if (lhsVec)
    l.insert(l.begin(), 1);
  if (rhsVec)
    r.push_back(1);
  int64_t k1 = l[l.size() - 1], k2 = r[r.size() - 2];
  if (!dimsCompatible(k1, k2))
    return emitOpError() << "contraction dims differ: " << k1 << " vs " << k2;
  SmallVector<int64_t> batch;
  if (!mm::dims::broadcastShapes(ArrayRef(l).drop_back(2), ArrayRef(r).drop_back(2), batch,
                                 ShapedType::kDynamic))
    return emitOpError("batch dims are not broadcast-compatible");
  if (!lhsVec)
    batch.push_back(l[l.size() - 2]);
  if (!rhsVec)
    batch.push_back(r.back());
  return verifyShape(*this, batch, tensorType(getResult()));
}

LogicalResult ConvOp::verify() {
  auto in = tensorType(getInput()), w = tensorType(getWeight());
  if (in.getRank() != 4 || w.getRank() != 4)
    return emitOpError("input and weight must be 4-D (NCHW, MCkHkW)");
  if (getStrides().size() != 2 || getDilations().size() != 2 || getPads().size() != 4)
    return emitOpError("needs 2 strides, 2 dilations and 4 pads");
  if (llvm::any_of(getStrides(), [](int64_t s) { return s < 1; }) ||
      llvm::any_of(getDilations(), [](int64_t s) { return s < 1; }))
    return emitOpError("strides and dilations must be >= 1");
  if (llvm::any_of(getPads(), [](int64_t p) { return p < 0; }))
    return emitOpError("pads must be >= 0");
  int64_t group = getGroup();
  if (group < 1)
    return emitOpError("group must be >= 1");
  if (!ShapedType::isDynamic(w.getDimSize(0)) && w.getDimSize(0) % group != 0)
    return emitOpError() << "output channels " << w.getDimSize(0) << " are not a multiple of group "
                         << group;
  if (!dimsCompatible(in.getDimSize(1), mulDims(w.getDimSize(1), group)))
    return emitOpError() << "input channels " << in.getDimSize(1) << " != weight channels "
                         << w.getDimSize(1) << " x group " << group;
  if (failed(verifyOptionalElementType(*this, "bias", getBias(), getInput())))
    return failure();
  if (getBias() && (tensorType(getBias()).getRank() != 1 ||
                    !dimsCompatible(tensorType(getBias()).getDimSize(0), w.getDimSize(0))))
    return emitOpError("bias must be 1-D with one value per output channel");
  SmallVector<int64_t> expected{in.getDimSize(0), w.getDimSize(0)};
  for (int i = 0; i < 2; ++i) {
    int64_t size = in.getDimSize(2 + i), k = w.getDimSize(2 + i);
    if (ShapedType::isDynamic(size) || ShapedType::isDynamic(k)) {
      expected.push_back(ShapedType::kDynamic);
      continue;
    }
    int64_t span = getDilations()[i] * (k - 1) + 1;
    int64_t padded = size + getPads()[i] + getPads()[i + 2];
    if (padded < span)
      return emitOpError() << "kernel larger than padded input along spatial dim " << i;
    expected.push_back((padded - span) / getStrides()[i] + 1);
  }
  return verifyShape(*this, expected, tensorType(getResult()));
}

template <typename ReduceOp>
static LogicalResult verifyReduce(ReduceOp op) {
  auto in = tensorType(op.getInput());
  auto axes = verifyAxes(op, op.getAxes(), in.getRank());
  if (failed(axes))
    return failure();
  SmallVector<int64_t> expected;
  for (int64_t i = 0; i < in.getRank(); ++i) {
    bool reduced = axes->empty() || llvm::is_contained(*axes, i);
    if (!reduced)
      expected.push_back(in.getDimSize(i));
    else if (op.getKeepdims())
      expected.push_back(1);
  }
  return verifyShape(op, expected, tensorType(op.getResult()));
}
LogicalResult ReduceMeanOp::verify() { return verifyReduce(*this); }
LogicalResult ReduceSumOp::verify() { return verifyReduce(*this); }
LogicalResult ReduceMaxOp::verify() { return verifyReduce(*this); }

LogicalResult SoftmaxOp::verify() {
  return verifyAxis(*this, "axis", getAxis(), tensorType(getInput()).getRank());
}

LogicalResult GatherOp::verify() {
  auto data = tensorType(getData()), idx = tensorType(getIndices());
  if (data.getRank() < 1)
    return emitOpError("data must have rank >= 1");
  if (failed(verifyAxis(*this, "axis", getAxis(), data.getRank())))
    return failure();
  auto axis = normalizeAxis(getAxis(), data.getRank());
  SmallVector<int64_t> expected(data.getShape().take_front(*axis));
  llvm::append_range(expected, idx.getShape());
  llvm::append_range(expected, data.getShape().drop_front(*axis + 1));
  return verifyShape(*this, expected, tensorType(getResult()));
}

LogicalResult GatherNDOp::verify() {
  auto data = tensorType(getData()), idx = tensorType(getIndices());
  int64_t b = getBatchDims();
  if (idx.getRank() < 1 || data.getRank() < 1)
    return emitOpError("data and indices must have rank >= 1");
  if (b < 0 || b >= std::min(data.getRank(), idx.getRank()))
    return emitOpError() << "batch_dims " << b << " must be less than both ranks";
  for (int64_t i = 0; i < b; ++i)
    if (!dimsCompatible(data.getDimSize(i), idx.getDimSize(i)))
      return emitOpError() << "batch dim " << i << " differs: data " << data.getDimSize(i)
                           << " vs indices " << idx.getDimSize(i);
  int64_t last = idx.getShape().back();
  if (ShapedType::isDynamic(last))
    return emitOpError("the last dim of indices must be static");
  if (last > data.getRank() - b)
    return emitOpError() << "indices address " << last << " dims but data has only "
                         << data.getRank() - b << " after the batch dims";
  SmallVector<int64_t> expected(idx.getShape().drop_back());
  llvm::append_range(expected, data.getShape().drop_front(b + last));
  return verifyShape(*this, expected, tensorType(getResult()));
}

LogicalResult ConcatOp::verify() {
  // SameOperandsAndResultElementType (verified first) guarantees at least one input.
  int64_t rank = tensorType(getInputs().front()).getRank();
  if (failed(verifyAxis(*this, "axis", getAxis(), rank)))
    return failure();
  int64_t axis = *normalizeAxis(getAxis(), rank);
  SmallVector<int64_t> expected(tensorType(getInputs().front()).getShape());
  expected[axis] = 0;
  for (Value in : getInputs()) {
    auto t = tensorType(in);
    if (t.getRank() != rank)
      return emitOpError("inputs must have the same rank");
    for (int64_t i = 0; i < rank; ++i) {
      if (i == axis)
        expected[i] = ShapedType::isDynamic(t.getDimSize(i)) || ShapedType::isDynamic(expected[i])
                          ? ShapedType::kDynamic
                          : expected[i] + t.getDimSize(i);
      else if (!dimsCompatible(expected[i], t.getDimSize(i)))
        return emitOpError() << "inputs differ in dim " << i << " (not the concat axis)";
      else if (ShapedType::isDynamic(expected[i]))
        expected[i] = t.getDimSize(i);
    }
  }
  return verifyShape(*this, expected, tensorType(getResult()));
}

LogicalResult SliceOp::verify() {
  for (auto [name, v] : {std::pair<StringRef, Value>{"starts", getStarts()},
                         {"ends", getEnds()}, {"axes", getAxes()}, {"steps", getSteps()}})
    if (failed(verifyRankedOneD(*this, name, v)))
      return failure();
  int64_t n = tensorType(getStarts()).getDimSize(0);
  for (Value v : {getEnds(), getAxes(), getSteps()}) {
    int64_t m = tensorType(v).getDimSize(0);
    if (!dimsCompatible(n, m))
      return emitOpError() << "starts, ends, axes and steps must have the same length (" << n
                           << " vs " << m << ")";
    n = ShapedType::isDynamic(n) ? m : n;
  }
  if (tensorType(getResult()).getRank() != tensorType(getData()).getRank())
    return emitOpError("result rank must equal data rank");
  return success();
}

LogicalResult SplitOp::verify() {
  auto in = tensorType(getInput());
  if (failed(verifyAxis(*this, "axis", getAxis(), in.getRank())))
    return failure();
  if (getSizes().size() != getResults().size())
    return emitOpError() << "has " << getResults().size() << " results but " << getSizes().size()
                         << " sizes";
  int64_t axis = *normalizeAxis(getAxis(), in.getRank());
  int64_t total = 0;
  for (auto [size, res] : llvm::zip(getSizes(), getResults())) {
    if (size < 0)
      return emitOpError("sizes must be >= 0");
    total += size;
    SmallVector<int64_t> expected(in.getShape());
    expected[axis] = size;
    if (failed(verifyShape(*this, expected, tensorType(res))))
      return failure();
  }
  if (!dimsCompatible(total, in.getDimSize(axis)))
    return emitOpError() << "sizes add up to " << total << " but the dim is " << in.getDimSize(axis);
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (failed(verifyRankedOneD(*this, "shape", getShape())))
    return failure();
  auto in = tensorType(getData()), out = tensorType(getResult());
  int64_t rank = tensorType(getShape()).getDimSize(0);
  if (!dimsCompatible(rank, out.getRank()))
    return emitOpError() << "shape operand has " << rank << " elements but the result has rank "
                         << out.getRank();
  if (in.hasStaticShape() && out.hasStaticShape() && in.getNumElements() != out.getNumElements())
    return emitOpError() << "element count changes from " << in.getNumElements() << " to "
                         << out.getNumElements();
  return success();
}

LogicalResult TransposeOp::verify() {
  auto in = tensorType(getInput());
  if (static_cast<int64_t>(getPerm().size()) != in.getRank())
    return emitOpError() << "perm has " << getPerm().size() << " entries for rank " << in.getRank();
  auto axes = verifyAxes(*this, getPerm(), in.getRank());
  if (failed(axes))
    return failure();
  SmallVector<int64_t> expected;
  for (int64_t p : *axes)
    expected.push_back(in.getDimSize(p));
  return verifyShape(*this, expected, tensorType(getResult()));
}

LogicalResult ExpandOp::verify() {
  if (failed(verifyRankedOneD(*this, "shape", getShape())))
    return failure();
  auto in = tensorType(getInput()), out = tensorType(getResult());
  if (out.getRank() < in.getRank())
    return emitOpError("result rank must be at least the input rank");
  // Each result dim is broadcast(input dim, shape entry): a non-1 input dim is kept.
  for (int64_t i = 1; i <= in.getRank(); ++i) {
    int64_t a = in.getDimSize(in.getRank() - i), b = out.getDimSize(out.getRank() - i);
    if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != 1 && a != b)
      return emitOpError() << "input dim " << a << " cannot broadcast to " << b;
  }
  return success();
}

LogicalResult SqueezeOp::verify() {
  auto in = tensorType(getInput());
  auto axes = verifyAxes(*this, getAxes(), in.getRank());
  if (failed(axes))
    return failure();
  SmallVector<int64_t> expected;
  for (int64_t i = 0; i < in.getRank(); ++i) {
    bool squeezed = llvm::is_contained(*axes, i);
    if (squeezed && !dimsCompatible(in.getDimSize(i), 1))
      return emitOpError() << "cannot squeeze dim " << i << " of size " << in.getDimSize(i);
    if (!squeezed)
      expected.push_back(in.getDimSize(i));
  }
  return verifyShape(*this, expected, tensorType(getResult()));
}

LogicalResult UnsqueezeOp::verify() {
  auto in = tensorType(getInput());
  int64_t outRank = in.getRank() + getAxes().size();
  auto axes = verifyAxes(*this, getAxes(), outRank);
  if (failed(axes))
    return failure();
  SmallVector<int64_t> expected;
  auto it = in.getShape().begin();
  for (int64_t i = 0; i < outRank; ++i)
    expected.push_back(llvm::is_contained(*axes, i) ? 1 : *it++);
  return verifyShape(*this, expected, tensorType(getResult()));
}

LogicalResult FlattenOp::verify() {
  auto in = tensorType(getInput());
  std::optional<int64_t> split = mm::dims::normalizeSplitAxis(getAxis(), in.getRank());
  if (!split)
    return emitOpError() << "axis " << static_cast<int64_t>(getAxis()) << " out of range for rank "
                         << in.getRank();
  int64_t axis = *split;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < in.getRank(); ++i)
    (i < axis ? outer : inner) = mulDims(i < axis ? outer : inner, in.getDimSize(i));
  return verifyShape(*this, {outer, inner}, tensorType(getResult()));
}

LogicalResult TileOp::verify() {
  if (failed(verifyRankedOneD(*this, "repeats", getRepeats())))
    return failure();
  auto in = tensorType(getInput());
  if (!dimsCompatible(tensorType(getRepeats()).getDimSize(0), in.getRank()))
    return emitOpError("repeats must have one entry per input dim");
  if (tensorType(getResult()).getRank() != in.getRank())
    return emitOpError("result rank must equal input rank");
  return success();
}

LogicalResult PadOp::verify() {
  auto in = tensorType(getInput());
  int64_t rank = in.getRank();
  ArrayRef<int64_t> pads = getPads();
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    return emitOpError() << "pads has " << pads.size() << " entries but needs " << 2 * rank;
  if (getValue()) {
    auto v = tensorType(getValue());
    if (v.getElementType() != in.getElementType())
      return emitOpError("value must have the input's element type");
    if (v.hasStaticShape() && v.getNumElements() != 1)
      return emitOpError("value must hold exactly one element");
    if (getMode() != PadMode::constant)
      return emitOpError("value is only allowed in constant mode");
  }
  SmallVector<int64_t> expected;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t d = in.getDimSize(i);
    if (ShapedType::isDynamic(d)) {
      expected.push_back(ShapedType::kDynamic);
      continue;
    }
    int64_t size = d + pads[i] + pads[rank + i];
    if (size < 0)
      return emitOpError() << "pads crop dim " << i << " of size " << d << " below zero";
    if (getMode() == PadMode::reflect && (pads[i] >= d || pads[rank + i] >= d))
      return emitOpError() << "reflect pads must be smaller than dim " << i << " (" << d << ")";
    expected.push_back(size);
  }
  return verifyShape(*this, expected, tensorType(getResult()));
}

LogicalResult TriluOp::verify() {
  if (tensorType(getInput()).getRank() < 2)
    return emitOpError("input must have rank >= 2");
  return verifyShape(*this, tensorType(getInput()).getShape(), tensorType(getResult()));
}

LogicalResult CumSumOp::verify() {
  return verifyAxis(*this, "axis", getAxis(), tensorType(getInput()).getRank());
}

LogicalResult RangeOp::verify() {
  for (Value v : {getStart(), getLimit(), getDelta()})
    if (tensorType(v).getRank() != 0)
      return emitOpError("start, limit and delta must be 0-D");
  if (tensorType(getResult()).getRank() != 1)
    return emitOpError("result must be 1-D");
  return success();
}

LogicalResult ConstantOfShapeOp::verify() {
  if (failed(verifyRankedOneD(*this, "shape", getShape())))
    return failure();
  auto out = tensorType(getResult());
  if (getValue().getType() != out.getElementType())
    return emitOpError() << "value type " << getValue().getType()
                         << " differs from the result element type " << out.getElementType();
  if (!dimsCompatible(tensorType(getShape()).getDimSize(0), out.getRank()))
    return emitOpError("shape operand length must equal the result rank");
  return success();
}

LogicalResult ShapeOp::verify() {
  int64_t rank = tensorType(getInput()).getRank();
  int64_t start = mm::dims::clampIndex(getStart(), rank), end = mm::dims::clampIndex(getEnd().value_or(rank), rank);
  return verifyShape(*this, {std::max<int64_t>(end - start, 0)}, tensorType(getResult()));
}

LogicalResult DimOp::verify() {
  int64_t rank = tensorType(getInput()).getRank();
  int64_t index = getIndexAttr().getInt(); // I64Attr getters return uint64_t
  if (index < 0 || index >= rank)
    return emitOpError() << "index " << index << " out of range [0, " << rank << ")";
  auto result = tensorType(getResult());
  if (result.getRank() != 1 || result.getDimSize(0) != 1)
    return emitOpError() << "result must be tensor<1xi64>, not " << result;
  return success();
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

template <typename QOp>
static LogicalResult verifyQuantParams(QOp op) {
  auto in = tensorType(op.getInput()), scale = tensorType(op.getScale());
  if (failed(verifyShape(op, in.getShape(), tensorType(op.getResult()))))
    return failure();
  if (op.getZeroPoint() &&
      failed(verifyCompatibleShape(tensorType(op.getZeroPoint()).getShape(), scale.getShape())))
    return op.emitOpError("zero_point must have the shape of scale");
  int64_t block = op.getBlockSize();  // I64Attr getters return uint64_t
  if (block < 0)
    return op.emitOpError("block_size must be >= 0");
  if (scale.getRank() == 0)
    return success();
  if (failed(verifyAxis(op, "axis", op.getAxis(), in.getRank())))
    return failure();
  int64_t axis = *normalizeAxis(op.getAxis(), in.getRank());
  if (block == 0) {
    if (scale.getRank() != 1 || !dimsCompatible(scale.getDimSize(0), in.getDimSize(axis)))
      return op.emitOpError("per-axis scale must be 1-D with the size of the quantized axis");
    return success();
  }
  if (scale.getRank() != in.getRank())
    return op.emitOpError("blocked scale must have the input's rank");
  for (int64_t i = 0; i < in.getRank(); ++i) {
    int64_t d = in.getDimSize(i);
    int64_t want = i != axis || ShapedType::isDynamic(d) ? d : (d + block - 1) / block;
    if (!dimsCompatible(scale.getDimSize(i), want))
      return op.emitOpError() << "blocked scale dim " << i << " is " << scale.getDimSize(i)
                              << " but should be " << want;
  }
  return success();
}

// ONNX types: DequantizeLinear x, x_zero_point: T1 -> y: T2 (the scale's type);
// QuantizeLinear x, y_scale: T1 -> y, y_zero_point: T2.
LogicalResult DequantizeLinearOp::verify() {
  if (getZeroPoint() && getElementTypeOrSelf(getZeroPoint()) != getElementTypeOrSelf(getInput()))
    return emitOpError("zero_point must have the input's element type");
  if (getElementTypeOrSelf(getResult()) != getElementTypeOrSelf(getScale()))
    return emitOpError("result must have the scale's element type");
  return verifyQuantParams(*this);
}
LogicalResult QuantizeLinearOp::verify() {
  if (getElementTypeOrSelf(getScale()) != getElementTypeOrSelf(getInput()))
    return emitOpError("scale must have the input's element type");
  if (getZeroPoint() && getElementTypeOrSelf(getZeroPoint()) != getElementTypeOrSelf(getResult()))
    return emitOpError("zero_point must have the result's element type");
  return verifyQuantParams(*this);
}

//===----------------------------------------------------------------------===//
// High-level transformer ops
//===----------------------------------------------------------------------===//

LogicalResult LayerNormOp::verify() {
  auto in = tensorType(getInput());
  if (failed(verifyAxis(*this, "axis", getAxis(), in.getRank())))
    return failure();
  int64_t axis = *normalizeAxis(getAxis(), in.getRank());
  auto normalized = in.getShape().drop_front(axis);
  if (failed(verifyOptionalElementType(*this, "bias", getBias(), getInput())))
    return failure();
  for (Value p : {getScale(), getBias()}) {
    if (!p)
      continue;
    auto t = tensorType(p);
    if (t.getRank() > static_cast<int64_t>(normalized.size()))
      return emitOpError("scale and bias must not have more dims than the normalized dims");
    for (int64_t i = 1; i <= t.getRank(); ++i)
      if (!dimsCompatible(t.getDimSize(t.getRank() - i), normalized[normalized.size() - i]))
        return emitOpError("scale and bias must match the normalized dims");
  }
  return verifyShape(*this, in.getShape(), tensorType(getResult()));
}

LogicalResult RMSNormOp::verify() {
  auto in = tensorType(getInput()), scale = tensorType(getScale());
  if (in.getRank() < 1)
    return emitOpError("input must have rank >= 1");
  if (scale.getRank() != 1 || !dimsCompatible(scale.getDimSize(0), in.getShape().back()))
    return emitOpError("scale must be 1-D with the size of the last input dim");
  return verifyShape(*this, in.getShape(), tensorType(getResult()));
}

LogicalResult AttentionOp::verify() {
  auto q = tensorType(getQuery()), k = tensorType(getKey()), v = tensorType(getValue());
  if (q.getRank() != 4 || k.getRank() != 4 || v.getRank() != 4)
    return emitOpError("query, key and value must be 4-D [batch, heads, seq, head_dim]");
  int64_t hq = q.getDimSize(1), hkv = k.getDimSize(1);
  if (!dimsCompatible(hkv, v.getDimSize(1)))
    return emitOpError("key and value must have the same number of heads");
  if (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hkv) && (hkv == 0 || hq % hkv != 0))
    return emitOpError() << "query heads " << hq << " must be a multiple of key/value heads " << hkv;
  if (!dimsCompatible(q.getDimSize(3), k.getDimSize(3)))
    return emitOpError("query and key head_dim differ");
  if (!dimsCompatible(k.getDimSize(2), v.getDimSize(2)))
    return emitOpError("key and value sequence lengths differ");
  if (!dimsCompatible(q.getDimSize(0), k.getDimSize(0)) ||
      !dimsCompatible(q.getDimSize(0), v.getDimSize(0)))
    return emitOpError("batch sizes differ");
  if (getMask()) {
    auto m = tensorType(getMask());
    if (m.getRank() > 4)
      return emitOpError("mask rank must be at most 4");
    if (!m.getElementType().isInteger(1) && m.getElementType() != q.getElementType())
      return emitOpError("mask must be boolean (i1) or of the query element type (additive)");
    SmallVector<int64_t> scores{q.getDimSize(0), hq, q.getDimSize(2), k.getDimSize(2)};
    for (int64_t i = 1; i <= m.getRank(); ++i) {
      int64_t d = m.getDimSize(m.getRank() - i);
      if (d != 1 && !dimsCompatible(d, scores[4 - i]))
        return emitOpError("mask is not broadcastable to [batch, heads, seq, kv_seq]");
    }
  }
  return verifyShape(*this, {q.getDimSize(0), hq, q.getDimSize(2), v.getDimSize(3)},
                     tensorType(getResult()));
}
/// The residual operands and results of add_rms_norm / add_layer_norm: lhs, rhs and sum
/// of one type, the normalized result of that type too.
template <typename OpT> LogicalResult verifyResidualOperands(OpT op) {
  Type t = op.getLhs().getType();
  if (op.getRhs().getType() != t || op.getSum().getType() != t)
    return op.emitOpError() << "lhs, rhs and sum must have one type (no broadcasting), got "
                            << t << ", " << op.getRhs().getType() << " and "
                            << op.getSum().getType();
  if (op.getResult().getType() != t)
    return op.emitOpError() << "result type " << op.getResult().getType()
                            << " differs from the sum's " << t;
  return success();
}

LogicalResult AddRMSNormOp::verify() {
  if (failed(verifyResidualOperands(*this)))
    return failure();
  auto in = tensorType(getLhs()), scale = tensorType(getScale());
  if (in.getRank() < 1)
    return emitOpError("operands must have rank >= 1");
  if (scale.getRank() != 1 || !dimsCompatible(scale.getDimSize(0), in.getShape().back()))
    return emitOpError("scale must be 1-D with the size of the last input dim");
  return success();
}

LogicalResult AddLayerNormOp::verify() {
  if (failed(verifyResidualOperands(*this)))
    return failure();
  auto in = tensorType(getLhs());
  if (failed(verifyAxis(*this, "axis", getAxis(), in.getRank())))
    return failure();
  auto normalized = in.getShape().drop_front(*normalizeAxis(getAxis(), in.getRank()));
  if (failed(verifyOptionalElementType(*this, "bias", getBias(), getLhs())))
    return failure();
  for (Value p : {getScale(), getBias()}) {
    if (!p)
      continue;
    auto t = tensorType(p);
    if (t.getRank() > static_cast<int64_t>(normalized.size()))
      return emitOpError("scale and bias must not have more dims than the normalized dims");
    for (int64_t i = 1; i <= t.getRank(); ++i)
      if (!dimsCompatible(t.getDimSize(t.getRank() - i), normalized[normalized.size() - i]))
        return emitOpError("scale and bias must match the normalized dims");
  }
  return success();
}


LogicalResult RotaryOp::verify() {
  auto in = tensorType(getInput()), c = tensorType(getCos()), s = tensorType(getSin());
  if (in.getRank() != 4)
    return emitOpError("input must be 4-D [batch, heads, seq, head_dim]");
  if (c.getShape() != s.getShape())
    return emitOpError("cos and sin must have the same shape");
  if (c.getRank() != 2 && c.getRank() != 3)
    return emitOpError("cos and sin must be [seq, rot] or [batch, seq, rot]");
  int64_t rot = c.getShape().back(), dim = in.getDimSize(3);
  if (!ShapedType::isDynamic(rot) && rot % 2 != 0)
    return emitOpError() << "rotary width " << rot << " must be even";
  if (!ShapedType::isDynamic(rot) && !ShapedType::isDynamic(dim) && rot > dim)
    return emitOpError() << "rotary width " << rot << " exceeds head_dim " << dim;
  if (!dimsCompatible(c.getDimSize(c.getRank() - 2), in.getDimSize(2)))
    return emitOpError("cos/sin sequence length differs from the input's");
  if (c.getRank() == 3 && c.getDimSize(0) != 1 && !dimsCompatible(c.getDimSize(0), in.getDimSize(0)))
    return emitOpError("cos/sin batch must be 1 or the input's batch");
  return verifyShape(*this, in.getShape(), tensorType(getResult()));
}

LogicalResult LinearOp::verify() {
  auto in = tensorType(getInput()), w = tensorType(getWeight());
  if (in.getRank() < 1)
    return emitOpError("input must have rank >= 1");
  if (w.getRank() != 2)
    return emitOpError("weight must be 2-D [in_features, out_features]");
  if (!dimsCompatible(in.getShape().back(), w.getDimSize(0)))
    return emitOpError() << "input features " << in.getShape().back() << " != weight rows "
                         << w.getDimSize(0);
  if (failed(verifyOptionalElementType(*this, "bias", getBias(), getInput())))
    return failure();
  if (getBias() && (tensorType(getBias()).getRank() != 1 ||
                    !dimsCompatible(tensorType(getBias()).getDimSize(0), w.getDimSize(1))))
    return emitOpError("bias must be 1-D with out_features elements");
  SmallVector<int64_t> expected(in.getShape().drop_back());
  expected.push_back(w.getDimSize(1));
  return verifyShape(*this, expected, tensorType(getResult()));
}

//===----------------------------------------------------------------------===//
// Weights and constants
//===----------------------------------------------------------------------===//

LogicalResult WeightOp::verify() {
  auto t = tensorType(getResult());
  // I64Attr getters return uint64_t: read the signed values.
  int64_t offset = getOffsetAttr().getInt(), length = getLengthAttr().getInt();
  if (offset < 0 || length < 0)
    return emitOpError("offset and length must be >= 0");
  if (getName().empty())
    return emitOpError("needs a name");
  if (!t.hasStaticShape())
    return emitOpError("weights must have a static shape");
  if (!t.getElementType().isIntOrFloat())
    return emitOpError() << "element type " << t.getElementType() << " has no byte layout";
  const int64_t bits = t.getElementType().getIntOrFloatBitWidth() == 1
                           ? 8
                           : t.getElementType().getIntOrFloatBitWidth();
  int64_t elements = 1, totalBits = 0;
  for (int64_t d : t.getShape()) // getNumElements() would wrap for absurd shapes
    if (__builtin_mul_overflow(elements, d, &elements))
      return emitOpError() << t << " has more than 2^63 elements";
  if (__builtin_mul_overflow(elements, bits, &totalBits) || totalBits > INT64_MAX - 7)
    return emitOpError() << t << " is larger than 2^60 bytes";
  const int64_t bytes = (totalBits + 7) / 8;
  if (bytes != length)
    return emitOpError() << "length " << length << " bytes does not match " << t << " ("
                         << bytes << " bytes)";
  return success();
}

LogicalResult ConstantOp::verify() {
  auto value = cast<TypedAttr>(getValue());
  if (value.getType() != getResult().getType())
    return emitOpError() << "value type " << value.getType() << " differs from result type "
                         << getResult().getType();
  return success();
}

ParseResult ConstantOp::parse(OpAsmParser &parser, OperationState &result) {
  ElementsAttr value;
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseAttribute(value))
    return failure();
  result.addAttribute("value", value);
  result.addTypes(value.getType());
  return success();
}

void ConstantOp::print(OpAsmPrinter &p) {
  p.printOptionalAttrDict((*this)->getAttrs(), /*elidedAttrs=*/{"value"});
  p << ' ';
  p.printAttribute(getValue());
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

namespace {
/// True when every value of float type `from` is exactly a value of float type `to`.
bool widensExactly(Type from, Type to) {
  if (from.isF16() || from.isBF16())
    return to.isF32() || to.isF64();
  return from.isF32() && to.isF64();
}
} // namespace

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto inner = getInput().getDefiningOp<CastOp>();
  if (!inner || !widensExactly(getElementTypeOrSelf(inner.getInput().getType()),
                               getElementTypeOrSelf(inner.getType())))
    return {};
  if (inner.getInput().getType() == getType())
    return inner.getInput();
  getInputMutable().assign(inner.getInput());
  return getResult();
}

#define GET_OP_CLASSES
#include "mm/MMOps.cpp.inc"
