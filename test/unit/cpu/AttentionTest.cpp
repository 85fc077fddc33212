//===- AttentionTest.cpp - scaled dot-product attention ---------------------===//
#include "KernelTestUtil.h"

#include <cmath>
#include <limits>

using namespace mm::rt;
using namespace mm::rt::cpu::test;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

/// Reference in f64: repeat_kv (head h reads KV head h / (Hq / Hkv)), scores, mask read by
/// right-aligned broadcasting, causal limit t <= s + T - S, softmax; rows with no visible
/// key give zeros (the kernel's documented choice).
std::vector<double> naiveAttention(const Tensor &q, const Tensor &k, const Tensor &v,
                                   const Tensor *mask, double scale, bool causal) {
  int64_t B = q.shape[0], Hq = q.shape[1], S = q.shape[2], D = q.shape[3];
  int64_t Hkv = k.shape[1], T = k.shape[2], Dv = v.shape[3];
  std::vector<double> out;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h)
      for (int64_t s = 0; s < S; ++s) {
        int64_t kh = h / (Hq / Hkv);
        std::vector<double> p(T);
        double mx = -kInf;
        for (int64_t t = 0; t < T; ++t) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += getElement(q, ((b * Hq + h) * S + s) * D + d) *
                   getElement(k, ((b * Hkv + kh) * T + t) * D + d);
          double sc = dot * scale;
          if (mask) {
            int64_t full[4] = {b, h, s, t}, off = 0, lead = 4 - mask->rank();
            for (int64_t d = 0; d < mask->rank(); ++d)
              off = off * mask->shape[d] + (mask->shape[d] == 1 ? 0 : full[lead + d]);
            double m = getElement(*mask, off);
            sc = mask->dtype == DType::boolean ? (m != 0 ? sc : -kInf) : sc + m;
          }
          if (causal && t > s + T - S)
            sc = -kInf;
          p[t] = sc;
          mx = std::max(mx, sc);
        }
        double sum = 0;
        for (double &x : p) {
          x = mx == -kInf ? 0 : std::exp(x - mx);
          sum += x;
        }
        for (int64_t d = 0; d < Dv; ++d) {
          double acc = 0;
          for (int64_t t = 0; t < T; ++t)
            acc += sum == 0 ? 0 : p[t] / sum * getElement(v, ((b * Hkv + kh) * T + t) * Dv + d);
          out.push_back(acc);
        }
      }
  return out;
}

struct AttnCase {
  const char *name;
  int64_t B, Hq, Hkv, S, T, D, Dv;
  bool causal;
  Shape maskShape; // empty: no mask
  DType maskType;
};

// f32 dot products of D <= 64 terms and softmax-weighted sums: 2e-6 relative plus 1e-6
// absolute for outputs near zero (values are in [-1, 1]).
constexpr double kRtol = 2e-6, kAtol = 1e-6;

