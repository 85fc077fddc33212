//===- Generators.cpp - constant, constant_of_shape, range ------------------===//
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"

#include <cmath>
#include <cstring>

namespace mm::rt::cpu {
namespace {

/// mm.constant: the `value` tensor attribute, copied.
void constantKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                    std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 0, 0);
  const Tensor &v = ctx.attrs().getTensor("value");
  checkOutputDType(ctx, 0, v.dtype);
  Tensor &y = allocateResult(ctx, outputs, 0, v.shape);
  if (v.nbytes())
    std::memcpy(y.data, v.data, v.nbytes());
}

/// Writes `v` (a one-element tensor of any dtype) into `dst` as one element of dtype `t`.
void scalarAs(const std::string &op, const Tensor &v, DType t, void *dst) {
  if (v.numel() != 1)
    fail(op, ": attribute 'value' must have one element, got shape ", shapeString(v.shape));
  if (v.dtype == t) {
    std::memcpy(dst, v.data, dtypeSize(t));
    return;
  }
  double d = readScalar(op, "value", v);
  dispatch<kAllTypes>(
      t, op,
      [&](auto tag) {
        using S = typename decltype(tag)::type;
        *static_cast<S *>(dst) = Elem<S>::store(static_cast<typename Elem<S>::C>(d));
      },
      "result");
}

/// ONNX ConstantOfShape: `value` is a one-element tensor attribute (the plan stores
/// scalar TypedAttrs that way); absent means 0. Converted to the declared result dtype.
void constantOfShapeKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                           std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  std::string op = opName(ctx);
  std::vector<int64_t> shape = readInts(op, "shape", *inputs[0]);
  for (int64_t d : shape)
    if (d < 0)
      fail(op, ": invalid dim ", d, " in shape ", shapeString(shape));
  Tensor &y = allocateResult(ctx, outputs, 0, shape);
  uint64_t one = 0; // the element's bytes; all-zero bytes are 0 in every dtype
  if (ctx.attrs().has("value"))
    scalarAs(op, ctx.attrs().getTensor("value"), y.dtype, &one);
  size_t es = dtypeSize(y.dtype);
  auto *dst = static_cast<unsigned char *>(y.data);
  parallelFor(y.numel(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      std::memcpy(dst + i * es, &one, es);
  });
}

/// ONNX Range: n = max(ceil((limit - start) / delta), 0) values start + i * delta.
void rangeKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                 std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 3, 3);
  std::string op = opName(ctx);
  const Tensor &t0 = *inputs[0];
  for (const Tensor *t : inputs) {
    if (t->dtype != t0.dtype)
      fail(op, ": start, limit and delta dtypes differ");
    if (t->numel() != 1)
      fail(op, ": start, limit and delta must be scalars, got shape ", shapeString(t->shape));
  }
  dispatch<kFloatTypes | kIntTypes>(t0.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    using C = typename Elem<S>::C;
    checkOutputDType(ctx, 0, t0.dtype);
    C start = Elem<S>::load(*inputs[0]->as<S>()), limit = Elem<S>::load(*inputs[1]->as<S>());
    C delta = Elem<S>::load(*inputs[2]->as<S>());
    if (delta == C(0))
      fail(op, ": delta is 0");
    int64_t n;
    if constexpr (std::is_integral_v<C>) {
      // Exact integer ceil division in 128 bits (limit - start may overflow 64).
      __int128 span = static_cast<__int128>(limit) - static_cast<__int128>(start);
      __int128 d = static_cast<__int128>(delta);
      __int128 q = span / d;
      if (q * d != span && ((span > 0) == (d > 0)))
        ++q;
      n = q > 0 ? static_cast<int64_t>(q) : 0;
    } else {
      double q = std::ceil((static_cast<double>(limit) - static_cast<double>(start)) /
                           static_cast<double>(delta));
      if (!(q < 9.0e18))
        fail(op, ": range [", start, ", ", limit, ") with delta ", delta, " is too long");
      n = q > 0 ? static_cast<int64_t>(q) : 0;
    }
    Tensor &y = allocateResult(ctx, outputs, 0, {n});
    S *out = y.as<S>();
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_integral_v<C>)
        out[i] = static_cast<S>(static_cast<uint64_t>(start) +
                                static_cast<uint64_t>(i) *
                                    static_cast<uint64_t>(delta)); // exact: in range
      else
        out[i] = Elem<S>::store(
            static_cast<C>(static_cast<double>(start) + i * static_cast<double>(delta)));
    }
  });
}

} // namespace

void registerGeneratorKernels(KernelRegistry &r) {
  r.add("mm.constant", constantKernel);
  r.add("mm.constant_of_shape", constantOfShapeKernel);
  r.add("mm.range", rangeKernel);
}

} // namespace mm::rt::cpu
