//===- StridedView.h - strided views of KV-cache buffers ---------------------===//
//
// The executor's only non-contiguous tensors are views of KV-cache buffers: a logical
// shape over a buffer with room for more positions. These helpers give row-major
// strides and copy such a view into contiguous memory for kernels.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_EXEC_STRIDEDVIEW_H
#define MM_RUNTIME_EXEC_STRIDEDVIEW_H

#include "runtime/core/Tensor.h"

#include <vector>

namespace mm::rt {

/// Row-major strides of `shape`, in elements.
std::vector<int64_t> contiguousStridesOf(const Shape &shape);

/// Whether a view of `shape` with `strides` is laid out row-major without gaps (the
/// strides of dims of size 1 do not matter), so kernels can read it as is.
bool isContiguousView(const Shape &shape, const std::vector<int64_t> &strides);

/// Copies the elements of `view` (data at element 0, logical shape `view.shape`, strides
/// `strides` in elements) to `dst` in row-major order. Runs of dims that are contiguous
/// in the source are copied with one memcpy each.
void copyStridedToContiguous(const Tensor &view, const std::vector<int64_t> &strides, void *dst);

} // namespace mm::rt

#endif // MM_RUNTIME_EXEC_STRIDEDVIEW_H
