//===- FusionUtils.cpp - matching helpers shared by the fusion passes -----===//
#include "compiler/transforms/FusionUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/TypeUtilities.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <cmath>

using namespace mlir;

namespace mm::fusion {

RankedTensorType tensorTypeOf(Value v) {
  return v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
}

double relativeTolerance(Type elementType) {
  if (elementType.isF64())
    return std::ldexp(1.0, -51);
  if (elementType.isF16())
    return std::ldexp(1.0, -9);
  if (elementType.isBF16())
    return std::ldexp(1.0, -6);
  return std::ldexp(1.0, -23); // f32 and anything narrower-than-f64 we do not know
}

std::optional<double> uniformFloatConstant(Value v) {
  auto c = defOf<ConstantOp>(v);
  if (!c)
    return std::nullopt;
  auto attr = dyn_cast<DenseFPElementsAttr>(c.getValue());
  if (!attr || attr.getNumElements() == 0)
    return std::nullopt;
  if (attr.isSplat())
    return attr.getSplatValue<APFloat>().convertToDouble();
  std::optional<double> first;
  for (const APFloat &x : attr.getValues<APFloat>()) {
    double d = x.convertToDouble();
    if (first && *first != d)
      return std::nullopt;
    first = d;
  }
  return first;
}

bool isFloatConstant(Value v, double expected) {
  std::optional<double> c = uniformFloatConstant(v);
  if (!c || std::isnan(*c))
    return false;
  double tol = relativeTolerance(tensorTypeOf(v).getElementType());
  return std::fabs(*c - expected) <= tol * std::fabs(expected);
}

std::optional<SmallVector<int64_t>> intConstantElements(Value v) {
  auto c = defOf<ConstantOp>(v);
  if (!c)
    return std::nullopt;
  auto attr = dyn_cast<DenseIntElementsAttr>(c.getValue());
  if (!attr)
    return std::nullopt;
  SmallVector<int64_t> out;
  for (const APInt &x : attr.getValues<APInt>())
    out.push_back(x.getBitWidth() == 1 ? x.getZExtValue() : x.getSExtValue());
  return out;
}

bool isLastAxis(ArrayRef<int64_t> axes, int64_t rank) {
  return axes.size() == 1 && normalizeAxis(axes[0], rank) == rank - 1;
}

bool usesConfined(ArrayRef<Operation *> interior, Operation *root) {
  llvm::SmallPtrSet<Operation *, 16> allowed(interior.begin(), interior.end());
  allowed.insert(root);
  for (Operation *op : interior)
    for (Operation *user : op->getUsers())
      if (!allowed.contains(user))
        return false;
  return true;
}

Operation *singleUser(Value v) {
  return v && v.hasOneUse() ? *v.getUsers().begin() : nullptr;
}

Value matchInverseSqrt(Value inv, SmallVectorImpl<Operation *> &ops) {
  Operation *op = inv.getDefiningOp();
  if (auto pow = dyn_cast_or_null<PowOp>(op)) {
    if (!isFloatConstant(pow.getRhs(), -0.5) || pow.getType() != pow.getLhs().getType())
      return {};
    ops.push_back(pow);
    return pow.getLhs();
  }
  SqrtOp sqrt;
  if (auto r = dyn_cast_or_null<ReciprocalOp>(op))
    sqrt = defOf<SqrtOp>(r.getInput());
  else if (auto d = dyn_cast_or_null<DivOp>(op); d && isFloatConstant(d.getLhs(), 1.0) &&
                                                d.getType() == d.getRhs().getType())
    sqrt = defOf<SqrtOp>(d.getRhs());
  if (!sqrt)
    return {};
  ops.append({op, sqrt});
  return sqrt.getInput();
}

bool compatibleTypes(Type a, Type b) {
  auto ta = dyn_cast<RankedTensorType>(a), tb = dyn_cast<RankedTensorType>(b);
  return ta && tb && ta.getElementType() == tb.getElementType() &&
         succeeded(verifyCompatibleShape(ta, tb));
}

Value refineType(OpBuilder &b, Location loc, Value v, Type t) {
  if (v.getType() == t)
    return v;
  return b.create<CastOp>(loc, t, v).getResult();
}

bool isFloatPrecisionCast(Operation *op) {
  auto c = dyn_cast_or_null<CastOp>(op);
  if (!c)
    return false;
  Type from = tensorTypeOf(c.getInput()).getElementType();
  Type to = tensorTypeOf(c.getResult()).getElementType();
  return from != to && isa<FloatType>(from) && isa<FloatType>(to);
}

Value skipPrecisionCasts(Value v, SmallVectorImpl<Operation *> &ops) {
  while (v && isFloatPrecisionCast(v.getDefiningOp())) {
    ops.push_back(v.getDefiningOp());
    v = v.getDefiningOp()->getOperand(0);
  }
  return v;
}

Value castElements(OpBuilder &b, Location loc, Value v, Type elem) {
  auto t = tensorTypeOf(v);
  if (t.getElementType() == elem)
    return v;
  return b.create<CastOp>(loc, t.clone(elem), v).getResult();
}

Value normInput(Value xf, Type elem) {
  if (isFloatPrecisionCast(xf.getDefiningOp()) &&
      tensorTypeOf(xf.getDefiningOp()->getOperand(0)).getElementType() == elem)
    return xf.getDefiningOp()->getOperand(0);
  return xf;
}

void reportNearMiss(Operation *anchor, StringRef pattern, StringRef why) {
  auto fn = anchor->getParentOfType<func::FuncOp>();
  anchor->emitRemark() << "@" << (fn ? fn.getSymName() : StringRef("?")) << ": " << pattern
                       << " not raised: " << why;
}

std::string normMatchProblem(Value input, RankedTensorType resultType, ArrayRef<Operation *> interior,
                             Operation *last) {
  if (tensorTypeOf(input).getShape() != resultType.getShape())
    return "its input and result shapes differ";
  if (!usesConfined(interior, last))
    return "a value inside it is also used outside it";
  return "";
}

Value createSplatConstant(OpBuilder &b, Location loc, RankedTensorType type, double value) {
  auto floatType = cast<FloatType>(type.getElementType());
  bool lostInfo = false;
  APFloat x(value);
  x.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lostInfo);
  return b.create<ConstantOp>(loc, type, DenseElementsAttr::get(type, x)).getResult();
}

FloatAttr f32Attr(Builder &b, double value) { return b.getF32FloatAttr(static_cast<float>(value)); }

} // namespace mm::fusion
