//===- MMConformanceOps.cpp - verifiers of the ops in MMConformanceOps.td -===//
//
// Like MMOps.cpp: check ranks, axes and the dims that are static on both sides; dynamic
// dims (`?`) are accepted wherever a static dim would be.
//
//===----------------------------------------------------------------------===//
#include "mm/MMOps.h"
#include "runtime/core/DimRules.h"
#include "runtime/cpu/WindowRules.h"

#include <cmath>

using namespace mlir;
using namespace mm;

namespace {

RankedTensorType tensorType(Value v) { return cast<RankedTensorType>(v.getType()); }

bool dimsCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// `axis` mapped into [0, rank), or an error naming the op.
FailureOr<int64_t> checkedAxis(Operation *op, int64_t axis, int64_t rank) {
  if (std::optional<int64_t> n = mm::dims::normalizeAxis(axis, rank))
    return *n;
  return op->emitOpError() << "axis " << axis << " out of range for rank " << rank;
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

LogicalResult CumProdOp::verify() {
  auto in = tensorType(getInput());
  if (in.getElementType().isInteger(1))
    return emitOpError("input must be numbers, not i1");
  return checkedAxis(*this, getAxis(), in.getRank());
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

namespace {

/// The checks every pooling op shares: attribute counts and ranges, and the result shape
/// from window::poolOutputSize where the input dim is static.
template <typename PoolOp> LogicalResult verifyPool(PoolOp op) {
  auto in = tensorType(op.getInput());
  int64_t k = in.getRank() - 2;
  if (k < 1)
    return op.emitOpError() << "input must have rank >= 3 ([N, C, spatial...]), got "
                            << in.getRank();
  ArrayRef<int64_t> kernel = op.getKernelShape(), strides = op.getStrides(),
                    dilations = op.getDilations(), pads = op.getPads();
  if (static_cast<int64_t>(kernel.size()) != k || static_cast<int64_t>(strides.size()) != k ||
      static_cast<int64_t>(dilations.size()) != k || static_cast<int64_t>(pads.size()) != 2 * k)
    return op.emitOpError() << "needs " << k << " kernel_shape, strides and dilations entries and "
                            << 2 * k << " pads for " << k << " spatial dims";
  auto below = [](ArrayRef<int64_t> v, int64_t lo) {
    return llvm::any_of(v, [&](int64_t x) { return x < lo; });
  };
  if (below(kernel, 1) || below(strides, 1) || below(dilations, 1) || below(pads, 0))
    return op.emitOpError("kernel_shape, strides and dilations must be >= 1 and pads >= 0");
  SmallVector<int64_t> expected{in.getDimSize(0), in.getDimSize(1)};
  for (int64_t i = 0; i < k; ++i) {
    int64_t d = in.getDimSize(2 + i);
    if (ShapedType::isDynamic(d)) {
      expected.push_back(ShapedType::kDynamic);
      continue;
    }
    int64_t o = window::poolOutputSize(d, kernel[i], strides[i], dilations[i], pads[i],
                                       pads[k + i], op.getCeilMode());
    if (o < 0)
      return op.emitOpError() << "the window of spatial dim " << i
                              << " is larger than the padded input (" << d << ")";
    expected.push_back(o);
  }
  return checkShape(op, "result", expected, tensorType(op.getResult()));
}

} // namespace

LogicalResult AvgPoolOp::verify() { return verifyPool(*this); }

LogicalResult LpPoolOp::verify() {
  if (getP() < 1)
    return emitOpError() << "p must be >= 1, got " << getP();
  return verifyPool(*this);
}

LogicalResult MaxPoolOp::verify() {
  if (tensorType(getInput()).getElementType().isInteger(1))
    return emitOpError("input must be numbers, not i1");
  return verifyPool(*this);
}

LogicalResult MaxPoolWithIndicesOp::verify() {
  if (tensorType(getInput()).getElementType().isInteger(1))
    return emitOpError("input must be numbers, not i1");
  if (getStorageOrder() != 0 && getStorageOrder() != 1)
    return emitOpError() << "storage_order must be 0 or 1, got " << getStorageOrder();
  if (failed(verifyPool(*this)))
    return failure();
  return checkShape(*this, "indices", tensorType(getResult()).getShape(),
                    tensorType(getIndices()));
}

//===----------------------------------------------------------------------===//
// Resize
//===----------------------------------------------------------------------===//

LogicalResult ResizeOp::verify() {
  auto in = tensorType(getInput());
  int64_t rank = in.getRank();
  ArrayRef<int64_t> sizes = getSizes();
  ArrayRef<double> scales = getScales();
  if (static_cast<int64_t>(sizes.size()) != rank || static_cast<int64_t>(scales.size()) != rank)
    return emitOpError() << "sizes and scales need one entry per dim (" << rank << "), got "
                         << sizes.size() << " and " << scales.size();
  if (llvm::any_of(scales, [](double s) { return !(s > 0) || !std::isfinite(s); }))
    return emitOpError("scales must be finite and > 0");
  if (llvm::any_of(sizes, [](int64_t s) { return s < -1; }))
    return emitOpError("sizes must be >= 0, or -1 for floor(in * scale)");
  bool crop = getCoordinateTransformationMode() == ResizeCoordinateMode::tf_crop_and_resize;
  std::optional<ArrayRef<double>> roi = getRoi();
  if (crop != roi.has_value())
    return emitOpError("roi is required with tf_crop_and_resize and allowed only there");
  if (roi && static_cast<int64_t>(roi->size()) != 2 * rank)
    return emitOpError() << "roi needs " << 2 * rank << " entries (starts, ends), got "
                         << roi->size();
  if (getMode() != ResizeMode::nearest && !isa<FloatType>(in.getElementType()))
    return emitOpError("linear and cubic modes need a float element type");
  if (!std::isfinite(getCubicCoeffA().convertToDouble()))
    return emitOpError("cubic_coeff_a must be finite");
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = in.getDimSize(d);
    if (sizes[d] >= 0)
      expected.push_back(sizes[d]);
    else
      expected.push_back(ShapedType::isDynamic(dim) ? ShapedType::kDynamic
                                                    : window::resizedSize(dim, scales[d]));
  }
  return checkShape(*this, "result", expected, tensorType(getResult()));
}

//===----------------------------------------------------------------------===//
// Scatters and NonZero
//===----------------------------------------------------------------------===//

namespace {

bool isNumber(Type t) { return !t.isInteger(1); }

} // namespace

LogicalResult ScatterNDOp::verify() {
  auto data = tensorType(getData()), idx = tensorType(getIndices()), upd = tensorType(getUpdates());
  if (getReduction() != ScatterReduction::none && !isNumber(data.getElementType()))
    return emitOpError("reductions need a number element type, not i1");
  if (idx.getRank() < 1)
    return emitOpError("indices must have rank >= 1");
  if (failed(checkShape(*this, "result", data.getShape(), tensorType(getResult()))))
    return failure();
  int64_t k = idx.getDimSize(idx.getRank() - 1);
  if (ShapedType::isDynamic(k))
    return success();
  if (k < 1 || k > data.getRank())
    return emitOpError() << "the last dim of indices (" << k << ") must be in [1, "
                         << data.getRank() << "] (the data's rank)";
  SmallVector<int64_t> expected(idx.getShape().drop_back());
  llvm::append_range(expected, data.getShape().drop_front(k));
  return checkShape(*this, "updates", expected, upd);
}

LogicalResult ScatterElementsOp::verify() {
  auto data = tensorType(getData()), idx = tensorType(getIndices()), upd = tensorType(getUpdates());
  if (getReduction() != ScatterReduction::none && !isNumber(data.getElementType()))
    return emitOpError("reductions need a number element type, not i1");
  if (data.getRank() < 1)
    return emitOpError("data must have rank >= 1");
  if (idx.getRank() != data.getRank())
    return emitOpError() << "indices rank " << idx.getRank() << " differs from data rank "
                         << data.getRank();
  auto axis = checkedAxis(*this, getAxis(), data.getRank());
  if (failed(axis))
    return failure();
  for (int64_t d = 0; d < data.getRank(); ++d)
    if (d != *axis && !ShapedType::isDynamic(idx.getDimSize(d)) &&
        !ShapedType::isDynamic(data.getDimSize(d)) && idx.getDimSize(d) > data.getDimSize(d))
      return emitOpError() << "indices dim " << d << " (" << idx.getDimSize(d)
                           << ") is larger than the data's (" << data.getDimSize(d) << ")";
  if (failed(checkShape(*this, "updates", idx.getShape(), upd)))
    return failure();
  return checkShape(*this, "result", data.getShape(), tensorType(getResult()));
}

LogicalResult NonZeroOp::verify() {
  int64_t rank = tensorType(getInput()).getRank();
  return checkShape(*this, "result", {std::max<int64_t>(rank, 1), ShapedType::kDynamic},
                    tensorType(getResult()));
}
