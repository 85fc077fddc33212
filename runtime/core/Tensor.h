//===- Tensor.h - runtime tensors -------------------------------------------===//
#ifndef MM_RUNTIME_CORE_TENSOR_H
#define MM_RUNTIME_CORE_TENSOR_H

#include "runtime/core/DType.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mm::rt {

using Shape = std::vector<int64_t>;

/// Number of elements of a shape (1 for a scalar, 0 if any dim is 0).
int64_t numElements(const Shape &shape);
/// "[1, 3, 64, 64]"
std::string shapeString(const Shape &shape);

/// A dense row-major tensor. `data` points into host memory (CPU backend, inputs and
/// outputs) or device memory (CUDA backend); `owner` keeps the storage alive when the
/// tensor owns it (empty for views into an arena or a memory-mapped plan).
struct Tensor {
  DType dtype = DType::f32;
  Shape shape;
  void *data = nullptr;
  std::shared_ptr<void> owner;

  int64_t numel() const { return numElements(shape); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtypeSize(dtype); }
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  template <typename T> T *as() { return static_cast<T *>(data); }
  template <typename T> const T *as() const { return static_cast<const T *>(data); }

  /// A new host tensor owning zero-initialised storage (64-byte aligned).
  static Tensor host(DType dtype, Shape shape);
};

/// Element `i` of a host tensor of f32, f16, bf16 (exact) or f64 (rounded) as f32.
float floatElement(const Tensor &t, int64_t i);

/// A host tensor of f32, f16, bf16 or f64 with its elements converted to `to` (f32, f16 or
/// bf16): `t` itself when it is of type `to`, else a new tensor of t's shape, rounded to
/// nearest even as mm.cast rounds (f64 through f32). Throws Error naming the dtypes for
/// any other pair.
Tensor convertFloat(const Tensor &t, DType to);

} // namespace mm::rt

#endif // MM_RUNTIME_CORE_TENSOR_H
