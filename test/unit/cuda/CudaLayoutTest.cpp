//===- CudaLayoutTest.cpp - stridedCopy, binaryElementwise, gatherAxis, argmax --===//
//
// Each launch runs on random inputs and is compared with a plain host loop written here.
// The loops walk the index space with an odometer (increment the last index, carry), not
// with the kernels' division-based decomposition. Outputs start poisoned (0xFF bytes: NaN
// for floats, -1 for i64), and source bytes are drawn from 0..254, so an element the
// kernel fails to write, or writes from the wrong place, differs from the expected bytes.
//
// Tolerances (binaryElementwise) are stated next to binaryRtol(); the copies, the gather
// and the argmax are exact.
//
//===----------------------------------------------------------------------===//
#include "CudaTestUtil.h"

#include "runtime/cuda/Kernels.h"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace mm::rt::cuda::test {
namespace {

using Dims = std::vector<int64_t>;

Dims contiguousStrides(const Dims &shape) {
  Dims s(shape.size(), 1);
  for (int d = int(shape.size()) - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape[d + 1];
  return s;
}

int64_t countOf(const Dims &shape) {
  int64_t n = 1;
  for (int64_t e : shape)
    n *= e;
  return n;
}

StridedLayout makeLayout(const Dims &shape, const Dims &src, const Dims &dst) {
  StridedLayout l;
  l.rank = int(shape.size());
  for (int d = 0; d < l.rank; ++d) {
    l.shape[d] = shape[d];
    l.srcStride[d] = src[d];
    l.dstStride[d] = dst[d];
  }
  return l;
}

/// Calls f(srcOffset, dstOffset) for every index of l.shape in row-major order, moving
/// the offsets by an odometer.
void forEachIndex(const StridedLayout &l, const std::function<void(int64_t, int64_t)> &f) {
  int64_t total = 1;
  for (int d = 0; d < l.rank; ++d)
    total *= l.shape[d];
  std::vector<int64_t> idx(l.rank, 0);
  int64_t so = 0, dof = 0;
  for (int64_t n = 0; n < total; ++n) {
    f(so, dof);
    for (int d = l.rank - 1; d >= 0; --d) {
      ++idx[d];
      so += l.srcStride[d];
      dof += l.dstStride[d];
      if (idx[d] < l.shape[d])
        break;
      so -= l.shape[d] * l.srcStride[d];
      dof -= l.shape[d] * l.dstStride[d];
      idx[d] = 0;
    }
  }
}

std::vector<uint8_t> randomBytes(size_t n, std::mt19937 &gen) {
  std::uniform_int_distribution<int> dist(0, 254); // never the 0xFF poison
  std::vector<uint8_t> v(n);
  for (uint8_t &b : v)
    b = uint8_t(dist(gen));
  return v;
}

/// A device buffer of `bytes` bytes set to 0xFF.
DeviceBuffer poisonedBytes(size_t bytes) {
  DeviceBuffer b(bytes);
  checkCuda(cudaMemset(b.get(), 0xff, bytes), "cudaMemset (poison)");
  return b;
}

/// Index of the first differing byte, or -1.
int64_t firstMismatch(const std::vector<uint8_t> &got, const std::vector<uint8_t> &want) {
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i])
      return int64_t(i);
  return -1;
}

//===--- stridedCopy ----------------------------------------------------------===//

/// One stridedCopy launch: `layout` read from a fresh random source of srcElems
/// elements at element srcBase, written into the shared destination at element dstBase.
struct CopyPart {
  StridedLayout layout;
  int64_t srcElems = 0, srcBase = 0, dstBase = 0;
};

struct CopyCase {
  std::string name;
  std::vector<CopyPart> parts;
  int64_t dstElems = 0;
};

CopyPart part(const Dims &shape, const Dims &src, const Dims &dst, int64_t srcElems,
              int64_t srcBase = 0, int64_t dstBase = 0) {
  return CopyPart{makeLayout(shape, src, dst), srcElems, srcBase, dstBase};
}

/// dst [shape] contiguous = src viewed through `srcStride` (a whole-tensor copy case).
CopyCase wholeCopy(std::string name, const Dims &shape, const Dims &srcStride,
                   int64_t srcElems, int64_t srcBase = 0) {
  return CopyCase{std::move(name),
                  {part(shape, srcStride, contiguousStrides(shape), srcElems, srcBase)},
                  countOf(shape)};
}

