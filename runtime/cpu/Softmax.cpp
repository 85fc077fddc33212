//===- Softmax.cpp - softmax along one axis (ONNX Softmax-13) ---------------===//
//
// exp(x - max) / sum(exp(x - max)) per line along the axis, computing in f32 (f64 for
// f64 tensors); exp is FastExp.h's. A line that is all -inf gives NaN, as ONNX's
// reference does.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/FastExp.h"
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"

#include <cmath>
#include <limits>

namespace mm::rt::cpu {
namespace {

template <typename S> void softmaxImpl(const Tensor &x, Tensor &y, int64_t axis) {
  using C = typename Elem<S>::C;
  int64_t n = x.shape[axis], inner = 1, outer = 1;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != axis)
      (d < axis ? outer : inner) *= x.shape[d];
  const S *in = x.as<S>();
  S *out = y.as<S>();
  parallelFor(outer * inner, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(n, 1)),
              [&](int64_t begin, int64_t end) {
                std::vector<C> buf(static_cast<size_t>(n));
                for (int64_t line = begin; line < end; ++line) {
                  int64_t base = (line / inner) * n * inner + line % inner;
                  C mx = -std::numeric_limits<C>::infinity();
                  for (int64_t k = 0; k < n; ++k) {
                    buf[k] = Elem<S>::load(in[base + k * inner]);
                    mx = std::isnan(buf[k]) || buf[k] > mx ? buf[k] : mx;
                  }
                  for (int64_t k = 0; k < n; ++k) // separate from the sum: vectorizes
                    buf[k] = fastExp(buf[k] - mx);
                  C sum = 0;
                  for (int64_t k = 0; k < n; ++k)
                    sum += buf[k];
                  C inv = C(1) / sum;
                  for (int64_t k = 0; k < n; ++k)
                    out[base + k * inner] = Elem<S>::store(buf[k] * inv);
                }
              });
}

void softmaxKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                   std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  const Tensor &x = *inputs[0];
  std::string op = opName(ctx);
  int64_t axis = normalizeAxis(op, ctx.attrs().getInt("axis", -1), x.rank());
  dispatch<kFloatTypes>(x.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    checkOutputDType(ctx, 0, x.dtype);
    Tensor &y = allocateResult(ctx, outputs, 0, x.shape);
    softmaxImpl<S>(x, y, axis);
  });
}

} // namespace

void registerSoftmaxKernels(KernelRegistry &r) { r.add("mm.softmax", softmaxKernel); }

} // namespace mm::rt::cpu
