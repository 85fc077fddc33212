//===- ShapeOps.cpp - reshape, squeeze, unsqueeze, flatten, shape, dim, expand -===//
//
// Ops that change the shape but not the elements (copied as-is, any dtype), plus ONNX
// Shape (the dims as i64) and Expand (broadcast to a given shape).
//
//===----------------------------------------------------------------------===//
#include "runtime/core/DimRules.h"
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"
#include "runtime/cpu/ShapeRules.h"

#include <algorithm>
#include <cstring>

namespace mm::rt::cpu {
namespace {

/// Allocates result 0 with `shape` and the input's dtype and copies the input's bytes.
void copyWithShape(KernelContext &ctx, const Tensor &x, const Shape &shape,
                   std::vector<Tensor> &outputs) {
  checkOutputDType(ctx, 0, x.dtype);
  if (numElements(shape) != x.numel())
    fail(opName(ctx), ": cannot view ", shapeString(x.shape), " as ", shapeString(shape));
  Tensor &y = allocateResult(ctx, outputs, 0, shape);
  if (x.nbytes())
    std::memcpy(y.data, x.data, x.nbytes());
}

/// ONNX Reshape: 0 copies the input dim at that index (or is a literal 0 with
/// allow_zero), -1 is inferred from the element count.
void reshapeKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                   std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 2, 2);
  const Tensor &x = *inputs[0];
  std::string op = opName(ctx);
  Shape shape = reshapeShape(op, x.shape, readInts(op, "shape", *inputs[1]),
                             ctx.attrs().getInt("allow_zero", 0) != 0);
  copyWithShape(ctx, x, shape, outputs);
}

void squeezeKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                   std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  const Tensor &x = *inputs[0];
  Shape shape = squeezeShape(opName(ctx), x.shape, ctx.attrs().getInts("axes"));
  copyWithShape(ctx, x, shape, outputs);
}

void unsqueezeKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                     std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  const Tensor &x = *inputs[0];
  Shape shape = unsqueezeShape(opName(ctx), x.shape, ctx.attrs().getInts("axes"));
  copyWithShape(ctx, x, shape, outputs);
}

void flattenKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                   std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  const Tensor &x = *inputs[0];
  copyWithShape(ctx, x, flattenShape(opName(ctx), x.shape, ctx.attrs().getInt("axis", 1)), outputs);
}

/// ONNX Shape-15: dims [start, end) of the input, both clamped to [0, rank] after adding
/// rank to negative values.
void shapeKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                 std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  const Tensor &x = *inputs[0];
  int64_t rank = x.rank();
  int64_t start = dims::clampIndex(ctx.attrs().getInt("start", 0), rank);
  int64_t end = dims::clampIndex(ctx.attrs().getInt("end", rank), rank);
  int64_t n = std::max<int64_t>(end - start, 0);
  checkOutputDType(ctx, 0, DType::i64);
  Tensor &y = allocateResult(ctx, outputs, 0, {n});
  for (int64_t i = 0; i < n; ++i)
    y.as<int64_t>()[i] = x.shape[start + i];
}

/// mm.dim: [input.shape[index]] as a 1-element i64 tensor.
void dimKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
               std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  const Tensor &x = *inputs[0];
  int64_t index = ctx.attrs().getInt("index");
  if (index < 0 || index >= x.rank())
    fail(opName(ctx), ": index ", index, " out of range for rank ", x.rank());
  checkOutputDType(ctx, 0, DType::i64);
  allocateResult(ctx, outputs, 0, {1}).as<int64_t>()[0] = x.shape[index];
}

/// ONNX Expand: the result shape is the broadcast of the input's and the given shape.
void expandKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                  std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 2, 2);
  const Tensor &x = *inputs[0];
  std::string op = opName(ctx);
  std::vector<int64_t> req = readInts(op, "shape", *inputs[1]);
  for (int64_t d : req)
    if (d < 0)
      fail(op, ": invalid dim ", d, " in shape ", shapeString(req));
  Shape shape = broadcastShapes(op, x.shape, req);
  checkOutputDType(ctx, 0, x.dtype);
  Tensor &y = allocateResult(ctx, outputs, 0, shape);
  stridedCopy(x, 0, broadcastStrides(x.shape, shape), y);
}

} // namespace

void registerShapeKernels(KernelRegistry &r) {
  r.add("mm.reshape", reshapeKernel);
  r.add("mm.squeeze", squeezeKernel);
  r.add("mm.unsqueeze", unsqueezeKernel);
  r.add("mm.flatten", flattenKernel);
  r.add("mm.shape", shapeKernel);
  r.add("mm.dim", dimKernel);
  r.add("mm.expand", expandKernel);
}

} // namespace mm::rt::cpu