std::vector<CopyCase> copyCases() {
  std::vector<CopyCase> cases;
  // Transpose [B, S, H, D] -> [B, H, S, D] (perm 0,2,1,3): D contiguous on both sides.
  for (int64_t D : {int64_t(64), int64_t(3)}) {
    const int64_t B = 2, S = 5, H = 3;
    cases.push_back(wholeCopy("transpose 0,2,1,3 D=" + std::to_string(D), {B, H, S, D},
                              {S * H * D, D, H * D, 1}, B * S * H * D));
  }
  // Transpose of the last two dims (perm 0,1,3,2 of a [2, 3, 5, 7] source).
  cases.push_back(wholeCopy("transpose 0,1,3,2", {2, 3, 7, 5}, {105, 35, 1, 7}, 210));
  // Broadcast (expand): [1, 5, 1, 16] -> [4, 5, 6, 16], and [4, 1] -> [4, 9] (inner stride 0).
  cases.push_back(wholeCopy("expand rows", {4, 5, 6, 16}, {0, 16, 0, 1}, 80));
  cases.push_back(wholeCopy("expand inner", {4, 9}, {1, 0}, 4));
  // Slice of a [10, 12] source: rows 8, 6, 4, 2 (step -2), columns 1..10 and 10..1.
  cases.push_back(wholeCopy("slice step -2", {4, 10}, {-24, 1}, 120, 8 * 12 + 1));
  cases.push_back(wholeCopy("slice steps -2,-1", {4, 10}, {-24, -1}, 120, 8 * 12 + 10));
  // Split: columns 7..11 of a [3, 12] source.
  cases.push_back(wholeCopy("split columns", {3, 5}, {12, 1}, 36, 7));
  // Concat along axis 1 into [3, 16] (widths 7, 5, 4) and along axis 0 into [5, 8].
  cases.push_back(CopyCase{"concat axis 1",
                           {part({3, 7}, {7, 1}, {16, 1}, 21, 0, 0),
                            part({3, 5}, {5, 1}, {16, 1}, 15, 0, 7),
                            part({3, 4}, {4, 1}, {16, 1}, 12, 0, 12)},
                           48});
  cases.push_back(CopyCase{"concat axis 0",
                           {part({2, 8}, {8, 1}, {8, 1}, 16, 0, 0),
                            part({3, 8}, {8, 1}, {8, 1}, 24, 0, 16)},
                           40});
  // Rank 8, all dimensions reversed (perm 7..0 of a [2, 3, 2, 2, 3, 2, 2, 5] source).
  {
    const Dims srcShape = {2, 3, 2, 2, 3, 2, 2, 5};
    const Dims srcStrides = contiguousStrides(srcShape);
    const Dims shape(srcShape.rbegin(), srcShape.rend());
    const Dims strides(srcStrides.rbegin(), srcStrides.rend());
    cases.push_back(wholeCopy("rank 8 reversed", shape, strides, countOf(srcShape)));
  }
  // Contiguous (coalesces to rank 1), large enough for several grid-stride rounds per thread
  // at 1-byte words; rank 0 (one element); and an empty shape that must write nothing.
  cases.push_back(wholeCopy("contiguous", {1000, 1003}, {1003, 1}, 1003000));
  cases.push_back(CopyCase{"rank 0", {part({}, {}, {}, 5, 3, 1)}, 2});
  cases.push_back(CopyCase{"empty", {part({3, 0, 4}, {0, 4, 1}, {0, 4, 1}, 1)}, 4});
  return cases;
}

class CudaLayoutTest : public CudaTest {};

