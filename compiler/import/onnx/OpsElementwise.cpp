//===- OpsElementwise.cpp - unary, binary, comparison, logic, casts --------===//
//
// ONNX elementwise ops (numpy broadcasting) onto the mm elementwise ops; Clip, Sum, Mean
// and variadic Max/Min as chains of them.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/onnx/GraphImporter.h"
#include "compiler/import/onnx/ShapeInference.h"

#include "mm/MMOps.h"

using namespace mlir;

namespace mm::onnx_import {

namespace {

/// x -> op(x), same type.
template <typename OpT>
LogicalResult unary(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  c.setOutput(0, c.create<OpT>(c.type(0), c.in(0)));
  return success();
}

/// The broadcast result type of `values` with element type `elt`; error at the node when
/// the shapes do not broadcast.
FailureOr<RankedTensorType> broadcastType(NodeContext &c, ArrayRef<Value> values, Type elt) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value v : values)
    shapes.push_back(cast<RankedTensorType>(v.getType()).getShape());
  auto shape = broadcastShapes(shapes);
  if (!shape) {
    auto d = c.error() << "operand shapes do not broadcast:";
    for (Value v : values)
      d << " " << v.getType();
    return failure();
  }
  return RankedTensorType::get(*shape, elt);
}

/// lhs op rhs with broadcasting; the result element type is the operands' (or i1 for
/// comparisons).
template <typename OpT>
FailureOr<Value> buildBinary(NodeContext &c, Value lhs, Value rhs, bool boolResult = false) {
  Type elt = boolResult ? c.builder().getI1Type()
                        : cast<RankedTensorType>(lhs.getType()).getElementType();
  auto type = broadcastType(c, {lhs, rhs}, elt);
  if (failed(type))
    return failure();
  return c.create<OpT>(*type, lhs, rhs).getResult();
}

template <typename OpT, bool BoolResult = false>
LogicalResult binary(NodeContext &c) {
  if (failed(c.requireInputs(2)))
    return failure();
  auto v = buildBinary<OpT>(c, c.in(0), c.in(1), BoolResult);
  if (failed(v))
    return failure();
  c.setOutput(0, *v);
  return success();
}

/// Converts `v` to element type `elt` (no op when it already has it).
Value castTo(NodeContext &c, Value v, Type elt) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getElementType() == elt)
    return v;
  return c.create<CastOp>(RankedTensorType::get(t.getShape(), elt), v);
}

/// Pow allows a different exponent type (e.g. f32 base, i64 exponent): cast it. mm.pow
/// takes floats only: an integer base is raised in f64 (exact while |result| < 2^53) and
/// the result cast back (truncating, like numpy.power on integers for those values).
LogicalResult importPow(NodeContext &c) {
  if (failed(c.requireInputs(2)))
    return failure();
  Type elt = c.type(0).getElementType();
  if (isa<IntegerType>(elt)) {
    Type f64 = c.builder().getF64Type();
    auto v = buildBinary<PowOp>(c, castTo(c, c.in(0), f64), castTo(c, c.in(1), f64));
    if (failed(v))
      return failure();
    c.setOutput(0, castTo(c, *v, elt));
    return success();
  }
  Value exponent = castTo(c, c.in(1), elt);
  auto v = buildBinary<PowOp>(c, c.in(0), exponent);
  if (failed(v))
    return failure();
  c.setOutput(0, *v);
  return success();
}

/// Max, Min, Sum: a chain over 1..N inputs.
template <typename OpT>
LogicalResult variadic(NodeContext &c) {
  if (c.numInputs() == 0)
    return c.error() << "needs at least one input";
  if (failed(c.requireInputs(c.numInputs())))
    return failure();
  Value acc = c.in(0);
  for (unsigned i = 1; i < c.numInputs(); ++i) {
    auto v = buildBinary<OpT>(c, acc, c.in(i));
    if (failed(v))
      return failure();
    acc = *v;
  }
  c.setOutput(0, acc);
  return success();
}

/// Mean = Sum / N.
LogicalResult importMean(NodeContext &c) {
  if (failed(variadic<AddOp>(c)))
    return failure();
  Value sum = c.output(0);
  auto t = cast<RankedTensorType>(sum.getType());
  auto v = buildBinary<DivOp>(c, sum, c.scalar(t.getElementType(), c.numInputs()));
  if (failed(v))
    return failure();
  c.setOutput(0, *v);
  return success();
}

LogicalResult importWhere(NodeContext &c) {
  if (failed(c.requireInputs(3)))
    return failure();
  auto type = broadcastType(c, {c.in(0), c.in(1), c.in(2)}, c.type(1).getElementType());
  if (failed(type))
    return failure();
  c.setOutput(0, c.create<WhereOp>(*type, c.in(0), c.in(1), c.in(2)));
  return success();
}

LogicalResult importIsNaN(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  auto type = RankedTensorType::get(c.type(0).getShape(), c.builder().getI1Type());
  c.setOutput(0, c.create<IsNanOp>(type, c.in(0)));
  return success();
}