TEST(Attention, AgainstNaiveReference) {
  std::vector<AttnCase> cases = {
      {"mha", 1, 2, 2, 3, 3, 8, 8, false, {}, DType::f32},
      {"gqa2 causal", 2, 4, 2, 5, 5, 16, 16, true, {}, DType::f32},
      {"gqa4 causal S<T padded", 2, 8, 2, 2, 7, 8, 8, true, {2, 1, 1, 7}, DType::f32},
      {"mqa bool mask", 1, 3, 1, 4, 6, 8, 8, false, {4, 6}, DType::boolean},
      {"decode S=1", 1, 4, 2, 1, 130, 32, 32, true, {}, DType::f32},
      {"row blocks", 1, 8, 1, 20, 20, 8, 8, true, {}, DType::f32},
      {"Dv != D, 4-D mask", 2, 2, 2, 3, 5, 8, 4, false, {2, 2, 3, 5}, DType::f32},
      {"causal S>T", 1, 2, 1, 4, 2, 8, 8, true, {}, DType::f32},
      {"T=0", 1, 2, 2, 3, 0, 8, 8, false, {}, DType::f32},
      {"large", 1, 4, 4, 64, 64, 64, 64, true, {1, 1, 64, 64}, DType::f32},
  };
  unsigned seed = 1;
  for (const AttnCase &c : cases) {
    Tensor q = randomTensor(DType::f32, {c.B, c.Hq, c.S, c.D}, seed++);
    Tensor k = randomTensor(DType::f32, {c.B, c.Hkv, c.T, c.D}, seed++);
    Tensor v = randomTensor(DType::f32, {c.B, c.Hkv, c.T, c.Dv}, seed++);
    Tensor mask;
    if (!c.maskShape.empty()) {
      std::vector<double> mv = randomValues(numElements(c.maskShape), -2, 2, seed++);
      for (double &m : mv)
        m = c.maskType == DType::boolean ? m > -1.0 : (m < -1.5 ? -kInf : m);
      mask = makeTensor(c.maskType, c.maskShape, mv);
    }
    double scale = 1 / std::sqrt(static_cast<double>(c.D));
    OpRun run("mm.attention");
    run.in(q).in(k).in(v).attr("scale", scale).attr("causal", int64_t(c.causal)).out(DType::f32);
    if (mask.data)
      run.in(mask);
    expectClose(run.run1(), {c.B, c.Hq, c.S, c.Dv},
                naiveAttention(q, k, v, mask.data ? &mask : nullptr, scale, c.causal), kRtol, kAtol,
                c.name);
  }
}

TEST(Attention, FullyMaskedRowsAreZero) {
  Tensor q = randomTensor(DType::f32, {1, 1, 2, 4}, 5),
         k = randomTensor(DType::f32, {1, 1, 3, 4}, 6);
  Tensor v = randomTensor(DType::f32, {1, 1, 3, 4}, 7);
  Tensor boolMask = makeTensor(DType::boolean, {2, 3}, {0, 0, 0, 1, 0, 1});
  Tensor y = OpRun("mm.attention")
                 .in(q)
                 .in(k)
                 .in(v)
                 .in(boolMask)
                 .attr("scale", 0.5)
                 .out(DType::f32)
                 .run1();
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(getElement(y, i), 0.0) << i;
    EXPECT_FALSE(std::isnan(getElement(y, 4 + i)));
  }
  Tensor addMask = makeF32({2, 3}, {-kInf, -kInf, -kInf, 0, 0, 0});
  y = OpRun("mm.attention").in(q).in(k).in(v).in(addMask).attr("scale", 0.5).out(DType::f32).run1();
  for (int64_t i = 0; i < 4; ++i)
    EXPECT_EQ(getElement(y, i), 0.0) << i;
}

