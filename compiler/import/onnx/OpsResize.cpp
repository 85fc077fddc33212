//===- OpsResize.cpp - Resize and Upsample ----------------------------------===//
//
// ONNX Resize (opsets 10 to 19+) and the deprecated Upsample (7, 9) as mm.resize, which
// lists every dim: the importer turns scales / sizes / axes / keep_aspect_ratio_policy
// into one scale factor and one output size per dim, as the onnx reference
// (onnx/reference/ops/op_resize.py) does before interpolating, and roi into a full-rank
// [starts..., ends...] for tf_crop_and_resize. Resize-10 and Upsample have no
// coordinate_transformation_mode or nearest_mode: they are asymmetric and floor (the
// Upsample formula, out[x] = in[floor(x / scale)]).
//
// scales, sizes and roi decide the result shape, so they must be constants; a sizes
// element that copies the input's own dim (Shape -> Gather -> Concat, as exporters write
// F.interpolate(size=...) for the batch and channel dims) keeps that dim as it is, so a
// dynamic batch stays dynamic.
//
//===----------------------------------------------------------------------===//
#include "compiler/import/onnx/OpBuilders.h"
#include "runtime/cpu/WindowRules.h"

#include "llvm/ADT/Sequence.h"

#include <cmath>

using namespace mlir;

