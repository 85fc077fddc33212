//===- QuantizeTest.cpp - DequantizeLinear / QuantizeLinear -----------------===//
//
// The cases marked "ONNX" are the inputs and expected outputs of the ONNX backend node
// tests of the same name (../shared/conformance/onnx-node/<name>/test_data_set_0).
//
//===----------------------------------------------------------------------===//
#include "KernelTestUtil.h"

using namespace mm::rt;
using namespace mm::rt::cpu::test;

namespace {

Tensor dequant(const Tensor &x, const Tensor &s, const Tensor *zp, DType out, int64_t axis = 1,
               int64_t block = 0) {
  OpRun r("mm.dequantize_linear");
  r.in(x).in(s).attr("axis", axis).attr("block_size", block).out(out);
  if (zp)
    r.in(*zp);
  return r.run1();
}

Tensor quant(const Tensor &x, const Tensor &s, const Tensor *zp, DType out, int64_t axis = 1,
             int64_t block = 0) {
  OpRun r("mm.quantize_linear");
  r.in(x).in(s).attr("axis", axis).attr("block_size", block).out(out);
  if (zp)
    r.in(*zp);
  return r.run1();
}

TEST(Dequantize, OnnxPerTensorAxisBlocked) {
  // ONNX test_dequantizelinear
  Tensor x = makeTensor(DType::u8, {4}, {0, 3, 128, 255}), s = makeF32({}, {2}),
         zp = makeTensor(DType::u8, {}, {128});
  expectExact(dequant(x, s, &zp, DType::f32), DType::f32, {4}, {-256, -250, 0, 254});
  // ONNX test_dequantizelinear_axis
  Tensor xa =
      makeTensor(DType::u8, {1, 3, 3, 2},
                 {3, 89, 34, 200, 74, 59, 5, 24, 24, 87, 32, 13, 245, 99, 4, 142, 121, 102});
  Tensor sa = makeF32({3}, {2, 4, 5}), za = makeTensor(DType::u8, {3}, {84, 24, 196});
  expectExact(
      dequant(xa, sa, &za, DType::f32), DType::f32, {1, 3, 3, 2},
      {-162, 10, -100, 232, -20, -50, -76, 0, 0, 252, 32, -44, 245, -485, -960, -270, -375, -470});
  // ONNX test_dequantizelinear_blocked (axis 1, block_size 2)
  Tensor xb =
      makeTensor(DType::u8, {1, 4, 3, 2}, {3, 89, 34, 200, 74, 59, 5,   24, 24, 87,  32,  13,
                                           5, 12, 12, 33,  65, 42, 245, 99, 4,  142, 121, 102});
  Tensor sb = makeF32({1, 2, 3, 2}, {3, 2, 4, 1, 2, 2, 5, 2, 4, 3, 5, 2});
  Tensor zb = makeTensor(DType::u8, {1, 2, 3, 2}, {1, 0, 0, 1, 2, 20, 3, 2, 4, 3, 15, 2});
  expectExact(dequant(xb, sb, &zb, DType::f32, 1, 2), DType::f32, {1, 4, 3, 2},
              {6,  178, 136, 199, 144, 78, 12,   48,  96, 86,  60,  -14,
               10, 20,  32,  90,  250, 80, 1210, 194, 0,  417, 530, 200});
}

TEST(Dequantize, Int4StyleGroupsWithPartialLastBlockAndHalfOutput) {
  // i8 weights [2, 5] grouped along axis 1 in blocks of 2 (3 blocks, the last one partial),
  // symmetric (no zero point), f16 scales and result: hand-computed x * scale.
  Tensor x = makeTensor(DType::i8, {2, 5}, {-8, 7, 1, -1, 3, 2, -2, 4, 5, -6});
  Tensor s = makeTensor(DType::f16, {2, 3}, {0.5, 0.25, 2, 1, 0.125, 4});
  expectExact(dequant(x, s, nullptr, DType::f16, -1, 2), DType::f16, {2, 5},
              {-4, 3.5, 0.25, -0.25, 6, 2, -2, 0.5, 0.625, -24});
  // A one-element 1-D scale counts as per-tensor (as ONNX's reference).
  Tensor one = makeF32({1}, {3});
  expectExact(dequant(x, one, nullptr, DType::f32), DType::f32, {2, 5},
              {-24, 21, 3, -3, 9, 6, -6, 12, 15, -18});
}

TEST(Quantize, OnnxRoundHalfEvenAndSaturate) {
  // ONNX test_quantizelinear
  Tensor x = makeF32({6}, {0, 2, 3, 1000, -254, -1000}), s = makeF32({}, {2}),
         zp = makeTensor(DType::u8, {}, {128});
  expectExact(quant(x, s, &zp, DType::u8), DType::u8, {6}, {128, 129, 130, 255, 1, 0});
  // ONNX test_quantizelinear_int16: 1.5 -> 2, -1.5 -> -2 (ties to even), saturation at both ends.
  Tensor xi = makeF32({16}, {0, -514, 3, -3, 2.9000000953674316, -2.9000000953674316,
                             3.0999999046325684, -3.0999999046325684, 65022, -66046, 65023, -66047,
                             65024, -66048, 70000, -70000});
  Tensor zi = makeTensor(DType::i16, {}, {256});
  expectExact(quant(xi, s, &zi, DType::i16), DType::i16, {16},
              {256, -1, 258, 254, 257, 255, 258, 254, 32767, -32767, 32767, -32768, 32767, -32768,
               32767, -32768});
  // ONNX test_quantizelinear_axis
  Tensor xa = makeF32({1, 3, 3, 2}, {-162, 10, -100, 232, -20, -50, -76, 0, 0, 252, 32, -44, 245,
                                     -485, -960, -270, -375, -470});
  Tensor sa = makeF32({3}, {2, 4, 5}), za = makeTensor(DType::u8, {3}, {84, 24, 196});
  expectExact(quant(xa, sa, &za, DType::u8), DType::u8, {1, 3, 3, 2},
              {3, 89, 34, 200, 74, 59, 5, 24, 24, 87, 32, 13, 245, 99, 4, 142, 121, 102});
  // ONNX test_quantizelinear_blocked_asymmetric
  Tensor xb = makeF32({3, 4}, {6, 12, 50, 5, 1, 8, 4, 5, 0, 20, 10, 4});
  Tensor sb =
      makeF32({3, 2}, {1.5, 2.5, 3, 4.900000095367432, 5.099999904632568, 6.900000095367432});
  Tensor zb = makeTensor(DType::u8, {3, 2}, {0, 1, 1, 0, 2, 3});
  expectExact(quant(xb, sb, &zb, DType::u8, 1, 2), DType::u8, {3, 4},
              {4, 8, 21, 3, 1, 4, 1, 1, 2, 6, 4, 4});
}

TEST(Quantize, Int8WithoutZeroPointAndNaN) {
  // Hand-computed: x / 0.5 = [0.5, 1.5, 2.5, -0.5, -2.5, 400, NaN] -> rint [0, 2, 2, -0, -2],
  // saturated 127, NaN -> the zero point (0).
  Tensor x = makeF32({7}, {0.25, 0.75, 1.25, -0.25, -1.25, 200, std::nan("")});
  expectExact(quant(x, makeF32({}, {0.5}), nullptr, DType::i8), DType::i8, {7},
              {0, 2, 2, 0, -2, 127, 0});
}

TEST(Quantize, Errors) {
  Tensor x = makeF32({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  expectError(
      [&] {
        quant(x, makeF32({3}, {1, 1, 1}), nullptr, DType::u8);
      },
      "per-axis scale [3] must be [4]");
  expectError(
      [&] {
        quant(x, makeF32({2, 3}, std::vector<double>(6, 1)), nullptr, DType::u8, 1, 2);
      },
      "blocked scale [2, 3] must be [2, 2]");
  Tensor zp = makeTensor(DType::i8, {}, {0});
  expectError([&] { quant(x, makeF32({}, {1}), &zp, DType::u8); }, "zero_point dtype i8 differs");
  expectError([&] { quant(x, makeF32({}, {1}), nullptr, DType::f32); },
              "unsupported result dtype f32");
  Tensor q = makeTensor(DType::u8, {2}, {1, 2});
  expectError([&] { dequant(q, makeF32({}, {1}), &zp, DType::f32); },
              "zero_point dtype i8 differs");
}

} // namespace
