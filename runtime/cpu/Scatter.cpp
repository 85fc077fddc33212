//===- Scatter.cpp - ScatterND, ScatterElements, NonZero --------------------===//
//
// mm.scatter_nd and mm.scatter_elements (ONNX ScatterND-18, ScatterElements-18): the
// result is a copy of data in which the addressed elements are replaced by the updates
// or combined with them (add, mul, max, min, computed in the element's compute type),
// in row-major order of the updates, so a repeated index with `none` keeps the last
// update. Negative indices count from the end of their dim; an index out of range is an
// error. mm.nonzero (ONNX NonZero-13) counts first, then allocates its [rank, n] result.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"

namespace mm::rt::cpu {
namespace {

// The integer values of the dialect's ScatterReduction (MMConformanceOps.td).
enum class Reduction : int64_t { none = 0, add = 1, mul = 2, max = 3, min = 4 };

Reduction readReduction(const std::string &op, const Attrs &attrs, DType t) {
  int64_t v = attrs.getInt("reduction", 0);
  if (v < 0 || v > 4)
    fail(op, ": unknown reduction ", v);
  if (v != 0 && t == DType::boolean)
    fail(op, ": reductions need a number dtype, not bool");
  return static_cast<Reduction>(v);
}

/// dst = combine(dst, u) by `r`.
template <typename S> void combine(S &dst, S u, Reduction r) {
  using C = typename Elem<S>::C;
  if (r == Reduction::none) {
    dst = u;
    return;
  }
  if constexpr (!std::is_same_v<S, Bool>) {
    C a = Elem<S>::load(dst), b = Elem<S>::load(u);
    switch (r) {
    case Reduction::add:
      a = static_cast<C>(a + b);
      break;
    case Reduction::mul:
      a = static_cast<C>(a * b);
      break;
    case Reduction::max:
      a = std::max(a, b);
      break;
    case Reduction::min:
      a = std::min(a, b);
      break;
    case Reduction::none:
      break;
    }
    dst = Elem<S>::store(a);
  }
}

/// `v` (an index into a dim of size `dim`, negative from the end) mapped into [0, dim).
int64_t checkedIndex(const std::string &op, int64_t v, int64_t dim, int64_t axis) {
  int64_t i = v < 0 ? v + dim : v;
  if (i < 0 || i >= dim)
    fail(op, ": index ", v, " is out of range for dim ", axis, " of size ", dim);
  return i;
}

void checkScatterDTypes(KernelContext &ctx, const std::string &op, const Tensor &data,
                        const Tensor &updates) {
  if (updates.dtype != data.dtype)
    fail(op, ": updates dtype ", dtypeName(updates.dtype), " differs from data's ",
         dtypeName(data.dtype));
  checkOutputDType(ctx, 0, data.dtype);
}

void scatterNDKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                     std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 3, 3);
  const Tensor &data = *inputs[0], &indices = *inputs[1], &updates = *inputs[2];
  std::string op = opName(ctx);
  Reduction red = readReduction(op, ctx.attrs(), data.dtype);
  checkScatterDTypes(ctx, op, data, updates);
  const int64_t r = data.rank(), q = indices.rank();
  if (q < 1)
    fail(op, ": indices must have rank >= 1");
  const int64_t k = indices.shape.back();
  if (k < 1 || k > r)
    fail(op, ": the last dim of indices ", shapeString(indices.shape), " must be in [1, ", r,
         "] (the rank of data ", shapeString(data.shape), ")");
  Shape expected(indices.shape.begin(), indices.shape.end() - 1);
  expected.insert(expected.end(), data.shape.begin() + k, data.shape.end());
  if (updates.shape != expected)
    fail(op, ": updates ", shapeString(updates.shape), " must be ", shapeString(expected),
         " for data ", shapeString(data.shape), " and indices ", shapeString(indices.shape));
  std::vector<int64_t> idx = readInts(op, "indices", indices);
  std::vector<int64_t> strides = contiguousStrides(data.shape);
  int64_t slice = 1;
  for (int64_t d = k; d < r; ++d)
    slice *= data.shape[d];
  Tensor &y = allocateResult(ctx, outputs, 0, data.shape);
  std::memcpy(y.data, data.data, data.nbytes());
  const int64_t tuples = k ? static_cast<int64_t>(idx.size()) / k : 0;
  dispatch<kAllTypes>(data.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    S *out = y.as<S>();
    const S *upd = updates.as<S>();
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t offset = 0;
      for (int64_t j = 0; j < k; ++j)
        offset += checkedIndex(op, idx[t * k + j], data.shape[j], j) * strides[j];
      for (int64_t e = 0; e < slice; ++e)
        combine(out[offset + e], upd[t * slice + e], red);
    }
  });
}

void scatterElementsKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                           std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 3, 3);
  const Tensor &data = *inputs[0], &indices = *inputs[1], &updates = *inputs[2];
  std::string op = opName(ctx);
  Reduction red = readReduction(op, ctx.attrs(), data.dtype);
  checkScatterDTypes(ctx, op, data, updates);
  const int64_t r = data.rank();
  if (r < 1)
    fail(op, ": data must have rank >= 1");
  const int64_t axis = normalizeAxis(op, ctx.attrs().getInt("axis", 0), r);
  if (indices.shape != updates.shape || indices.rank() != r)
    fail(op, ": indices ", shapeString(indices.shape), " and updates ", shapeString(updates.shape),
         " must have one shape of data's rank ", r);
  for (int64_t d = 0; d < r; ++d)
    if (d != axis && indices.shape[d] > data.shape[d])
      fail(op, ": indices ", shapeString(indices.shape), " exceed data ", shapeString(data.shape),
           " along dim ", d);
  std::vector<int64_t> idx = readInts(op, "indices", indices);
  std::vector<int64_t> strides = contiguousStrides(data.shape);
  Tensor &y = allocateResult(ctx, outputs, 0, data.shape);
  std::memcpy(y.data, data.data, data.nbytes());
  dispatch<kAllTypes>(data.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    S *out = y.as<S>();
    const S *upd = updates.as<S>();
    std::vector<int64_t> pos(r, 0);
    for (int64_t i = 0; i < static_cast<int64_t>(idx.size()); ++i) {
      int64_t offset = 0;
      for (int64_t d = 0; d < r; ++d)
        offset += (d == axis ? checkedIndex(op, idx[i], data.shape[d], d) : pos[d]) * strides[d];
      combine(out[offset], upd[i], red);
      for (int64_t d = r - 1; d >= 0 && ++pos[d] == indices.shape[d]; --d)
        pos[d] = 0;
    }
  });
}

void nonZeroKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                   std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  const Tensor &x = *inputs[0];
  std::string op = opName(ctx);
  checkOutputDType(ctx, 0, DType::i64);
  dispatch<kAllTypes>(x.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    using C = typename Elem<S>::C;
    const S *in = x.as<S>();
    const int64_t n = x.numel();
    std::vector<int64_t> found;
    for (int64_t i = 0; i < n; ++i)
      if (Elem<S>::load(in[i]) != C(0))
        found.push_back(i);
    const int64_t rank = std::max<int64_t>(x.rank(), 1), count = static_cast<int64_t>(found.size());
    Tensor &y = allocateResult(ctx, outputs, 0, {rank, count});
    int64_t *out = y.as<int64_t>();
    for (int64_t j = 0; j < count; ++j) {
      int64_t rem = found[j];
      for (int64_t d = rank - 1; d >= 0; --d) {
        int64_t dim = x.rank() ? x.shape[d] : 1;
        out[d * count + j] = rem % dim;
        rem /= dim;
      }
    }
  });
}

} // namespace

void registerScatterKernels(KernelRegistry &r) {
  r.add("mm.scatter_nd", scatterNDKernel);
  r.add("mm.scatter_elements", scatterElementsKernel);
  r.add("mm.nonzero", nonZeroKernel);
}

} // namespace mm::rt::cpu
