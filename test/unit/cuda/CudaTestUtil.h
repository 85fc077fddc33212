//===- CudaTestUtil.h - helpers for the CUDA kernel tests -------------------===//
//
// CudaTest: a fixture that skips (GTEST_SKIP) when no GPU is usable and owns a stream.
// HostArray: values drawn at random, rounded to the element type, kept both as exact
// doubles (for the reference) and as raw bytes (for the device). DeviceBuffer: RAII
// device memory. expectNear: elementwise |got - want| <= rtol |want| + atol, NaN fails.
// oneRowLinear: the Blas::LinearArgs of a one-row product.
// The f16/bf16 conversions are the host runtime's (runtime/core/Half.h: round to nearest
// even, as the CUDA intrinsics the kernels use), independent of the device code.
//
//===----------------------------------------------------------------------===//
#ifndef MM_TEST_UNIT_CUDA_CUDATESTUTIL_H
#define MM_TEST_UNIT_CUDA_CUDATESTUTIL_H

#include "runtime/core/Half.h"
#include "runtime/cuda/Blas.h"
#include "runtime/cuda/CudaCommon.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace mm::rt::cuda::test {

/// v rounded to `dtype` (f32, f16, bf16).
inline double roundTo(DType dtype, double v) {
  switch (dtype) {
  case DType::f16: return halfBitsToFloat(floatToHalfBits(float(v)));
  case DType::bf16: return bf16BitsToFloat(floatToBf16Bits(float(v)));
  default: return float(v);
  }
}

/// The activations of CudaCommon.h in double precision (the tests' reference).
inline double referenceActivation(double x, Activation act) {
  switch (act) {
  case Activation::none: return x;
  case Activation::gelu: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  case Activation::geluTanh:
    return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
  case Activation::quickGelu: return x / (1.0 + std::exp(-1.702 * x));
  case Activation::silu: return x / (1.0 + std::exp(-x));
  case Activation::relu: return x < 0 ? 0.0 : x;
  }
  return x;
}

/// Unit roundoff of the storage type: the largest relative error of one rounding.
inline double unitRoundoff(DType dtype) {
  switch (dtype) {
  case DType::f16: return std::ldexp(1.0, -11);
  case DType::bf16: return std::ldexp(1.0, -8);
  default: return std::ldexp(1.0, -24);
  }
}

/// Float values of one element type, as exact doubles and as the bytes the device reads.
struct HostArray {
  DType dtype = DType::f32;
  std::vector<double> values;

  HostArray() = default;
  HostArray(DType t, std::vector<double> v) : dtype(t), values(std::move(v)) {
    for (double &x : values)
      x = roundTo(dtype, x);
  }
  size_t size() const { return values.size(); }
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> out(values.size() * dtypeSize(dtype));
    for (size_t i = 0; i < values.size(); ++i) {
      if (dtype == DType::f32) {
        const float f = float(values[i]);
        std::memcpy(out.data() + 4 * i, &f, 4);
      } else {
        const uint16_t h = dtype == DType::f16 ? floatToHalfBits(float(values[i]))
                                               : floatToBf16Bits(float(values[i]));
        std::memcpy(out.data() + 2 * i, &h, 2);
      }
    }
    return out;
  }
};

/// n values uniform in [lo, hi), rounded to dtype.
inline HostArray randomArray(DType dtype, size_t n, std::mt19937 &gen, double lo = -1.0,
                             double hi = 1.0) {
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (double &x : v)
    x = dist(gen);
  return HostArray(dtype, std::move(v));
}

/// Owning device allocation.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    checkCuda(cudaMalloc(&ptr_, bytes ? bytes : 1), "cudaMalloc (test)");
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  DeviceBuffer(DeviceBuffer &&o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = nullptr; }
  DeviceBuffer &operator=(DeviceBuffer &&o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  ~DeviceBuffer() {
    if (ptr_)
      cudaFree(ptr_);
  }
  void *get() const { return ptr_; }
  template <typename T> T *as() const { return static_cast<T *>(ptr_); }
  size_t bytes() const { return bytes_; }

private:
  void *ptr_ = nullptr;
  size_t bytes_ = 0;
};

inline DeviceBuffer upload(const void *data, size_t bytes) {
  DeviceBuffer b(bytes);
  checkCuda(cudaMemcpy(b.get(), data, bytes, cudaMemcpyHostToDevice), "upload");
  return b;
}
inline DeviceBuffer upload(const HostArray &a) {
  const std::vector<uint8_t> bytes = a.bytes();
  return upload(bytes.data(), bytes.size());
}
template <typename T> DeviceBuffer uploadVector(const std::vector<T> &v) {
  return upload(v.data(), v.size() * sizeof(T));
}

