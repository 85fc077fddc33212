//===- KernelTestUtil.h - running CPU kernels directly in unit tests --------===//
//
// TestContext: a KernelContext that allocates outputs with Tensor::host. OpRun: builds
// one op's inputs, attributes and result dtypes and runs its registered kernel. Plus
// tensor construction/reading helpers and a deterministic random source.
//
//===----------------------------------------------------------------------===//
#ifndef MM_TEST_UNIT_CPU_KERNELTESTUTIL_H
#define MM_TEST_UNIT_CPU_KERNELTESTUTIL_H

#include "runtime/core/Error.h"
#include "runtime/core/Half.h"
#include "runtime/cpu/CpuKernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace mm::rt::cpu::test {

/// Allocates every output as a fresh host tensor of the declared dtype, filled with 0xA5
/// bytes (like an arena, whose memory is not zeroed): an element a kernel forgets to
/// write shows up as garbage instead of a plausible 0.
class TestContext : public KernelContext {
public:
  TestContext(Attrs attrs, std::vector<DType> outTypes)
      : attrs_(std::move(attrs)), outTypes_(std::move(outTypes)) {}
  const Attrs &attrs() const override { return attrs_; }
  DType outputDType(size_t i) const override {
    if (i >= outTypes_.size())
      fail("test context: no declared dtype for result ", i);
    return outTypes_[i];
  }
  Tensor allocateOutput(size_t i, const Shape &shape) override {
    Tensor t = Tensor::host(outputDType(i), shape);
    std::memset(t.data, 0xA5, t.nbytes());
    return t;
  }

private:
  Attrs attrs_;
  std::vector<DType> outTypes_;
};

/// Writes `v` into element i of t (any dtype; floats rounded to nearest even).
inline void setElement(Tensor &t, int64_t i, double v) {
  switch (t.dtype) {
  case DType::f32:
    t.as<float>()[i] = static_cast<float>(v);
    break;
  case DType::f64:
    t.as<double>()[i] = v;
    break;
  case DType::f16:
    t.as<uint16_t>()[i] = floatToHalfBits(static_cast<float>(v));
    break;
  case DType::bf16:
    t.as<uint16_t>()[i] = floatToBf16Bits(static_cast<float>(v));
    break;
  case DType::i8:
    t.as<int8_t>()[i] = static_cast<int8_t>(v);
    break;
  case DType::i16:
    t.as<int16_t>()[i] = static_cast<int16_t>(v);
    break;
  case DType::i32:
    t.as<int32_t>()[i] = static_cast<int32_t>(v);
    break;
  case DType::i64:
    t.as<int64_t>()[i] = static_cast<int64_t>(v);
    break;
  case DType::u8:
    t.as<uint8_t>()[i] = static_cast<uint8_t>(v);
    break;
  case DType::u16:
    t.as<uint16_t>()[i] = static_cast<uint16_t>(v);
    break;
  case DType::u32:
    t.as<uint32_t>()[i] = static_cast<uint32_t>(v);
    break;
  case DType::u64:
    t.as<uint64_t>()[i] = static_cast<uint64_t>(v);
    break;
  case DType::boolean:
    t.as<uint8_t>()[i] = v != 0;
    break;
  }
}

/// Element i of t as double.
inline double getElement(const Tensor &t, int64_t i) {
  switch (t.dtype) {
  case DType::f32:
    return t.as<float>()[i];
  case DType::f64:
    return t.as<double>()[i];
  case DType::f16:
    return halfBitsToFloat(t.as<uint16_t>()[i]);
  case DType::bf16:
    return bf16BitsToFloat(t.as<uint16_t>()[i]);
  case DType::i8:
    return t.as<int8_t>()[i];
  case DType::i16:
    return t.as<int16_t>()[i];
  case DType::i32:
    return t.as<int32_t>()[i];
  case DType::i64:
    return static_cast<double>(t.as<int64_t>()[i]);
  case DType::u8:
    return t.as<uint8_t>()[i];
  case DType::u16:
    return t.as<uint16_t>()[i];
  case DType::u32:
    return t.as<uint32_t>()[i];
  case DType::u64:
    return static_cast<double>(t.as<uint64_t>()[i]);
  case DType::boolean:
    return t.as<uint8_t>()[i] != 0;
  }
  return 0;
}

