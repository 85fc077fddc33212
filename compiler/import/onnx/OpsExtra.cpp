//===- OpsExtra.cpp - ArgMax/ArgMin, TopK, GatherElements, Mod, LogSoftmax, Size ===//
//
// ArgMax / ArgMin -> mm.argmax / mm.argmin; TopK -> mm.topk (K must be a constant);
// GatherElements -> mm.gather_elements; Mod -> mm.mod; Size -> an i64 constant (static
// shapes only); LogSoftmax -> x - max - log(sum(exp(x - max))) over the softmax axes
// (one axis from opset 13; dims [axis, rank) before, ONNX's 2-D coercion). Semantics:
// https://onnx.ai/onnx/operators/ and onnx/reference/ops.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/onnx/OpBuilders.h"

using namespace mlir;

namespace mm::onnx_import {

namespace {

std::string typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// ArgMax / ArgMin: index of the extreme element along `axis` (default 0).
template <typename OpT>
LogicalResult importArgReduce(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  RankedTensorType t = c.type(0);
  if (t.getRank() < 1)
    return c.error() << "the input must have rank >= 1, got " << t;
  auto axis = c.normalizeAxis(c.attrInt("axis", 0), t.getRank(), "axis");
  if (failed(axis))
    return failure();
  bool keepdims = c.attrInt("keepdims", 1) != 0;
  bool last = c.attrInt("select_last_index", 0) != 0;
  Shape out = shapeOf(c.in(0));
  if (keepdims)
    out[*axis] = 1;
  else
    out.erase(out.begin() + *axis);
  Builder &b = c.builder();
  auto type = RankedTensorType::get(out, b.getI64Type());
  c.setOutput(0, c.create<OpT>(type, c.in(0), b.getI64IntegerAttr(*axis), b.getBoolAttr(keepdims),
                               b.getBoolAttr(last)));
  return success();
}

/// TopK: K from the attribute `k` before opset 10, else input 1 (a one-element i64
/// tensor, possibly computed at run time: then dim `axis` of the results is dynamic).
LogicalResult importTopK(NodeContext &c) {
  if (failed(c.requireInputs(c.opset() < 10 ? 1 : 2)))
    return failure();
  RankedTensorType t = c.type(0);
  if (t.getRank() < 1)
    return c.error() << "the input must have rank >= 1, got " << t;
  auto axis = c.normalizeAxis(c.attrInt("axis", -1), t.getRank(), "axis");
  if (failed(axis))
    return failure();
  Value kv;
  std::optional<int64_t> k;
  if (c.opset() < 10) {
    k = c.attrInt("k", -1);
    kv = c.constI64({*k});
  } else {
    kv = c.in(1);
    RankedTensorType kt = c.type(1);
    if (!kt.getElementType().isSignlessInteger(64) || kt.getRank() > 1 ||
        (kt.getRank() == 1 && kt.getDimSize(0) != 1))
      return c.error() << "K must be a one-element i64 tensor, got " << kt;
    if (auto ks = c.constInts(kv))
      k = (*ks)[0];
  }
  int64_t dim = t.getDimSize(*axis);
  if (k && (*k < 0 || (!ShapedType::isDynamic(dim) && *k > dim)))
    return c.error() << "K = " << *k << " is not in [0, " << dim << "] (dim " << *axis << ")";
  Shape out = shapeOf(c.in(0));
  out[*axis] = k ? *k : ShapedType::kDynamic;
  Builder &b = c.builder();
  auto op = c.create<TopKOp>(withShape(c.in(0), out), RankedTensorType::get(out, b.getI64Type()),
                             c.in(0), kv, b.getI64IntegerAttr(*axis),
                             b.getBoolAttr(c.attrInt("largest", 1) != 0),
                             b.getBoolAttr(c.attrInt("sorted", 1) != 0));
  c.setOutput(0, op.getValues());
  c.setOutput(1, op.getIndices());
  return success();
}

LogicalResult importGatherElements(NodeContext &c) {
  if (failed(c.requireInputs(2)))
    return failure();
  RankedTensorType data = c.type(0), idx = c.type(1);
  if (data.getRank() < 1 || idx.getRank() != data.getRank())
    return c.error() << "data and indices must have the same rank >= 1, got " << data << " and "
                     << idx;
  if (!idx.getElementType().isSignlessInteger(32) && !idx.getElementType().isSignlessInteger(64))
    return c.unsupported("GatherElements indices of element type " +
                         Twine(typeString(idx.getElementType())) +
                         " (i32 and i64 are supported)");
  auto axis = c.normalizeAxis(c.attrInt("axis", 0), data.getRank(), "axis");
  if (failed(axis))
    return failure();
  c.setOutput(0, c.create<GatherElementsOp>(withShape(c.in(0), shapeOf(c.in(1))), c.in(0), c.in(1),
                                            c.builder().getI64IntegerAttr(*axis)));
  return success();
}

LogicalResult importMod(NodeContext &c) {
  if (failed(c.requireInputs(2)))
    return failure();
  bool fmod = c.attrInt("fmod", 0) != 0;
  Type elt = c.type(0).getElementType();
  if (elt != c.type(1).getElementType())
    return c.error() << "A and B have different element types: " << c.type(0) << ", " << c.type(1);
  if (isa<FloatType>(elt) && !fmod)
    return c.error() << "float inputs need fmod = 1 (ONNX Mod)";
  auto shape = broadcastShapes({shapeOf(c.in(0)), shapeOf(c.in(1))});
  if (!shape)
    return c.error() << "operands do not broadcast: " << c.type(0) << ", " << c.type(1);
  c.setOutput(0, c.create<ModOp>(RankedTensorType::get(*shape, elt), c.in(0), c.in(1),
                                 c.builder().getBoolAttr(fmod)));
  return success();
}

/// Size: the element count as a 0-D i64 constant.
LogicalResult importSize(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  RankedTensorType t = c.type(0);
  if (!t.hasStaticShape())
    return c.unsupported("Size of a tensor with dynamic dims (" +
                         Twine(typeString(t)) + ")");
  c.setOutput(0, c.scalar(c.builder().getI64Type(), static_cast<double>(t.getNumElements())));
  return success();
}

template <typename OpT>
Value reduceKeep(NodeContext &c, Value v, ArrayRef<int64_t> axes) {
  Shape s = shapeOf(v);
  for (int64_t a : axes)
    s[a] = 1;
  return c.create<OpT>(withShape(v, s), v, axes, /*keepdims=*/true);
}

/// LogSoftmax = (x - max) - log(sum(exp(x - max))) over the softmax axes.
LogicalResult importLogSoftmax(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  RankedTensorType t = c.type(0);
  if (!isa<FloatType>(t.getElementType()))
    return c.error() << "the input must be a float tensor, got " << t;
  int64_t rank = t.getRank();
  if (rank < 1)
    return c.error() << "the input must have rank >= 1";
  auto axis = c.normalizeAxis(c.attrInt("axis", c.opset() >= 13 ? -1 : 1), rank, "axis");
  if (failed(axis))
    return failure();
  SmallVector<int64_t> axes{*axis};
  if (c.opset() < 13) // the input is coerced to 2-D [prod(dims < axis), prod(dims >= axis)]
    for (int64_t i = *axis + 1; i < rank; ++i)
      axes.push_back(i);
  Value x = c.in(0);
  auto shifted = buildBroadcast<SubOp>(c, x, reduceKeep<ReduceMaxOp>(c, x, axes));
  if (failed(shifted))
    return failure();
  Value e = c.create<ExpOp>(t, *shifted);
  Value sum = reduceKeep<ReduceSumOp>(c, e, axes);
  Value logSum = c.create<LogOp>(sum.getType(), sum);
  auto y = buildBroadcast<SubOp>(c, *shifted, logSum);
  if (failed(y))
    return failure();
  c.setOutput(0, *y);
  return success();
}

} // namespace

void addExtraOps(OpTable &t) {
  t["ArgMax"] = importArgReduce<ArgMaxOp>;
  t["ArgMin"] = importArgReduce<ArgMinOp>;
  t["TopK"] = importTopK;
  t["GatherElements"] = importGatherElements;
  t["Mod"] = importMod;
  t["Size"] = importSize;
  t["LogSoftmax"] = importLogSoftmax;
}

} // namespace mm::onnx_import
