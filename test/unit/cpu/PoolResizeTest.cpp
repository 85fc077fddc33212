//===- PoolResizeTest.cpp - pooling and resize kernels, their shape rules ----===//
//
// The edges the ONNX node tests do not reach: other dtypes, NaN, windows in the pads,
// column-major indices, extrapolation of nearest, exclude_outside without antialias, and
// the shared shape rules (WindowRules.h, ShapeRules.h). Expected values are
// hand-computed (comments).
//
//===----------------------------------------------------------------------===//
#include "KernelTestUtil.h"

#include "runtime/cpu/ShapeRules.h"
#include "runtime/cpu/WindowRules.h"

#include <limits>

using namespace mm::rt;
using namespace mm::rt::cpu;
using namespace mm::rt::cpu::test;

namespace {

OpRun pool(const std::string &op, const Tensor &x, std::vector<int64_t> kernel,
           std::vector<int64_t> pads, std::vector<int64_t> strides = {},
           std::vector<int64_t> dilations = {}) {
  const size_t k = kernel.size();
  if (strides.empty())
    strides.assign(k, 1);
  if (dilations.empty())
    dilations.assign(k, 1);
  return OpRun(op)
      .in(x)
      .attr("kernel_shape", kernel)
      .attr("pads", pads)
      .attr("strides", strides)
      .attr("dilations", dilations);
}

TEST(WindowRules, PoolOutputSize) {
  using mm::window::poolOutputSize;
  EXPECT_EQ(poolOutputSize(5, 3, 2, 1, 0, 0, false), 2);
  EXPECT_EQ(poolOutputSize(5, 3, 2, 1, 0, 0, true), 2); // (5 - 3) / 2 exact
  EXPECT_EQ(poolOutputSize(6, 3, 2, 1, 0, 0, true), 3); // ceil(3 / 2) + 1
  // A last window that would start in the end padding is dropped with ceil_mode:
  // ceil((4 + 1 + 1 - 2) / 3) + 1 = 3, but (3 - 1) * 3 = 6 >= 4 + 1.
  EXPECT_EQ(poolOutputSize(4, 2, 3, 1, 1, 1, true), 2);
  EXPECT_EQ(poolOutputSize(7, 2, 1, 3, 0, 0, false), 4); // span 4
  EXPECT_EQ(poolOutputSize(2, 3, 1, 1, 0, 0, false), -1);
  EXPECT_EQ(poolOutputSize(2, 3, 1, 1, 1, 0, false), 1);
  EXPECT_EQ(poolOutputSize(4, 0, 1, 1, 0, 0, false), -1);
  EXPECT_EQ(mm::window::resizedSize(4, 0.6000000238418579), 2);
  EXPECT_EQ(mm::window::resizedSize(2, 2.940000057220459), 5);
}

TEST(ShapeRules, PoolAndResize) {
  PoolWindow w{{2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}, false};
  EXPECT_EQ(poolShape("mm.max_pool", {1, 3, 5, 6}, w), (Shape{1, 3, 2, 3}));
  expectError([&] { poolShape("mm.max_pool", {1, 3, 5}, w); }, "needs 1 kernel_shape");
  expectError([&] { poolShape("mm.max_pool", {1, 3}, w); }, "must have rank >= 3");
  w.kernel = {9, 2};
  expectError([&] { poolShape("mm.max_pool", {1, 3, 5, 6}, w); }, "does not fit spatial dim 0");
  EXPECT_EQ(resizeShape("mm.resize", {2, 3, 4}, {-1, 5, -1}, {1, 1, 1.5}), (Shape{2, 5, 6}));
  expectError([&] { resizeShape("mm.resize", {2, 3}, {-1}, {1}); }, "need 2 entries");
  expectError([&] { resizeShape("mm.resize", {2}, {-1}, {0}); }, "scales must be finite and > 0");
}

TEST(AvgPool, CountIncludePadAndHalf) {
  // 1-D [1, 2, 3, 4], kernel 3, pads 1 / 1, stride 2, ceil_mode: windows [-1, 1], [1, 3],
  // [3, 5]; the last one reads 4, the end pad (4) and one tap past it (5), which never
  // counts: 4 / 1 without count_include_pad, 4 / 2 with it.
  Tensor x = makeF32({1, 1, 4}, {1, 2, 3, 4});
  auto run = [&](bool countPad, const Tensor &in) {
    return pool("mm.avg_pool", in, {3}, {1, 1}, {2})
        .attr("ceil_mode", int64_t(1))
        .attr("count_include_pad", int64_t(countPad))
        .out(in.dtype)
        .run1();
  };
  expectClose(run(false, x), {1, 1, 3}, {1.5, 3, 4}, 1e-6, 0);
  expectClose(run(true, x), {1, 1, 3}, {1.0, 3, 2}, 1e-6, 0);
  Tensor h = makeTensor(DType::f16, {1, 1, 4}, {1, 2, 3, 4});
  expectClose(run(false, h), {1, 1, 3}, {1.5, 3, 4}, 1e-3, 0);
  // A window entirely in the pads has no taps: NaN without count_include_pad.
  Tensor one = makeF32({1, 1, 1}, {5});
  Tensor y = pool("mm.avg_pool", one, {1}, {1, 0}).out(DType::f32).run1();
  expectClose(y, {1, 1, 2}, {std::numeric_limits<double>::quiet_NaN(), 5}, 0, 0);
}

TEST(MaxPool, NanIntegersAndPaddedWindows) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = makeF32({1, 1, 4}, {1, nan, 3, 2});
  expectClose(pool("mm.max_pool", x, {2}, {0, 0}, {2}).out(DType::f32).run1(), {1, 1, 2}, {nan, 3},
              0, 0);
  Tensor i8 = makeTensor(DType::i8, {1, 1, 3}, {-5, -7, -1});
  expectExact(pool("mm.max_pool", i8, {2}, {1, 1}).out(DType::i8).run1(), DType::i8, {1, 1, 4},
              {-5, -5, -1, -1});
  // Pads wider than the kernel: the first window lies in the pads and gives the lowest
  // value of the type.
  Tensor one = makeTensor(DType::i8, {1, 1, 1}, {4});
  expectExact(pool("mm.max_pool", one, {1}, {1, 0}).out(DType::i8).run1(), DType::i8, {1, 1, 2},
              {-128, 4});
  expectError([&] { pool("mm.max_pool", x, {2}, {0}).out(DType::f32).run1(); },
              "needs 1 kernel_shape");
}

