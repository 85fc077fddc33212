//===- OpsActivationsComposed.cpp - more elementwise ops, spelled out ------===//
//
// Elu, Selu, Celu, LeakyRelu, PRelu, ThresholdedRelu, HardSigmoid, HardSwish, Softplus,
// Softsign, Mish, Swish, Shrink, Sign, Tan and Xor as compositions of mm ops, with the
// formulas and attribute defaults of https://onnx.ai/onnx/operators/ (float inputs; Sign
// also integers).
//
//===----------------------------------------------------------------------===//
#include "compiler/import/onnx/OpBuilders.h"

using namespace mlir;

namespace mm::onnx_import {

namespace {

/// Small builder over one node's float input `x`: elementwise ops with broadcasting of
/// 0-D constants.
struct Ew {
  NodeContext &c;
  Value x;
  Type elt;
  bool ok = true;

  Ew(NodeContext &ctx) : c(ctx), x(ctx.in(0)), elt(ctx.type(0).getElementType()) {}

  Value k(double v) { return c.scalar(elt, v); }
  template <typename OpT> Value bin(Value a, Value b, bool boolResult = false) {
    auto r = buildBroadcast<OpT>(c, a, b, boolResult);
    if (failed(r)) {
      ok = false;
      return a;
    }
    return *r;
  }
  template <typename OpT> Value un(Value a) { return c.create<OpT>(a.getType(), a); }
  Value where(Value cond, Value a, Value b) {
    auto shape = broadcastShapes({shapeOf(cond), shapeOf(a), shapeOf(b)});
    if (!shape) {
      ok = false;
      return a;
    }
    return c.create<WhereOp>(RankedTensorType::get(*shape, elt), cond, a, b);
  }
  Value less(Value a, Value b) { return bin<LessOp>(a, b, true); }
  Value greater(Value a, Value b) { return bin<GreaterOp>(a, b, true); }
  Value softplus(Value a) { return un<LogOp>(bin<AddOp>(un<ExpOp>(a), k(1))); }
  Value clamp01(Value a) { return bin<MaxOp>(bin<MinOp>(a, k(1)), k(0)); }
};

using Formula = Value (*)(Ew &e, NodeContext &c);

template <Formula F> LogicalResult spelledOut(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  if (!isa<FloatType>(c.type(0).getElementType()))
    return c.unsupported(c.opType() + " on " + Twine(c.type(0).getElementType().isInteger(1) ? "bool" : "integers") +
                         " (mmc spells it out for floats)");
  Ew e(c);
  Value y = F(e, c);
  if (!e.ok)
    return c.error() << "operands do not broadcast";
  c.setOutput(0, y);
  return success();
}

Value elu(Ew &e, NodeContext &c) {
  Value neg = e.bin<MulOp>(e.bin<SubOp>(e.un<ExpOp>(e.x), e.k(1)), e.k(c.attrFloat("alpha", 1.0f)));
  return e.where(e.less(e.x, e.k(0)), neg, e.x);
}
Value selu(Ew &e, NodeContext &c) {
  double alpha = c.attrFloat("alpha", 1.67326319217681884765625f);
  double gamma = c.attrFloat("gamma", 1.05070102214813232421875f);
  Value neg = e.bin<SubOp>(e.bin<MulOp>(e.un<ExpOp>(e.x), e.k(alpha)), e.k(alpha));
  return e.bin<MulOp>(e.where(e.greater(e.x, e.k(0)), e.x, neg), e.k(gamma));
}
Value celu(Ew &e, NodeContext &c) {
  double alpha = c.attrFloat("alpha", 1.0f);
  Value neg = e.bin<MulOp>(e.bin<SubOp>(e.un<ExpOp>(e.bin<DivOp>(e.x, e.k(alpha))), e.k(1)), e.k(alpha));
  return e.bin<AddOp>(e.bin<MaxOp>(e.x, e.k(0)), e.bin<MinOp>(neg, e.k(0)));
}
Value leakyRelu(Ew &e, NodeContext &c) {
  return e.where(e.less(e.x, e.k(0)), e.bin<MulOp>(e.x, e.k(c.attrFloat("alpha", 0.01f))), e.x);
}
Value thresholdedRelu(Ew &e, NodeContext &c) {
  return e.where(e.greater(e.x, e.k(c.attrFloat("alpha", 1.0f))), e.x, e.k(0));
}
Value hardSigmoid(Ew &e, NodeContext &c) {
  Value lin = e.bin<AddOp>(e.bin<MulOp>(e.x, e.k(c.attrFloat("alpha", 0.2f))),
                           e.k(c.attrFloat("beta", 0.5f)));
  return e.clamp01(lin);
}
Value hardSwish(Ew &e, NodeContext &) {
  Value lin = e.bin<AddOp>(e.bin<MulOp>(e.x, e.k(1.0 / 6.0)), e.k(0.5));
  return e.bin<MulOp>(e.x, e.clamp01(lin));
}
Value softplus(Ew &e, NodeContext &) { return e.softplus(e.x); }
Value softsign(Ew &e, NodeContext &) {
  return e.bin<DivOp>(e.x, e.bin<AddOp>(e.un<AbsOp>(e.x), e.k(1)));
}
Value mish(Ew &e, NodeContext &) { return e.bin<MulOp>(e.x, e.un<TanhOp>(e.softplus(e.x))); }
Value swish(Ew &e, NodeContext &c) {
  return e.bin<MulOp>(e.x, e.un<SigmoidOp>(e.bin<MulOp>(e.x, e.k(c.attrFloat("alpha", 1.0f)))));
}
Value shrink(Ew &e, NodeContext &c) {
  double bias = c.attrFloat("bias", 0.0f), lambd = c.attrFloat("lambd", 0.5f);
  Value low = e.where(e.less(e.x, e.k(-lambd)), e.bin<AddOp>(e.x, e.k(bias)), e.k(0));
  return e.where(e.greater(e.x, e.k(lambd)), e.bin<SubOp>(e.x, e.k(bias)), low);
}
Value tan(Ew &e, NodeContext &) { return e.bin<DivOp>(e.un<SinOp>(e.x), e.un<CosOp>(e.x)); }

/// PRelu: x < 0 ? slope * x : x, slope broadcast to x.
LogicalResult importPRelu(NodeContext &c) {
  if (failed(c.requireInputs(2)))
    return failure();
  if (!isa<FloatType>(c.type(0).getElementType()))
    return c.unsupported("PRelu on integers (mmc spells it out for floats)");
  // The slope broadcasts to x one way only: the result has x's shape.
  if (!dims::broadcastsTo(c.type(1).getShape(), c.type(0).getShape(), ShapedType::kDynamic))
    return c.error() << "slope " << c.type(1) << " does not broadcast to " << c.type(0);
  Ew e(c);
  Value y = e.where(e.less(e.x, e.k(0)), e.bin<MulOp>(e.x, c.in(1)), e.x);
  if (!e.ok)
    return c.error() << "slope " << c.type(1) << " does not broadcast to " << c.type(0);
  c.setOutput(0, y);
  return success();
}

/// Sign: (x > 0) - (x < 0) in x's type (NaN gives 0).
LogicalResult importSign(NodeContext &c) {
  if (failed(c.requireInputs(1)))
    return failure();
  RankedTensorType t = c.type(0);
  if (t.getElementType().isInteger(1))
    return c.error() << "Sign needs numbers, got " << t;
  Ew e(c);
  Value pos = c.create<CastOp>(t, e.greater(e.x, e.k(0)));
  Value neg = c.create<CastOp>(t, e.less(e.x, e.k(0)));
  c.setOutput(0, c.create<SubOp>(t, pos, neg));
  return success();
}

/// Xor: (a or b) and not (a and b).
LogicalResult importXor(NodeContext &c) {
  if (failed(c.requireInputs(2)))
    return failure();
  auto either = buildBroadcast<OrOp>(c, c.in(0), c.in(1));
  auto both = buildBroadcast<AndOp>(c, c.in(0), c.in(1));
  if (failed(either) || failed(both))
    return failure();
  Value notBoth = c.create<NotOp>(both->getType(), *both);
  auto y = buildBroadcast<AndOp>(c, *either, notBoth);
  if (failed(y))
    return failure();
  c.setOutput(0, *y);
  return success();
}

} // namespace

void addComposedActivationOps(OpTable &t) {
  t["Elu"] = spelledOut<elu>;
  t["Selu"] = spelledOut<selu>;
  t["Celu"] = spelledOut<celu>;
  t["LeakyRelu"] = spelledOut<leakyRelu>;
  t["ThresholdedRelu"] = spelledOut<thresholdedRelu>;
  t["HardSigmoid"] = spelledOut<hardSigmoid>;
  t["HardSwish"] = spelledOut<hardSwish>;
  t["Softplus"] = spelledOut<softplus>;
  t["Softsign"] = spelledOut<softsign>;
  t["Mish"] = spelledOut<mish>;
  t["Swish"] = spelledOut<swish>;
  t["Shrink"] = spelledOut<shrink>;
  t["Tan"] = spelledOut<tan>;
  t["PRelu"] = importPRelu;
  t["Sign"] = importSign;
  t["Xor"] = importXor;
}

} // namespace mm::onnx_import
