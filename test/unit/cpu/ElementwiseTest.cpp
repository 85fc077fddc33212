//===- ElementwiseTest.cpp - unary, binary, compare, logic, where, activations ===//
#include "KernelTestUtil.h"

#include <cmath>
#include <functional>
#include <limits>

using namespace mm::rt;
using namespace mm::rt::cpu::test;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// Inputs and numpy float32 results (numpy 1.24, /usr/bin/python3), see the test comments.
const std::vector<double> kX = {-3.0, -1.25, -0.5, 0.0, 0.30000001192092896, 1.0, 2.75, 8.0};
const std::vector<double> kP = {0.009999999776482582, 0.25, 0.5, 1.0, 2.0, 3.5, 10.0, 100.0};

// libm and numpy may differ by an ulp or two in f32: 4 ulps relative (2^-21).
constexpr double kUnaryRtol = 4.8e-7;

Tensor unary(const std::string &op, const Tensor &x) { return OpRun(op).in(x).out(x.dtype).run1(); }

TEST(Unary, FloatMathMatchesNumpy) {
  Tensor x = makeF32({2, 4}, kX), p = makeF32({8}, kP);
  expectClose(unary("mm.sqrt", p), {8},
              {0.10000000149011612, 0.5, 0.7071067690849304, 1.0, 1.4142135381698608,
               1.8708287477493286, 3.1622776985168457, 10.0},
              kUnaryRtol, 0);
  expectClose(
      unary("mm.reciprocal", p), {8},
      {100.0, 4.0, 2.0, 1.0, 0.5, 0.2857142984867096, 0.10000000149011612, 0.009999999776482582},
      kUnaryRtol, 0);
  expectClose(unary("mm.exp", x), {2, 4},
              {0.049787066876888275, 0.2865047752857208, 0.6065306663513184, 1.0,
               1.3498587608337402, 2.7182819843292236, 15.642632484436035, 2980.9580078125},
              kUnaryRtol, 0);
  expectClose(unary("mm.log", p), {8},
              {-4.605170249938965, -1.3862943649291992, -0.6931471824645996, 0.0,
               0.6931471824645996, 1.252763032913208, 2.3025851249694824, 4.605170249938965},
              kUnaryRtol, 0);
  expectClose(unary("mm.erf", x), {2, 4},
              {-0.9999778866767883, -0.9229001402854919, -0.5204998850822449, 0.0,
               0.3286267817020416, 0.8427007794380188, 0.9998993873596191, 1.0},
              kUnaryRtol, 0);
  expectClose(unary("mm.tanh", x), {2, 4},
              {-0.9950547814369202, -0.8482836484909058, -0.46211719512939453, 0.0,
               0.29131263494491577, 0.7615941762924194, 0.9918597340583801, 0.9999997615814209},
              kUnaryRtol, 0);
  expectClose(unary("mm.sigmoid", x), {2, 4},
              {0.04742587357759476, 0.22270013391971588, 0.3775406777858734, 0.5,
               0.5744425058364868, 0.7310585975646973, 0.9399133324623108, 0.9996646642684937},
              kUnaryRtol, 0);
  expectClose(unary("mm.sin", x), {2, 4},
              {-0.14112000167369843, -0.9489846229553223, -0.4794255495071411, 0.0,
               0.29552021622657776, 0.8414710164070129, 0.38166099786758423, 0.9893582463264465},
              kUnaryRtol, 1e-7);
  expectClose(unary("mm.cos", x), {2, 4},
              {-0.9899924993515015, 0.3153223693370819, 0.8775825500488281, 1.0, 0.9553365111351013,
               0.5403022766113281, -0.9243023991584778, -0.1455000340938568},
              kUnaryRtol, 1e-7);
  expectExact(unary("mm.floor", x), DType::f32, {2, 4},
              {-3.0, -2.0, -1.0, 0.0, 0.0, 1.0, 2.0, 8.0});
  expectExact(unary("mm.ceil", x), DType::f32, {2, 4}, {-3.0, -1.0, -0.0, 0.0, 1.0, 1.0, 3.0, 8.0});
}

TEST(Unary, SigmoidSaturatesWithoutNaN) {
  Tensor x = makeF32({4}, {-1000, -100, 100, 1000});
  expectClose(unary("mm.sigmoid", x), {4}, {0, 3.7200759760208356e-44, 1, 1}, 0, 1e-30);
}