TEST(Attention, OnnxFullyMaskedRowCase) {
  // ../shared/conformance/onnx-node/test_attention_23_boolmask_fullymasked_row_nan_robustness:
  // Q, K, V [1, 2, 2, 8], mask [[F, F], [T, T]], default scale 1/sqrt(8), expected output.
  Tensor q =
      makeF32({1, 2, 2, 8},
              {0.9670298,  0.5472323,  0.9726844,  0.714816,   0.6977288,  0.2160895,  0.97627443,
               0.00623026, 0.25298235, 0.43479154, 0.77938294, 0.19768508, 0.86299324, 0.9834007,
               0.16384225, 0.59733397, 0.0089861,  0.3865713,  0.04416006, 0.95665294, 0.43614665,
               0.9489773,  0.78630596, 0.8662893,  0.17316543, 0.07494859, 0.6007427,  0.16797218,
               0.73338014, 0.40844387, 0.5279088,  0.9375716});
  Tensor k =
      makeF32({1, 2, 2, 8},
              {0.52169615, 0.10819338, 0.1582234,  0.5452027,  0.5244041,  0.63761026, 0.40149546,
               0.6498051,  0.3969,     0.6239161,  0.767405,   0.17897391, 0.37557578, 0.5025331,
               0.6866671,  0.25367966, 0.55474085, 0.62493086, 0.89550114, 0.3628536,  0.6375571,
               0.19144641, 0.49779412, 0.1824454,  0.91838306, 0.43182206, 0.8301881,  0.4167763,
               0.9046676,  0.4048252,  0.3311745,  0.5721388});
  Tensor v =
      makeF32({1, 2, 2, 8},
              {0.84544367, 0.8610143,  0.5956881,  0.08466161, 0.5972666, 0.24545372, 0.7325935,
               0.8946513,  0.51473397, 0.6035635,  0.06506781, 0.5400747, 0.12918678, 0.61456287,
               0.36365035, 0.767758,   0.04853414, 0.10981812, 0.6840232, 0.5146537,  0.5716414,
               0.84370697, 0.48773763, 0.8101444,  0.51024365, 0.9267207, 0.66692775, 0.14872684,
               0.36455318, 0.8657749,  0.3502852,  0.18902576});
  Tensor mask = makeTensor(DType::boolean, {2, 2}, {0, 0, 1, 1});
  Tensor y = OpRun("mm.attention")
                 .in(q)
                 .in(k)
                 .in(v)
                 .in(mask)
                 .attr("scale", 1 / std::sqrt(8.0))
                 .out(DType::f32)
                 .run1();
  // The printed reference has 7-8 significant digits.
  expectClose(y, {1, 2, 2, 8},
              {0,          0,          0,          0,          0,          0,          0,
               0,          0.675884,   0.7290155,  0.32363138, 0.31815854, 0.35727528, 0.43470135,
               0.543431,   0.8295913,  0,          0,          0,          0,          0,
               0,          0,          0,          0.3029263,  0.5599141,  0.674604,   0.31303576,
               0.45754018, 0.85586596, 0.41200426, 0.4679212},
              1e-6, 1e-7);
}

TEST(Attention, HalfTypes) {
  for (DType t : {DType::f16, DType::bf16}) {
    Tensor q = randomTensor(t, {1, 4, 3, 16}, 51), k = randomTensor(t, {1, 2, 6, 16}, 52);
    Tensor v = randomTensor(t, {1, 2, 6, 16}, 53);
    Tensor mask = makeTensor(t, {3, 6}, randomValues(18, -1, 0, 54));
    Tensor y = OpRun("mm.attention")
                   .in(q)
                   .in(k)
                   .in(v)
                   .in(mask)
                   .attr("scale", 0.25)
                   .attr("causal", int64_t(1))
                   .out(t)
                   .run1();
    ASSERT_EQ(y.dtype, t);
    // f32 compute from the rounded inputs, one rounding on store (2^-11 / 2^-8 relative);
    // outputs are averages of values in [-1, 1], so an absolute term covers near-zero ones.
    double tol = t == DType::f16 ? 1e-3 : 8e-3;
    expectClose(y, {1, 4, 3, 16}, naiveAttention(q, k, v, &mask, 0.25, true), tol, tol,
                dtypeName(t).data());
  }
}

TEST(Attention, Errors) {
  Tensor q = randomTensor(DType::f32, {1, 3, 2, 4}, 1),
         k = randomTensor(DType::f32, {1, 2, 2, 4}, 2);
  expectError(
      [&] { OpRun("mm.attention").in(q).in(k).in(k).attr("scale", 1.0).out(DType::f32).run1(); },
      "inconsistent");
  Tensor q4 = randomTensor(DType::f32, {1, 4, 2, 4}, 1), mask = makeF32({3, 2}, randomValues(6));
  expectError(
      [&] {
        OpRun("mm.attention").in(q4).in(k).in(k).in(mask).attr("scale", 1.0).out(DType::f32).run1();
      },
      "does not broadcast");
  expectError([&] { OpRun("mm.attention").in(q4).in(k).in(k).out(DType::f32).run1(); },
              "missing attribute 'scale'");
}

} // namespace
