//===- WeightExpr.cpp - expressions of weights the plan emitter folds --------===//
#include "mm/WeightExpr.h"

#include "mm/MMOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace mm {

std::optional<WeightExprInfo> weightExprOf(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumResults() != 1)
    return std::nullopt;
  llvm::SmallVector<std::optional<WeightExprInfo>, 4> operands;
  for (Value operand : def->getOperands())
    operands.push_back(weightExprOf(operand));
  return foldedWeightExpr(*def, [&](Value o) -> const WeightExprInfo * {
    for (auto [operand, info] : llvm::zip(def->getOperands(), operands))
      if (operand == o && info)
        return &*info;
    return nullptr;
  });
}

bool isWeightFloat(Type t) { return t.isF32() || t.isF16() || t.isBF16(); }

namespace {

bool hasStaticShape(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape();
}

std::optional<WeightExprInfo>
concatInfo(ConcatOp concat, llvm::function_ref<const WeightExprInfo *(Value)> infoOf) {
  if (!hasStaticShape(concat.getResult()))
    return std::nullopt;
  WeightExprInfo out;
  size_t transposed = 0;
  for (Value v : concat.getInputs()) {
    const WeightExprInfo *in = infoOf(v);
    if (!in || !hasStaticShape(v))
      return std::nullopt;
    out.weight |= in->weight;
    out.converted |= in->converted;
    transposed += in->transposed ? 1 : 0;
  }
  if (!out.weight)
    return std::nullopt;
  if (transposed == 0)
    return out;
  auto type = cast<RankedTensorType>(concat.getType());
  int64_t axis = static_cast<int64_t>(concat.getAxis());
  if (axis < 0)
    axis += type.getRank();
  if (transposed != concat.getInputs().size() || type.getRank() != 2 || axis != 1)
    return std::nullopt;
  out.transposed = true;
  return out;
}

std::optional<WeightExprInfo>
castInfo(CastOp c, llvm::function_ref<const WeightExprInfo *(Value)> infoOf) {
  const WeightExprInfo *in = infoOf(c.getInput());
  Type from = getElementTypeOrSelf(c.getInput().getType()), to = getElementTypeOrSelf(c.getType());
  if (!in || !hasStaticShape(c.getResult()) || !isWeightFloat(from) || !isWeightFloat(to) ||
      (in->converted && !from.isF32()))
    return std::nullopt;
  return WeightExprInfo{true, in->converted || from != to, in->transposed};
}

std::optional<WeightExprInfo>
transposeInfo(TransposeOp t, llvm::function_ref<const WeightExprInfo *(Value)> infoOf) {
  const WeightExprInfo *in = infoOf(t.getInput());
  if (!in || in->transposed || !hasStaticShape(t.getResult()) ||
      t.getPerm() != ArrayRef<int64_t>{1, 0} ||
      cast<RankedTensorType>(t.getType()).getNumElements() == 0)
    return std::nullopt;
  return WeightExprInfo{true, in->converted, true};
}

std::optional<WeightExprInfo>
reshapeInfo(ReshapeOp r, llvm::function_ref<const WeightExprInfo *(Value)> infoOf) {
  const WeightExprInfo *in = infoOf(r.getData());
  if (!in || !in->weight || in->transposed || !hasStaticShape(r.getData()) ||
      !hasStaticShape(r.getResult()))
    return std::nullopt;
  return WeightExprInfo{true, in->converted, false};
}

} // namespace

std::optional<WeightExprInfo>
foldedWeightExpr(Operation &op, llvm::function_ref<const WeightExprInfo *(Value)> infoOf) {
  if (isa<WeightOp>(op))
    return WeightExprInfo{true, false, false};
  if (isa<ConstantOp>(op))
    return WeightExprInfo{false, false, false};
  if (auto concat = dyn_cast<ConcatOp>(op))
    return concatInfo(concat, infoOf);
  if (auto c = dyn_cast<CastOp>(op))
    return castInfo(c, infoOf);
  if (auto t = dyn_cast<TransposeOp>(op))
    return transposeInfo(t, infoOf);
  if (auto r = dyn_cast<ReshapeOp>(op))
    return reshapeInfo(r, infoOf);
  return std::nullopt;
}

} // namespace mm