TEST(Unary, NegAbsReluOnIntsAndFloats) {
  Tensor f = makeF32({5}, {-2.5, -0.0, 0, 1.5, kNaN});
  expectExact(unary("mm.neg", f), DType::f32, {5}, {2.5, 0, -0.0, -1.5, kNaN});
  expectExact(unary("mm.abs", f), DType::f32, {5}, {2.5, 0, 0, 1.5, kNaN});
  expectExact(unary("mm.relu", f), DType::f32, {5}, {0, 0, 0, 1.5, kNaN});
  Tensor i = makeTensor(DType::i32, {4}, {-7, 0, 5, -2147483648.0});
  // The most negative integer has no positive counterpart: it wraps to itself.
  expectExact(unary("mm.neg", i), DType::i32, {4}, {7, 0, -5, -2147483648.0});
  expectExact(unary("mm.abs", i), DType::i32, {4}, {7, 0, 5, -2147483648.0});
  expectExact(unary("mm.relu", i), DType::i32, {4}, {0, 0, 5, 0});
  Tensor u = makeTensor(DType::u8, {3}, {0, 7, 255});
  expectExact(unary("mm.abs", u), DType::u8, {3}, {0, 7, 255});
}

TEST(Unary, NotAndIsNan) {
  Tensor b = makeTensor(DType::boolean, {3}, {1, 0, 1});
  expectExact(unary("mm.not", b), DType::boolean, {3}, {0, 1, 0});
  Tensor f = makeF32({4}, {1, kNaN, kInf, -kNaN});
  expectExact(OpRun("mm.is_nan").in(f).out(DType::boolean).run1(), DType::boolean, {4},
              {0, 1, 0, 1});
}

TEST(Unary, HalfTypesComputeInF32) {
  // exp on f16/bf16: the f32 result of the rounded input, rounded once on store.
  for (DType t : {DType::f16, DType::bf16}) {
    Tensor x = makeTensor(t, {8}, kX);
    Tensor y = unary("mm.exp", x);
    ASSERT_EQ(y.dtype, t);
    for (int64_t i = 0; i < 8; ++i) {
      Tensor ref = makeTensor(t, {1}, {std::exp(static_cast<float>(getElement(x, i)))});
      EXPECT_EQ(getElement(y, i), getElement(ref, 0)) << dtypeName(t) << " element " << i;
    }
  }
}

TEST(Unary, RejectsUnsupportedDTypes) {
  Tensor i = makeTensor(DType::i64, {2}, {1, 2});
  expectError([&] { unary("mm.sqrt", i); }, "mm.sqrt: unsupported input dtype i64");
  Tensor u = makeTensor(DType::u8, {2}, {1, 2});
  expectError([&] { unary("mm.neg", u); }, "unsupported input dtype u8");
  Tensor f = makeF32({2}, {1, 2});
  expectError([&] { OpRun("mm.exp").in(f).out(DType::f16).run1(); }, "declared f16");
}

//===----------------------------------------------------------------------===//
// Binary ops: against a naive broadcast written independently here.
//===----------------------------------------------------------------------===//

/// Element of `vals` (shape `s`) that output multi-index `idx` reads under broadcasting.
double broadcastRead(const std::vector<double> &vals, const Shape &s,
                     const std::vector<int64_t> &idx) {
  int64_t off = 0, lead = static_cast<int64_t>(idx.size() - s.size());
  for (size_t d = 0; d < s.size(); ++d)
    off = off * s[d] + (s[d] == 1 ? 0 : idx[lead + d]);
  return vals[off];
}

std::vector<double> naiveBinary(const Shape &out, const Shape &a, const std::vector<double> &av,
                                const Shape &b, const std::vector<double> &bv,
                                const std::function<double(double, double)> &f) {
  std::vector<double> r;
  std::vector<int64_t> idx(out.size(), 0);
  for (int64_t i = 0; i < numElements(out); ++i) {
    r.push_back(f(broadcastRead(av, a, idx), broadcastRead(bv, b, idx)));
    for (size_t d = out.size(); d-- > 0;)
      if (++idx[d] < out[d])
        break;
      else
        idx[d] = 0;
  }
  return r;
}

struct BroadcastCase {
  Shape a, b, out;
};
const std::vector<BroadcastCase> kBroadcastCases = {
    {{2, 3, 4}, {2, 3, 4}, {2, 3, 4}},         // same shape
    {{2, 3, 4}, {4}, {2, 3, 4}},               // rank mismatch, trailing vector
    {{2, 1, 4}, {3, 1}, {2, 3, 4}},            // both sides broadcast
    {{}, {2, 3}, {2, 3}},                      // scalar lhs
    {{3, 1, 1}, {1, 5, 2}, {3, 5, 2}},         // outer broadcast
    {{4, 1}, {4, 300}, {4, 300}},              // column vector against a wide matrix
    {{5, 0, 3}, {3}, {5, 0, 3}},               // size-0 dim
    {{1}, {0}, {0}},                           // 1 broadcasts to 0
    {{70, 1, 600}, {1, 3, 600}, {70, 3, 600}}, // large enough to run in parallel
};