namespace mm::onnx_import {

namespace {

/// One dim of the resize: the scale of its coordinate transform and its output size (-1:
/// floor(in * scale) at run time, for a dynamic input dim).
struct ResizeDims {
  SmallVector<double> scales;
  SmallVector<int64_t> sizes;
  Shape out;
};

/// True when input `i` is absent or a statically empty tensor (Resize-11 passes an empty
/// scales or roi when it uses sizes).
bool absentOrEmpty(NodeContext &c, unsigned i) {
  if (!c.has(i))
    return true;
  RankedTensorType t = c.type(i);
  return t.hasStaticShape() && t.getNumElements() == 0;
}

/// Scales of the dims in `axes` (one per axis, > 0).
LogicalResult fromScales(NodeContext &c, ArrayRef<double> scales, ArrayRef<int64_t> axes,
                         ResizeDims &r) {
  if (scales.size() != axes.size())
    return c.error() << "scales has " << scales.size() << " entries for " << axes.size()
                     << " resized dims";
  Shape in = shapeOf(c.in(0));
  for (auto [axis, s] : llvm::zip(axes, scales)) {
    if (!(s > 0) || !std::isfinite(s))
      return c.error() << "scales must be finite and > 0, got " << s << " for dim " << axis;
    r.scales[axis] = s;
    if (ShapedType::isDynamic(in[axis])) {
      r.sizes[axis] = -1;
      r.out[axis] = ShapedType::kDynamic;
      continue;
    }
    int64_t o = window::resizedSize(in[axis], s);
    if (o > kMaxDim)
      return c.error() << "scale " << s << " makes dim " << axis << " larger than " << kMaxDim;
    r.sizes[axis] = r.out[axis] = o;
  }
  return success();
}

/// Sizes (input `i`) of the dims in `axes`, with keep_aspect_ratio_policy.
LogicalResult fromSizes(NodeContext &c, unsigned i, ArrayRef<int64_t> axes, ResizeDims &r) {
  std::optional<KnownInts> known = c.known(c.in(i));
  Shape in = shapeOf(c.in(0));
  // Each element: a constant, or a copy of the input's own dim (kept as it is).
  SmallVector<std::optional<int64_t>> sizes;
  if (known && known->size() == axes.size()) {
    for (auto [k, axis] : llvm::zip(*known, axes)) {
      if (k.known)
        sizes.push_back(k.value);
      else if (k.dimOf == c.in(0) && k.dim == axis)
        sizes.push_back(std::nullopt);
      else
        break;
    }
  }
  if (sizes.size() != axes.size()) {
    auto constant = c.requireConstInts(i, "sizes");
    if (failed(constant))
      return failure();
    if (constant->size() != axes.size())
      return c.error() << "sizes has " << constant->size() << " entries for " << axes.size()
                       << " resized dims";
    sizes.assign(constant->begin(), constant->end());
  }
  std::string policy = c.opset() >= 18 ? c.attrString("keep_aspect_ratio_policy", "stretch")
                                       : std::string("stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    return c.error() << "keep_aspect_ratio_policy must be stretch, not_larger or not_smaller, got '"
                     << policy << "'";
  for (auto [axis, s] : llvm::zip(axes, sizes)) {
    if (!s)
      continue; // the input's dim: scale 1, size as at run time (r's default)
    if (*s < 1 || *s > kMaxDim)
      return c.error() << "sizes must be in [1, " << kMaxDim << "], got " << *s << " for dim "
                       << axis;
    if (ShapedType::isDynamic(in[axis]) || in[axis] == 0)
      return c.unsupported("Resize to a constant size along dim " + Twine(axis) +
                           ", whose input size is " +
                           (in[axis] == 0 ? Twine("0") : Twine("dynamic")) +
                           " (the scale would be computed at run time)");
  }
  if (policy == "stretch") {
    for (auto [axis, s] : llvm::zip(axes, sizes))
      if (s) {
        r.scales[axis] = static_cast<double>(*s) / static_cast<double>(in[axis]);
        r.sizes[axis] = r.out[axis] = *s;
      }
    return success();
  }
  // One scale for every listed dim: the smallest (not_larger) or largest (not_smaller)
  // ratio; sizes round half up, as in the spec.
  std::optional<double> scale;
  for (auto [axis, s] : llvm::zip(axes, sizes)) {
    if (!s)
      return c.unsupported("keep_aspect_ratio_policy " + policy +
                           " with a sizes element that copies the input's dim " + Twine(axis));
    double ratio = static_cast<double>(*s) / static_cast<double>(in[axis]);
    if (!scale || (policy == "not_larger" ? ratio < *scale : ratio > *scale))
      scale = ratio;
  }
  for (int64_t axis : axes) {
    r.scales[axis] = *scale;
    r.sizes[axis] = r.out[axis] =
        static_cast<int64_t>(std::floor(*scale * static_cast<double>(in[axis]) + 0.5));
  }
  return success();
}

template <typename E>
FailureOr<E> parseEnum(NodeContext &c, StringRef attr, StringRef value,
                       std::optional<E> (*symbolize)(StringRef), StringRef allowed) {
  if (auto e = symbolize(value))
    return *e;
  return c.error() << attr << " must be one of " << allowed << ", got '" << value << "'";
}

/// Resize-10+ (`scalesIdx` 1 at opset 10, else 2) and Upsample (scales input 1 at opset
/// 9, the `scales` attribute before).
LogicalResult importResizeLike(NodeContext &c, bool upsample) {
  if (failed(c.requireInputs(1)))
    return failure();
  RankedTensorType t = c.type(0);
  const int64_t rank = t.getRank();
  const bool legacy = upsample || c.opset() < 11; // asymmetric, floor, no roi / sizes
  const unsigned roiIdx = 1, scalesIdx = legacy ? 1 : 2, sizesIdx = 3;

  auto mode = parseEnum<ResizeMode>(c, "mode", c.attrString("mode", "nearest"), symbolizeResizeMode,
                                    "nearest, linear, cubic");
  if (failed(mode))
    return failure();
  if (*mode != ResizeMode::nearest && !isa<FloatType>(t.getElementType()))
    return c.unsupported(c.opType() + " mode " + stringifyResizeMode(*mode) +
                         " of a non-float input (nearest takes any type)");
  auto coord = parseEnum<ResizeCoordinateMode>(
      c, "coordinate_transformation_mode",
      legacy ? "asymmetric" : c.attrString("coordinate_transformation_mode", "half_pixel"),
      symbolizeResizeCoordinateMode,
      "half_pixel, half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric, "
      "tf_crop_and_resize, tf_half_pixel_for_nn");
  auto nearest = parseEnum<NearestMode>(
      c, "nearest_mode", legacy ? "floor" : c.attrString("nearest_mode", "round_prefer_floor"),
      symbolizeNearestMode, "round_prefer_floor, round_prefer_ceil, floor, ceil");
  if (failed(coord) || failed(nearest))
    return failure();
  int64_t exclude = c.attrInt("exclude_outside", 0), antialias = c.attrInt("antialias", 0);
  if ((exclude != 0 && exclude != 1) || (antialias != 0 && antialias != 1))
    return c.error() << "exclude_outside and antialias must be 0 or 1";
  double cubicA = c.attrFloat("cubic_coeff_a", -0.75f);
  if (!std::isfinite(cubicA))
    return c.error() << "cubic_coeff_a must be finite";

  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (auto a = c.attrInts("axes"); a && c.opset() >= 18) {
    auto norm = c.normalizeAxes(*a, rank);
    if (failed(norm))
      return failure();
    axes = *norm;
  }

  ResizeDims r{SmallVector<double>(rank, 1.0), SmallVector<int64_t>(rank, -1), shapeOf(c.in(0))};
  const bool haveScales =
      upsample && c.opset() < 9 ? c.attr("scales") != nullptr : !absentOrEmpty(c, scalesIdx);
  const bool haveSizes = !legacy && !absentOrEmpty(c, sizesIdx);
  if (haveScales == haveSizes)
    return c.error() << "exactly one of scales and sizes must be given";
  if (haveScales) {
    SmallVector<double> scales;
    if (upsample && c.opset() < 9) {
      for (float f : c.attr("scales")->floats())
        scales.push_back(f);
    } else {
      auto s = c.requireConstFloats(scalesIdx, "scales");
      if (failed(s))
        return failure();
      scales = std::move(*s);
    }
    if (failed(fromScales(c, scales, axes, r)))
      return failure();
  } else if (failed(fromSizes(c, sizesIdx, axes, r))) {
    return failure();
  }

  // Dims not listed in axes (or sized as the input's own dim) keep their size: static
  // where the input's is.
  for (int64_t d = 0; d < rank; ++d)
    if (r.sizes[d] < 0 && !ShapedType::isDynamic(r.out[d]))
      r.sizes[d] = r.out[d] = window::resizedSize(r.out[d], r.scales[d]);
  // The result must be a tensor the runtime can hold (each dim is bounded; their product too).
  double elements = 1;
  for (int64_t d : r.out)
    elements *= ShapedType::isDynamic(d) ? 1.0 : static_cast<double>(d);
  if (elements > static_cast<double>(kMaxDim))
    return c.error() << "the result would hold " << elements << " elements (more than "
                     << kMaxDim << ")";

  DenseF64ArrayAttr roi;
  if (*coord == ResizeCoordinateMode::tf_crop_and_resize) {
    if (absentOrEmpty(c, roiIdx))
      return c.error() << "tf_crop_and_resize needs the roi input";
    auto given = c.requireConstFloats(roiIdx, "roi");
    if (failed(given))
      return failure();
    if (given->size() != 2 * axes.size())
      return c.error() << "roi has " << given->size() << " entries for " << axes.size()
                       << " resized dims (needs starts and ends)";
    SmallVector<double> full(rank, 0.0);
    full.append(rank, 1.0);
    for (auto [j, axis] : llvm::enumerate(axes)) {
      full[axis] = (*given)[j];
      full[rank + axis] = (*given)[axes.size() + j];
    }
    roi = c.builder().getDenseF64ArrayAttr(full);
  }

  FloatAttr a = c.builder().getF64FloatAttr(cubicA);
  FloatAttr extrapolation = c.builder().getF64FloatAttr(c.attrFloat("extrapolation_value", 0.0f));
  c.setOutput(0, c.create<ResizeOp>(withShape(c.in(0), r.out), c.in(0), r.sizes, r.scales, roi,
                                    *mode, *coord, *nearest, a.getValue(), exclude == 1,
                                    extrapolation.getValue(), antialias == 1));
  return success();
}

LogicalResult importResize(NodeContext &c) { return importResizeLike(c, /*upsample=*/false); }
LogicalResult importUpsample(NodeContext &c) { return importResizeLike(c, /*upsample=*/true); }

} // namespace

void addResizeOps(OpTable &t) {
  t["Resize"] = importResize;
  t["Upsample"] = importUpsample;
}

} // namespace mm::onnx_import
