//===- Conv.cpp - 2-D convolution (ONNX Conv, NCHW) -------------------------===//
//
// im2col + GEMM per image and group: out[n, g] = W[g] [M/g, C/g*kH*kW] x col [C/g*kH*kW,
// OH*OW]. f32 and f64; f16/bf16 staged through f32.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/Gemm.h"
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"

namespace mm::rt::cpu {
namespace {

struct ConvGeom {
  int64_t N, C, H, W, M, kH, kW, OH, OW, group;
  int64_t strideH, strideW, padT, padL, dilH, dilW;
};

/// col[(c*kH + i)*kW + j][oh*OW + ow] = x[c][oh*sH - pT + i*dH][ow*sW - pL + j*dW] (0 outside).
template <typename T> void im2col(const ConvGeom &g, int64_t channels, const T *x, T *col) {
  int64_t rows = channels * g.kH * g.kW;
  parallelFor(rows, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(g.OH * g.OW, 1)),
              [&](int64_t begin, int64_t end) {
                for (int64_t r = begin; r < end; ++r) {
                  int64_t c = r / (g.kH * g.kW), i = (r / g.kW) % g.kH, j = r % g.kW;
                  const T *plane = x + c * g.H * g.W;
                  T *dst = col + r * g.OH * g.OW;
                  for (int64_t oh = 0; oh < g.OH; ++oh) {
                    int64_t h = oh * g.strideH - g.padT + i * g.dilH;
                    T *drow = dst + oh * g.OW;
                    if (h < 0 || h >= g.H) {
                      std::fill(drow, drow + g.OW, T(0));
                      continue;
                    }
                    for (int64_t ow = 0; ow < g.OW; ++ow) {
                      int64_t w = ow * g.strideW - g.padL + j * g.dilW;
                      drow[ow] = w < 0 || w >= g.W ? T(0) : plane[h * g.W + w];
                    }
                  }
                }
              });
}

template <typename T>
void convImpl(const ConvGeom &g, const Tensor &x, const Tensor &w, const Tensor *bias,
              Tensor &out) {
  FloatInput<T> X(x), Wt(w);
  FloatOutput<T> Y(out);
  int64_t cg = g.C / g.group, mg = g.M / g.group, kk = cg * g.kH * g.kW, P = g.OH * g.OW;
  bool direct = g.kH == 1 && g.kW == 1 && g.strideH == 1 && g.strideW == 1 && g.padT == 0 &&
                g.padL == 0 && g.OH == g.H && g.OW == g.W;
  std::vector<T> col(direct ? 0 : static_cast<size_t>(kk * P));
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t gi = 0; gi < g.group; ++gi) {
      const T *xin = X.data() + (n * g.C + gi * cg) * g.H * g.W;
      const T *b = xin;
      if (!direct) {
        im2col(g, cg, xin, col.data());
        b = col.data();
      }
      gemm<T>(false, false, mg, P, kk, Wt.data() + gi * mg * kk, kk, b, P,
              Y.data() + (n * g.M + gi * mg) * P, P);
    }
  if (bias) {
    FloatInput<T> B(*bias);
    T *y = Y.data();
    parallelFor(g.N * g.M, 1, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        T bv = B.data()[r % g.M];
        for (int64_t p = 0; p < P; ++p)
          y[r * P + p] += bv;
      }
    });
  }
  Y.finish();
}

std::vector<int64_t> intsAttr(const KernelContext &ctx, const char *name, size_t n, int64_t dflt) {
  auto v = ctx.attrs().getOptionalInts(name);
  if (!v)
    return std::vector<int64_t>(n, dflt);
  if (v->size() != n)
    fail(opName(ctx), ": attribute '", name, "' needs ", n, " values, got ", v->size());
  return *v;
}

void convKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 2, 3);
  const Tensor &x = *inputs[0], &w = *inputs[1];
  const Tensor *bias = inputs.size() > 2 ? inputs[2] : nullptr;
  std::string op = opName(ctx);
  if (x.rank() != 4 || w.rank() != 4)
    fail(op, ": input ", shapeString(x.shape), " and weight ", shapeString(w.shape),
         " must be 4-D");
  for (const Tensor *t : {&w, bias})
    if (t && t->dtype != x.dtype)
      fail(op, ": operand dtypes differ (", dtypeName(x.dtype), " vs ", dtypeName(t->dtype), ")");
  auto strides = intsAttr(ctx, "strides", 2, 1), dil = intsAttr(ctx, "dilations", 2, 1);
  auto pads = intsAttr(ctx, "pads", 4, 0);
  ConvGeom g{};
  g.N = x.shape[0], g.C = x.shape[1], g.H = x.shape[2], g.W = x.shape[3];
  g.M = w.shape[0], g.kH = w.shape[2], g.kW = w.shape[3];
  g.group = ctx.attrs().getInt("group", 1);
  g.strideH = strides[0], g.strideW = strides[1], g.dilH = dil[0], g.dilW = dil[1];
  g.padT = pads[0], g.padL = pads[1];
  if (g.group < 1 || g.C != w.shape[1] * g.group || g.M % g.group != 0)
    fail(op, ": input ", shapeString(x.shape), ", weight ", shapeString(w.shape), " and group ",
         g.group, " are inconsistent");
  if (g.strideH < 1 || g.strideW < 1 || g.dilH < 1 || g.dilW < 1 || pads[0] < 0 || pads[1] < 0 ||
      pads[2] < 0 || pads[3] < 0)
    fail(op, ": strides and dilations must be >= 1 and pads >= 0");
  if (bias && (bias->rank() != 1 || bias->shape[0] != g.M))
    fail(op, ": bias ", shapeString(bias->shape), " must be [", g.M, "]");
  int64_t spanH = g.dilH * (g.kH - 1) + 1, spanW = g.dilW * (g.kW - 1) + 1;
  int64_t padH = g.H + pads[0] + pads[2], padW = g.W + pads[1] + pads[3];
  if (padH < spanH || padW < spanW)
    fail(op, ": kernel ", shapeString(w.shape), " larger than the padded input ",
         shapeString(x.shape));
  g.OH = (padH - spanH) / g.strideH + 1;
  g.OW = (padW - spanW) / g.strideW + 1;
  dispatch<kFloatTypes>(x.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    checkOutputDType(ctx, 0, x.dtype);
    Tensor &out = allocateResult(ctx, outputs, 0, {g.N, g.M, g.OH, g.OW});
    if constexpr (std::is_same_v<S, double>)
      convImpl<double>(g, x, w, bias, out);
    else
      convImpl<float>(g, x, w, bias, out);
  });
}

} // namespace

void registerConvKernels(KernelRegistry &r) { r.add("mm.conv", convKernel); }

} // namespace mm::rt::cpu