TEST(Binary, FloatArithmeticBroadcasts) {
  struct Op {
    const char *name;
    std::function<double(double, double)> f;
  };
  std::vector<Op> ops = {{"mm.add", [](double a, double b) { return a + b; }},
                         {"mm.sub", [](double a, double b) { return a - b; }},
                         {"mm.mul", [](double a, double b) { return a * b; }},
                         {"mm.div", [](double a, double b) { return a / b; }},
                         {"mm.max", [](double a, double b) { return std::max(a, b); }},
                         {"mm.min", [](double a, double b) { return std::min(a, b); }}};
  for (const BroadcastCase &c : kBroadcastCases)
    for (const Op &op : ops) {
      Tensor a = randomTensor(DType::f32, c.a, 1), b = randomTensor(DType::f32, c.b, 2, 0.5, 2.0);
      Tensor y = OpRun(op.name).in(a).in(b).out(DType::f32).run1();
      // One f32 rounding of an exact double result: 2^-24 relative.
      expectClose(y, c.out, naiveBinary(c.out, c.a, toDoubles(a), c.b, toDoubles(b), op.f), 6e-8, 0,
                  std::string(op.name) + " " + shapeString(c.a) + " x " + shapeString(c.b));
    }
}

TEST(Binary, PowMatchesNumpy) {
  // numpy: np.power(np.float32([[2],[0.5]]), np.float32([3, -1, 0.5]))
  Tensor a = makeF32({2, 1}, {2, 0.5}), b = makeF32({3}, {3, -1, 0.5});
  expectClose(OpRun("mm.pow").in(a).in(b).out(DType::f32).run1(), {2, 3},
              {8, 0.5, 1.4142135381698608, 0.125, 2, 0.7071067690849304}, 1.2e-7, 0);
}

TEST(Binary, IntegerArithmetic) {
  Tensor a = makeTensor(DType::i32, {4}, {7, -7, 7, -7}),
         b = makeTensor(DType::i32, {4}, {2, 2, -2, -2});
  // Integer Div truncates toward zero (ONNX; numpy's // would floor).
  expectExact(OpRun("mm.div").in(a).in(b).out(DType::i32).run1(), DType::i32, {4}, {3, -3, -3, 3});
  expectExact(OpRun("mm.mul").in(a).in(b).out(DType::i32).run1(), DType::i32, {4},
              {14, -14, -14, 14});
  Tensor m = makeI64({2}, {INT64_MIN, 5}), n = makeI64({2}, {-1, -1});
  Tensor q = OpRun("mm.div").in(m).in(n).out(DType::i64).run1();
  EXPECT_EQ(q.as<int64_t>()[0], INT64_MIN); // wraps instead of trapping
  EXPECT_EQ(q.as<int64_t>()[1], -5);
  Tensor u = makeTensor(DType::u8, {2}, {250, 3}), v = makeTensor(DType::u8, {1}, {10});
  expectExact(OpRun("mm.add").in(u).in(v).out(DType::u8).run1(), DType::u8, {2},
              {4, 13}); // mod 256
  Tensor w = makeTensor(DType::u16, {1}, {65535});
  expectExact(OpRun("mm.mul").in(w).in(w).out(DType::u16).run1(), DType::u16, {1}, {1});
  expectExact(OpRun("mm.max").in(a).in(b).out(DType::i32).run1(), DType::i32, {4}, {7, 2, 7, -2});
}

TEST(Binary, IntegerDivisionByZeroThrows) {
  Tensor a = makeTensor(DType::i64, {2}, {1, 2}), b = makeTensor(DType::i64, {2}, {1, 0});
  expectError([&] { OpRun("mm.div").in(a).in(b).out(DType::i64).run1(); }, "division by zero");
}

TEST(Binary, MaxMinPropagateNaN) {
  Tensor a = makeF32({3}, {kNaN, 1, 2}), b = makeF32({3}, {0, kNaN, 3});
  expectExact(OpRun("mm.max").in(a).in(b).out(DType::f32).run1(), DType::f32, {3}, {kNaN, kNaN, 3});
  expectExact(OpRun("mm.min").in(a).in(b).out(DType::f32).run1(), DType::f32, {3}, {kNaN, kNaN, 2});
}