/// A tensor of `dtype` and `shape` holding `values` (converted; size must match).
inline Tensor makeTensor(DType dtype, Shape shape, const std::vector<double> &values) {
  Tensor t = Tensor::host(dtype, std::move(shape));
  if (static_cast<int64_t>(values.size()) != t.numel())
    fail("makeTensor: ", values.size(), " values for shape ", shapeString(t.shape));
  for (int64_t i = 0; i < t.numel(); ++i)
    setElement(t, i, values[i]);
  return t;
}

/// Exact int64 tensor (no detour through double).
inline Tensor makeI64(Shape shape, const std::vector<int64_t> &values) {
  Tensor t = Tensor::host(DType::i64, std::move(shape));
  if (static_cast<int64_t>(values.size()) != t.numel())
    fail("makeI64: ", values.size(), " values for shape ", shapeString(t.shape));
  if (!values.empty())
    std::memcpy(t.data, values.data(), values.size() * 8);
  return t;
}

inline Tensor makeF32(Shape shape, const std::vector<double> &values) {
  return makeTensor(DType::f32, std::move(shape), values);
}

/// Every element of t as double.
inline std::vector<double> toDoubles(const Tensor &t) {
  std::vector<double> out(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i)
    out[i] = getElement(t, i);
  return out;
}

/// n values uniform in [lo, hi) from a fixed-seed generator.
inline std::vector<double> randomValues(int64_t n, double lo = -1.0, double hi = 1.0,
                                        unsigned seed = 42) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(static_cast<size_t>(n));
  for (double &x : v)
    x = dist(gen);
  return v;
}

/// Random tensor; values rounded to the dtype so references see exactly the kernel's input.
inline Tensor randomTensor(DType dtype, Shape shape, unsigned seed, double lo = -1.0,
                           double hi = 1.0) {
  return makeTensor(dtype, shape, randomValues(numElements(shape), lo, hi, seed));
}

/// One op run: inputs, attributes, declared result dtypes.
class OpRun {
public:
  explicit OpRun(std::string op) : attrs_(op), op_(std::move(op)) {}
  OpRun &in(const Tensor &t) {
    inputs_.push_back(&t);
    return *this;
  }
  OpRun &attr(const std::string &name, AttrValue v) {
    attrs_.set(name, std::move(v));
    return *this;
  }
  OpRun &out(DType t) {
    outTypes_.push_back(t);
    return *this;
  }
  std::vector<Tensor> run() const {
    CpuKernel k = cpuKernels().find(op_);
    if (!k)
      fail("no CPU kernel for ", op_);
    TestContext ctx(attrs_, outTypes_);
    std::vector<Tensor> outputs;
    k(ctx, inputs_, outputs);
    return outputs;
  }
  Tensor run1() const {
    std::vector<Tensor> r = run();
    if (r.size() != 1)
      fail(op_, " produced ", r.size(), " results");
    return r[0];
  }

private:
  Attrs attrs_;
  std::string op_;
  std::vector<const Tensor *> inputs_;
  std::vector<DType> outTypes_;
};

/// Expects equal shapes and |got - want| <= atol + rtol * |want| elementwise (NaN matches NaN).
inline void expectClose(const Tensor &got, const Shape &shape, const std::vector<double> &want,
                        double rtol, double atol, const std::string &what = "") {
  ASSERT_EQ(shapeString(got.shape), shapeString(shape)) << what;
  ASSERT_EQ(static_cast<size_t>(got.numel()), want.size()) << what;
  for (int64_t i = 0; i < got.numel(); ++i) {
    double g = getElement(got, i), w = want[i];
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(g)) << what << " element " << i << ": got " << g << ", want NaN";
      continue;
    }
    if (std::isinf(w)) {
      EXPECT_EQ(g, w) << what << " element " << i;
      continue;
    }
    EXPECT_LE(std::fabs(g - w), atol + rtol * std::fabs(w))
        << what << " element " << i << ": got " << g << ", want " << w;
  }
}

/// Expects the same dtype, shape and values exactly.
inline void expectExact(const Tensor &got, DType dtype, const Shape &shape,
                        const std::vector<double> &want, const std::string &what = "") {
  EXPECT_EQ(dtypeName(got.dtype), dtypeName(dtype)) << what;
  expectClose(got, shape, want, 0.0, 0.0, what);
}

/// Expects `fn` to throw mm::rt::Error whose message contains `needle`.
template <typename Fn> void expectError(Fn &&fn, const std::string &needle) {
  try {
    fn();
    ADD_FAILURE() << "expected an error containing '" << needle << "'";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "error '" << e.what() << "' lacks '" << needle << "'";
  }
}

} // namespace mm::rt::cpu::test

#endif // MM_TEST_UNIT_CPU_KERNELTESTUTIL_H
