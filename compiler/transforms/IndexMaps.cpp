//===- IndexMaps.cpp - element index maps of ONNX data-movement ops --------===//
#include "compiler/transforms/IndexMaps.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mm::shapes;
using llvm::ArrayRef;

std::optional<int64_t> mm::shapes::numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0 || llvm::MulOverflow(n, d, n))
      return std::nullopt;
  return n;
}

namespace {

llvm::SmallVector<int64_t, 4> stridesOf(ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t, 4> s(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

/// Calls fn(multiIndex) for every position of `shape` in row-major order.
template <typename Fn>
void forEachIndex(ArrayRef<int64_t> shape, Fn fn) {
  int64_t n = numElements(shape).value_or(0);
  llvm::SmallVector<int64_t, 4> idx(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    fn(ArrayRef<int64_t>(idx));
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

} // namespace

IndexMap mm::shapes::broadcastMap(ArrayRef<int64_t> result, ArrayRef<int64_t> operand) {
  IndexMap map;
  auto strides = stridesOf(operand);
  size_t offset = result.size() - operand.size();
  forEachIndex(result, [&](ArrayRef<int64_t> idx) {
    int64_t flat = 0;
    for (size_t d = 0; d < operand.size(); ++d)
      flat += (operand[d] == 1 ? 0 : idx[offset + d]) * strides[d];
    map.push_back(flat);
  });
  return map;
}

IndexMap mm::shapes::gatherMap(ArrayRef<int64_t> data, int64_t axis, ArrayRef<int64_t> indices,
                               ArrayRef<int64_t> indicesShape) {
  llvm::SmallVector<int64_t, 4> result(data.take_front(axis));
  result.append(indicesShape.begin(), indicesShape.end());
  result.append(data.begin() + axis + 1, data.end());
  auto strides = stridesOf(data);
  size_t q = indicesShape.size();
  auto idxStrides = stridesOf(indicesShape);
  IndexMap map;
  forEachIndex(result, [&](ArrayRef<int64_t> idx) {
    int64_t flat = 0;
    for (int64_t d = 0; d < axis; ++d)
      flat += idx[d] * strides[d];
    int64_t which = 0;
    for (size_t j = 0; j < q; ++j)
      which += idx[axis + j] * idxStrides[j];
    flat += indices[which] * strides[axis];
    for (size_t d = axis + 1; d < data.size(); ++d)
      flat += idx[d - 1 + q] * strides[d];
    map.push_back(flat);
  });
  return map;
}

llvm::SmallVector<std::pair<unsigned, int64_t>, 16>
mm::shapes::concatMap(ArrayRef<llvm::SmallVector<int64_t, 4>> inputs, int64_t axis) {
  llvm::SmallVector<int64_t, 4> result(inputs.front());
  result[axis] = 0;
  llvm::SmallVector<int64_t, 4> begins;
  for (const auto &in : inputs) {
    begins.push_back(result[axis]);
    result[axis] += in[axis];
  }
  llvm::SmallVector<std::pair<unsigned, int64_t>, 16> map;
  forEachIndex(result, [&](ArrayRef<int64_t> idx) {
    unsigned which = 0;
    while (which + 1 < inputs.size() && idx[axis] >= begins[which + 1])
      ++which;
    auto strides = stridesOf(inputs[which]);
    int64_t flat = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      flat += (d == static_cast<size_t>(axis) ? idx[d] - begins[which] : idx[d]) * strides[d];
    map.push_back({which, flat});
  });
  return map;
}

IndexMap mm::shapes::sliceMap(ArrayRef<int64_t> data, ArrayRef<SliceDim> dims) {
  llvm::SmallVector<int64_t, 4> result;
  for (const SliceDim &d : dims)
    result.push_back(d.count);
  auto strides = stridesOf(data);
  IndexMap map;
  forEachIndex(result, [&](ArrayRef<int64_t> idx) {
    int64_t flat = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      flat += (dims[d].start + idx[d] * dims[d].step) * strides[d];
    map.push_back(flat);
  });
  return map;
}

IndexMap mm::shapes::transposeMap(ArrayRef<int64_t> input, ArrayRef<int64_t> perm) {
  llvm::SmallVector<int64_t, 4> result;
  for (int64_t p : perm)
    result.push_back(input[p]);
  auto strides = stridesOf(input);
  IndexMap map;
  forEachIndex(result, [&](ArrayRef<int64_t> idx) {
    int64_t flat = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      flat += idx[d] * strides[perm[d]];
    map.push_back(flat);
  });
  return map;
}

IndexMap mm::shapes::tileMap(ArrayRef<int64_t> input, ArrayRef<int64_t> repeats) {
  llvm::SmallVector<int64_t, 4> result;
  for (size_t d = 0; d < input.size(); ++d)
    result.push_back(input[d] * repeats[d]);
  auto strides = stridesOf(input);
  IndexMap map;
  forEachIndex(result, [&](ArrayRef<int64_t> idx) {
    int64_t flat = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      flat += (idx[d] % input[d]) * strides[d];
    map.push_back(flat);
  });
  return map;
}
