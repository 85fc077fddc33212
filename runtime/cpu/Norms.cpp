//===- Norms.cpp - layer_norm, rms_norm and their residual-add forms --------===//
//
// layer_norm (Ba et al. 2016; ONNX LayerNormalization): over dims [axis, rank),
//   y = (x - mean) / sqrt(var + epsilon) * scale + bias, var the biased variance.
// rms_norm (Zhang & Sennrich 2019): over the last dim,
//   y = x / sqrt(mean(x^2) + epsilon) * (scale_offset + scale).
// add_layer_norm / add_rms_norm: sum = lhs + rhs rounded to the element type (result 1),
// then the norm of that sum (result 0), row by row in one pass.
// Statistics accumulate in f64; values compute in f32 (f64 for f64 tensors), so f16/bf16
// inputs are normalised in f32 and rounded once on store.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"

#include <cmath>

namespace mm::rt::cpu {
namespace {

template <typename S> using Compute = std::conditional_t<std::is_same_v<S, double>, double, float>;

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

/// Normalises one row of n values already loaded into `row` (C values) into `yr`.
template <typename S, typename C> struct LayerNormRow {
  const std::vector<C> &g, &b; // b empty: no bias
  double eps;
  void operator()(const C *row, int64_t n, S *yr) const {
    double sum = 0, sq = 0;
    for (int64_t i = 0; i < n; ++i)
      sum += row[i];
    double mean = sum / static_cast<double>(n);
    for (int64_t i = 0; i < n; ++i) {
      double d = row[i] - mean;
      sq += d * d;
    }
    C m = static_cast<C>(mean),
      inv = static_cast<C>(1.0 / std::sqrt(sq / static_cast<double>(n) + eps));
    using E = typename Elem<S>::C;
    if (!b.empty())
      for (int64_t i = 0; i < n; ++i)
        yr[i] = Elem<S>::store(static_cast<E>((row[i] - m) * inv * g[i] + b[i]));
    else
      for (int64_t i = 0; i < n; ++i)
        yr[i] = Elem<S>::store(static_cast<E>((row[i] - m) * inv * g[i]));
  }
};

template <typename S, typename C> struct RmsNormRow {
  const std::vector<C> &g; // scale_offset already added
  double eps;
  void operator()(const C *row, int64_t n, S *yr) const {
    double sq = 0;
    for (int64_t i = 0; i < n; ++i)
      sq += static_cast<double>(row[i]) * row[i];
    C inv = static_cast<C>(1.0 / std::sqrt(sq / static_cast<double>(n) + eps));
    using E = typename Elem<S>::C;
    for (int64_t i = 0; i < n; ++i)
      yr[i] = Elem<S>::store(static_cast<E>(row[i] * inv * g[i]));
  }
};

/// Runs `norm` over rows of n elements of x (or of lhs + rhs, written to `sum`) into y.
template <typename S, typename Norm>
void normRows(const Tensor &x, const Tensor *rhs, Tensor *sum, int64_t n, Tensor &y,
              const Norm &norm) {
  using C = Compute<S>;
  int64_t rows = n ? x.numel() / n : 0;
  const S *in = x.as<S>(), *in2 = rhs ? rhs->as<S>() : nullptr;
  S *out = y.as<S>(), *sumOut = sum ? sum->as<S>() : nullptr;
  parallelFor(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(n, 1)),
              [&](int64_t begin, int64_t end) {
                std::vector<C> row(static_cast<size_t>(n));
                for (int64_t r = begin; r < end; ++r) {
                  const S *xr = in + r * n;
                  if (in2) {
                    // The residual sum is rounded to S first: the norm sees what a separate add
                    // followed by a norm would see.
                    const S *x2 = in2 + r * n;
                    S *sr = sumOut + r * n;
                    for (int64_t i = 0; i < n; ++i) {
                      sr[i] = Elem<S>::store(Elem<S>::load(xr[i]) + Elem<S>::load(x2[i]));
                      row[i] = static_cast<C>(Elem<S>::load(sr[i]));
                    }
                  } else {
                    for (int64_t i = 0; i < n; ++i)
                      row[i] = static_cast<C>(Elem<S>::load(xr[i]));
                  }
                  norm(row.data(), n, out + r * n);
                }
              });
}

/// Allocates the normalized result (and, for the add_ forms, the residual sum) with x's
/// shape and dtype. Both are allocated before either is referenced, because
/// allocateResult may grow `outputs`.
std::pair<Tensor *, Tensor *> allocateNormResults(KernelContext &ctx, std::vector<Tensor> &outputs,
                                                  const Tensor &x, bool residual) {
  checkOutputDType(ctx, 0, x.dtype);
  allocateResult(ctx, outputs, 0, x.shape);
  if (residual) {
    checkOutputDType(ctx, 1, x.dtype);
    allocateResult(ctx, outputs, 1, x.shape);
  }
  return {&outputs[0], residual ? &outputs[1] : nullptr};
}

/// Shared by layer_norm (inputs x, scale[, bias]) and add_layer_norm (lhs, rhs, scale[, bias]).
void layerNorm(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
               std::vector<Tensor> &outputs, bool residual) {
  size_t first = residual ? 2 : 1;
  checkInputCount(ctx, inputs, first + 1, first + 2);
  const Tensor &x = *inputs[0], &scale = *inputs[first];
  const Tensor *rhs = residual ? inputs[1] : nullptr;
  const Tensor *bias = inputs.size() > first + 1 ? inputs[first + 1] : nullptr;
  std::string op = opName(ctx);
  int64_t axis = normalizeAxis(op, ctx.attrs().getInt("axis", -1), x.rank());
  double eps = ctx.attrs().getFloat("epsilon", 1e-5);
  for (const Tensor *t : {rhs, &scale, bias})
    if (t && t->dtype != x.dtype)
      fail(op, ": operand dtypes differ (", dtypeName(x.dtype), " vs ", dtypeName(t->dtype), ")");
  if (rhs && rhs->shape != x.shape)
    fail(op, ": lhs ", shapeString(x.shape), " and rhs ", shapeString(rhs->shape), " differ");
  Shape normShape(x.shape.begin() + axis, x.shape.end());
  dispatch<kFloatTypes>(x.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    using C = Compute<S>;
    std::vector<C> g = expandParam<C>(op, "scale", scale, normShape);
    std::vector<C> b = bias ? expandParam<C>(op, "bias", *bias, normShape) : std::vector<C>();
    auto [y, sum] = allocateNormResults(ctx, outputs, x, residual);
    normRows<S>(x, rhs, sum, numElements(normShape), *y, LayerNormRow<S, C>{g, b, eps});
  });
}

