//===- Indexing.cpp - gather, gather_nd, gather_elements ---------------------===//
//
// ONNX Gather, GatherND and GatherElements, any data dtype, any integer index dtype. Negative
// indices count from the end of their dim; indices outside [-dim, dim) throw.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"

#include <cstring>

namespace mm::rt::cpu {
namespace {

int64_t wrapIndex(const std::string &op, int64_t i, int64_t dim) {
  if (i < -dim || i >= dim)
    fail(op, ": index ", i, " out of range for a dim of size ", dim);
  return i < 0 ? i + dim : i;
}

/// data rank r, indices rank q -> data[:axis] + indices.shape + data[axis+1:].
void gatherKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                  std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 2, 2);
  const Tensor &data = *inputs[0], &indices = *inputs[1];
  std::string op = opName(ctx);
  if (data.rank() < 1)
    fail(op, ": data must have rank >= 1");
  int64_t axis = normalizeAxis(op, ctx.attrs().getInt("axis", 0), data.rank());
  std::vector<int64_t> idx = readInts(op, "indices", indices);
  int64_t dim = data.shape[axis];
  for (int64_t &i : idx)
    i = wrapIndex(op, i, dim);
  Shape shape(data.shape.begin(), data.shape.begin() + axis);
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), data.shape.begin() + axis + 1, data.shape.end());
  checkOutputDType(ctx, 0, data.dtype);
  Tensor &y = allocateResult(ctx, outputs, 0, shape);
  size_t es = dtypeSize(data.dtype);
  int64_t outer = numElements(Shape(data.shape.begin(), data.shape.begin() + axis));
  int64_t inner = numElements(Shape(data.shape.begin() + axis + 1, data.shape.end()));
  int64_t n = static_cast<int64_t>(idx.size());
  size_t bytes = static_cast<size_t>(inner) * es;
  const auto *src = static_cast<const unsigned char *>(data.data);
  auto *dst = y.as<unsigned char>();
  parallelFor(outer * n, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(inner, 1)),
              [&](int64_t begin, int64_t end) {
                for (int64_t r = begin; r < end; ++r) {
                  int64_t o = r / n, j = r % n;
                  std::memcpy(dst + r * bytes, src + ((o * dim + idx[j]) * inner) * es, bytes);
                }
              });
}

/// ONNX GatherND: the first batch_dims dims of data and indices match; each index tuple
/// (the last dim of indices, length L) addresses data dims [b, b + L) and selects the
/// slice of the remaining dims. Result shape indices.shape[:-1] + data.shape[b + L:].
void gatherNDKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                    std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 2, 2);
  const Tensor &data = *inputs[0], &indices = *inputs[1];
  std::string op = opName(ctx);
  int64_t b = ctx.attrs().getInt("batch_dims", 0);
  if (indices.rank() < 1 || data.rank() < 1 || b < 0 || b >= std::min(data.rank(), indices.rank()))
    fail(op, ": batch_dims ", b, " must be less than the ranks of data ", shapeString(data.shape),
         " and indices ", shapeString(indices.shape));
  int64_t L = indices.shape.back();
  if (L < 1 || L > data.rank() - b)
    fail(op, ": index tuples of length ", L, " do not fit data ", shapeString(data.shape),
         " after ", b, " batch dims");
  for (int64_t d = 0; d < b; ++d)
    if (data.shape[d] != indices.shape[d])
      fail(op, ": batch dim ", d, " differs: data ", shapeString(data.shape), ", indices ",
           shapeString(indices.shape));
  std::vector<int64_t> idx = readInts(op, "indices", indices);
  Shape shape(indices.shape.begin(), indices.shape.end() - 1);
  shape.insert(shape.end(), data.shape.begin() + b + L, data.shape.end());
  checkOutputDType(ctx, 0, data.dtype);
  Tensor &y = allocateResult(ctx, outputs, 0, shape);
  std::vector<int64_t> strides = contiguousStrides(data.shape);
  int64_t batches = numElements(Shape(data.shape.begin(), data.shape.begin() + b));
  int64_t batchStride = b ? strides[b - 1] : data.numel();
  int64_t tuples =
      batches ? numElements(Shape(indices.shape.begin(), indices.shape.end() - 1)) / batches : 0;
  int64_t slice = numElements(Shape(data.shape.begin() + b + L, data.shape.end()));
  size_t es = dtypeSize(data.dtype);
  const auto *src = static_cast<const unsigned char *>(data.data);
  auto *dst = y.as<unsigned char>();
  for (int64_t t = 0; t < batches * tuples; ++t) {
    int64_t off = (t / tuples) * batchStride;
    for (int64_t l = 0; l < L; ++l)
      off += wrapIndex(op, idx[t * L + l], data.shape[b + l]) * strides[b + l];
    std::memcpy(dst + t * slice * es, src + off * es, static_cast<size_t>(slice) * es);
  }
}

/// ONNX GatherElements: result[i_0, .., i_r] = data[i_0, .., indices[i_0, .., i_r], .., i_r]
/// with the index replacing dim `axis`; the result has the indices' shape, whose other
/// dims must not exceed the data's.
void gatherElementsKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                          std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 2, 2);
  const Tensor &data = *inputs[0], &indices = *inputs[1];
  std::string op = opName(ctx);
  if (data.rank() < 1 || indices.rank() != data.rank())
    fail(op, ": data ", shapeString(data.shape), " and indices ", shapeString(indices.shape),
         " must have the same rank >= 1");
  int64_t axis = normalizeAxis(op, ctx.attrs().getInt("axis", 0), data.rank());
  for (int64_t d = 0; d < data.rank(); ++d)
    if (d != axis && indices.shape[d] > data.shape[d])
      fail(op, ": indices ", shapeString(indices.shape), " exceed data ", shapeString(data.shape),
           " in dim ", d);
  std::vector<int64_t> idx = readInts(op, "indices", indices);
  checkOutputDType(ctx, 0, data.dtype);
  Tensor &y = allocateResult(ctx, outputs, 0, indices.shape);
  std::vector<int64_t> dstrides = contiguousStrides(data.shape);
  int64_t dim = data.shape[axis], r = data.rank();
  dispatchBySize(data.dtype, [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U *src = data.as<U>();
    U *dst = y.as<U>();
    std::vector<int64_t> pos(static_cast<size_t>(r), 0);
    for (int64_t i = 0; i < y.numel(); ++i) {
      int64_t off = 0;
      for (int64_t d = 0; d < r; ++d)
        off += (d == axis ? wrapIndex(op, idx[i], dim) : pos[d]) * dstrides[d];
      dst[i] = src[off];
      for (int64_t d = r; d-- > 0;)
        if (++pos[d] < indices.shape[d])
          break;
        else
          pos[d] = 0;
    }
  });
}

} // namespace

void registerIndexingKernels(KernelRegistry &r) {
  r.add("mm.gather", gatherKernel);
  r.add("mm.gather_nd", gatherNDKernel);
  r.add("mm.gather_elements", gatherElementsKernel);
}

} // namespace mm::rt::cpu
