//===- CudaKernelsTest.cpp - elementwise, norms, rotary, embeddings, KV cache ---===//
//
// Each kernel runs on random inputs (rounded to the element type first, so the double
// reference sees exactly what the kernel reads) and is compared with a double-precision
// reference loop written here. Outputs start poisoned (NaN) so an unwritten element fails.
//
// Tolerances: the kernels compute in f32 and round each output once, so an output is
// within one unit roundoff u of the element type (bf16 2^-8, f16 2^-11) plus the f32
// error of the computation. We allow 2u relative (one rounding plus slack for the f32
// transcendental functions and, for norms, the f32 sums of <= 4096 terms), and a small
// absolute term where outputs can be near zero: for f32, 1e-5 relative / 1e-6 absolute
// (a few f32 ulps of expf/erff/tanhf/rsqrtf and of sums over a row).
//
//===----------------------------------------------------------------------===//
#include "CudaTestUtil.h"

#include "runtime/cuda/Kernels.h"

#include <algorithm>
#include <cmath>

namespace mm::rt::cuda::test {
namespace {

double rtolFor(DType t) { return t == DType::f32 ? 1e-5 : 2.0 * unitRoundoff(t); }
double atolFor(DType t) { return t == DType::f32 ? 1e-6 : 1e-5; }

class CudaKernelsTest : public CudaTest {};

TEST_F(CudaKernelsTest, ActivationsMatchReference) {
  std::mt19937 gen(10);
  const Activation acts[] = {Activation::none,      Activation::gelu, Activation::geluTanh,
                             Activation::quickGelu, Activation::silu, Activation::relu};
  for (DType dtype : kAllTypes)
    for (size_t n : {size_t(1001), size_t(4096)}) // scalar and 8-wide paths
      for (Activation act : acts)
        for (bool inPlace : {false, true}) {
          const HostArray x = randomArray(dtype, n, gen, -6.0, 6.0);
          DeviceBuffer dx = upload(x);
          DeviceBuffer dy = inPlace ? DeviceBuffer() : poisoned(dtype, n);
          void *y = inPlace ? dx.get() : dy.get();
          activation(stream, dtype, dx.get(), y, int64_t(n), act);
          std::vector<double> want(n);
          for (size_t i = 0; i < n; ++i)
            want[i] = referenceActivation(x.values[i], act);
          expectNear(download(y, dtype, n), want, rtolFor(dtype), atolFor(dtype),
                     std::string("activation ") + std::to_string(int(act)) + " " +
                         dtypeLabel(dtype) + " n=" + std::to_string(n) +
                         (inPlace ? " in place" : ""));
        }
}

TEST_F(CudaKernelsTest, SwigluSeparateAndMergedLayouts) {
  std::mt19937 gen(11);
  for (DType dtype : kAllTypes)
    for (int64_t cols : {int64_t(40), int64_t(37)}) {
      const int64_t rows = 3;
      // Merged gate/up buffer [rows, 2*cols]: gate = first half, up = second half.
      const HostArray buf = randomArray(dtype, rows * 2 * cols, gen, -4.0, 4.0);
      DeviceBuffer dbuf = upload(buf), dout = poisoned(dtype, rows * cols);
      const size_t es = dtypeSize(dtype);
      swiglu(stream, dtype, dbuf.get(), 2 * cols, dbuf.as<char>() + cols * es, 2 * cols,
             dout.get(), cols, rows, cols, Activation::silu);
      std::vector<double> want(rows * cols);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
          const double g = buf.values[r * 2 * cols + c], u = buf.values[r * 2 * cols + cols + c];
          want[r * cols + c] = g / (1.0 + std::exp(-g)) * u;
        }
      expectNear(download(dout, dtype, rows * cols), want, rtolFor(dtype), atolFor(dtype),
                 std::string("swiglu merged ") + dtypeLabel(dtype) + " cols=" +
                     std::to_string(cols));
      // Separate contiguous buffers.
      const HostArray gate = randomArray(dtype, rows * cols, gen, -4.0, 4.0);
      const HostArray up = randomArray(dtype, rows * cols, gen, -4.0, 4.0);
      DeviceBuffer dg = upload(gate), du = upload(up), dout2 = poisoned(dtype, rows * cols);
      swiglu(stream, dtype, dg.get(), cols, du.get(), cols, dout2.get(), cols, rows, cols, Activation::silu);
      for (int64_t i = 0; i < rows * cols; ++i)
        want[i] = gate.values[i] / (1.0 + std::exp(-gate.values[i])) * up.values[i];
      expectNear(download(dout2, dtype, rows * cols), want, rtolFor(dtype), atolFor(dtype),
                 std::string("swiglu separate ") + dtypeLabel(dtype));
    }
}

TEST_F(CudaKernelsTest, BiasActivationInPlace) {
  std::mt19937 gen(19);
  const int64_t rows = 3, cols = 37;
  for (DType dtype : kAllTypes)
    for (bool withBias : {true, false})
      for (Activation act : {Activation::silu, Activation::gelu, Activation::none}) {
        const HostArray y = randomArray(dtype, rows * cols, gen, -3.0, 3.0);
        const HostArray bias = randomArray(dtype, cols, gen);
        DeviceBuffer dy = upload(y), db = upload(bias);
        biasActivation(stream, dtype, dy.get(), withBias ? db.get() : nullptr, rows, cols, act);
        std::vector<double> want(rows * cols);
        for (int64_t i = 0; i < rows * cols; ++i)
          want[i] = referenceActivation(y.values[i] + (withBias ? bias.values[i % cols] : 0.0), act);
        // The sum y + bias is formed in f32, which is exact for two bf16/f16 values and
        // rounds once for f32 (within the f32 tolerance).
        expectNear(download(dy, dtype, rows * cols), want, rtolFor(dtype), atolFor(dtype),
                   std::string("biasActivation ") + dtypeLabel(dtype) +
                       (withBias ? " bias" : "") + " act " + std::to_string(int(act)));
      }
}

TEST_F(CudaKernelsTest, CopyBytesAlignedAndUnaligned) {
  std::vector<uint8_t> src(100003);
  std::mt19937 gen(23);
  for (uint8_t &b : src)
    b = uint8_t(gen());
  DeviceBuffer ds = uploadVector(src);
  for (size_t offset : {size_t(0), size_t(3)})
    for (size_t bytes : {size_t(65536), size_t(99997)}) {
      DeviceBuffer dd(bytes);
      checkCuda(cudaMemset(dd.get(), 0, bytes), "memset");
      copyBytes(stream, dd.get(), ds.as<uint8_t>() + offset, bytes);
      const std::vector<uint8_t> got = downloadVector<uint8_t>(dd, bytes);
      EXPECT_TRUE(std::equal(got.begin(), got.end(), src.begin() + offset))
          << "copyBytes offset " << offset << " bytes " << bytes;
    }
}

TEST_F(CudaKernelsTest, ConvertRoundsToNearestEven) {
  std::mt19937 gen(12);
  for (DType src : kAllTypes)
    for (DType dst : kAllTypes)
      for (double range : {60000.0, 1e-4}) { // large values, and f16 subnormals
        const size_t n = 999;
        const HostArray x = randomArray(src, n, gen, -range, range);
        DeviceBuffer dx = upload(x), dy = poisoned(dst, n);
        convert(stream, src, dx.get(), dst, dy.get(), int64_t(n));
        std::vector<double> want(n);
        for (size_t i = 0; i < n; ++i)
          want[i] = roundTo(dst, x.values[i]);
        expectNear(download(dy, dst, n), want, 0.0, 0.0,
                   std::string("convert ") + dtypeLabel(src) + " -> " + dtypeLabel(dst) +
                       " range " + std::to_string(range));
      }
}

TEST_F(CudaKernelsTest, LayerNormFusedWithResidualAdd) {
  std::mt19937 gen(13);
  const int64_t rows = 4;
  for (DType dtype : kAllTypes)
    for (int64_t cols : {int64_t(768), int64_t(1001)})
      for (bool withBias : {true, false})
        for (bool withResidual : {false, true})
          for (DType paramType : {dtype, DType::f32}) {
            // Mean 3, spread 1: a one-pass E[x^2] - mean^2 variance would lose digits here.
            const HostArray x = randomArray(dtype, rows * cols, gen, 2.0, 3.0);
            const HostArray res = randomArray(dtype, rows * cols, gen, 0.0, 1.0);
            const HostArray scale = randomArray(paramType, cols, gen, 0.5, 1.5);
            const HostArray bias = randomArray(paramType, cols, gen);
            DeviceBuffer dx = upload(x), dr = upload(res), ds = upload(scale), db = upload(bias);
            DeviceBuffer dy = poisoned(dtype, rows * cols);
            // The residual stream is updated in place (sumOut == residual).
            layerNorm(stream, dtype, dx.get(), withResidual ? dr.get() : nullptr,
                      withResidual ? dr.get() : nullptr, ds.get(), withBias ? db.get() : nullptr,
                      paramType, dy.get(), rows, cols, 1e-5f);
            std::vector<double> sum(rows * cols), want(rows * cols);
            for (int64_t i = 0; i < rows * cols; ++i)
              sum[i] = withResidual ? roundTo(dtype, x.values[i] + res.values[i]) : x.values[i];
            for (int64_t r = 0; r < rows; ++r) {
              double mean = 0, var = 0;
              for (int64_t c = 0; c < cols; ++c)
                mean += sum[r * cols + c];
              mean /= cols;
              for (int64_t c = 0; c < cols; ++c)
                var += std::pow(sum[r * cols + c] - mean, 2);
              var /= cols;
              for (int64_t c = 0; c < cols; ++c)
                want[r * cols + c] = (sum[r * cols + c] - mean) / std::sqrt(var + 1e-5) *
                                         scale.values[c] +
                                     (withBias ? bias.values[c] : 0.0);
            }
            // f32: the normalised value carries the f32 error of mean and variance of
            // values around 3 with spread 0.6: a few 1e-7 relative to |x|, i.e. ~1e-5 on
            // outputs of size 1.
            const double atol = dtype == DType::f32 ? 2e-5 : 2e-3;
            const std::string what = std::string("layerNorm ") + dtypeLabel(dtype) + " cols=" +
                                     std::to_string(cols) + (withBias ? " bias" : "") +
                                     (withResidual ? " residual" : "") + " params " +
                                     dtypeLabel(paramType);
            expectNear(download(dy, dtype, rows * cols), want, rtolFor(dtype), atol, what);
            if (withResidual)
              expectNear(download(dr, dtype, rows * cols), sum, 0.0, 0.0, what + " (sum)");
          }
}

TEST_F(CudaKernelsTest, RmsNormFusedWithResidualAdd) {
  std::mt19937 gen(14);
  const int64_t rows = 3;
  for (DType dtype : kAllTypes)
    for (int64_t cols : {int64_t(2048), int64_t(1001)})
      for (bool withResidual : {true, false})
        for (float offset : {0.0f, 1.0f})
          for (DType scaleType : {dtype, DType::f32}) {
            const HostArray x = randomArray(dtype, rows * cols, gen, -2.0, 2.0);
            const HostArray res = randomArray(dtype, rows * cols, gen, -2.0, 2.0);
            const HostArray scale = randomArray(scaleType, cols, gen, -1.0, 1.0);
            DeviceBuffer dx = upload(x), dr = upload(res), ds = upload(scale);
            DeviceBuffer dy = poisoned(dtype, rows * cols);
            // The residual stream is updated in place (sumOut == residual).
            rmsNorm(stream, dtype, dx.get(), withResidual ? dr.get() : nullptr,
                    withResidual ? dr.get() : nullptr, ds.get(), scaleType, dy.get(), rows,
                    cols, 1e-6f, offset);
            std::vector<double> sum(rows * cols), want(rows * cols);
            for (int64_t r = 0; r < rows; ++r) {
              double ss = 0;
              for (int64_t c = 0; c < cols; ++c) {
                const int64_t i = r * cols + c;
                // The model stores the residual sum in its dtype, then normalises it.
                sum[i] = withResidual ? roundTo(dtype, x.values[i] + res.values[i]) : x.values[i];
                ss += sum[i] * sum[i];
              }
              const double inv = 1.0 / std::sqrt(ss / cols + 1e-6);
              for (int64_t c = 0; c < cols; ++c)
                want[r * cols + c] = sum[r * cols + c] * inv * (offset + scale.values[c]);
            }
            const std::string what = std::string("rmsNorm ") + dtypeLabel(dtype) + " cols=" +
                                     std::to_string(cols) + (withResidual ? " residual" : "") +
                                     " offset=" + std::to_string(int(offset)) + " scale " +
                                     dtypeLabel(scaleType);
            expectNear(download(dy, dtype, rows * cols), want, rtolFor(dtype), atolFor(dtype),
                       what);
            if (withResidual)
              expectNear(download(dr, dtype, rows * cols), sum, 0.0, 0.0, what + " (sum)");
          }
}

TEST_F(CudaKernelsTest, RmsNormInPlaceOutput) {
  std::mt19937 gen(15);
  const DType dtype = DType::bf16;
  const int64_t rows = 2, cols = 64;
  const HostArray x = randomArray(dtype, rows * cols, gen);
  const HostArray scale = randomArray(dtype, cols, gen);
  DeviceBuffer dx = upload(x), ds = upload(scale);
  rmsNorm(stream, dtype, dx.get(), nullptr, nullptr, ds.get(), dtype, dx.get(), rows, cols,
          1e-5f, 0.0f);
  std::vector<double> want(rows * cols);
  for (int64_t r = 0; r < rows; ++r) {
    double ss = 0;
    for (int64_t c = 0; c < cols; ++c)
      ss += x.values[r * cols + c] * x.values[r * cols + c];
    for (int64_t c = 0; c < cols; ++c)
      want[r * cols + c] = x.values[r * cols + c] / std::sqrt(ss / cols + 1e-5) * scale.values[c];
  }
  expectNear(download(dx, dtype, rows * cols), want, rtolFor(dtype), atolFor(dtype),
             "rmsNorm in place");
}

/// Rotary: every combination of pairing, width, cos/sin source and position source, on a
/// [B, S, H, D] buffer (strided view), in place and out of place.
TEST_F(CudaKernelsTest, RotaryMatchesReference) {
  std::mt19937 gen(16);
  const int64_t B = 2, H = 3, S = 5, D = 64, maxPos = 600;
  enum class Source { tableBySeq, tableByPosition, invFreq };
  enum class Pos { none, positions, startPositions };
  for (DType dtype : kAllTypes)
    for (bool interleaved : {false, true})
      for (int64_t R : {int64_t(64), int64_t(32)})
        for (Source src : {Source::tableBySeq, Source::tableByPosition, Source::invFreq})
          for (Pos pos : {Pos::none, Pos::positions, Pos::startPositions})
            for (bool inPlace : {false, true}) {
              if ((src == Source::tableByPosition && pos == Pos::none) ||
                  (src == Source::tableBySeq && pos != Pos::none))
                continue; // a position-indexed table needs positions, a [B, S, R] one must not
              const HostArray x = randomArray(dtype, B * S * H * D, gen);
              // positions [B, S] and start positions [B]
              std::vector<int64_t> positions(B * S);
              std::vector<int32_t> starts(B);
              std::uniform_int_distribution<int> pd(0, int(maxPos - S - 1));
              for (int64_t b = 0; b < B; ++b) {
                starts[b] = pd(gen);
                for (int64_t s = 0; s < S; ++s)
                  positions[b * S + s] = pd(gen);
              }
              auto positionOf = [&](int64_t b, int64_t s) -> int64_t {
                if (pos == Pos::positions)
                  return positions[b * S + s];
                if (pos == Pos::startPositions)
                  return starts[b] + s;
                return s;
              };
              // inverse frequencies (f32) and full-width tables in the HF form
              std::vector<float> invFreq(R / 2);
              for (int64_t i = 0; i < R / 2; ++i)
                invFreq[i] = float(1.0 / std::pow(10000.0, 2.0 * i / R));
              const DType tableType = (R == 32) ? DType::f32 : dtype; // both table types
              const int64_t tableRows = src == Source::tableBySeq ? B * S : maxPos;
              std::vector<double> cosV(tableRows * R), sinV(tableRows * R);
              for (int64_t row = 0; row < tableRows; ++row) {
                const double p = src == Source::tableBySeq ? double(row % S) + 3.0 * (row / S)
                                                           : double(row);
                for (int64_t c = 0; c < R; ++c) {
                  const int64_t f = interleaved ? c / 2 : c % (R / 2);
                  cosV[row * R + c] = std::cos(p * invFreq[f]);
                  sinV[row * R + c] = std::sin(p * invFreq[f]);
                }
              }
              const HostArray cosT(tableType, cosV), sinT(tableType, sinV);
              DeviceBuffer dx = upload(x), dpos = uploadVector(positions),
                           dstart = uploadVector(starts), dfreq = uploadVector(invFreq),
                           dcos = upload(cosT), dsin = upload(sinT);
              DeviceBuffer dy = inPlace ? DeviceBuffer() : poisoned(dtype, B * S * H * D);
              RotaryArgs a;
              a.dtype = dtype;
              a.x = dx.get();
              a.y = inPlace ? dx.get() : dy.get();
              a.batch = B;
              a.heads = H;
              a.seq = S;
              a.headDim = D;
              a.xStrideB = a.yStrideB = S * H * D; // [B, S, H, D] buffer
              a.xStrideH = a.yStrideH = D;
              a.xStrideS = a.yStrideS = H * D;
              a.rotaryDim = R;
              a.interleaved = interleaved;
              if (pos == Pos::positions) {
                a.positions = dpos.as<int64_t>();
                a.positionStrideB = S;
              } else if (pos == Pos::startPositions) {
                a.startPositions = dstart.as<int32_t>();
              }
              if (src == Source::invFreq) {
                a.invFreq = dfreq.as<float>();
              } else {
                a.cos = dcos.get();
                a.sin = dsin.get();
                a.tableType = tableType;
                a.tableRowStride = R;
                a.tableStrideB = src == Source::tableBySeq ? S : 0;
              }
              rotary(stream, a);

              std::vector<double> want(x.values);
              double maxAngle = 0;
              for (int64_t b = 0; b < B; ++b)
                for (int64_t s = 0; s < S; ++s)
                  for (int64_t h = 0; h < H; ++h) {
                    const double *xv = x.values.data() + ((b * S + s) * H + h) * D;
                    double *yv = want.data() + ((b * S + s) * H + h) * D;
                    for (int64_t i = 0; i < R / 2; ++i) {
                      const int64_t ia = interleaved ? 2 * i : i;
                      const int64_t ib = interleaved ? 2 * i + 1 : i + R / 2;
                      double ca, sa, cb, sb;
                      if (src == Source::invFreq) {
                        // The kernel forms the angle in f32 (as HF does); so does the reference.
                        const double ang = double(float(positionOf(b, s)) * invFreq[i]);
                        maxAngle = std::max(maxAngle, ang);
                        ca = cb = std::cos(ang);
                        sa = sb = std::sin(ang);
                      } else {
                        const int64_t row = src == Source::tableBySeq ? b * S + s : positionOf(b, s);
                        ca = cosT.values[row * R + ia];
                        sa = sinT.values[row * R + ia];
                        cb = cosT.values[row * R + ib];
                        sb = sinT.values[row * R + ib];
                      }
                      yv[ia] = xv[ia] * ca - xv[ib] * sa;
                      yv[ib] = xv[ib] * cb + xv[ia] * sb;
                    }
                  }
              // f32: sincosf of angles up to ~600 rad is accurate to a few ulps of the
              // angle (6e-5 absolute at most), hence 1e-4 absolute; else 2u relative.
              const double atol = dtype == DType::f32 ? 1e-4 : 2e-3;
              expectNear(download(a.y, dtype, B * S * H * D), want, rtolFor(dtype), atol,
                         std::string("rotary ") + dtypeLabel(dtype) +
                             (interleaved ? " interleaved" : " rotate-half") + " R=" +
                             std::to_string(R) + " src=" + std::to_string(int(src)) +
                             " pos=" + std::to_string(int(pos)) + (inPlace ? " in place" : ""));
            }
}

TEST_F(CudaKernelsTest, RotaryRejectsBadArguments) {
  RotaryArgs a;
  a.dtype = DType::f32;
  DeviceBuffer buf(1024);
  a.x = a.y = buf.get();
  a.batch = a.heads = a.seq = 1;
  a.headDim = 64;
  a.rotaryDim = 63;
  a.invFreq = buf.as<float>();
  EXPECT_THROW(rotary(stream, a), Error);
  a.rotaryDim = 64;
  a.invFreq = nullptr; // no cos/sin source
  EXPECT_THROW(rotary(stream, a), Error);
}

TEST_F(CudaKernelsTest, EmbeddingGatherWrapsNegativeIdsAndFlagsBadOnes) {
  std::mt19937 gen(17);
  const int64_t vocab = 50;
  for (DType dtype : kAllTypes)
    for (int64_t hidden : {int64_t(24), int64_t(13)}) { // 16-byte rows or not
      const HostArray table = randomArray(dtype, vocab * hidden, gen);
      const std::vector<int64_t> ids = {0, 7, 49, -1, 50, -51, 3};
      DeviceBuffer dt = upload(table), di = uploadVector(ids);
      DeviceBuffer dout = poisoned(dtype, ids.size() * hidden);
      DeviceBuffer flag = uploadVector(std::vector<int>{0});
      embeddingGather(stream, dtypeSize(dtype), dt.get(), vocab, hidden, di.as<int64_t>(),
                      int64_t(ids.size()), dout.get(), flag.as<int>());
      std::vector<double> want(ids.size() * hidden, 0.0);
      for (size_t r = 0; r < ids.size(); ++r) {
        int64_t id = ids[r] < 0 ? ids[r] + vocab : ids[r];
        if (id >= 0 && id < vocab)
          for (int64_t c = 0; c < hidden; ++c)
            want[r * hidden + c] = table.values[id * hidden + c];
      }
      const std::string what =
          std::string("gather ") + dtypeLabel(dtype) + " hidden=" + std::to_string(hidden);
      expectNear(download(dout, dtype, want.size()), want, 0.0, 0.0, what);
      EXPECT_EQ(downloadVector<int>(flag, 1)[0], 1) << what << ": out-of-range ids not flagged";
    }
}

TEST_F(CudaKernelsTest, ImageFeatureSpliceFollowsTokenOrder) {
  std::mt19937 gen(18);
  const int64_t hidden = 32, imageToken = 32000;
  // Two sequences of 10 tokens, flattened; 3 image tokens in each.
  std::vector<int64_t> ids(20);
  for (int64_t i = 0; i < 20; ++i)
    ids[i] = 100 + i;
  for (int64_t i : {2, 3, 4, 12, 13, 14})
    ids[i] = imageToken;
  for (DType dtype : kAllTypes)
    for (int64_t numFeatures : {int64_t(6), int64_t(5)}) {
      const HostArray emb = randomArray(dtype, 20 * hidden, gen);
      const HostArray feat = randomArray(dtype, numFeatures * hidden, gen);
      DeviceBuffer de = upload(emb), df = upload(feat), di = uploadVector(ids);
      DeviceBuffer flag = uploadVector(std::vector<int>{0});
      spliceImageFeatures(stream, dtypeSize(dtype), de.get(), di.as<int64_t>(), 20, hidden,
                          imageToken, df.get(), numFeatures, flag.as<int>());
      std::vector<double> want(emb.values);
      int64_t k = 0;
      for (int64_t r = 0; r < 20; ++r)
        if (ids[r] == imageToken) {
          if (k < numFeatures)
            for (int64_t c = 0; c < hidden; ++c)
              want[r * hidden + c] = feat.values[k * hidden + c];
          ++k;
        }
      const std::string what = std::string("splice ") + dtypeLabel(dtype) + " features=" +
                               std::to_string(numFeatures);
      expectNear(download(de, dtype, want.size()), want, 0.0, 0.0, what);
      EXPECT_EQ(downloadVector<int>(flag, 1)[0], numFeatures == 6 ? 0 : 1) << what;
    }
}

TEST_F(CudaKernelsTest, KvCacheAppendWritesAtDeviceLengths) {
  std::mt19937 gen(19);
  const int64_t B = 2, Hkv = 2, cap = 16, D = 64, newLen = 2;
  for (DType dtype : kAllTypes)
    for (bool overflow : {false, true}) {
      const std::vector<int32_t> lens = overflow ? std::vector<int32_t>{15, 0}
                                                 : std::vector<int32_t>{3, 7};
      const HostArray cacheK = randomArray(dtype, B * Hkv * cap * D, gen);
      const HostArray cacheV = randomArray(dtype, B * Hkv * cap * D, gen);
      // New rows come as the [B, S, Hkv, D] output of a projection.
      const HostArray newK = randomArray(dtype, B * newLen * Hkv * D, gen);
      const HostArray newV = randomArray(dtype, B * newLen * Hkv * D, gen);
      DeviceBuffer dk = upload(cacheK), dv = upload(cacheV), dnk = upload(newK),
                   dnv = upload(newV), dl = uploadVector(lens),
                   flag = uploadVector(std::vector<int>{0});
      KvCacheView c{dk.get(), dv.get(), B, Hkv, cap, D};
      kvCacheAppend(stream, dtype, c, dnk.get(), dnv.get(), newLen, newLen * Hkv * D, D, Hkv * D,
                    dl.as<int32_t>(), flag.as<int>());
      std::vector<double> wantK(cacheK.values), wantV(cacheV.values);
      bool flagged = false;
      for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < Hkv; ++h)
          for (int64_t s = 0; s < newLen; ++s) {
            const int64_t p = lens[b] + s;
            if (p >= cap) {
              flagged = true;
              continue;
            }
            for (int64_t d = 0; d < D; ++d) {
              wantK[((b * Hkv + h) * cap + p) * D + d] = newK.values[((b * newLen + s) * Hkv + h) * D + d];
              wantV[((b * Hkv + h) * cap + p) * D + d] = newV.values[((b * newLen + s) * Hkv + h) * D + d];
            }
          }
      const std::string what = std::string("kv append ") + dtypeLabel(dtype) +
                               (overflow ? " overflow" : "");
      expectNear(download(dk, dtype, wantK.size()), wantK, 0.0, 0.0, what + " K");
      expectNear(download(dv, dtype, wantV.size()), wantV, 0.0, 0.0, what + " V");
      EXPECT_EQ(downloadVector<int>(flag, 1)[0], flagged ? 1 : 0) << what;
      EXPECT_EQ(downloadVector<int32_t>(dl, 2), lens) << what << ": lengths must not change";
    }
}

TEST_F(CudaKernelsTest, AdvanceLengthsAddsDelta) {
  DeviceBuffer dl = uploadVector(std::vector<int32_t>{3, 7, 0});
  advanceLengths(stream, dl.as<int32_t>(), 3, 2);
  EXPECT_EQ(downloadVector<int32_t>(dl, 3), (std::vector<int32_t>{5, 9, 2}));
}

} // namespace
} // namespace mm::rt::cuda::test