/// Shared by rms_norm (x, scale) and add_rms_norm (lhs, rhs, scale). The scale may have
/// another float dtype than the input (f32 weights with bf16 activations).
void rmsNorm(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
             std::vector<Tensor> &outputs, bool residual) {
  size_t first = residual ? 2 : 1;
  checkInputCount(ctx, inputs, first + 1, first + 1);
  const Tensor &x = *inputs[0], &scale = *inputs[first];
  const Tensor *rhs = residual ? inputs[1] : nullptr;
  std::string op = opName(ctx);
  if (x.rank() < 1 || scale.rank() != 1 || scale.shape[0] != x.shape.back())
    fail(op, ": scale ", shapeString(scale.shape), " must be 1-D with the last dim of input ",
         shapeString(x.shape));
  if (rhs && (rhs->dtype != x.dtype || rhs->shape != x.shape))
    fail(op, ": lhs ", dtypeName(x.dtype), shapeString(x.shape), " and rhs ", dtypeName(rhs->dtype),
         shapeString(rhs->shape), " differ");
  dispatch<kFloatTypes>(
      scale.dtype, op, [](auto) {}, "scale");
  double eps = ctx.attrs().getFloat("epsilon", 1e-6);
  double offset = ctx.attrs().getFloat("scale_offset", 0.0);
  dispatch<kFloatTypes>(x.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    using C = Compute<S>;
    int64_t n = x.shape.back();
    std::vector<C> g(static_cast<size_t>(n));
    convertToCompute(scale.data, scale.dtype, g.data(), n);
    for (C &v : g)
      v += static_cast<C>(offset);
    auto [y, sum] = allocateNormResults(ctx, outputs, x, residual);
    normRows<S>(x, rhs, sum, n, *y, RmsNormRow<S, C>{g, eps});
  });
}

/// The kernels: Residual selects the add_ form (mm.add_layer_norm, mm.add_rms_norm).
template <bool Residual>
void layerNormKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                     std::vector<Tensor> &outputs) {
  layerNorm(ctx, inputs, outputs, Residual);
}
template <bool Residual>
void rmsNormKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                   std::vector<Tensor> &outputs) {
  rmsNorm(ctx, inputs, outputs, Residual);
}

} // namespace

void registerNormKernels(KernelRegistry &r) {
  r.add("mm.layer_norm", layerNormKernel<false>);
  r.add("mm.rms_norm", rmsNormKernel<false>);
  r.add("mm.add_layer_norm", layerNormKernel<true>);
  r.add("mm.add_rms_norm", rmsNormKernel<true>);
}

} // namespace mm::rt::cpu