TEST(MaxPool, IndicesRowAndColumnMajor) {
  // [1, 1, 2, 3]: rows [1 6 2] [5 3 4]; kernel [2, 2], stride 1 -> maxima 6 (row-major
  // offset 1, column-major 2) and 6 again.
  Tensor x = makeF32({1, 1, 2, 3}, {1, 6, 2, 5, 3, 4});
  for (int64_t order : {0, 1}) {
    auto r = pool("mm.max_pool_with_indices", x, {2, 2}, {0, 0, 0, 0})
                 .attr("storage_order", order)
                 .out(DType::f32)
                 .out(DType::i64)
                 .run();
    ASSERT_EQ(r.size(), 2u);
    expectExact(r[0], DType::f32, {1, 1, 1, 2}, {6, 6});
    expectExact(r[1], DType::i64, {1, 1, 1, 2},
                order ? std::vector<double>{2, 2} : std::vector<double>{1, 1});
  }
  // The plane offset: batch 1, channel 1 of [2, 2, 1, 2] starts at 6.
  Tensor b = makeF32({2, 2, 1, 2}, {0, 1, 2, 3, 4, 5, 7, 6});
  auto r = pool("mm.max_pool_with_indices", b, {1, 2}, {0, 0, 0, 0})
               .out(DType::f32)
               .out(DType::i64)
               .run();
  expectExact(r[1], DType::i64, {2, 2, 1, 1}, {1, 3, 5, 6});
}

TEST(LpPool, P1AndP3) {
  Tensor x = makeF32({1, 1, 3}, {-1, 2, -3});
  expectClose(pool("mm.lp_pool", x, {2}, {0, 1}).attr("p", int64_t(1)).out(DType::f32).run1(),
              {1, 1, 3}, {3, 5, 3}, 1e-6, 0);
  expectClose(pool("mm.lp_pool", x, {3}, {0, 0}).attr("p", int64_t(3)).out(DType::f32).run1(),
              {1, 1, 1}, {std::cbrt(36.0)}, 1e-5, 0);
  expectError(
      [&] {
        pool("mm.lp_pool", x, {3}, {0, 0}).attr("p", int64_t(0)).out(DType::f32).run1();
      },
      "p must be >= 1");
}