TEST_F(CudaLayoutTest, StridedCopyMatchesHostLoop) {
  std::mt19937 gen(31);
  for (const CopyCase &c : copyCases())
    for (size_t eb : {size_t(1), size_t(2), size_t(4), size_t(8)}) {
      const std::string what = c.name + ", " + std::to_string(eb) + "-byte elements";
      std::vector<uint8_t> want(size_t(c.dstElems) * eb, 0xff);
      DeviceBuffer dst = poisonedBytes(want.size());
      for (const CopyPart &p : c.parts) {
        const std::vector<uint8_t> src = randomBytes(size_t(p.srcElems) * eb, gen);
        DeviceBuffer dsrc = uploadVector(src);
        bool inRange = true;
        forEachIndex(p.layout, [&](int64_t so, int64_t dof) {
          so += p.srcBase;
          dof += p.dstBase;
          inRange = inRange && so >= 0 && so < p.srcElems && dof >= 0 && dof < c.dstElems;
          if (inRange)
            std::memcpy(want.data() + dof * eb, src.data() + so * eb, eb);
        });
        ASSERT_TRUE(inRange) << what << ": test case reaches outside its buffers";
        stridedCopy(stream, eb, dsrc.as<uint8_t>() + p.srcBase * eb,
                    dst.as<uint8_t>() + p.dstBase * eb, p.layout);
        checkCuda(cudaStreamSynchronize(stream), "stridedCopy");
      }
      const std::vector<uint8_t> got = downloadVector<uint8_t>(dst, want.size());
      const int64_t bad = firstMismatch(got, want);
      EXPECT_EQ(bad, -1) << what << ": first wrong byte " << bad << " (element "
                         << (bad < 0 ? -1 : bad / int64_t(eb)) << ")";
    }
}

//===--- binaryElementwise ------------------------------------------------------===//

double refBinary(BinaryOp op, double a, double b) {
  switch (op) {
  case BinaryOp::add: return a + b;
  case BinaryOp::sub: return a - b;
  case BinaryOp::mul: return a * b;
  case BinaryOp::div: return a / b;
  case BinaryOp::pow: return std::pow(a, b);
  case BinaryOp::max: return std::isnan(a) || std::isnan(b) ? NAN : (a < b ? b : a);
  case BinaryOp::min: return std::isnan(a) || std::isnan(b) ? NAN : (b < a ? b : a);
  }
  return NAN;
}

/// Relative tolerance against the exact result of the (already rounded) inputs. The
/// kernel computes in f32 and stores once: add/sub/mul/div are IEEE-754 f32 operations
/// (nvcc's default -prec-div=true), so the f32 result is the exact one rounded once
/// (|err| <= 2^-24 |exact|), and max/min are exact; the store to f16/bf16 rounds once more
/// (unit roundoff u = 2^-11 / 2^-8). pow: the CUDA guide gives powf a few f32 ulps (4);
/// we allow 32 * 2^-24 (16 ulps). The factor 1.001 covers the double reference's own
/// rounding (2^-53, for div and pow). Results never reach the subnormal range (operand
/// magnitudes are in [0.25, 4], pow exponents in [-3, 3]), so no absolute term is needed.
double binaryRtol(BinaryOp op, DType t) {
  const double storeRounding = t == DType::f32 ? 0.0 : unitRoundoff(t);
  const double f32Error = (op == BinaryOp::pow ? 32.0 : 1.0) * std::ldexp(1.0, -24);
  return 1.001 * (storeRounding + f32Error);
}

/// An operand of a broadcasting op: `elems` stored elements read through `strides`
/// (aligned to the output rank).
struct BinaryOperand {
  Dims strides;
  int64_t elems = 0;
};

/// The operand of shape `shape` (same rank as the output; 1 broadcasts), contiguous.
BinaryOperand broadcastOperand(const Dims &shape) {
  BinaryOperand o{contiguousStrides(shape), countOf(shape)};
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] == 1)
      o.strides[d] = 0;
  return o;
}

struct BinaryCase {
  std::string name;
  Dims shape;
  BinaryOperand a, b;
  bool outIsA = false; ///< write the result over a (a has out's layout)
};

