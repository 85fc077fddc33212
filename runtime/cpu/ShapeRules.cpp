//===- ShapeRules.cpp - result shapes of the layout, pooling and resize ops --===//
#include "runtime/cpu/ShapeRules.h"

#include "runtime/core/DimRules.h"
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/WindowRules.h"

#include <algorithm>
#include <cmath>

namespace mm::rt::cpu {

Shape reshapeShape(const std::string &op, const Shape &in, const std::vector<int64_t> &req,
                   bool allowZero) {
  Shape shape;
  switch (dims::reshape(in, req, allowZero, shape)) {
  case dims::ReshapeError::none:
    return shape;
  case dims::ReshapeError::invalidEntry:
    fail(op, ": invalid dim in shape ", shapeString(req));
  case dims::ReshapeError::twoInferred:
    fail(op, ": more than one -1 in shape ", shapeString(req));
  case dims::ReshapeError::copyPastRank: {
    size_t i = in.size();
    while (i < req.size() && dims::reshapeEntry(req[i], allowZero) != dims::ReshapeEntry::copy)
      ++i;
    fail(op, ": shape ", shapeString(req), " copies dim ", i, " but the input ", shapeString(in),
         " has rank ", in.size());
  }
  case dims::ReshapeError::cannotInfer:
    fail(op, ": cannot infer the -1 dim of ", shapeString(req), " for input ", shapeString(in));
  case dims::ReshapeError::countChanges:
    fail(op, ": cannot view ", shapeString(in), " as ", shapeString(req));
  }
  fail(op, ": unknown reshape error");
}

Shape squeezeShape(const std::string &op, const Shape &in, const std::vector<int64_t> &axes) {
  std::vector<bool> drop(in.size(), false);
  for (int64_t a : axes) {
    int64_t n = normalizeAxis(op, a, static_cast<int64_t>(in.size()));
    if (in[n] != 1)
      fail(op, ": cannot squeeze dim ", n, " of size ", in[n], " in ", shapeString(in));
    drop[n] = true;
  }
  Shape shape;
  for (size_t d = 0; d < in.size(); ++d)
    if (!drop[d])
      shape.push_back(in[d]);
  return shape;
}

Shape unsqueezeShape(const std::string &op, const Shape &in, const std::vector<int64_t> &axes) {
  const int64_t rank = static_cast<int64_t>(in.size() + axes.size());
  const std::vector<bool> inserted = axisMask(op, axes, rank);
  Shape shape;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d)
    shape.push_back(inserted[d] ? 1 : in[next++]);
  return shape;
}

Shape flattenShape(const std::string &op, const Shape &in, int64_t axis) {
  const int64_t rank = static_cast<int64_t>(in.size());
  std::optional<int64_t> split = dims::normalizeSplitAxis(axis, rank);
  if (!split)
    fail(op, ": axis ", axis, " out of range for rank ", rank);
  return {numElements(Shape(in.begin(), in.begin() + *split)),
          numElements(Shape(in.begin() + *split, in.end()))};
}

ViewSpec transposeView(const std::string &op, const Shape &in, const std::vector<int64_t> &perm) {
  int64_t rank = static_cast<int64_t>(in.size());
  if (static_cast<int64_t>(perm.size()) != rank)
    fail(op, ": perm has ", perm.size(), " entries for rank ", rank);
  std::vector<int64_t> inStrides = contiguousStrides(in);
  std::vector<bool> seen(perm.size(), false);
  ViewSpec v;
  for (int64_t p : perm) {
    int64_t n = normalizeAxis(op, p, rank);
    if (seen[n])
      fail(op, ": perm repeats axis ", p);
    seen[n] = true;
    v.shape.push_back(in[n]);
    v.strides.push_back(inStrides[n]);
  }
  return v;
}

