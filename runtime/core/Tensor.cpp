//===- Tensor.cpp - runtime tensors -----------------------------------------===//
#include "runtime/core/Tensor.h"

#include "runtime/core/Error.h"
#include "runtime/core/Half.h"

#include <cstdlib>
#include <cstring>
#include <sstream>

namespace mm::rt {

int64_t numElements(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string shapeString(const Shape &shape) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < shape.size(); ++i)
    os << (i ? ", " : "") << shape[i];
  os << ']';
  return os.str();
}

Tensor Tensor::host(DType dtype, Shape shape) {
  for (int64_t d : shape)
    if (d < 0)
      fail("cannot allocate a tensor of shape ", shapeString(shape));
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  size_t bytes = (t.nbytes() + 63) / 64 * 64;
  void *p = std::aligned_alloc(64, bytes ? bytes : 64);
  if (!p)
    fail("out of host memory allocating ", t.nbytes(), " bytes");
  std::memset(p, 0, bytes);
  t.data = p;
  t.owner = std::shared_ptr<void>(p, std::free);
  return t;
}

namespace {
bool isHalfOrFloat(DType t) { return t == DType::f32 || t == DType::f16 || t == DType::bf16; }
} // namespace

float floatElement(const Tensor &t, int64_t i) {
  switch (t.dtype) {
  case DType::f16: return static_cast<float>(t.as<Half>()[i]);
  case DType::bf16: return static_cast<float>(t.as<BFloat16>()[i]);
  case DType::f64: return static_cast<float>(t.as<double>()[i]);
  default: return t.as<float>()[i];
  }
}

Tensor convertFloat(const Tensor &t, DType to) {
  if (!(isHalfOrFloat(t.dtype) || t.dtype == DType::f64) || !isHalfOrFloat(to))
    fail("cannot convert a ", dtypeName(t.dtype), " tensor to ", dtypeName(to),
         " (f32, f16, bf16 and f64 convert to f32, f16 and bf16)");
  if (t.dtype == to)
    return t;
  Tensor out = Tensor::host(to, t.shape);
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) {
    float v = floatElement(t, i);
    if (to == DType::f32)
      out.as<float>()[i] = v;
    else if (to == DType::f16)
      out.as<Half>()[i] = Half(v);
    else
      out.as<BFloat16>()[i] = BFloat16(v);
  }
  return out;
}

} // namespace mm::rt
