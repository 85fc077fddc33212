//===- Tensor.cpp - runtime tensors -----------------------------------------===//
#include "runtime/core/Tensor.h"

#include "runtime/core/Error.h"

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

} // namespace mm::rt