/// Cast (attribute `to`) and CastLike (the type of input 1). Same-type casts are no-ops.
LogicalResult importCast(NodeContext &c) {
  if (failed(c.requireInputs(c.opType() == "CastLike" ? 2 : 1)))
    return failure();
  Type elt;
  if (c.opType() == "CastLike") {
    elt = c.type(1).getElementType();
  } else {
    const auto *to = c.attr("to");
    if (!to)
      return c.error() << "has no 'to' attribute";
    elt = elementType(to->i(), c.ctx());
    if (!elt)
      return c.unsupported("cast to " + dataTypeName(to->i()));
  }
  c.setOutput(0, castTo(c, c.in(0), elt));
  return success();
}

LogicalResult importIdentity(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  c.setOutput(0, c.in(0));
  return success();
}

/// Dropout in inference mode (or with ratio 0): the input, and an all-true mask. Training
/// mode with a non-zero or computed ratio draws random masks: unsupported.
LogicalResult importDropout(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  if (c.has(2)) {
    auto training = c.constScalar(2);
    auto ratio = c.has(1) ? c.constScalar(1) : std::optional<double>(0.5);
    if ((!training || *training != 0) && (!ratio || *ratio != 0))
      return c.unsupported("Dropout in training mode");
  }
  c.setOutput(0, c.in(0));
  if (c.outputUsed(1)) {
    RankedTensorType t = c.type(0);
    Builder &b = c.builder();
    Value shape = c.create<ShapeOp>(RankedTensorType::get({t.getRank()}, b.getI64Type()), c.in(0),
                                    b.getI64IntegerAttr(0), IntegerAttr());
    c.setOutput(1, c.create<ConstantOfShapeOp>(RankedTensorType::get(t.getShape(), b.getI1Type()),
                                               shape, b.getBoolAttr(true)));
  }
  return success();
}

LogicalResult importGelu(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  std::string approx = c.attrString("approximate", "none");
  GeluApproximation kind;
  if (approx == "none")
    kind = GeluApproximation::none;
  else if (approx == "tanh")
    kind = GeluApproximation::tanh;
  else
    return c.error() << "unknown approximate='" << approx << "'";
  c.setOutput(0, c.create<GeluOp>(c.type(0), c.in(0), kind));
  return success();
}

/// Clip(x, min, max): max(x, min) then min(., max). Opset < 11 has min/max attributes.
LogicalResult importClip(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  Type elt = c.type(0).getElementType();
  Value lo = c.in(1), hi = c.in(2);
  if (c.opset() < 11) {
    if (c.attr("min"))
      lo = c.scalar(elt, c.attrFloat("min", 0));
    if (c.attr("max"))
      hi = c.scalar(elt, c.attrFloat("max", 0));
  }
  Value v = c.in(0);
  if (lo) {
    auto r = buildBinary<MaxOp>(c, v, lo);
    if (failed(r))
      return failure();
    v = *r;
  }
  if (hi) {
    auto r = buildBinary<MinOp>(c, v, hi);
    if (failed(r))
      return failure();
    v = *r;
  }
  c.setOutput(0, v);
  return success();
}

} // namespace

void addElementwiseOps(OpTable &t) {
  t["Sqrt"] = unary<SqrtOp>;
  t["Reciprocal"] = unary<ReciprocalOp>;
  t["Neg"] = unary<NegOp>;
  t["Abs"] = unary<AbsOp>;
  t["Exp"] = unary<ExpOp>;
  t["Log"] = unary<LogOp>;
  t["Erf"] = unary<ErfOp>;
  t["Tanh"] = unary<TanhOp>;
  t["Sigmoid"] = unary<SigmoidOp>;
  t["Sin"] = unary<SinOp>;
  t["Cos"] = unary<CosOp>;
  t["Floor"] = unary<FloorOp>;
  t["Ceil"] = unary<CeilOp>;
  t["Relu"] = unary<ReluOp>;
  t["Not"] = unary<NotOp>;
  t["IsNaN"] = importIsNaN;
  t["Gelu"] = importGelu;
  t["Add"] = binary<AddOp>;
  t["Sub"] = binary<SubOp>;
  t["Mul"] = binary<MulOp>;
  t["Div"] = binary<DivOp>;
  t["Pow"] = importPow;
  t["And"] = binary<AndOp>;
  t["Or"] = binary<OrOp>;
  t["Equal"] = binary<EqualOp, true>;
  t["Less"] = binary<LessOp, true>;
  t["LessOrEqual"] = binary<LessOrEqualOp, true>;
  t["Greater"] = binary<GreaterOp, true>;
  t["GreaterOrEqual"] = binary<GreaterOrEqualOp, true>;
  t["Max"] = variadic<MaxOp>;
  t["Min"] = variadic<MinOp>;
  t["Sum"] = variadic<AddOp>;
  t["Mean"] = importMean;
  t["Where"] = importWhere;
  t["Cast"] = importCast;
  t["CastLike"] = importCast;
  t["Identity"] = importIdentity;
  t["Dropout"] = importDropout;
  t["Clip"] = importClip;
}

} // namespace mm::onnx_import
