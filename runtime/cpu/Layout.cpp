//===- Layout.cpp - transpose, concat, split, slice, tile, trilu ------------===//
//
// Element movement only: every dtype, copied by element size.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"
#include "runtime/cpu/ShapeRules.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace mm::rt::cpu {
namespace {

/// Result dim i is input dim perm[i].
void transposeKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                     std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  const Tensor &x = *inputs[0];
  ViewSpec v = transposeView(opName(ctx), x.shape, ctx.attrs().getInts("perm"));
  checkOutputDType(ctx, 0, x.dtype);
  Tensor &y = allocateResult(ctx, outputs, 0, v.shape);
  stridedCopy(x, 0, v.strides, y);
}

/// Copies rows: for each of `outer` rows, `n` bytes from src (row stride srcStride) to dst
/// (row stride dstStride).
void copyRows(const unsigned char *src, int64_t srcStride, unsigned char *dst, int64_t dstStride,
              int64_t outer, int64_t n) {
  if (n == 0)
    return;
  parallelFor(outer, std::max<int64_t>(1, (int64_t(1) << 18) / n), [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o)
      std::memcpy(dst + o * dstStride, src + o * srcStride, static_cast<size_t>(n));
  });
}

void concatKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                  std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, std::numeric_limits<size_t>::max());
  std::string op = opName(ctx);
  const Tensor &first = *inputs[0];
  int64_t axis = normalizeAxis(op, ctx.attrs().getInt("axis"), first.rank());
  Shape shape = first.shape;
  shape[axis] = 0;
  for (const Tensor *t : inputs) {
    bool ok = t->dtype == first.dtype && t->rank() == first.rank();
    for (int64_t d = 0; ok && d < first.rank(); ++d)
      ok = d == axis || t->shape[d] == first.shape[d];
    if (!ok)
      fail(op, ": input ", dtypeName(t->dtype), shapeString(t->shape), " does not match ",
           dtypeName(first.dtype), shapeString(first.shape), " outside axis ", axis);
    shape[axis] += t->shape[axis];
  }
  checkOutputDType(ctx, 0, first.dtype);
  Tensor &y = allocateResult(ctx, outputs, 0, shape);
  int64_t es = static_cast<int64_t>(dtypeSize(first.dtype));
  int64_t outer = numElements(Shape(shape.begin(), shape.begin() + axis));
  int64_t inner = numElements(Shape(shape.begin() + axis + 1, shape.end())) * es;
  int64_t outRow = shape[axis] * inner, pos = 0;
  for (const Tensor *t : inputs) {
    int64_t n = t->shape[axis] * inner;
    copyRows(static_cast<const unsigned char *>(t->data), n, y.as<unsigned char>() + pos, outRow,
             outer, n);
    pos += n;
  }
}

void splitKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                 std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  const Tensor &x = *inputs[0];
  std::string op = opName(ctx);
  int64_t axis = normalizeAxis(op, ctx.attrs().getInt("axis"), x.rank());
  const std::vector<int64_t> &sizes = ctx.attrs().getInts("sizes");
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      fail(op, ": negative split size ", s);
    total += s;
  }
  if (total != x.shape[axis])
    fail(op, ": sizes ", shapeString(sizes), " add up to ", total, " but dim ", axis, " of ",
         shapeString(x.shape), " is ", x.shape[axis]);
  int64_t es = static_cast<int64_t>(dtypeSize(x.dtype));
  int64_t outer = numElements(Shape(x.shape.begin(), x.shape.begin() + axis));
  int64_t inner = numElements(Shape(x.shape.begin() + axis + 1, x.shape.end())) * es;
  int64_t inRow = x.shape[axis] * inner, pos = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    Shape shape = x.shape;
    shape[axis] = sizes[i];
    checkOutputDType(ctx, i, x.dtype);
    Tensor &y = allocateResult(ctx, outputs, i, shape);
    int64_t n = sizes[i] * inner;
    copyRows(static_cast<const unsigned char *>(x.data) + pos, inRow, y.as<unsigned char>(), n,
             outer, n);
    pos += n;
  }
}

