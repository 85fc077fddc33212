//===- StridedView.cpp - strided views of KV-cache buffers -------------------===//
#include "runtime/exec/StridedView.h"

#include <cstring>

namespace mm::rt {

std::vector<int64_t> contiguousStridesOf(const Shape &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    strides[d - 1] = strides[d] * shape[d];
  return strides;
}

bool isContiguousView(const Shape &shape, const std::vector<int64_t> &strides) {
  int64_t expected = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0)
      return true;
    if (shape[d] != 1 && strides[d] != expected)
      return false;
    expected *= shape[d];
  }
  return true;
}

void copyStridedToContiguous(const Tensor &view, const std::vector<int64_t> &strides, void *dst) {
  const Shape &shape = view.shape;
  const size_t rank = shape.size();
  const size_t es = dtypeSize(view.dtype);
  if (view.numel() == 0)
    return;
  // The innermost dims [k, rank) that are contiguous in the source form one run.
  size_t k = rank;
  int64_t run = 1;
  while (k > 0 && strides[k - 1] == run) {
    run *= shape[k - 1];
    --k;
  }
  const size_t runBytes = static_cast<size_t>(run) * es;
  auto *out = static_cast<uint8_t *>(dst);
  const auto *base = static_cast<const uint8_t *>(view.data);
  if (k == 0) {
    std::memcpy(out, base, runBytes);
    return;
  }
  // Odometer over the outer dims [0, k); a run of 1 element when the last dim is strided.
  std::vector<int64_t> idx(k, 0);
  int64_t offset = 0;
  const int64_t outerCount = numElements(Shape(shape.begin(), shape.begin() + static_cast<long>(k)));
  for (int64_t n = 0; n < outerCount; ++n) {
    std::memcpy(out, base + static_cast<size_t>(offset) * es, runBytes);
    out += runBytes;
    for (size_t d = k; d-- > 0;) {
      offset += strides[d];
      if (++idx[d] < shape[d])
        break;
      offset -= strides[d] * shape[d];
      idx[d] = 0;
    }
  }
}

} // namespace mm::rt