std::vector<BinaryCase> binaryCases() {
  const auto bc = broadcastOperand;
  return {
      // 8-wide path: inner 40, both operands contiguous in it, broadcast on other dims.
      {"both sides broadcast, inner 40", {2, 3, 4, 40}, bc({2, 1, 4, 40}), bc({1, 3, 1, 40})},
      // Scalar path: inner 37; b broadcast on every dim but one.
      {"inner 37, b [1,1,4,1]", {2, 3, 4, 37}, bc({2, 3, 4, 37}), bc({1, 1, 4, 1})},
      // 8-wide path with a broadcast along the innermost dimension.
      {"a broadcast along inner", {3, 5, 16}, bc({3, 5, 1}), bc({1, 5, 16})},
      // a read transposed (stored [7, 6]), b a scalar broadcast to [6, 7].
      {"a transposed, b scalar", {6, 7}, BinaryOperand{{1, 6}, 42}, bc({1, 1})},
      {"rank 0", {}, BinaryOperand{{}, 1}, BinaryOperand{{}, 1}},
      {"in place over a", {4, 64}, bc({4, 64}), bc({1, 64}), true},
      {"bias over many rows", {2, 1000, 64}, bc({2, 1000, 64}), bc({1, 1, 64})},
  };
}

/// Operand values for `op`: magnitudes in [0.25, 4] with random signs (pow: base in
/// [0.25, 4], exponent in [-3, 3]), rounded to dtype.
HostArray binaryInput(BinaryOp op, bool isExponent, DType dtype, int64_t n,
                      std::mt19937 &gen) {
  std::uniform_real_distribution<double> mag(0.25, 4.0), expo(-3.0, 3.0);
  std::bernoulli_distribution negative(0.5);
  std::vector<double> v(static_cast<size_t>(n));
  for (double &x : v) {
    if (op == BinaryOp::pow)
      x = isExponent ? expo(gen) : mag(gen);
    else
      x = negative(gen) ? -mag(gen) : mag(gen);
  }
  return HostArray(dtype, std::move(v));
}

const BinaryOp kBinaryOps[] = {BinaryOp::add, BinaryOp::sub, BinaryOp::mul, BinaryOp::div,
                               BinaryOp::pow, BinaryOp::max, BinaryOp::min};

TEST_F(CudaLayoutTest, BinaryElementwiseBroadcastsBothSides) {
  std::mt19937 gen(37);
  for (const BinaryCase &c : binaryCases())
    for (DType dtype : kAllTypes)
      for (BinaryOp op : kBinaryOps) {
        const std::string what = "binary op " + std::to_string(int(op)) + " " +
                                 dtypeLabel(dtype) + ", " + c.name;
        const HostArray a = binaryInput(op, false, dtype, c.a.elems, gen);
        const HostArray b = binaryInput(op, true, dtype, c.b.elems, gen);
        const int64_t n = countOf(c.shape);
        DeviceBuffer da = upload(a), db = upload(b);
        DeviceBuffer dout = c.outIsA ? DeviceBuffer() : poisoned(dtype, size_t(n));
        void *out = c.outIsA ? da.get() : dout.get();
        binaryElementwise(stream, op, dtype, da.get(), c.a.strides.data(), db.get(),
                          c.b.strides.data(), out, c.shape.data(), int(c.shape.size()));
        std::vector<double> want;
        forEachIndex(makeLayout(c.shape, c.a.strides, c.b.strides),
                     [&](int64_t ao, int64_t bo) {
                       want.push_back(refBinary(op, a.values[ao], b.values[bo]));
                     });
        ASSERT_EQ(int64_t(want.size()), n) << what;
        expectNear(download(out, dtype, size_t(n)), want, binaryRtol(op, dtype), 0.0, what);
      }
}

TEST_F(CudaLayoutTest, BinaryMaxMinPropagateNaN) {
  const Dims shape = {2, 16}, strides = contiguousStrides(shape);
  for (DType dtype : kAllTypes)
    for (BinaryOp op : {BinaryOp::max, BinaryOp::min}) {
      std::vector<double> av(32), bv(32);
      for (int i = 0; i < 32; ++i) {
        av[i] = i % 3 == 0 ? NAN : double(i);
        bv[i] = i % 5 == 0 ? NAN : double(31 - i);
      }
      const HostArray a(dtype, av), b(dtype, bv);
      DeviceBuffer da = upload(a), db = upload(b), dout = poisoned(dtype, 32);
      binaryElementwise(stream, op, dtype, da.get(), strides.data(), db.get(), strides.data(),
                        dout.get(), shape.data(), 2);
      const std::vector<double> got = download(dout, dtype, 32);
      for (int i = 0; i < 32; ++i) {
        const double want = refBinary(op, av[i], bv[i]);
        if (std::isnan(want))
          EXPECT_TRUE(std::isnan(got[i])) << dtypeLabel(dtype) << " element " << i;
        else
          EXPECT_EQ(got[i], want) << dtypeLabel(dtype) << " element " << i;
      }
    }
}