ViewSpec sliceView(const std::string &op, const Shape &in, const std::vector<int64_t> &starts,
                   const std::vector<int64_t> &ends, const std::vector<int64_t> &axes,
                   const std::vector<int64_t> &steps) {
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    fail(op, ": starts, ends, axes and steps must have the same length (", starts.size(), ", ",
         ends.size(), ", ", axes.size(), ", ", steps.size(), ")");
  int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> inStrides = contiguousStrides(in);
  ViewSpec v{in, inStrides, 0};
  axisMask(op, axes, rank); // each axis at most once
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t a = normalizeAxis(op, axes[i], rank);
    std::optional<dims::SliceBounds> b = dims::sliceBounds(in[a], starts[i], ends[i], steps[i]);
    if (!b)
      fail(op, ": step 0 on axis ", axes[i]);
    v.shape[a] = b->count;
    if (b->count > 0)
      v.offset += b->start * inStrides[a];
    // With one element taken the step's size never matters (and a huge one would overflow).
    v.strides[a] = b->count > 1 ? inStrides[a] * b->step : (b->step > 0 ? inStrides[a] : -inStrides[a]);
  }
  return v;
}

bool viewStrides(const Shape &shape, const std::vector<int64_t> &strides, const Shape &target,
                 std::vector<int64_t> &out) {
  out.assign(target.size(), 0);
  if (shape.empty() || numElements(shape) == 0) {
    out = contiguousStrides(target);
    return true;
  }
  int64_t viewD = static_cast<int64_t>(target.size()) - 1;
  int64_t chunkBase = strides.back(), tensorNumel = 1, viewNumel = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    tensorNumel *= shape[d];
    if (d == 0 || (shape[d - 1] != 1 && strides[d - 1] != tensorNumel * chunkBase)) {
      while (viewD >= 0 && (viewNumel < tensorNumel || target[viewD] == 1)) {
        out[viewD] = viewNumel * chunkBase;
        viewNumel *= target[viewD];
        --viewD;
      }
      if (viewNumel != tensorNumel)
        return false;
      if (d > 0) {
        chunkBase = strides[d - 1];
        tensorNumel = 1;
        viewNumel = 1;
      }
    }
  }
  return viewD == -1;
}

Shape poolShape(const std::string &op, const Shape &in, const PoolWindow &w) {
  const int64_t k = static_cast<int64_t>(in.size()) - 2;
  if (k < 1)
    fail(op, ": input ", shapeString(in), " must have rank >= 3 ([N, C, spatial...])");
  auto sized = [&](const std::vector<int64_t> &v, int64_t n) {
    return static_cast<int64_t>(v.size()) == n;
  };
  if (!sized(w.kernel, k) || !sized(w.strides, k) || !sized(w.dilations, k) ||
      !sized(w.pads, 2 * k))
    fail(op, ": needs ", k, " kernel_shape, strides and dilations entries and ", 2 * k,
         " pads for input ", shapeString(in));
  Shape out{in[0], in[1]};
  for (int64_t i = 0; i < k; ++i) {
    int64_t o = window::poolOutputSize(in[2 + i], w.kernel[i], w.strides[i], w.dilations[i],
                                       w.pads[i], w.pads[k + i], w.ceilMode);
    if (o < 0)
      fail(op, ": kernel ", shapeString(w.kernel), " (strides ", shapeString(w.strides),
           ", dilations ", shapeString(w.dilations), ", pads ", shapeString(w.pads),
           ") does not fit spatial dim ", i, " of ", shapeString(in),
           " (kernel, strides, dilations >= 1, pads >= 0)");
    out.push_back(o);
  }
  return out;
}

Shape resizeShape(const std::string &op, const Shape &in, const std::vector<int64_t> &sizes,
                  const std::vector<double> &scales) {
  if (sizes.size() != in.size() || scales.size() != in.size())
    fail(op, ": sizes and scales need ", in.size(), " entries for input ", shapeString(in),
         ", got ", sizes.size(), " and ", scales.size());
  Shape out(in.size());
  for (size_t d = 0; d < in.size(); ++d) {
    if (!(scales[d] > 0) || !std::isfinite(scales[d]) || sizes[d] < -1)
      fail(op, ": dim ", d, " has scale ", scales[d], " and size ", sizes[d],
           " (scales must be finite and > 0, sizes >= -1)");
    out[d] = sizes[d] >= 0 ? sizes[d] : window::resizedSize(in[d], scales[d]);
  }
  return out;
}

} // namespace mm::rt::cpu