/// A device buffer for n elements of dtype filled with 0xFF bytes (NaN in f32, f16 and
/// bf16), so an element the kernel fails to write shows up as NaN.
inline DeviceBuffer poisoned(DType dtype, size_t n) {
  DeviceBuffer b(n * dtypeSize(dtype));
  checkCuda(cudaMemset(b.get(), 0xff, b.bytes()), "cudaMemset (poison)");
  return b;
}

/// n elements of dtype at device address p, as doubles (synchronises the device).
inline std::vector<double> download(const void *p, DType dtype, size_t n) {
  checkCuda(cudaDeviceSynchronize(), "kernel execution");
  std::vector<uint8_t> raw(n * dtypeSize(dtype));
  checkCuda(cudaMemcpy(raw.data(), p, raw.size(), cudaMemcpyDeviceToHost), "download");
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) {
    if (dtype == DType::f32) {
      float f;
      std::memcpy(&f, raw.data() + 4 * i, 4);
      out[i] = f;
    } else {
      uint16_t h;
      std::memcpy(&h, raw.data() + 2 * i, 2);
      out[i] = dtype == DType::f16 ? halfBitsToFloat(h) : bf16BitsToFloat(h);
    }
  }
  return out;
}
inline std::vector<double> download(const DeviceBuffer &b, DType dtype, size_t n) {
  return download(b.get(), dtype, n);
}
template <typename T> std::vector<T> downloadVector(const DeviceBuffer &b, size_t n) {
  checkCuda(cudaDeviceSynchronize(), "kernel execution");
  std::vector<T> out(n);
  checkCuda(cudaMemcpy(out.data(), b.get(), n * sizeof(T), cudaMemcpyDeviceToHost), "download");
  return out;
}

/// Expects |got[i] - want[i]| <= rtol |want[i]| + atol[i] for every i (NaN fails); reports
/// the number of failures and the worst element, plus the relative L2 error.
inline void expectNear(const std::vector<double> &got, const std::vector<double> &want,
                       double rtol, const std::vector<double> &atol, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t bad = 0, worst = 0;
  double worstRatio = 0.0, err2 = 0.0, ref2 = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double d = std::fabs(got[i] - want[i]);
    const double bound = rtol * std::fabs(want[i]) + atol[i];
    const double ratio = std::isnan(d) ? INFINITY : d / (bound > 0 ? bound : 1e-300);
    if (!(d <= bound))
      ++bad;
    if (ratio > worstRatio || std::isnan(d)) {
      worstRatio = ratio;
      worst = i;
    }
    err2 += std::isnan(d) ? INFINITY : d * d;
    ref2 += want[i] * want[i];
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << got.size()
                     << " elements out of tolerance; worst element " << worst << " got "
                     << got[worst] << " want " << want[worst] << " (rtol " << rtol << ", atol "
                     << atol[worst] << "); relative L2 error "
                     << std::sqrt(err2 / (ref2 > 0 ? ref2 : 1));
}
inline void expectNear(const std::vector<double> &got, const std::vector<double> &want,
                       double rtol, double atol, const std::string &what) {
  expectNear(got, want, rtol, std::vector<double>(want.size(), atol), what);
}

inline const char *dtypeLabel(DType t) { return dtypeName(t).data(); }

/// Skips the test when no CUDA device is usable (no driver, or no GPU), so the suite
/// passes on machines without a GPU (CI); owns a stream for the test.
class CudaTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (cudaDeviceCountOrZero() == 0)
      GTEST_SKIP() << "no CUDA GPU (cudaGetDeviceCount failed or returned 0): CUDA kernel "
                      "test skipped; run it on a GPU machine";
    checkCuda(cudaStreamCreate(&stream), "cudaStreamCreate");
  }
  void TearDown() override {
    if (stream)
      cudaStreamDestroy(stream);
  }
  cudaStream_t stream = nullptr;
};

constexpr DType kAllTypes[] = {DType::f32, DType::f16, DType::bf16};

/// Blas::LinearArgs of y[n] = x[k] W[k, n] (one row, M = 1); the other fields (bias,
/// activation, path, fused input, constantWeight) at their defaults.
inline Blas::LinearArgs oneRowLinear(DType dtype, const void *x, const void *w, void *y,
                                     int64_t k, int64_t n) {
  Blas::LinearArgs a;
  a.dtype = dtype;
  a.x = x;
  a.w = w;
  a.y = y;
  a.m = 1;
  a.n = n;
  a.k = k;
  return a;
}

} // namespace mm::rt::cuda::test

#endif // MM_TEST_UNIT_CUDA_CUDATESTUTIL_H