OpRun resize(const Tensor &x, std::vector<int64_t> sizes, std::vector<double> scales, int64_t mode,
             int64_t coord) {
  return OpRun("mm.resize")
      .in(x)
      .attr("sizes", sizes)
      .attr("scales", scales)
      .attr("mode", mode)
      .attr("coordinate_transformation_mode", coord)
      .attr("nearest_mode", int64_t(0))
      .attr("cubic_coeff_a", -0.75)
      .attr("exclude_outside", int64_t(0))
      .attr("extrapolation_value", 0.0)
      .attr("antialias", int64_t(0));
}

TEST(Resize, NearestCopiesAnyDtype) {
  // asymmetric (4), floor nearest (2): out[x] = in[floor(x / 2)].
  Tensor x = makeTensor(DType::u8, {1, 3}, {7, 200, 9});
  expectExact(
      resize(x, {1, 6}, {1, 2}, 0, 4).attr("nearest_mode", int64_t(2)).out(DType::u8).run1(),
      DType::u8, {1, 6}, {7, 7, 200, 200, 9, 9});
  Tensor b = makeTensor(DType::boolean, {2}, {1, 0});
  expectExact(resize(b, {4}, {2}, 0, 4).out(DType::boolean).run1(), DType::boolean, {4},
              {1, 1, 0, 0});
  // tf_crop_and_resize (5) with nearest: coordinates outside [0, in - 1] extrapolate.
  Tensor i = makeTensor(DType::i32, {3}, {1, 2, 3});
  expectExact(resize(i, {3}, {1}, 0, 5)
                  .attr("roi", std::vector<double>{0.5, 1.5})
                  .attr("extrapolation_value", -4.0)
                  .out(DType::i32)
                  .run1(),
              DType::i32, {3}, {2, 3, -4}); // x_original 1, 2, 3
}

TEST(Resize, LinearHalfAndExcludeOutside) {
  // half_pixel (0) linear, [1, 3] upsampled x2: x_original -0.25, 0.25, 0.75, 1.25 ->
  // 1 (edge), 1.5, 2.5, 3 (edge).
  Tensor h = makeTensor(DType::f16, {2}, {1, 3});
  expectClose(resize(h, {4}, {2}, 1, 0).out(DType::f16).run1(), {4}, {1, 1.5, 2.5, 3}, 1e-3, 0);
  // cubic (2), half_pixel, exclude_outside: at x_original -0.25 the taps -2 and -1 weigh 0,
  // the rest renormalized; compare with the edge-clamped result.
  Tensor x = makeF32({4}, {1, 2, 4, 8});
  Tensor clamp = resize(x, {8}, {2}, 2, 0).out(DType::f32).run1();
  Tensor excl =
      resize(x, {8}, {2}, 2, 0).attr("exclude_outside", int64_t(1)).out(DType::f32).run1();
  // Keys weights (a = -0.75) at distances 1.75, 0.75, 0.25, 1.25 from -0.25 for the taps
  // -2, -1, 0, 1 (the first two weigh 0 with exclude_outside).
  auto keys = [](double d) {
    const double a = -0.75;
    d = std::abs(d);
    return d <= 1 ? ((a + 2) * d - (a + 3)) * d * d + 1 : ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  };
  double w0 = keys(0.25), w1 = keys(1.25), wm1 = keys(0.75), wm2 = keys(1.75);
  EXPECT_NEAR(toDoubles(clamp)[0], (wm2 + wm1 + w0) * 1 + w1 * 2, 1e-6);
  EXPECT_NEAR(toDoubles(excl)[0], (w0 * 1 + w1 * 2) / (w0 + w1), 1e-6);
  expectError(
      [&] {
        resize(makeTensor(DType::i32, {2}, {1, 2}), {4}, {2}, 1, 0).out(DType::i32).run1();
      },
      "unsupported");
  expectError([&] { resize(x, {8}, {2}, 1, 5).out(DType::f32).run1(); }, "roi needs 2 entries");
}

} // namespace
