//===- ShapeInference.cpp - result shapes of ONNX ops ----------------------===//
#include "compiler/import/onnx/ShapeInference.h"
#include "runtime/core/DimRules.h"

#include <algorithm>

using namespace mlir;

namespace mm::onnx_import {

namespace {
constexpr int64_t kDyn = ShapedType::kDynamic;
bool isDyn(int64_t d) { return ShapedType::isDynamic(d); }
} // namespace

std::optional<Shape> broadcastShapes(ArrayRef<ArrayRef<int64_t>> shapes) {
  Shape acc;
  for (ArrayRef<int64_t> s : shapes) {
    Shape next;
    if (!dims::broadcastShapes(acc, s, next, kDyn))
      return std::nullopt;
    acc = std::move(next);
  }
  return acc;
}

Shape shapeFromKnown(const std::optional<KnownInts> &shape, int64_t rank) {
  Shape out(rank, kDyn);
  if (!shape || static_cast<int64_t>(shape->size()) != rank)
    return out;
  for (int64_t i = 0; i < rank; ++i)
    if ((*shape)[i].known && (*shape)[i].value >= 0 && (*shape)[i].value <= kMaxDim)
      out[i] = (*shape)[i].value;
  return out;
}

int64_t productOfDims(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims) {
    if (isDyn(d) || d < 0 || (d > 0 && p > (int64_t(1) << 60) / d))
      return kDyn;
    p *= d;
  }
  return p;
}

Shape reshapeShape(Value data, const std::optional<KnownInts> &shape, int64_t rank,
                   bool allowZero) {
  ArrayRef<int64_t> in = cast<RankedTensorType>(data.getType()).getShape();
  Shape out(rank, kDyn);
  SmallVector<bool> outDone(rank, false), inCancelled(in.size(), false);
  if (shape && static_cast<int64_t>(shape->size()) == rank) {
    for (int64_t i = 0; i < rank; ++i) {
      const KnownInt &e = (*shape)[i];
      int64_t copyOf = -1;
      const std::optional<mm::dims::ReshapeEntry> entry =
          e.known ? std::optional(mm::dims::reshapeEntry(e.value, allowZero)) : std::nullopt;
      if (entry == mm::dims::ReshapeEntry::copy && i < static_cast<int64_t>(in.size()))
        copyOf = i;
      else if (!e.known && e.dimOf == data && e.dim >= 0 && e.dim < static_cast<int64_t>(in.size()))
        copyOf = e.dim;
      if (copyOf >= 0 && !inCancelled[copyOf]) {
        out[i] = in[copyOf];
        outDone[i] = inCancelled[copyOf] = true;
      } else if (entry == mm::dims::ReshapeEntry::size && e.value <= kMaxDim) {
        out[i] = e.value;
      }
    }
  }
  // The remaining input dims must multiply to the remaining output dims.
  Shape restIn, restOut;
  for (size_t j = 0; j < in.size(); ++j)
    if (!inCancelled[j])
      restIn.push_back(in[j]);
  int64_t total = productOfDims(restIn);
  if (isDyn(total))
    return out;
  int64_t unknownAt = -1;
  for (int64_t i = 0; i < rank; ++i) {
    if (outDone[i])
      continue;
    if (!isDyn(out[i])) {
      restOut.push_back(out[i]);
    } else if (unknownAt < 0) {
      unknownAt = i;
    } else {
      return out; // two or more unknown dims
    }
  }
  int64_t known = productOfDims(restOut);
  if (unknownAt >= 0 && !isDyn(known) && known > 0 && total % known == 0)
    out[unknownAt] = total / known;
  return out;
}

Shape expandShape(ArrayRef<int64_t> in, const std::optional<KnownInts> &shape, int64_t rank) {
  int64_t outRank = std::max<int64_t>(rank, in.size());
  Shape out(outRank, kDyn);
  for (int64_t i = 0; i < outRank; ++i) {
    int64_t inIdx = i - (outRank - static_cast<int64_t>(in.size()));
    int64_t shIdx = i - (outRank - rank);
    int64_t a = inIdx >= 0 ? in[inIdx] : 1;
    std::optional<int64_t> b;
    if (shIdx < 0)
      b = 1;
    else if (shape && static_cast<int64_t>(shape->size()) == rank && (*shape)[shIdx].known &&
             (*shape)[shIdx].value >= 0 && (*shape)[shIdx].value <= kMaxDim)
      b = (*shape)[shIdx].value;
    if (b && *b == 1)
      out[i] = a;
    else if (b && (a == 1 || isDyn(a)))
      out[i] = *b;
    else if (!isDyn(a) && a != 1)
      out[i] = a;
  }
  return out;
}

int64_t slicedDim(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                  std::optional<int64_t> step) {
  if (!start || !end || !step || isDyn(dim))
    return kDyn;
  std::optional<dims::SliceBounds> b = dims::sliceBounds(dim, *start, *end, *step);
  return b ? b->count : kDyn;
}

std::optional<Shape> matmulShape(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs) {
  if (lhs.empty() || rhs.empty())
    return std::nullopt;
  SmallVector<int64_t> l(lhs), r(rhs);
  bool lhsVec = l.size() == 1, rhsVec = r.size() == 1;
  if (lhsVec)
    l.insert(l.begin(), 1);
  if (rhsVec)
    r.push_back(1);
  int64_t k1 = l.back(), k2 = r[r.size() - 2];
  if (!isDyn(k1) && !isDyn(k2) && k1 != k2)
    return std::nullopt;
  auto batch = broadcastShapes({ArrayRef(l).drop_back(2), ArrayRef(r).drop_back(2)});
  if (!batch)
    return std::nullopt;
  if (!lhsVec)
    batch->push_back(l[l.size() - 2]);
  if (!rhsVec)
    batch->push_back(r.back());
  return batch;
}

} // namespace mm::onnx_import
