//===- MMOpsExtra.cpp - verifiers of the ops in MMOpsExtra.td ---------------===//
//
// Like MMOps.cpp: check ranks, axes and the dims that are static on both sides; dynamic
// dims (`?`) are accepted wherever a static dim would be.
//
//===----------------------------------------------------------------------===//
#include "mm/MMOps.h"

using namespace mlir;
using namespace mm;

namespace {

RankedTensorType tensorType(Value v) { return cast<RankedTensorType>(v.getType()); }

bool dimsCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// `axis` mapped into [0, rank), or an error naming the op.
FailureOr<int64_t> checkedAxis(Operation *op, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return op->emitOpError() << "axis " << axis << " out of range for rank " << rank;
  return axis < 0 ? axis + rank : axis;
}

/// Errors unless `got` has `expected`'s rank and compatible dims; `what` names the value.
LogicalResult checkShape(Operation *op, StringRef what, ArrayRef<int64_t> expected,
                         RankedTensorType got) {
  if (got.getRank() != static_cast<int64_t>(expected.size()))
    return op->emitOpError() << what << " has rank " << got.getRank() << ", expected "
                             << expected.size();
  for (auto [i, e] : llvm::enumerate(expected))
    if (!dimsCompatible(e, got.getDimSize(i)))
      return op->emitOpError() << what << " dim " << i << " is " << got.getDimSize(i)
                               << ", expected " << e;
  return success();
}

template <typename ArgOp>
LogicalResult verifyArgReduce(ArgOp op) {
  auto in = tensorType(op.getInput());
  if (in.getRank() < 1)
    return op.emitOpError("input must have rank >= 1");
  auto axis = checkedAxis(op, op.getAxis(), in.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> expected(in.getShape());
  if (op.getKeepdims())
    expected[*axis] = 1;
  else
    expected.erase(expected.begin() + *axis);
  return checkShape(op, "result", expected, tensorType(op.getResult()));
}

} // namespace

LogicalResult ArgMaxOp::verify() { return verifyArgReduce(*this); }
LogicalResult ArgMinOp::verify() { return verifyArgReduce(*this); }

LogicalResult TopKOp::verify() {
  auto in = tensorType(getInput());
  if (in.getRank() < 1)
    return emitOpError("input must have rank >= 1");
  auto axis = checkedAxis(*this, getAxis(), in.getRank());
  if (failed(axis))
    return failure();
  auto kType = tensorType(getK());
  if (kType.getRank() > 1 || (kType.getRank() == 1 && kType.getDimSize(0) != 1))
    return emitOpError() << "k must hold one value (0-D or 1-D of size 1), got " << kType;
  auto values = tensorType(getValues());
  int64_t dim = in.getDimSize(*axis);
  int64_t k = values.getRank() == in.getRank() ? values.getDimSize(*axis) : ShapedType::kDynamic;
  if (!ShapedType::isDynamic(dim) && !ShapedType::isDynamic(k) && k > dim)
    return emitOpError() << "result dim " << *axis << " (k = " << k << ") is larger than the input's ("
                         << dim << ")";
  SmallVector<int64_t> expected(in.getShape());
  expected[*axis] = k;
  if (failed(checkShape(*this, "values", expected, values)))
    return failure();
  return checkShape(*this, "indices", expected, tensorType(getIndices()));
}

LogicalResult GatherElementsOp::verify() {
  auto data = tensorType(getData()), idx = tensorType(getIndices());
  if (data.getRank() < 1)
    return emitOpError("data must have rank >= 1");
  if (idx.getRank() != data.getRank())
    return emitOpError() << "indices rank " << idx.getRank() << " differs from data rank "
                         << data.getRank();
  if (failed(checkedAxis(*this, getAxis(), data.getRank())))
    return failure();
  return checkShape(*this, "result", idx.getShape(), tensorType(getResult()));
}

LogicalResult ModOp::verify() {
  Type elt = tensorType(getLhs()).getElementType();
  if (isa<FloatType>(elt) && !getFmod())
    return emitOpError("float operands need fmod = true (ONNX Mod)");
  if (elt.isInteger(1))
    return emitOpError("operands must be numbers, not i1");
  return success();
}
