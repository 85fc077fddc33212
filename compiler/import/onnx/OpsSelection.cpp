//===- OpsSelection.cpp - ArgMax/ArgMin, TopK, GatherElements, Mod, Loop, ... ===//
//
// ArgMax / ArgMin -> mm.argmax / mm.argmin; TopK -> mm.topk (K may be computed at run
// time);
// GatherElements -> mm.gather_elements; Mod -> mm.mod; Size -> an i64 constant (static
// shapes only); LogSoftmax -> x - max - log(sum(exp(x - max))) over the softmax axes
// (one axis from opset 13; dims [axis, rank) before, ONNX's 2-D coercion). Loop only in
// the counted-accumulation form of ONNX's Range function body, as mm.range (mmc has no
// control flow). Hardmax, IsInf, EyeLike, OneHot, DepthToSpace and SpaceToDepth as
// compositions (iota comparisons, reshape/transpose). Semantics:
// https://onnx.ai/onnx/operators/ and onnx/reference/ops.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/onnx/OpBuilders.h"

#include <limits>

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
  auto y = buildLogSoftmax(c, c.in(0), axes);
  if (failed(y))
    return failure();
  c.setOutput(0, *y);
  return success();
}

/// The single node of `body` that produces `name`, or null.
const onnx::NodeProto *producer(const onnx::GraphProto &body, const std::string &name) {
  for (const auto &n : body.node())
    for (const auto &o : n.output())
      if (o == name)
        return &n;
  return nullptr;
}

/// Loop(M, cond, start) whose body (i, cond_in, prev) returns (Identity(cond_in),
/// Add(prev, d), Identity(prev)) with d from the enclosing graph: the scan output is
/// start + [0, 1, .., n) * d and the final value start + n * d, n = cond ? M : 0 (as
/// ONNX's Range function body). Scalars only. Any other Loop is unsupported.
LogicalResult importLoop(NodeContext &c) {
  auto other = [&]() {
    return c.unsupported("Loop other than the counted accumulation of ONNX's Range function "
                         "body (control flow is not supported)");
  };
  const onnx::AttributeProto *bodyAttr = c.attr("body");
  if (!bodyAttr || !bodyAttr->has_g())
    return c.error() << "has no body graph";
  const onnx::GraphProto &body = bodyAttr->g();
  if (c.numInputs() != 3 || !c.has(0) || !c.has(2) || c.numOutputs() != 2 ||
      body.input_size() != 3 || body.output_size() != 3 || body.node_size() != 3)
    return other();
  const std::string &condIn = body.input(1).name(), &prev = body.input(2).name();
  const onnx::NodeProto *condOut = producer(body, body.output(0).name());
  const onnx::NodeProto *next = producer(body, body.output(1).name());
  const onnx::NodeProto *scan = producer(body, body.output(2).name());
  if (!condOut || condOut->op_type() != "Identity" || condOut->input(0) != condIn || !scan ||
      scan->op_type() != "Identity" || scan->input(0) != prev || !next ||
      next->op_type() != "Add" || !next->domain().empty() || next->input_size() != 2)
    return other();
  const std::string &dName = next->input(0) == prev ? next->input(1) : next->input(0);
  Value delta = c.outerValue(dName);
  Value start = c.in(2);
  if ((next->input(0) != prev && next->input(1) != prev) || !delta)
    return other();
  RankedTensorType st = c.type(2);
  auto dt = cast<RankedTensorType>(delta.getType());
  if (st.getRank() != 0 || dt != st || c.type(0).getRank() != 0)
    return other();
  Builder &b = c.builder();
  Type i64 = b.getI64Type(), elt = st.getElementType();
  Value n = c.in(0);
  if (c.has(1)) { // n = cond ? M : 0
    auto zero = c.scalar(i64, 0);
    n = c.create<WhereOp>(RankedTensorType::get({}, i64), c.in(1), n, zero);
  }
  Value steps = c.create<RangeOp>(RankedTensorType::get({ShapedType::kDynamic}, i64),
                                  c.scalar(i64, 0), n, c.scalar(i64, 1));
  Value stepsT = c.create<CastOp>(RankedTensorType::get({ShapedType::kDynamic}, elt), steps);
  auto offsets = buildBroadcast<MulOp>(c, stepsT, delta);
  if (failed(offsets))
    return failure();
  auto values = buildBroadcast<AddOp>(c, start, *offsets);
  Value nT = c.create<CastOp>(st, n);
  auto total = buildBroadcast<MulOp>(c, nT, delta);
  if (failed(values) || failed(total))
    return failure();
  auto last = buildBroadcast<AddOp>(c, start, *total);
  if (failed(last))
    return failure();
  c.setOutput(0, *last);
  c.setOutput(1, *values);
  return success();
}

