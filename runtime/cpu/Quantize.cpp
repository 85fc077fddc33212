//===- Quantize.cpp - ONNX DequantizeLinear and QuantizeLinear --------------===//
//
// dequantize: y = (x - zero_point) * scale;  quantize: y = saturate(rint(x / scale) +
// zero_point) with rint rounding half to even. Parameters are per tensor (scale has one
// element), per axis (1-D scale along `axis`) or blocked (scale has the input's rank,
// with ceil(dim / block_size) entries along `axis`, one per block of block_size elements).
// Quantized types: i8, u8, i16, u16, i32. Float side: f32, f64, f16, bf16 (computing in
// f32, or f64 for f64 input).
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"

#include <cmath>
#include <limits>

namespace mm::rt::cpu {
namespace {

constexpr unsigned kQuantTypes =
    bit(DType::i8) | bit(DType::u8) | bit(DType::i16) | bit(DType::u16) | bit(DType::i32);

/// Maps an element index of the input to the index of its scale / zero point.
struct ParamIndex {
  enum Kind { tensor, axis, blocked } kind = tensor;
  int64_t dim = 1, inner = 1, block = 1, blocks = 1;

  int64_t operator()(int64_t i) const {
    switch (kind) {
    case tensor:
      return 0;
    case axis:
      return (i / inner) % dim;
    case blocked:
      break;
    }
    int64_t o = i / (dim * inner), a = (i / inner) % dim, in = i % inner;
    return (o * blocks + a / block) * inner + in;
  }
};

ParamIndex planParams(const KernelContext &ctx, const Tensor &x, const Tensor &scale,
                      const Tensor *zp) {
  std::string op = opName(ctx);
  if (zp && zp->shape != scale.shape)
    fail(op, ": zero_point ", shapeString(zp->shape), " must have the shape of scale ",
         shapeString(scale.shape));
  ParamIndex p;
  int64_t blockSize = ctx.attrs().getInt("block_size", 0);
  if (blockSize < 0)
    fail(op, ": block_size ", blockSize, " must be >= 0");
  if (scale.numel() == 1 && scale.rank() <= 1 && blockSize == 0)
    return p; // per tensor (a one-element 1-D scale counts too, as in ONNX's reference)
  int64_t axis = normalizeAxis(op, ctx.attrs().getInt("axis", 1), x.rank());
  p.dim = x.shape[axis];
  p.inner = numElements(Shape(x.shape.begin() + axis + 1, x.shape.end()));
  if (blockSize == 0) {
    if (scale.rank() != 1 || scale.shape[0] != p.dim)
      fail(op, ": per-axis scale ", shapeString(scale.shape), " must be [", p.dim, "] for input ",
           shapeString(x.shape), " and axis ", axis);
    p.kind = ParamIndex::axis;
    return p;
  }
  p.kind = ParamIndex::blocked;
  p.block = blockSize;
  p.blocks = (p.dim + blockSize - 1) / blockSize;
  Shape expected = x.shape;
  expected[axis] = p.blocks;
  if (scale.shape != expected)
    fail(op, ": blocked scale ", shapeString(scale.shape), " must be ", shapeString(expected),
         " for input ", shapeString(x.shape), ", axis ", axis, " and block_size ", blockSize);
  return p;
}

/// How parameter values are indexed, the scales as double and the zero points (0 without
/// them), for (de)quantizing `x`.
struct QuantParams {
  ParamIndex index;
  std::vector<double> scale;
  std::vector<int64_t> zero;
};
QuantParams readParams(KernelContext &ctx, const Tensor &x, const Tensor &scale, const Tensor *zp) {
  std::string op = opName(ctx);
  QuantParams q{planParams(ctx, x, scale, zp), std::vector<double>(static_cast<size_t>(scale.numel())), {}};
  dispatch<kFloatTypes>(
      scale.dtype, op, [](auto) {}, "scale");
  convertToCompute(scale.data, scale.dtype, q.scale.data(), scale.numel());
  q.zero = zp ? readInts(op, "zero_point", *zp) : std::vector<int64_t>(q.scale.size(), 0);
  return q;
}

void dequantizeKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                      std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 2, 3);
  const Tensor &x = *inputs[0], &scale = *inputs[1];
  const Tensor *zp = inputs.size() > 2 ? inputs[2] : nullptr;
  std::string op = opName(ctx);
  if (zp && zp->dtype != x.dtype)
    fail(op, ": zero_point dtype ", dtypeName(zp->dtype), " differs from input dtype ",
         dtypeName(x.dtype));
  const QuantParams params = readParams(ctx, x, scale, zp);
  const ParamIndex &pi = params.index;
  const std::vector<double> &sc = params.scale;
  const std::vector<int64_t> &zero = params.zero;
  Tensor &y = allocateResult(ctx, outputs, 0, x.shape);
  dispatch<kQuantTypes>(x.dtype, op, [&](auto inTag) {
    using Q = typename decltype(inTag)::type;
    dispatch<kFloatTypes>(
        y.dtype, op,
        [&](auto outTag) {
          using S = typename decltype(outTag)::type;
          using C = std::conditional_t<std::is_same_v<S, double>, double, float>;
          const Q *in = x.as<Q>();
          S *out = y.as<S>();
          parallelFor(x.numel(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i) {
              int64_t k = pi(i);
              C v = (static_cast<C>(in[i]) - static_cast<C>(zero[k])) * static_cast<C>(sc[k]);
              out[i] = Elem<S>::store(static_cast<typename Elem<S>::C>(v));
            }
          });
        },
        "result");
  });
}

void quantizeKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                    std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 2, 3);
  const Tensor &x = *inputs[0], &scale = *inputs[1];
  const Tensor *zp = inputs.size() > 2 ? inputs[2] : nullptr;
  std::string op = opName(ctx);
  DType outType = ctx.outputDType(0);
  if (zp && zp->dtype != outType)
    fail(op, ": zero_point dtype ", dtypeName(zp->dtype), " differs from the result dtype ",
         dtypeName(outType));
  const QuantParams params = readParams(ctx, x, scale, zp);
  const ParamIndex &pi = params.index;
  const std::vector<double> &sc = params.scale;
  const std::vector<int64_t> &zero = params.zero;
  Tensor &y = allocateResult(ctx, outputs, 0, x.shape);
  dispatch<kFloatTypes>(x.dtype, op, [&](auto inTag) {
    using S = typename decltype(inTag)::type;
    using C = std::conditional_t<std::is_same_v<S, double>, double, float>;
    dispatch<kQuantTypes>(
        outType, op,
        [&](auto outTag) {
          using Q = typename decltype(outTag)::type;
          const double lo = static_cast<double>(std::numeric_limits<Q>::min());
          const double hi = static_cast<double>(std::numeric_limits<Q>::max());
          const S *in = x.as<S>();
          Q *out = y.as<Q>();
          parallelFor(x.numel(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i) {
              int64_t k = pi(i);
              // x / scale in the input's precision, then round half to even (the
              // default FP rounding mode) and saturate; NaN gives the zero point.
              C q = static_cast<C>(Elem<S>::load(in[i])) / static_cast<C>(sc[k]);
              double r = std::isnan(q) ? 0.0 : static_cast<double>(std::nearbyint(q));
              out[i] = static_cast<Q>(std::clamp(r + static_cast<double>(zero[k]), lo, hi));
            }
          });
        },
        "result");
  });
}

} // namespace

void registerQuantizeKernels(KernelRegistry &r) {
  r.add("mm.dequantize_linear", dequantizeKernel);
  r.add("mm.quantize_linear", quantizeKernel);
}

} // namespace mm::rt::cpu
