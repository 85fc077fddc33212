//===- Activations.cpp - gelu, quick_gelu, silu, swiglu, geglu --------------===//
//
// Fused activations (their own kernels, not re-expanded). f32, f64, and f16/bf16
// computing in f32.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/ActivationFns.h"
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"

namespace mm::rt::cpu {
namespace {

struct GeluErfFn {
  template <typename C> C operator()(C x) const { return geluErf(x); }
};
struct GeluTanhFn {
  template <typename C> C operator()(C x) const { return geluTanh(x); }
};
struct QuickGeluFn {
  template <typename C> C operator()(C x) const { return quickGelu(x); }
};
struct SiluFn {
  template <typename C> C operator()(C x) const { return silu(x); }
};

template <typename F>
void mapFloat(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
              std::vector<Tensor> &outputs) {
  const Tensor &x = *inputs[0];
  dispatch<kFloatTypes>(x.dtype, opName(ctx), [&](auto tag) {
    using S = typename decltype(tag)::type;
    checkOutputDType(ctx, 0, x.dtype);
    Tensor &y = allocateResult(ctx, outputs, 0, x.shape);
    mapUnary<S>(x, y, F{});
  });
}

/// `approximate`: 0 = exact (erf), 1 = tanh (the GeluApproximation enum values).
void geluKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  int64_t approx = ctx.attrs().getInt("approximate", 0);
  if (approx == 0)
    mapFloat<GeluErfFn>(ctx, inputs, outputs);
  else if (approx == 1)
    mapFloat<GeluTanhFn>(ctx, inputs, outputs);
  else
    fail(opName(ctx), ": unknown approximate value ", approx, " (0 = none, 1 = tanh)");
}

template <typename F>
void activationKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                      std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  mapFloat<F>(ctx, inputs, outputs);
}

/// act(gate) * up, elementwise over same-shape operands (F: SiLU for mm.swiglu, GELU for
/// mm.geglu).
template <typename F>
void gatedKernel(KernelContext &ctx, const Tensor &g, const Tensor &u, std::vector<Tensor> &outputs, F act) {
  std::string op = opName(ctx);
  if (g.dtype != u.dtype || g.shape != u.shape)
    fail(op, ": gate ", dtypeName(g.dtype), shapeString(g.shape), " and up ", dtypeName(u.dtype),
         shapeString(u.shape), " must have the same dtype and shape");
  dispatch<kFloatTypes>(g.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    using E = Elem<S>;
    checkOutputDType(ctx, 0, g.dtype);
    Tensor &y = allocateResult(ctx, outputs, 0, g.shape);
    const S *pg = g.as<S>(), *pu = u.as<S>();
    S *py = y.as<S>();
    parallelFor(g.numel(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        py[i] = E::store(act(E::load(pg[i])) * E::load(pu[i]));
    });
  });
}

/// SwiGLU (Shazeer 2020): silu(gate) * up.
void swigluKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                  std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 2, 2);
  gatedKernel(ctx, *inputs[0], *inputs[1], outputs, SiluFn{});
}

/// GeGLU (Shazeer 2020): gelu(gate) * up; `approximate` as geluKernel's.
void gegluKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                 std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 2, 2);
  int64_t approx = ctx.attrs().getInt("approximate", 0);
  if (approx == 0)
    gatedKernel(ctx, *inputs[0], *inputs[1], outputs, GeluErfFn{});
  else if (approx == 1)
    gatedKernel(ctx, *inputs[0], *inputs[1], outputs, GeluTanhFn{});
  else
    fail(opName(ctx), ": unknown approximate value ", approx, " (0 = none, 1 = tanh)");
}

} // namespace

void registerActivationKernels(KernelRegistry &r) {
  r.add("mm.gelu", geluKernel);
  r.add("mm.quick_gelu", activationKernel<QuickGeluFn>);
  r.add("mm.silu", activationKernel<SiluFn>);
  r.add("mm.swiglu", swigluKernel);
  r.add("mm.geglu", gegluKernel);
}

} // namespace mm::rt::cpu
