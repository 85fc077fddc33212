//===- DimRules.h - ONNX's rules for axes, broadcasting and slices -----------===//
//
// One copy of the per-dim shape rules that the importer, the dialect's verifiers, the
// passes and both runtime backends apply: negative axes, multidirectional (numpy)
// broadcasting, Slice's clamping and what Reshape's shape entries mean. Header-only and free of LLVM so that the runtime can
// use it; callers add their own error reporting (an MLIR diagnostic, mm::rt::Error).
// Spec: https://onnx.ai/onnx/repo-docs/Broadcasting.html and the Slice operator (opset 13).
//
// Dims are int64_t. The compiler has unknown dims (MLIR's ShapedType::kDynamic): the
// broadcast rule takes the value that marks them as `dynamic`; the runtime's dims are all
// known and it passes kNoDynamic.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CORE_DIMRULES_H
#define MM_RUNTIME_CORE_DIMRULES_H

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

namespace mm::dims {

/// `axis` in [-rank, rank) mapped into [0, rank) (a negative axis counts from the end);
/// std::nullopt when out of range.
constexpr std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

/// A split point (Flatten's axis) in [-rank, rank] mapped into [0, rank]; std::nullopt
/// when out of range.
constexpr std::optional<int64_t> normalizeSplitAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis > rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

/// An index into a sequence of n elements as Shape's start/end take it: a negative one
/// counts from the end, then the result is clamped into [0, n].
constexpr int64_t clampIndex(int64_t v, int64_t n) {
  return std::clamp<int64_t>(v < 0 ? std::max(v, -n) + n : v, 0, n);
}

/// ONNX Slice along a dim of size `dim` >= 0: the first index taken, the step, and how many
/// elements are taken. Negative starts/ends count from the end; then, for a positive step,
/// start and end are clamped into [0, dim], for a negative one start into [0, dim - 1] and
/// end into [-1, dim - 1].
struct SliceBounds {
  int64_t start = 0, step = 1, count = 0;
};
/// std::nullopt when step is 0.
constexpr std::optional<SliceBounds> sliceBounds(int64_t dim, int64_t start, int64_t end,
                                                 int64_t step) {
  if (step == 0)
    return std::nullopt;
  SliceBounds b;
  b.step = step;
  if (dim <= 0)
    return b;
  // Below -dim wraps to -1: below every clamp bound (and no overflow for INT64_MIN).
  auto wrap = [dim](int64_t v) { return v < 0 ? (v < -dim ? -1 : v + dim) : v; };
  int64_t s = wrap(start), e = wrap(end);
  if (step > 0) {
    s = std::clamp<int64_t>(s, 0, dim);
    e = std::clamp<int64_t>(e, 0, dim);
    b.count = e > s ? (e - s - 1) / step + 1 : 0;
  } else {
    s = std::clamp<int64_t>(s, 0, dim - 1);
    e = std::clamp<int64_t>(e, -1, dim - 1);
    // -step overflows for INT64_MIN; any s > e then takes one element.
    b.count = s > e ? (step == std::numeric_limits<int64_t>::min() ? 1 : (s - e - 1) / -step + 1) : 0;
  }
  b.start = s;
  return b;
}

/// Marks "no dim is unknown" for the broadcast rule (dims are never negative).
constexpr int64_t kNoDynamic = -1;

/// The broadcast of two dims: equal dims, or a 1 against any dim. With an unknown
/// (`dynamic`) dim, a static dim above 1 is the result and otherwise it stays unknown
/// (MLIR's OpTrait::util::getBroadcastedShape rule). std::nullopt when two static dims,
/// neither 1, differ.
constexpr std::optional<int64_t> broadcastDim(int64_t a, int64_t b, int64_t dynamic) {
  if (a == dynamic || b == dynamic) {
    if (a != dynamic && a > 1)
      return a;
    if (b != dynamic && b > 1)
      return b;
    if (a == 1)
      return b;
    if (b == 1)
      return a;
    return dynamic;
  }
  if (a == b || b == 1)
    return a;
  if (a == 1)
    return b;
  return std::nullopt;
}

/// numpy multidirectional broadcasting of shapes `a` and `b` (right-aligned, the shorter
/// padded with 1s) into `out` (any resizable container of int64_t); false, with `out`
/// unspecified, when two dims do not broadcast.
template <typename A, typename B, typename Out>
bool broadcastShapes(const A &a, const B &b, Out &out, int64_t dynamic) {
  const size_t na = a.size(), nb = b.size(), r = std::max(na, nb);
  out.resize(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < r - na ? 1 : a[i - (r - na)];
    const int64_t db = i < r - nb ? 1 : b[i - (r - nb)];
    std::optional<int64_t> d = broadcastDim(da, db, dynamic);
    if (!d)
      return false;
    out[i] = *d;
  }
  return true;
}

/// Unidirectional broadcasting (ONNX's PRelu slope, Gemm's C): true when `from` broadcasts
/// to exactly `to` (right-aligned, no longer; each dim 1 or equal). An unknown (`dynamic`)
/// dim on either side is taken to fit: only the run can tell.
template <typename A, typename B>
bool broadcastsTo(const A &from, const B &to, int64_t dynamic) {
  const size_t nf = from.size(), nt = to.size();
  if (nf > nt)
    return false;
  for (size_t i = 0; i < nf; ++i) {
    const int64_t f = from[i], t = to[nt - nf + i];
    if (f != 1 && f != t && f != dynamic && t != dynamic)
      return false;
  }
  return true;
}

/// What an entry of ONNX Reshape's shape means: a size (>= 0; 0 only with allowzero), a
/// copy of the input's dim at the entry's index (0 without allowzero), the one dim
/// inferred from the element count (-1), or an invalid entry (< -1).
enum class ReshapeEntry { size, copy, infer, invalid };
constexpr ReshapeEntry reshapeEntry(int64_t e, bool allowZero) {
  if (e == -1)
    return ReshapeEntry::infer;
  if (e < -1)
    return ReshapeEntry::invalid;
  return e == 0 && !allowZero ? ReshapeEntry::copy : ReshapeEntry::size;
}

/// Why a Reshape of known dims fails (reshape below).
enum class ReshapeError { none, invalidEntry, twoInferred, copyPastRank, cannotInfer, countChanges };

/// ONNX Reshape of an input of known dims `in` to shape entries `req` (reshapeEntry) into
/// `out` (any resizable container of int64_t): ReshapeError::none, or why not (an invalid
/// entry, two -1, a copy past the input's rank, a -1 that the element count does not
/// determine, or another element count than the input's); `out` is unspecified then.
template <typename In, typename Req, typename Out>
ReshapeError reshape(const In &in, const Req &req, bool allowZero, Out &out) {
  out.resize(req.size());
  int64_t inferAt = -1, known = 1, count = 1;
  for (int64_t d : in)
    count *= d;
  for (size_t i = 0; i < req.size(); ++i) {
    switch (reshapeEntry(req[i], allowZero)) {
    case ReshapeEntry::invalid:
      return ReshapeError::invalidEntry;
    case ReshapeEntry::infer:
      if (inferAt >= 0)
        return ReshapeError::twoInferred;
      inferAt = static_cast<int64_t>(i);
      continue;
    case ReshapeEntry::copy:
      if (i >= in.size())
        return ReshapeError::copyPastRank;
      out[i] = in[i];
      break;
    case ReshapeEntry::size:
      out[i] = req[i];
      break;
    }
    known *= out[i];
  }
  if (inferAt >= 0) {
    if (known == 0 || count % known != 0)
      return ReshapeError::cannotInfer;
    out[static_cast<size_t>(inferAt)] = count / known;
  } else if (known != count) {
    return ReshapeError::countChanges;
  }
  return ReshapeError::none;
}

} // namespace mm::dims

#endif // MM_RUNTIME_CORE_DIMRULES_H
