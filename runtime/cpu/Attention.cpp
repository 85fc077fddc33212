//===- Attention.cpp - scaled dot-product attention with GQA ----------------===//
//
// softmax(scale * Q K^T + mask) V (Vaswani et al. 2017). query [B, Hq, S, D], key
// [B, Hkv, T, D], value [B, Hkv, T, Dv] -> [B, Hq, S, Dv]; query head h reads KV head
// h / (Hq / Hkv) (GQA, Ainslie et al. 2023). The optional mask broadcasts to
// [B, Hq, S, T]: boolean (true = attend) or additive float. `causal` hides keys
// t > s + (T - S): the queries are the last S of the T positions.
//
// Fully masked rows: a query row whose every score is -inf after the mask and the causal
// rule (including T = 0, and rows s < S - T under `causal`) produces zeros, not NaN (the
// choice ONNX Attention-23 makes). The softmax subtracts the row maximum, so it neither
// overflows nor underflows to 0/0 otherwise.
//
// Each task takes one (batch, KV head) and a block of the query rows of the heads that
// share it, so the scores and the weighted sum are two GEMMs through OpenBLAS.
// Computes in f32 (f16/bf16 staged through f32) or f64.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/FastExp.h"
#include "runtime/cpu/Gemm.h"
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"

#include <cmath>
#include <limits>
#include <optional>