/// If(cond) whose condition is known when the graph is imported (a constant, or an input
/// bound with --bind, as Optimum's use_cache_branch is by default): the taken branch's
/// nodes are imported in place and its outputs become the node's; the other branch is not
/// imported. A condition computed at run time is unsupported (control flow).
LogicalResult importIf(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  if (c.type(0).getNumElements() != 1 || !c.type(0).getElementType().isInteger(1))
    return c.error() << "the condition must be one bool, got " << c.type(0);
  std::optional<SmallVector<int64_t>> cond = c.constInts(c.in(0));
  if (auto k = c.in(0).getDefiningOp<ConstantOp>(); !cond && k) // any rank
    if (auto attr = dyn_cast<DenseIntElementsAttr>(k.getValue()))
      cond = SmallVector<int64_t>{attr.getValues<APInt>()[0].getZExtValue() ? 1 : 0};
  if (!cond || cond->size() != 1)
    return c.unsupported("If whose condition is computed at run time (control flow); bind the "
                         "graph input it comes from with mmc compile --bind NAME=VALUE");
  const char *branchName = (*cond)[0] ? "then_branch" : "else_branch";
  const onnx::AttributeProto *branch = c.attr(branchName);
  if (!branch || !branch->has_g())
    return c.error() << "has no " << branchName << " graph";
  SmallVector<Value> outputs;
  if (failed(c.importSubgraph(branch->g(), outputs)))
    return failure();
  if (outputs.size() != c.numOutputs())
    return c.error() << branchName << " has " << outputs.size() << " outputs for the node's "
                     << c.numOutputs();
  for (auto [i, v] : llvm::enumerate(outputs))
    c.setOutput(i, v);
  return success();
}

/// [0, n) as i64, shaped to broadcast along dim `axis` of a rank-`rank` tensor.
Value iotaAlong(NodeContext &c, int64_t n, int64_t axis, int64_t rank) {
  Type i64 = c.builder().getI64Type();
  Value r = c.create<RangeOp>(RankedTensorType::get({n}, i64), c.scalar(i64, 0),
                              c.scalar(i64, static_cast<double>(n)), c.scalar(i64, 1));
  SmallVector<int64_t> shape(static_cast<size_t>(rank), 1);
  shape[axis] = n;
  return rank == 1 ? r : buildReshape(c, r, shape);
}

/// 1 at the first maximum of `x` along `axis`, 0 elsewhere (x's type).
FailureOr<Value> hardmaxAlong(NodeContext &c, Value x, int64_t axis) {
  auto t = cast<RankedTensorType>(x.getType());
  int64_t n = t.getDimSize(axis);
  if (ShapedType::isDynamic(n))
    return c.unsupported("Hardmax along a dim of unknown size");
  Shape keep = shapeOf(x);
  keep[axis] = 1;
  Builder &b = c.builder();
  Value arg = c.create<ArgMaxOp>(RankedTensorType::get(keep, b.getI64Type()), x,
                                 b.getI64IntegerAttr(axis), b.getBoolAttr(true), b.getBoolAttr(false));
  auto hit = buildBroadcast<EqualOp>(c, iotaAlong(c, n, axis, t.getRank()), arg, true);
  if (failed(hit))
    return failure();
  return c.create<CastOp>(t, *hit).getResult();
}