/// ONNX Slice: per listed axis, start/end are adjusted (negative + dim) and clamped
/// ([0, dim] for positive steps, [0, dim-1] / [-1, dim-1] for negative ones); the count
/// is ceil((end - start) / step) when positive.
void sliceKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                 std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 5, 5);
  const Tensor &x = *inputs[0];
  std::string op = opName(ctx);
  ViewSpec v = sliceView(op, x.shape, readInts(op, "starts", *inputs[1]),
                         readInts(op, "ends", *inputs[2]), readInts(op, "axes", *inputs[3]),
                         readInts(op, "steps", *inputs[4]));
  checkOutputDType(ctx, 0, x.dtype);
  Tensor &y = allocateResult(ctx, outputs, 0, v.shape);
  if (y.numel() > 0)
    stridedCopy(x, v.offset, v.strides, y);
}

/// ONNX Tile: the result dim d is in[d] * repeats[d]; reading it as [rep, in] pairs
/// (stride 0 for the repeat) is the row-major order of the result.
void tileKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 2, 2);
  const Tensor &x = *inputs[0];
  std::string op = opName(ctx);
  std::vector<int64_t> reps = readInts(op, "repeats", *inputs[1]);
  if (static_cast<int64_t>(reps.size()) != x.rank())
    fail(op, ": repeats has ", reps.size(), " entries for rank ", x.rank());
  Shape shape, pairs;
  std::vector<int64_t> inStrides = contiguousStrides(x.shape), strides;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (reps[d] < 0)
      fail(op, ": negative repeat ", reps[d]);
    shape.push_back(x.shape[d] * reps[d]);
    pairs.insert(pairs.end(), {reps[d], x.shape[d]});
    strides.insert(strides.end(), {0, inStrides[d]});
  }
  checkOutputDType(ctx, 0, x.dtype);
  Tensor &y = allocateResult(ctx, outputs, 0, shape);
  if (y.numel() == 0)
    return;
  Tensor view = y;
  view.shape = pairs;
  stridedCopy(x, 0, strides, view);
}

/// ONNX Trilu over the last two dims [N, M]: keeps (i, j) with j - i >= k (upper) or
/// j - i <= k (lower), zeroes the rest.
void triluKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                 std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  const Tensor &x = *inputs[0];
  std::string op = opName(ctx);
  if (x.rank() < 2)
    fail(op, ": input ", shapeString(x.shape), " must have rank >= 2");
  int64_t k = ctx.attrs().getInt("k", 0);
  bool upper = ctx.attrs().getInt("upper", 1) != 0;
  int64_t N = x.shape[x.rank() - 2], M = x.shape.back();
  int64_t mats = N * M != 0 ? x.numel() / (N * M) : 0;
  checkOutputDType(ctx, 0, x.dtype);
  Tensor &y = allocateResult(ctx, outputs, 0, x.shape);
  size_t es = dtypeSize(x.dtype);
  const auto *src = static_cast<const unsigned char *>(x.data);
  auto *dst = y.as<unsigned char>();
  parallelFor(mats * N, std::max<int64_t>(1, 4096 / std::max<int64_t>(M, 1)),
              [&](int64_t begin, int64_t end) {
                for (int64_t r = begin; r < end; ++r) {
                  int64_t i = r % N;
                  // Kept columns form one range [lo, hi).
                  int64_t lo = upper ? std::clamp<int64_t>(i + k, 0, M) : 0;
                  int64_t hi = upper ? M : std::clamp<int64_t>(i + k + 1, 0, M);
                  unsigned char *row = dst + r * M * es;
                  std::memset(row, 0, static_cast<size_t>(M) * es);
                  if (hi > lo)
                    std::memcpy(row + lo * es, src + (r * M + lo) * es,
                                static_cast<size_t>(hi - lo) * es);
                }
              });
}

} // namespace

void registerLayoutKernels(KernelRegistry &r) {
  r.add("mm.transpose", transposeKernel);
  r.add("mm.concat", concatKernel);
  r.add("mm.split", splitKernel);
  r.add("mm.slice", sliceKernel);
  r.add("mm.tile", tileKernel);
  r.add("mm.trilu", triluKernel);
}

} // namespace mm::rt::cpu