namespace mm::rt::cpu {
namespace {

struct AttnGeom {
  int64_t B, Hq, Hkv, S, T, D, Dv;
  double scale;
  bool causal;
};

/// The mask read at [b, h, s, t] through broadcast strides.
template <typename C> struct MaskView {
  const uint8_t *boolData = nullptr; // boolean mask
  const C *addData = nullptr;        // additive mask
  std::array<int64_t, 4> strides{};
};

/// Query rows processed per task (bounds the scores buffer to kRowBlock x T).
constexpr int64_t kRowBlock = 64;

template <typename C>
void attentionImpl(const AttnGeom &g, const C *q, const C *k, const C *v, const MaskView<C> &mask,
                   C *out) {
  const int64_t ratio = g.Hq / g.Hkv, groupRows = ratio * g.S;
  const int64_t blocks = (groupRows + kRowBlock - 1) / kRowBlock;
  const C negInf = -std::numeric_limits<C>::infinity(), scale = static_cast<C>(g.scale);
  parallelFor(g.B * g.Hkv * blocks, 1, [&](int64_t begin, int64_t end) {
    std::vector<C> scores(static_cast<size_t>(kRowBlock * std::max<int64_t>(g.T, 1)));
    for (int64_t task = begin; task < end; ++task) {
      int64_t group = task / blocks, r0 = (task % blocks) * kRowBlock;
      int64_t b = group / g.Hkv, kvh = group % g.Hkv, m = std::min(kRowBlock, groupRows - r0);
      // The query heads sharing KV head kvh are consecutive: their rows form one matrix.
      int64_t qRow0 = (b * g.Hq + kvh * ratio) * g.S + r0;
      const C *kb = k + (b * g.Hkv + kvh) * g.T * g.D, *vb = v + (b * g.Hkv + kvh) * g.T * g.Dv;
      // Keys visible to row r (before the mask): t < limit(r). Under `causal` the block
      // only needs the keys up to its largest limit, so both GEMMs stop there.
      auto limitOf = [&](int64_t r) {
        int64_t s = r % g.S;
        return g.causal ? std::min(g.T, std::max<int64_t>(s + g.T - g.S + 1, 0)) : g.T;
      };
      int64_t tEnd = 0;
      for (int64_t i = 0; i < m; ++i)
        tEnd = std::max(tEnd, limitOf(r0 + i));
      gemm<C>(false, true, m, tEnd, g.D, q + qRow0 * g.D, g.D, kb, g.D, scores.data(), tEnd);
      for (int64_t i = 0; i < m; ++i) {
        int64_t r = r0 + i, h = kvh * ratio + r / g.S, s = r % g.S, limit = limitOf(r);
        C *row = scores.data() + i * tEnd;
        int64_t mbase = b * mask.strides[0] + h * mask.strides[1] + s * mask.strides[2];
        C mx = negInf;
        for (int64_t t = 0; t < limit; ++t) {
          C val = row[t] * scale;
          if (mask.boolData && !mask.boolData[mbase + t * mask.strides[3]])
            val = negInf;
          else if (mask.addData)
            val += mask.addData[mbase + t * mask.strides[3]];
          row[t] = val;
          mx = val > mx ? val : mx;
        }
        if (mx == negInf) { // fully masked: zeros (see the file comment)
          std::fill(row, row + tEnd, C(0));
          continue;
        }
        for (int64_t t = 0; t < limit; ++t) // separate from the sum: vectorizes
          row[t] = fastExp(row[t] - mx);    // exp(-inf) = 0
        C sum = 0;
        for (int64_t t = 0; t < limit; ++t)
          sum += row[t];
        C inv = C(1) / sum;
        for (int64_t t = 0; t < limit; ++t)
          row[t] *= inv;
        std::fill(row + limit, row + tEnd, C(0));
      }
      gemm<C>(false, false, m, g.Dv, tEnd, scores.data(), tEnd, vb, g.Dv, out + qRow0 * g.Dv, g.Dv);
    }
  });
}

template <typename C>
void runAttention(const AttnGeom &g, const Tensor &q, const Tensor &k, const Tensor &v,
                  const Tensor *mask, Tensor &out) {
  FloatInput<C> Q(q), K(k), V(v);
  FloatOutput<C> O(out);
  MaskView<C> mv;
  std::optional<FloatInput<C>> addMask;
  if (mask) {
    std::vector<int64_t> st = broadcastStrides(mask->shape, {g.B, g.Hq, g.S, g.T});
    std::copy(st.begin(), st.end(), mv.strides.begin());
    if (mask->dtype == DType::boolean) {
      mv.boolData = mask->as<uint8_t>();
    } else {
      addMask.emplace(*mask);
      mv.addData = addMask->data();
    }
  }
  attentionImpl<C>(g, Q.data(), K.data(), V.data(), mv, O.data());
  O.finish();
}

void attentionKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                     std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 3, 4);
  const Tensor &q = *inputs[0], &k = *inputs[1], &v = *inputs[2];
  const Tensor *mask = inputs.size() > 3 ? inputs[3] : nullptr;
  std::string op = opName(ctx);
  if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4)
    fail(op, ": query ", shapeString(q.shape), ", key ", shapeString(k.shape), " and value ",
         shapeString(v.shape), " must be 4-D [batch, heads, seq, head_dim]");
  AttnGeom g{q.shape[0],
             q.shape[1],
             k.shape[1],
             q.shape[2],
             k.shape[2],
             q.shape[3],
             v.shape[3],
             ctx.attrs().getFloat("scale"),
             ctx.attrs().getInt("causal", 0) != 0};
  if (k.shape[0] != g.B || v.shape[0] != g.B || v.shape[1] != g.Hkv || v.shape[2] != g.T ||
      k.shape[3] != g.D || g.Hkv == 0 || g.Hq % g.Hkv != 0)
    fail(op, ": query ", shapeString(q.shape), ", key ", shapeString(k.shape), " and value ",
         shapeString(v.shape), " are inconsistent (batch, heads Hq % Hkv == 0, seq, head_dim)");
  for (const Tensor *t : {&k, &v})
    if (t->dtype != q.dtype)
      fail(op, ": operand dtypes differ (", dtypeName(q.dtype), " vs ", dtypeName(t->dtype), ")");
  if (mask) {
    Shape scores{g.B, g.Hq, g.S, g.T};
    if (!broadcastsTo(mask->shape, scores))
      fail(op, ": mask ", shapeString(mask->shape), " does not broadcast to ", shapeString(scores));
    if (mask->dtype != DType::boolean)
      dispatch<kFloatTypes>(
          mask->dtype, op, [](auto) {}, "mask");
  }
  dispatch<kFloatTypes>(q.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    checkOutputDType(ctx, 0, q.dtype);
    Tensor &out = allocateResult(ctx, outputs, 0, {g.B, g.Hq, g.S, g.Dv});
    if constexpr (std::is_same_v<S, double>)
      runAttention<double>(g, q, k, v, mask, out);
    else
      runAttention<float>(g, q, k, v, mask, out);
  });
}

} // namespace

void registerAttentionKernels(KernelRegistry &r) { r.add("mm.attention", attentionKernel); }

} // namespace mm::rt::cpu