/// Hardmax: one axis from opset 13; before, the input coerced to 2-D at `axis` (default
/// 1), the maximum taken over dims [axis, rank) (buildCoerced2D).
LogicalResult importHardmax(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  RankedTensorType t = c.type(0);
  auto axis = c.normalizeAxis(c.attrInt("axis", c.opset() >= 13 ? -1 : 1), t.getRank(), "axis");
  if (failed(axis))
    return failure();
  auto along = [&](Value v, int64_t a) { return hardmaxAlong(c, v, a); };
  auto y = c.opset() >= 13 ? along(c.in(0), *axis) : buildCoerced2D(c, c.in(0), *axis, along);
  if (failed(y))
    return failure();
  c.setOutput(0, *y);
  return success();
}

/// IsInf: x == +inf (detect_positive) or x == -inf (detect_negative).
LogicalResult importIsInf(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  RankedTensorType t = c.type(0);
  Type elt = t.getElementType();
  if (!isa<FloatType>(elt))
    return c.error() << "X must be a float tensor, got " << t;
  auto boolType = RankedTensorType::get(t.getShape(), c.builder().getI1Type());
  Value result;
  for (auto [attr, sign] : {std::pair<const char *, double>{"detect_positive", 1.0},
                            std::pair<const char *, double>{"detect_negative", -1.0}}) {
    if (c.attrInt(attr, 1) == 0)
      continue;
    auto eq = buildBroadcast<EqualOp>(
        c, c.in(0), c.scalar(elt, sign * std::numeric_limits<double>::infinity()), true);
    if (failed(eq))
      return failure();
    result = result ? c.create<OrOp>(boolType, result, *eq).getResult() : *eq;
  }
  if (!result) { // neither: all false
    auto never = buildBroadcast<EqualOp>(c, c.in(0), c.in(0), true);
    if (failed(never))
      return failure();
    Value isNumber = *never; // false only for NaN
    result = c.create<AndOp>(boolType, isNumber, c.create<NotOp>(boolType, isNumber));
  }
  c.setOutput(0, result);
  return success();
}

/// EyeLike: ones where column - row == k, in `dtype` (default: the input's).
LogicalResult importEyeLike(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  RankedTensorType t = c.type(0);
  if (t.getRank() != 2 || !t.hasStaticShape())
    return c.unsupported("EyeLike of a non-2-D or dynamic shape (" + Twine(typeString(t)) + ")");
  Type elt = t.getElementType();
  if (const auto *a = c.attr("dtype")) {
    elt = elementType(static_cast<int32_t>(a->i()), c.ctx());
    if (!elt)
      return c.unsupported("EyeLike to dtype " + dataTypeName(static_cast<int32_t>(a->i())));
  }
  Value rows = iotaAlong(c, t.getDimSize(0), 0, 2), cols = iotaAlong(c, t.getDimSize(1), 1, 2);
  auto diff = buildBroadcast<SubOp>(c, cols, rows);
  if (failed(diff))
    return failure();
  Type i64 = c.builder().getI64Type();
  auto hit = buildBroadcast<EqualOp>(c, *diff, c.scalar(i64, double(c.attrInt("k", 0))), true);
  if (failed(hit))
    return failure();
  c.setOutput(0, c.create<CastOp>(RankedTensorType::get(t.getShape(), elt), *hit));
  return success();
}

