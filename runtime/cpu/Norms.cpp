//===- Norms.cpp - layer_norm and rms_norm ----------------------------------===//
//
// layer_norm (Ba et al. 2016; ONNX LayerNormalization): over dims [axis, rank),
//   y = (x - mean) / sqrt(var + epsilon) * scale + bias, var the biased variance.
// rms_norm (Zhang & Sennrich 2019): over the last dim,
//   y = x / sqrt(mean(x^2) + epsilon) * (scale_offset + scale).
// Statistics accumulate in f64; values compute in f32 (f64 for f64 tensors), so f16/bf16
// inputs are normalised in f32 and rounded once on store.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"

#include <cmath>

namespace mm::rt::cpu {
namespace {

/// `p` broadcast (ONNX rules, right-aligned) to `shape` and flattened, as C values.
template <typename C>
std::vector<C> expandParam(const std::string &op, const char *what, const Tensor &p,
                           const Shape &shape) {
  if (!broadcastsTo(p.shape, shape))
    fail(op, ": ", what, " ", shapeString(p.shape), " does not broadcast to the normalized dims ",
         shapeString(shape));
  int64_t n = numElements(shape);
  std::vector<C> flat(static_cast<size_t>(p.numel()));
  convertToCompute(p.data, p.dtype, flat.data(), p.numel());
  if (p.numel() == n)
    return flat;
  std::vector<C> out(static_cast<size_t>(n));
  BroadcastLoop<1> loop(shape, {&p.shape});
  int64_t st = loop.innerStrides()[0];
  loop.forRange(0, n, [&](int64_t o, const std::array<int64_t, 1> &off, int64_t cnt) {
    for (int64_t i = 0; i < cnt; ++i)
      out[o + i] = flat[off[0] + i * st];
  });
  return out;
}

template <typename S>
void layerNormImpl(const Tensor &x, const Tensor &scale, const Tensor *bias, int64_t axis,
                   double eps, Tensor &y, const std::string &op) {
  using C = typename Elem<S>::C;
  Shape normShape(x.shape.begin() + axis, x.shape.end());
  int64_t n = numElements(normShape), rows = numElements(Shape(x.shape.begin(), x.shape.begin() + axis));
  std::vector<C> g = expandParam<C>(op, "scale", scale, normShape);
  std::vector<C> b = bias ? expandParam<C>(op, "bias", *bias, normShape) : std::vector<C>();
  const S *in = x.as<S>();
  S *out = y.as<S>();
  parallelFor(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(n, 1)), [&](int64_t begin, int64_t end) {
    std::vector<C> row(static_cast<size_t>(n));
    for (int64_t r = begin; r < end; ++r) {
      const S *xr = in + r * n;
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        row[i] = Elem<S>::load(xr[i]);
        sum += row[i];
      }
      double mean = sum / static_cast<double>(n), sq = 0;
      for (int64_t i = 0; i < n; ++i) {
        double d = row[i] - mean;
        sq += d * d;
      }
      C m = static_cast<C>(mean);
      C inv = static_cast<C>(1.0 / std::sqrt(sq / static_cast<double>(n) + eps));
      S *yr = out + r * n;
      if (bias)
        for (int64_t i = 0; i < n; ++i)
          yr[i] = Elem<S>::store((row[i] - m) * inv * g[i] + b[i]);
      else
        for (int64_t i = 0; i < n; ++i)
          yr[i] = Elem<S>::store((row[i] - m) * inv * g[i]);
    }
  });
}

void layerNormKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                     std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 2, 3);
  const Tensor &x = *inputs[0], &scale = *inputs[1];
  const Tensor *bias = inputs.size() > 2 ? inputs[2] : nullptr;
  std::string op = opName(ctx);
  int64_t axis = normalizeAxis(op, ctx.attrs().getInt("axis", -1), x.rank());
  double eps = ctx.attrs().getFloat("epsilon", 1e-5);
  for (const Tensor *t : {&scale, bias})
    if (t && t->dtype != x.dtype)
      fail(op, ": operand dtypes differ (", dtypeName(x.dtype), " vs ", dtypeName(t->dtype), ")");
  dispatch<kFloatTypes>(x.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    checkOutputDType(ctx, 0, x.dtype);
    Tensor &y = allocateResult(ctx, outputs, 0, x.shape);
    layerNormImpl<S>(x, scale, bias, axis, eps, y, op);
  });
}

template <typename S>
void rmsNormImpl(const Tensor &x, const Tensor &scale, double eps, double offset, Tensor &y) {
  using C = std::conditional_t<std::is_same_v<S, double>, double, float>;
  int64_t n = x.shape.back(), rows = n ? x.numel() / n : 0;
  std::vector<C> g(static_cast<size_t>(n));
  convertToCompute(scale.data, scale.dtype, g.data(), n);
  for (C &v : g)
    v += static_cast<C>(offset);
  const S *in = x.as<S>();
  S *out = y.as<S>();
  parallelFor(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(n, 1)), [&](int64_t begin, int64_t end) {
    std::vector<C> row(static_cast<size_t>(n));
    for (int64_t r = begin; r < end; ++r) {
      const S *xr = in + r * n;
      double sq = 0;
      for (int64_t i = 0; i < n; ++i) {
        row[i] = static_cast<C>(Elem<S>::load(xr[i]));
        sq += static_cast<double>(row[i]) * row[i];
      }
      C inv = static_cast<C>(1.0 / std::sqrt(sq / static_cast<double>(n) + eps));
      S *yr = out + r * n;
      for (int64_t i = 0; i < n; ++i)
        yr[i] = Elem<S>::store(static_cast<typename Elem<S>::C>(row[i] * inv * g[i]));
    }
  });
}

void rmsNormKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                   std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 2, 2);
  const Tensor &x = *inputs[0], &scale = *inputs[1];
  std::string op = opName(ctx);
  if (x.rank() < 1 || scale.rank() != 1 || scale.shape[0] != x.shape.back())
    fail(op, ": scale ", shapeString(scale.shape), " must be 1-D with the last dim of input ",
         shapeString(x.shape));
  dispatch<kFloatTypes>(scale.dtype, op, [](auto) {}, "scale");
  double eps = ctx.attrs().getFloat("epsilon", 1e-6);
  double offset = ctx.attrs().getFloat("scale_offset", 0.0);
  dispatch<kFloatTypes>(x.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    checkOutputDType(ctx, 0, x.dtype);
    Tensor &y = allocateResult(ctx, outputs, 0, x.shape);
    rmsNormImpl<S>(x, scale, eps, offset, y);
  });
}

} // namespace

void registerNormKernels(KernelRegistry &r) {
  r.add("mm.layer_norm", layerNormKernel);
  r.add("mm.rms_norm", rmsNormKernel);
}

} // namespace mm::rt::cpu