TEST(Binary, HalfAddRoundsOnce) {
  for (DType t : {DType::f16, DType::bf16}) {
    Tensor a = randomTensor(t, {3, 5}, 3), b = randomTensor(t, {5}, 4);
    Tensor y = OpRun("mm.add").in(a).in(b).out(t).run1();
    std::vector<double> want =
        naiveBinary({3, 5}, {3, 5}, toDoubles(a), {5}, toDoubles(b),
                    [](double x, double z) { return static_cast<float>(x + z); });
    Tensor ref = makeTensor(t, {3, 5}, want); // the exact sum rounded once to t
    expectExact(y, t, {3, 5}, toDoubles(ref), dtypeName(t).data());
  }
}

TEST(Binary, ErrorsNameTheOp) {
  Tensor a = makeF32({2, 3}, randomValues(6)), b = makeF32({4}, randomValues(4));
  expectError([&] { OpRun("mm.add").in(a).in(b).out(DType::f32).run1(); },
              "mm.add: shapes [2, 3] and [4] are not broadcastable");
  Tensor c = makeTensor(DType::i32, {3}, {1, 2, 3});
  expectError([&] { OpRun("mm.mul").in(a).in(c).out(DType::f32).run1(); }, "dtypes differ");
  Tensor s = makeTensor(DType::i32, {1}, {1});
  expectError([&] { OpRun("mm.pow").in(s).in(s).out(DType::i32).run1(); },
              "mm.pow: unsupported input dtype i32");
  Tensor bo = makeTensor(DType::boolean, {1}, {1});
  expectError([&] { OpRun("mm.add").in(bo).in(bo).out(DType::boolean).run1(); },
              "unsupported input dtype bool");
}

TEST(Compare, BroadcastsToBool) {
  struct Op {
    const char *name;
    std::function<double(double, double)> f;
  };
  std::vector<Op> ops = {{"mm.equal", [](double a, double b) { return a == b; }},
                         {"mm.less", [](double a, double b) { return a < b; }},
                         {"mm.less_or_equal", [](double a, double b) { return a <= b; }},
                         {"mm.greater", [](double a, double b) { return a > b; }},
                         {"mm.greater_or_equal", [](double a, double b) { return a >= b; }}};
  Shape as{2, 1, 3}, bs{4, 1};
  std::vector<double> av = {1, 2, 3, 4, 5, 6}, bv = {1, 3, 5, 7};
  for (DType t : {DType::f32, DType::i64, DType::u8, DType::f16})
    for (const Op &op : ops) {
      Tensor a = makeTensor(t, as, av), b = makeTensor(t, bs, bv);
      expectExact(OpRun(op.name).in(a).in(b).out(DType::boolean).run1(), DType::boolean, {2, 4, 3},
                  naiveBinary({2, 4, 3}, as, av, bs, bv, op.f), op.name);
    }
  Tensor n = makeF32({2}, {kNaN, 1}), m = makeF32({2}, {kNaN, 1});
  expectExact(OpRun("mm.equal").in(n).in(m).out(DType::boolean).run1(), DType::boolean, {2},
              {0, 1});
  Tensor b1 = makeTensor(DType::boolean, {2}, {1, 0}), b2 = makeTensor(DType::boolean, {2}, {1, 1});
  expectExact(OpRun("mm.equal").in(b1).in(b2).out(DType::boolean).run1(), DType::boolean, {2},
              {1, 0});
}

TEST(Logic, AndOrBroadcast) {
  Tensor a = makeTensor(DType::boolean, {2, 1}, {1, 0}),
         b = makeTensor(DType::boolean, {3}, {1, 0, 1});
  expectExact(OpRun("mm.and").in(a).in(b).out(DType::boolean).run1(), DType::boolean, {2, 3},
              {1, 0, 1, 0, 0, 0});
  expectExact(OpRun("mm.or").in(a).in(b).out(DType::boolean).run1(), DType::boolean, {2, 3},
              {1, 1, 1, 1, 0, 1});
  // Non-0/1 bytes read as true.
  Tensor c = makeTensor(DType::u8, {1}, {7});
  c.dtype = DType::boolean;
  expectExact(OpRun("mm.and").in(c).in(b).out(DType::boolean).run1(), DType::boolean, {3},
              {1, 0, 1});
}

TEST(Where, BroadcastsAllThree) {
  // numpy: np.where([[True],[False]], [1,2,3], [[10],[20]])
  Tensor c = makeTensor(DType::boolean, {2, 1}, {1, 0});
  for (DType t : {DType::f32, DType::i64, DType::f16, DType::u8}) {
    Tensor x = makeTensor(t, {3}, {1, 2, 3}), y = makeTensor(t, {2, 1}, {10, 20});
    expectExact(OpRun("mm.where").in(c).in(x).in(y).out(t).run1(), t, {2, 3}, {1, 2, 3, 20, 20, 20},
                dtypeName(t).data());
  }
  Tensor f = makeF32({1}, {1});
  expectError([&] { OpRun("mm.where").in(f).in(f).in(f).out(DType::f32).run1(); },
              "unsupported condition dtype f32");
}