//===--- gatherAxis --------------------------------------------------------------===//

TEST_F(CudaLayoutTest, GatherAxisNegativeAndOutOfRangeIds) {
  struct Shape {
    int64_t outer, axisLen, inner;
    size_t elemBytes;
  };
  // Axis in the middle (5 x 4 bytes: 4-byte words; 8 x 2 bytes: 16-byte words), axis
  // last (inner 1), axis first (outer 1).
  const Shape shapes[] = {{3, 7, 5, 4}, {2, 9, 8, 2}, {4, 6, 1, 8}, {1, 11, 3, 1}};
  std::mt19937 gen(41);
  for (const Shape &s : shapes)
    for (bool withBad : {true, false}) {
      const int64_t L = s.axisLen;
      std::vector<int64_t> ids = {2, -1, 0, L - 1, -L, 3};
      if (withBad)
        ids.insert(ids.begin() + 2, {L, -L - 1}); // out of range: zero rows and the flag
      const int64_t numIds = int64_t(ids.size());
      const size_t rowBytes = size_t(s.inner) * s.elemBytes;
      const std::vector<uint8_t> data = randomBytes(size_t(s.outer * L) * rowBytes, gen);
      std::vector<uint8_t> want(size_t(s.outer * numIds) * rowBytes, 0);
      for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t j = 0; j < numIds; ++j) {
          const int64_t id = ids[j] < 0 ? ids[j] + L : ids[j];
          if (id >= 0 && id < L)
            std::memcpy(want.data() + (o * numIds + j) * rowBytes,
                        data.data() + (o * L + id) * rowBytes, rowBytes);
        }
      DeviceBuffer ddata = uploadVector(data), dids = uploadVector(ids);
      DeviceBuffer dout = poisonedBytes(want.size()), dflag = uploadVector(std::vector<int>{0});
      gatherAxis(stream, s.elemBytes, ddata.get(), s.outer, L, s.inner, dids.as<int64_t>(),
                 numIds, dout.get(), dflag.as<int>());
      const std::string what = "gatherAxis [" + std::to_string(s.outer) + ", " +
                               std::to_string(L) + ", " + std::to_string(s.inner) + "] x " +
                               std::to_string(s.elemBytes) + " bytes" +
                               (withBad ? " with bad ids" : "");
      const std::vector<uint8_t> got = downloadVector<uint8_t>(dout, want.size());
      EXPECT_EQ(firstMismatch(got, want), -1) << what;
      EXPECT_EQ(downloadVector<int>(dflag, 1)[0], withBad ? 1 : 0) << what;
    }
}

//===--- argmaxRows ------------------------------------------------------------===//

/// First index of the largest non-NaN value of row[0, cols), 0 when all are NaN.
int64_t refArgmax(const double *row, int64_t cols) {
  int64_t best = -1;
  for (int64_t c = 0; c < cols; ++c)
    if (!std::isnan(row[c]) && (best < 0 || row[c] > row[best]))
      best = c;
  return best < 0 ? 0 : best;
}

