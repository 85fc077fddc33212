//===- Rotary.cpp - rotary position embedding -------------------------------===//
//
// RoFormer (Su et al. 2021). input [B, H, S, D]; cos, sin [S, R] or [B or 1, S, R] with
// R <= D even, in the full-width form (each angle's value at both channels of its pair).
// The first R channels rotate, the rest pass through:
//   rotate-half (GPT-NeoX/Llama): pairs (i, i + R/2),
//     out[i] = x[i] cos[i] - x[i+R/2] sin[i], out[i+R/2] = x[i+R/2] cos[i+R/2] + x[i] sin[i+R/2]
//   interleaved (GPT-J): pairs (2i, 2i+1), likewise.
// Computes in f32 (f64 for f64).
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"

#include <cstring>

namespace mm::rt::cpu {
namespace {

template <typename S>
void rotaryImpl(const Tensor &x, const Tensor &cosT, const Tensor &sinT, bool interleaved,
                Tensor &y) {
  using C = std::conditional_t<std::is_same_v<S, double>, double, float>;
  int64_t B = x.shape[0], H = x.shape[1], S_ = x.shape[2], D = x.shape[3];
  int64_t R = cosT.shape.back(), half = R / 2;
  bool perBatch = cosT.rank() == 3 && cosT.shape[0] == B && B > 1;
  std::vector<C> cs(static_cast<size_t>(cosT.numel())), sn(static_cast<size_t>(sinT.numel()));
  convertToCompute(cosT.data, cosT.dtype, cs.data(), cosT.numel());
  convertToCompute(sinT.data, sinT.dtype, sn.data(), sinT.numel());
  const S *in = x.as<S>();
  S *out = y.as<S>();
  parallelFor(B * H * S_, std::max<int64_t>(1, 8192 / std::max<int64_t>(D, 1)),
              [&](int64_t begin, int64_t end) {
                for (int64_t row = begin; row < end; ++row) {
                  int64_t b = row / (H * S_), s = row % S_;
                  const C *c = cs.data() + ((perBatch ? b : 0) * S_ + s) * R;
                  const C *sv = sn.data() + ((perBatch ? b : 0) * S_ + s) * R;
                  const S *xr = in + row * D;
                  S *yr = out + row * D;
                  auto ld = [&](int64_t i) { return static_cast<C>(Elem<S>::load(xr[i])); };
                  auto st = [&](int64_t i, C v) {
                    yr[i] = Elem<S>::store(static_cast<typename Elem<S>::C>(v));
                  };
                  for (int64_t i = 0; i < half; ++i) {
                    int64_t a = interleaved ? 2 * i : i, p = interleaved ? 2 * i + 1 : i + half;
                    C x1 = ld(a), x2 = ld(p);
                    st(a, x1 * c[a] - x2 * sv[a]);
                    st(p, x2 * c[p] + x1 * sv[p]);
                  }
                  if (D > R)
                    std::memcpy(yr + R, xr + R, static_cast<size_t>(D - R) * sizeof(S));
                }
              });
}

void rotaryKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                  std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 3, 3);
  const Tensor &x = *inputs[0], &c = *inputs[1], &s = *inputs[2];
  std::string op = opName(ctx);
  if (x.rank() != 4)
    fail(op, ": input ", shapeString(x.shape), " must be 4-D [batch, heads, seq, head_dim]");
  if (c.shape != s.shape || (c.rank() != 2 && c.rank() != 3))
    fail(op, ": cos ", shapeString(c.shape), " and sin ", shapeString(s.shape),
         " must both be [seq, rot] or [batch, seq, rot]");
  int64_t R = c.shape.back();
  if (c.shape[c.rank() - 2] != x.shape[2] || R % 2 != 0 || R > x.shape[3] ||
      (c.rank() == 3 && c.shape[0] != 1 && c.shape[0] != x.shape[0]))
    fail(op, ": cos/sin ", shapeString(c.shape), " do not fit input ", shapeString(x.shape),
         " (seq must match, rot even and <= head_dim, batch 1 or the input's)");
  for (const Tensor *t : {&c, &s})
    if (t->dtype != x.dtype)
      fail(op, ": operand dtypes differ (", dtypeName(x.dtype), " vs ", dtypeName(t->dtype), ")");
  bool interleaved = ctx.attrs().getInt("interleaved", 0) != 0;
  dispatch<kFloatTypes>(x.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    checkOutputDType(ctx, 0, x.dtype);
    Tensor &y = allocateResult(ctx, outputs, 0, x.shape);
    rotaryImpl<S>(x, c, s, interleaved, y);
  });
}

} // namespace

void registerRotaryKernels(KernelRegistry &r) { r.add("mm.rotary", rotaryKernel); }

} // namespace mm::rt::cpu