/// OneHot: indices (negative ones count from depth) compared with [0, depth) along
/// `axis`; values[1] where equal, values[0] elsewhere. depth must be a constant.
LogicalResult importOneHot(NodeContext &c) {
  if (failed(c.requireInputs(3)))
    return failure();
  auto depthConst = c.constScalar(1);
  if (!depthConst)
    return c.unsupported("OneHot depth (input 1) must be a constant, but it is computed at run time");
  int64_t depth = static_cast<int64_t>(*depthConst);
  if (depth < 1)
    return c.error() << "depth must be >= 1, got " << depth;
  RankedTensorType it = c.type(0), vt = c.type(2);
  if (vt.getRank() != 1 || vt.getDimSize(0) != 2)
    return c.error() << "values must be [off, on], got " << vt;
  int64_t rank = it.getRank() + 1;
  auto axis = c.normalizeAxis(c.attrInt("axis", -1), rank, "axis");
  if (failed(axis))
    return failure();
  Builder &b = c.builder();
  Type i64 = b.getI64Type();
  Value idx = c.in(0);
  if (it.getElementType() != i64)
    idx = c.create<CastOp>(RankedTensorType::get(it.getShape(), i64), idx);
  Value d = c.scalar(i64, double(depth)), zero = c.scalar(i64, 0);
  auto isNeg = buildBroadcast<LessOp>(c, idx, zero, true);
  auto wrapped = buildBroadcast<AddOp>(c, idx, d);
  if (failed(isNeg) || failed(wrapped))
    return failure();
  idx = c.create<WhereOp>(cast<RankedTensorType>(idx.getType()), *isNeg, *wrapped, idx);
  auto hit = buildBroadcast<EqualOp>(c, buildUnsqueeze(c, idx, *axis), iotaAlong(c, depth, *axis, rank),
                                     true);
  if (failed(hit))
    return failure();
  Type elt = vt.getElementType();
  auto scalarAt = [&](int64_t i) -> Value {
    return c.create<GatherOp>(RankedTensorType::get({}, elt), c.in(2), c.scalar(i64, double(i)),
                              b.getI64IntegerAttr(0));
  };
  Shape out = shapeOf(*hit);
  c.setOutput(0, c.create<WhereOp>(RankedTensorType::get(out, elt), *hit, scalarAt(1), scalarAt(0)));
  return success();
}

/// DepthToSpace (DCR or CRD) and SpaceToDepth on static [N, C, H, W]: reshape,
/// transpose, reshape.
LogicalResult importDepthSpace(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  RankedTensorType t = c.type(0);
  int64_t bs = c.attrInt("blocksize", 0);
  if (t.getRank() != 4 || !t.hasStaticShape())
    return c.unsupported(c.opType() + " of a non-4-D or dynamic shape (" + Twine(typeString(t)) + ")");
  if (bs < 1)
    return c.error() << "blocksize must be >= 1, got " << bs;
  int64_t n = t.getDimSize(0), ch = t.getDimSize(1), h = t.getDimSize(2), w = t.getDimSize(3);
  Value x = c.in(0);
  if (c.opType() == "SpaceToDepth") {
    if (h % bs || w % bs)
      return c.error() << "H and W must be multiples of blocksize " << bs << ", got " << t;
    x = buildReshape(c, x, {n, ch, h / bs, bs, w / bs, bs});
    x = buildTranspose(c, x, {0, 3, 5, 1, 2, 4});
    c.setOutput(0, buildReshape(c, x, {n, ch * bs * bs, h / bs, w / bs}));
    return success();
  }
  if (ch % (bs * bs))
    return c.error() << "C must be a multiple of blocksize^2 = " << bs * bs << ", got " << t;
  std::string mode = c.attrString("mode", "DCR");
  if (mode == "DCR") {
    x = buildReshape(c, x, {n, bs, bs, ch / (bs * bs), h, w});
    x = buildTranspose(c, x, {0, 3, 4, 1, 5, 2});
  } else if (mode == "CRD") {
    x = buildReshape(c, x, {n, ch / (bs * bs), bs, bs, h, w});
    x = buildTranspose(c, x, {0, 1, 4, 2, 5, 3});
  } else {
    return c.error() << "unknown mode '" << mode << "'";
  }
  c.setOutput(0, buildReshape(c, x, {n, ch / (bs * bs), h * bs, w * bs}));
  return success();
}

} // namespace

void addSelectionOps(OpTable &t) {
  t["ArgMax"] = importArgReduce<ArgMaxOp>;
  t["ArgMin"] = importArgReduce<ArgMinOp>;
  t["TopK"] = importTopK;
  t["GatherElements"] = importGatherElements;
  t["Mod"] = importMod;
  t["Size"] = importSize;
  t["LogSoftmax"] = importLogSoftmax;
  t["Loop"] = importLoop;
  t["If"] = importIf;
  t["Hardmax"] = importHardmax;
  t["IsInf"] = importIsInf;
  t["EyeLike"] = importEyeLike;
  t["OneHot"] = importOneHot;
  t["DepthToSpace"] = importDepthSpace;
  t["SpaceToDepth"] = importDepthSpace;
}

} // namespace mm::onnx_import