TEST_F(CudaLayoutTest, ArgmaxRowsTiesNaNAndLargeVocab) {
  std::mt19937 gen(43);
  // 151936 columns (Qwen2 vocabulary) with an aligned row stride (8-wide loads), and an
  // odd row stride (scalar loads).
  const int64_t shapes[][2] = {{151936, 151936 + 64}, {1001, 1003}};
  for (const auto &shape : shapes)
    for (DType dtype : kAllTypes) {
      const int64_t cols = shape[0], stride = shape[1], rows = 5;
      // Values in [-1, 1): in bf16 hundreds of columns round to the maximum (ties).
      HostArray x = randomArray(dtype, size_t(rows * stride), gen);
      std::vector<double> &v = x.values;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = cols; c < stride; ++c)
          v[r * stride + c] = 1000.0; // padding past the row: must not be read
      // Row 1: an exact tie of the maximum at three columns (same thread later, tail).
      const int64_t p = cols / 3 + 1;
      for (int64_t c : {p, p + 8192 < cols ? p + 8192 : p + 1, cols - 1})
        v[stride + c] = 100.0;
      // Row 2: NaN at column 0 and where the maximum would be; the maximum is elsewhere.
      v[2 * stride] = NAN;
      v[2 * stride + cols / 2] = NAN;
      v[2 * stride + cols / 2 + 1] = 50.0;
      v[2 * stride + cols - 2] = NAN;
      // Row 3: all NaN (result 0). Row 4: NaN then -inf everywhere (first -inf: 1).
      for (int64_t c = 0; c < cols; ++c) {
        v[3 * stride + c] = NAN;
        v[4 * stride + c] = c == 0 ? NAN : -INFINITY;
      }
      DeviceBuffer dx = upload(x), dout = poisonedBytes(size_t(rows) * sizeof(int64_t));
      argmaxRows(stream, dtype, dx.get(), rows, cols, stride, dout.as<int64_t>());
      const std::vector<int64_t> got = downloadVector<int64_t>(dout, size_t(rows));
      for (int64_t r = 0; r < rows; ++r)
        EXPECT_EQ(got[r], refArgmax(v.data() + r * stride, cols))
            << "argmaxRows " << dtypeLabel(dtype) << " cols " << cols << " row " << r;
      EXPECT_EQ(got[1], p);
      EXPECT_EQ(got[3], 0);
      EXPECT_EQ(got[4], 1);
    }
}

//===--- Argument checks (no GPU needed: they throw before any CUDA call) ------===//

TEST(CudaLayoutArgs, BadArgumentsThrowAndEmptyShapesLaunchNothing) {
  const StridedLayout empty = makeLayout({3, 0}, {1, 1}, {1, 1});
  EXPECT_NO_THROW(stridedCopy(nullptr, 4, nullptr, nullptr, empty));
  int dummy[4] = {};
  EXPECT_THROW(stridedCopy(nullptr, 3, dummy, dummy + 2, makeLayout({1}, {1}, {1})), Error);
  StridedLayout tooDeep;
  tooDeep.rank = kMaxLayoutRank + 1;
  EXPECT_THROW(stridedCopy(nullptr, 4, dummy, dummy + 2, tooDeep), Error);
  EXPECT_THROW(stridedCopy(nullptr, 4, dummy, dummy + 2, makeLayout({-1}, {1}, {1})), Error);

  const Dims shape = {2, 4}, contiguous = {4, 1}, broadcast = {0, 1};
  EXPECT_THROW(binaryElementwise(nullptr, BinaryOp(7), DType::f32, dummy, contiguous.data(),
                                 dummy, contiguous.data(), dummy, shape.data(), 2),
               Error);
  EXPECT_THROW(binaryElementwise(nullptr, BinaryOp::add, DType::i32, dummy, contiguous.data(),
                                 dummy, contiguous.data(), dummy, shape.data(), 2),
               Error);
  // out over a broadcast operand would read elements after other threads wrote them.
  EXPECT_THROW(binaryElementwise(nullptr, BinaryOp::add, DType::f32, dummy, broadcast.data(),
                                 dummy + 1, contiguous.data(), dummy, shape.data(), 2),
               Error);
  const Dims none = {2, 0};
  EXPECT_NO_THROW(binaryElementwise(nullptr, BinaryOp::add, DType::f32, nullptr,
                                    contiguous.data(), nullptr, contiguous.data(), nullptr,
                                    none.data(), 2));

  EXPECT_THROW(gatherAxis(nullptr, 4, dummy, -1, 3, 1, nullptr, 1, dummy, nullptr), Error);
  EXPECT_NO_THROW(gatherAxis(nullptr, 4, nullptr, 2, 3, 1, nullptr, 0, nullptr, nullptr));

  int64_t out = 0;
  EXPECT_THROW(argmaxRows(nullptr, DType::f32, dummy, 1, 0, 0, &out), Error);
  EXPECT_THROW(argmaxRows(nullptr, DType::f32, dummy, 2, 4, 3, &out), Error);
  EXPECT_THROW(argmaxRows(nullptr, DType::i64, dummy, 1, 4, 4, &out), Error);
  EXPECT_NO_THROW(argmaxRows(nullptr, DType::f32, nullptr, 0, 4, 4, nullptr));
}

} // namespace
} // namespace mm::rt::cuda::test
