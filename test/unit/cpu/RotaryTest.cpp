//===- RotaryTest.cpp - rotary position embedding ---------------------------===//
#include "KernelTestUtil.h"

#include <cmath>

using namespace mm::rt;
using namespace mm::rt::cpu::test;

namespace {

/// cos/sin tables as HF builds them: angle pos * base^(-2i/R), duplicated across the two
/// halves (rotate-half) or across each pair (interleaved). Returns [S, R] values.
void buildTables(int64_t S, int64_t R, bool interleaved, std::vector<double> &c,
                 std::vector<double> &s) {
  for (int64_t p = 0; p < S; ++p)
    for (int64_t j = 0; j < R; ++j) {
      int64_t i = interleaved ? j / 2 : j % (R / 2);
      double angle = (p + 3) * std::pow(10000.0, -2.0 * i / R);
      c.push_back(std::cos(angle));
      s.push_back(std::sin(angle));
    }
}

/// HF's formula on the first R channels: x * cos + rotate(x) * sin, with
/// rotate_half(x) = cat(-x[R/2:], x[:R/2]) or rotate_every_two(x)[2i] = -x[2i+1],
/// [2i+1] = x[2i]; channels R.. pass through.
std::vector<double> naiveRotary(const Tensor &x, const std::vector<double> &c,
                                const std::vector<double> &s, int64_t R, bool interleaved,
                                bool perBatch) {
  int64_t B = x.shape[0], H = x.shape[1], S = x.shape[2], D = x.shape[3];
  std::vector<double> v = toDoubles(x), out(v.size());
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t p = 0; p < S; ++p) {
        const double *xr = &v[((b * H + h) * S + p) * D];
        double *yr = &out[((b * H + h) * S + p) * D];
        int64_t t = ((perBatch ? b : 0) * S + p) * R;
        for (int64_t j = 0; j < D; ++j) {
          if (j >= R) {
            yr[j] = xr[j];
            continue;
          }
          double rot = interleaved ? (j % 2 == 0 ? -xr[j + 1] : xr[j - 1])
                                   : (j < R / 2 ? -xr[j + R / 2] : xr[j - R / 2]);
          yr[j] = xr[j] * c[t + j] + rot * s[t + j];
        }
      }
  return out;
}

TEST(Rotary, RotateHalfAndInterleavedFullAndPartial) {
  struct Case {
    int64_t B, H, S, D, R;
    bool interleaved;
    int tableRank; // 2: [S, R]; 3: [1, S, R]; 4 means [B, S, R]
  };
  std::vector<Case> cases = {{1, 2, 5, 8, 8, false, 2},
                             {2, 3, 4, 16, 8, false, 3},
                             {2, 2, 3, 8, 8, true, 2},
                             {1, 2, 4, 12, 4, true, 3},
                             {2, 2, 3, 8, 6, false, 4}};
  unsigned seed = 3;
  for (const Case &c : cases) {
    Tensor x = randomTensor(DType::f32, {c.B, c.H, c.S, c.D}, seed++);
    std::vector<double> cv, sv;
    int64_t tables = c.tableRank == 4 ? c.B : 1;
    for (int64_t b = 0; b < tables; ++b) {
      std::vector<double> cb, sb;
      buildTables(c.S, c.R, c.interleaved, cb, sb);
      for (double &a : cb)
        a += 0.01 * b; // make per-batch tables differ
      cv.insert(cv.end(), cb.begin(), cb.end());
      sv.insert(sv.end(), sb.begin(), sb.end());
    }
    Shape ts = c.tableRank == 2 ? Shape{c.S, c.R} : Shape{tables, c.S, c.R};
    Tensor ct = makeF32(ts, cv), st = makeF32(ts, sv);
    Tensor y = OpRun("mm.rotary")
                   .in(x)
                   .in(ct)
                   .in(st)
                   .attr("interleaved", int64_t(c.interleaved))
                   .out(DType::f32)
                   .run1();
    // Two f32 products and a sum per element: 2 ulps relative, plus 1e-7 near zero.
    expectClose(y, x.shape,
                naiveRotary(x, toDoubles(ct), toDoubles(st), c.R, c.interleaved, tables > 1),
                2.4e-7, 1e-7,
                "D " + std::to_string(c.D) + " R " + std::to_string(c.R) +
                    (c.interleaved ? " interleaved" : ""));
  }
}

TEST(Rotary, HandComputedQuarterTurn) {
  // Angle pi/2 for every pair: rotate-half maps (x1, x2) -> (-x2, x1).
  Tensor x = makeF32({1, 1, 1, 4}, {1, 2, 3, 4});
  Tensor c = makeF32({1, 4}, {0, 0, 0, 0}), s = makeF32({1, 4}, {1, 1, 1, 1});
  expectExact(OpRun("mm.rotary").in(x).in(c).in(s).out(DType::f32).run1(), DType::f32, {1, 1, 1, 4},
              {-3, -4, 1, 2});
  expectExact(
      OpRun("mm.rotary").in(x).in(c).in(s).attr("interleaved", int64_t(1)).out(DType::f32).run1(),
      DType::f32, {1, 1, 1, 4}, {-2, 1, -4, 3});
}

TEST(Rotary, HalfAndErrors) {
  Tensor x = randomTensor(DType::f16, {1, 2, 3, 8}, 9);
  std::vector<double> cv, sv;
  buildTables(3, 8, false, cv, sv);
  Tensor c = makeTensor(DType::f16, {3, 8}, cv), s = makeTensor(DType::f16, {3, 8}, sv);
  expectClose(OpRun("mm.rotary").in(x).in(c).in(s).out(DType::f16).run1(), x.shape,
              naiveRotary(x, toDoubles(c), toDoubles(s), 8, false, false), 4.9e-4,
              1e-4); // one f16 rounding
  Tensor odd = makeTensor(DType::f16, {3, 7}, std::vector<double>(21, 0));
  expectError([&] { OpRun("mm.rotary").in(x).in(odd).in(odd).out(DType::f16).run1(); },
              "do not fit");
  Tensor c4 = makeTensor(DType::f16, {4, 8}, std::vector<double>(32, 0));
  expectError([&] { OpRun("mm.rotary").in(x).in(c4).in(c4).out(DType::f16).run1(); }, "do not fit");
}

} // namespace
