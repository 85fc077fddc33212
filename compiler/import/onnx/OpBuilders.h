//===- OpBuilders.h - small building blocks shared by the op handlers ------===//
#ifndef MM_COMPILER_IMPORT_ONNX_OPBUILDERS_H
#define MM_COMPILER_IMPORT_ONNX_OPBUILDERS_H

#include "compiler/import/onnx/GraphImporter.h"
#include "compiler/import/onnx/ShapeInference.h"

#include "mm/MMOps.h"

namespace mm::onnx_import {

/// The static/dynamic dims of a ranked tensor value.
inline Shape shapeOf(mlir::Value v) {
  return Shape(mlir::cast<mlir::RankedTensorType>(v.getType()).getShape());
}

/// `v`'s element type with `shape`.
inline mlir::RankedTensorType withShape(mlir::Value v, llvm::ArrayRef<int64_t> shape) {
  return mlir::RankedTensorType::get(
      shape, mlir::cast<mlir::RankedTensorType>(v.getType()).getElementType());
}

/// An elementwise mm op with numpy broadcasting; the result has `a`'s element type, or i1
/// when `boolResult`. Errors at the node when the shapes do not broadcast.
template <typename OpT>
mlir::FailureOr<mlir::Value> buildBroadcast(NodeContext &c, mlir::Value a, mlir::Value b,
                                            bool boolResult = false) {
  auto shape = broadcastShapes({shapeOf(a), shapeOf(b)});
  if (!shape)
    return c.error() << "operands do not broadcast: " << a.getType() << ", " << b.getType();
  mlir::Type elt = boolResult ? mlir::Type(c.builder().getI1Type())
                              : mlir::cast<mlir::RankedTensorType>(a.getType()).getElementType();
  return c.create<OpT>(mlir::RankedTensorType::get(*shape, elt), a, b).getResult();
}

/// True when dim `da` of `a` and dim `db` of `b` are provably equal: the same dim of the
/// same value, equal static sizes, or function arguments with the same ONNX dim name.
inline bool provablyEqualDims(mlir::Value a, int64_t da, mlir::Value b, int64_t db) {
  auto ta = mlir::cast<mlir::RankedTensorType>(a.getType());
  auto tb = mlir::cast<mlir::RankedTensorType>(b.getType());
  if (a == b && da == db)
    return true;
  if (!ta.isDynamicDim(da) || !tb.isDynamicDim(db))
    return ta.getDimSize(da) == tb.getDimSize(db);
  auto dimName = [](mlir::Value v, int64_t d) -> llvm::StringRef {
    auto arg = mlir::dyn_cast<mlir::BlockArgument>(v);
    auto fn = arg ? mlir::dyn_cast<mlir::func::FuncOp>(arg.getOwner()->getParentOp()) : nullptr;
    auto dims = fn ? fn.getArgAttrOfType<mlir::ArrayAttr>(arg.getArgNumber(), "mm.dims") : nullptr;
    if (!dims || d >= static_cast<int64_t>(dims.size()))
      return "";
    auto name = mlir::dyn_cast<mlir::StringAttr>(dims[d]);
    return name ? name.getValue() : "";
  };
  llvm::StringRef na = dimName(a, da);
  return !na.empty() && na == dimName(b, db);
}

/// mm.reshape of `v` to the constant shape vector `shape` (ONNX 0 / -1 conventions).
inline mlir::Value buildReshape(NodeContext &c, mlir::Value v, llvm::ArrayRef<int64_t> shape) {
  mlir::Value s = c.constI64(shape);
  Shape out = reshapeShape(v, c.known(s), shape.size(), /*allowZero=*/false);
  return c.create<ReshapeOp>(withShape(v, out), v, s);
}

/// mm.transpose of `v` by `perm`.
inline mlir::Value buildTranspose(NodeContext &c, mlir::Value v, llvm::ArrayRef<int64_t> perm) {
  Shape in = shapeOf(v), out;
  for (int64_t p : perm)
    out.push_back(in[p]);
  return c.create<TransposeOp>(withShape(v, out), v, perm);
}

/// mm.unsqueeze / mm.squeeze of one axis (in [0, rank]).
inline mlir::Value buildUnsqueeze(NodeContext &c, mlir::Value v, int64_t axis) {
  Shape s = shapeOf(v);
  s.insert(s.begin() + axis, 1);
  return c.create<UnsqueezeOp>(withShape(v, s), v, llvm::ArrayRef<int64_t>{axis});
}
inline mlir::Value buildSqueeze(NodeContext &c, mlir::Value v, int64_t axis) {
  Shape s = shapeOf(v);
  s.erase(s.begin() + axis);
  return c.create<SqueezeOp>(withShape(v, s), v, llvm::ArrayRef<int64_t>{axis});
}
/// `v` reduced by OpT (an mm reduce op) over `axes` (normalised, in [0, rank)), with the
/// reduced dims kept as 1 or dropped.
template <typename OpT>
mlir::Value buildReduce(NodeContext &c, mlir::Value v, llvm::ArrayRef<int64_t> axes,
                        bool keepdims) {
  Shape in = shapeOf(v), out;
  for (int64_t i = 0; i < static_cast<int64_t>(in.size()); ++i) {
    if (!llvm::is_contained(axes, i))
      out.push_back(in[i]);
    else if (keepdims)
      out.push_back(1);
  }
  return c.create<OpT>(withShape(v, out), v, axes, keepdims);
}

/// ONNX's 2-D coercion of Softmax / LogSoftmax / Hardmax before opset 13 (e.g.
/// Softmax-11): `along(v, 1)` (one of those ops along dim 1 of a 2-D value) applied to
/// `x` viewed as [prod(dims < axis), prod(dims >= axis)] (mm.flatten), the result
/// reshaped back to x's shape (through mm.shape, so dynamic dims stay dynamic). For the
/// last axis that is `along(x, axis)` itself.
template <typename Fn>
mlir::FailureOr<mlir::Value> buildCoerced2D(NodeContext &c, mlir::Value x, int64_t axis,
                                            Fn &&along) {
  auto t = mlir::cast<mlir::RankedTensorType>(x.getType());
  const int64_t rank = t.getRank();
  if (axis == rank - 1)
    return along(x, axis);
  Shape flat{productOfDims(t.getShape().take_front(axis)),
             productOfDims(t.getShape().drop_front(axis))};
  mlir::Value x2 = c.create<FlattenOp>(withShape(x, flat), x, axis);
  mlir::FailureOr<mlir::Value> y2 = along(x2, 1);
  if (mlir::failed(y2))
    return mlir::failure();
  mlir::Builder &b = c.builder();
  mlir::Value shape = c.create<ShapeOp>(mlir::RankedTensorType::get({rank}, b.getI64Type()), x,
                                        b.getI64IntegerAttr(0), mlir::IntegerAttr());
  return c.create<ReshapeOp>(withShape(*y2, t.getShape()), *y2, shape).getResult();
}

/// The sliding-window attributes of Conv and the pooling ops (ONNX Conv-22 /
/// AveragePool-22 "auto_pad"), checked: kernel_shape (else `kernelFromInput`, Conv's
/// weight dims; an error when both are absent), strides and dilations (default 1), and
/// explicit [begin..., end...] pads from auto_pad: NOTSET reads `pads` (default 0), VALID
/// is none, SAME_UPPER / SAME_LOWER pad so that out = ceil(in / stride) (the odd pad at
/// the end / the beginning; static spatial dims needed). `in` is the spatial input dims.
struct WindowAttrs {
  llvm::SmallVector<int64_t> kernel, strides, dilations, pads;
};
mlir::FailureOr<WindowAttrs> windowAttrs(NodeContext &c, llvm::ArrayRef<int64_t> in,
                                         llvm::ArrayRef<int64_t> kernelFromInput = {});

/// log_softmax over `axes` (normalised): (x - max) - log(sum(exp(x - max))).
inline mlir::FailureOr<mlir::Value> buildLogSoftmax(NodeContext &c, mlir::Value x,
                                                    llvm::ArrayRef<int64_t> axes) {
  auto shifted = buildBroadcast<SubOp>(c, x, buildReduce<ReduceMaxOp>(c, x, axes, true));
  if (mlir::failed(shifted))
    return mlir::failure();
  mlir::Value e = c.create<ExpOp>(shifted->getType(), *shifted);
  mlir::Value sum = buildReduce<ReduceSumOp>(c, e, axes, true);
  mlir::Value logSum = c.create<LogOp>(sum.getType(), sum);
  return buildBroadcast<SubOp>(c, *shifted, logSum);
}

} // namespace mm::onnx_import

#endif // MM_COMPILER_IMPORT_ONNX_OPBUILDERS_H