//===----------------------------------------------------------------------===//
// Activations (fused ops)
//===----------------------------------------------------------------------===//

TEST(Activation, MatchNumpyFormulas) {
  // Expected values from numpy in float64 on the f32 inputs.
  Tensor x = makeF32({8}, kX);
  const double rtol = 1e-6, atol = 1e-7; // f32 evaluation of the same formula: a few ulps
  const std::vector<double> gelu = {-0.00404969409489031, -0.13206221708356913, -0.15426876936299344, 0.0,
                                     0.1853734353867131,   0.8413447460685429,   2.7418056511035998,   7.999999999999995};
  const std::vector<double> geluTanh = {-0.0036373920817729943, -0.13228579703028542, -0.15428599017485606, 0.0,
                                        0.18537093227240137,    0.8411919906082768,   2.742276855926382,    8.0};
  expectClose(OpRun("mm.gelu").in(x).out(DType::f32).run1(), {8}, gelu, rtol, atol);
  expectClose(OpRun("mm.gelu").attr("approximate", int64_t(1)).in(x).out(DType::f32).run1(), {8}, geluTanh,
              rtol, atol);
  expectClose(OpRun("mm.quick_gelu").in(x).out(DType::f32).run1(), {8},
              {-0.01807130970778597, -0.1330656985568307, -0.1496115633936199, 0.0,
               0.18748414425822235, 0.8457957659328212, 2.724729832290826, 7.999990233571134},
              rtol, atol);
  std::vector<double> silu = {
      -0.14227761953270035, -0.27837517353163604, -0.1887703343990727, 0.0,
      0.1723327627656372,   0.7310585786300049,   2.584761712021479,   7.997317198956269};
  expectClose(OpRun("mm.silu").in(x).out(DType::f32).run1(), {8}, silu, rtol, atol);
  Tensor up = makeF32({8}, {2, 2, 2, 2, -1, -1, -1, -1});
  std::vector<double> sw(8);
  for (int i = 0; i < 8; ++i)
    sw[i] = silu[i] * (i < 4 ? 2 : -1);
  expectClose(OpRun("mm.swiglu").in(x).in(up).out(DType::f32).run1(), {8}, sw, rtol, atol);
  // GeGLU: gelu(gate) * up, either approximation.
  std::vector<double> ge(8), geT(8);
  for (int i = 0; i < 8; ++i) {
    ge[i] = gelu[i] * (i < 4 ? 2 : -1);
    geT[i] = geluTanh[i] * (i < 4 ? 2 : -1);
  }
  expectClose(OpRun("mm.geglu").in(x).in(up).out(DType::f32).run1(), {8}, ge, rtol, atol);
  expectClose(OpRun("mm.geglu").attr("approximate", int64_t(1)).in(x).in(up).out(DType::f32).run1(), {8}, geT,
              rtol, atol);
  expectError(
      [&] { OpRun("mm.geglu").attr("approximate", int64_t(2)).in(x).in(up).out(DType::f32).run1(); },
      "unknown approximate");
  expectError([&] { OpRun("mm.geglu").in(x).in(makeF32({4}, {1, 2, 3, 4})).out(DType::f32).run1(); },
              "same dtype and shape");
  expectError(
      [&] { OpRun("mm.gelu").attr("approximate", int64_t(7)).in(x).out(DType::f32).run1(); },
      "unknown approximate");
  Tensor short4 = makeF32({4}, {1, 2, 3, 4});
  expectError([&] { OpRun("mm.swiglu").in(x).in(short4).out(DType::f32).run1(); },
              "same dtype and shape");
}

TEST(Activation, Bf16SiluMatchesF32RoundedOnce) {
  Tensor x = randomTensor(DType::bf16, {64}, 9, -6, 6);
  Tensor y = OpRun("mm.silu").in(x).out(DType::bf16).run1();
  for (int64_t i = 0; i < 64; ++i) {
    float v = static_cast<float>(getElement(x, i));
    float want = v / (1.0f + std::exp(-v));
    // The kernel and this line may differ in the last f32 bit, which can move a bf16
    // rounding by one bf16 ulp (2^-8 relative).
    EXPECT_NEAR(getElement(y, i), want, std::fabs(want) * 0.0079 + 1e-30) << i;
  }
}

} // namespace
