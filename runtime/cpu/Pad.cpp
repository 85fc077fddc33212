//===- Pad.cpp - ONNX Pad ---------------------------------------------------===//
//
// pads = [begin_0, ..., begin_{r-1}, end_0, ..., end_{r-1}]; result dim i is
// in_i + begin_i + end_i, negative pads crop. Result index o along dim i reads input index
// o - begin_i, mapped into range by the mode: constant (outside: `value`, zero when
// absent), reflect (mirror without repeating the edge), edge (clamp), wrap (cyclic).
// Any dtype (elements are copied by size).
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"

#include <cstring>

namespace mm::rt::cpu {
namespace {

enum class PadMode : int64_t { constant = 0, reflect = 1, edge = 2, wrap = 3 };

/// Input index read by output index o of a dim of size `dim` padded by `begin` in front;
/// -1 means the constant value.
int64_t sourceIndex(int64_t o, int64_t begin, int64_t dim, PadMode mode) {
  int64_t i = o - begin;
  if (i >= 0 && i < dim)
    return i;
  switch (mode) {
  case PadMode::constant:
    return -1;
  case PadMode::edge:
    return i < 0 ? 0 : dim - 1;
  case PadMode::wrap:
    return ((i % dim) + dim) % dim;
  case PadMode::reflect: {
    if (dim == 1)
      return 0;
    int64_t period = 2 * (dim - 1);
    i = ((i % period) + period) % period;
    return i < dim ? i : period - i;
  }
  }
  return -1;
}

void padKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
               std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 2);
  const Tensor &x = *inputs[0];
  const Tensor *value = inputs.size() > 1 ? inputs[1] : nullptr;
  std::string op = opName(ctx);
  const std::vector<int64_t> &pads = ctx.attrs().getInts("pads");
  int64_t rank = x.rank();
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    fail(op, ": pads has ", pads.size(), " entries for rank ", rank, " (needs ", 2 * rank, ")");
  int64_t modeValue = ctx.attrs().getInt("mode", 0);
  if (modeValue < 0 || modeValue > 3)
    fail(op, ": unknown mode ", modeValue);
  PadMode mode = static_cast<PadMode>(modeValue);
  if (value && (value->dtype != x.dtype || value->numel() != 1))
    fail(op, ": value must be one element of the input's dtype ", dtypeName(x.dtype), ", got ",
         dtypeName(value->dtype), shapeString(value->shape));
  Shape shape(static_cast<size_t>(rank));
  std::vector<std::vector<int64_t>> maps(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) {
    shape[d] = x.shape[d] + pads[d] + pads[rank + d];
    if (shape[d] < 0)
      fail(op, ": pads ", shapeString(pads), " crop dim ", d, " of ", shapeString(x.shape),
           " below zero");
    if (x.shape[d] == 0 && shape[d] > 0 && mode != PadMode::constant)
      fail(op, ": cannot pad the empty dim ", d, " in this mode");
    for (int64_t o = 0; o < shape[d]; ++o)
      maps[d].push_back(sourceIndex(o, pads[d], x.shape[d], mode));
  }
  checkOutputDType(ctx, 0, x.dtype);
  Tensor &y = allocateResult(ctx, outputs, 0, shape);
  if (y.numel() == 0)
    return;
  std::vector<int64_t> strides = contiguousStrides(x.shape);
  int64_t inner = shape.back();
  const std::vector<int64_t> &innerMap = maps.back();
  dispatchBySize(x.dtype, [&](auto tag) {
    using U = typename decltype(tag)::type;
    U fill{};
    if (value)
      std::memcpy(&fill, value->data, sizeof(U));
    const U *src = x.as<U>();
    U *dst = y.as<U>();
    int64_t rows = y.numel() / inner;
    parallelFor(rows, std::max<int64_t>(1, kElementwiseGrain / inner),
                [&](int64_t begin, int64_t end) {
                  for (int64_t r = begin; r < end; ++r) {
                    // Input offset of this row from the outer dims; -1 if any of them reads the
                    // value.
                    int64_t off = 0, rem = r;
                    bool constantRow = false;
                    for (int64_t d = rank - 2; d >= 0; --d) {
                      int64_t i = maps[d][rem % shape[d]];
                      rem /= shape[d];
                      if (i < 0)
                        constantRow = true;
                      else
                        off += i * strides[d];
                    }
                    U *out = dst + r * inner;
                    for (int64_t o = 0; o < inner; ++o)
                      out[o] = constantRow || innerMap[o] < 0 ? fill : src[off + innerMap[o]];
                  }
                });
  });
}

} // namespace

void registerPadKernels(KernelRegistry &r) { r.add("mm.pad", padKernel); }

} // namespace mm::rt::cpu
