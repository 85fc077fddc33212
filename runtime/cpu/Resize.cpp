//===- Resize.cpp - ONNX Resize: nearest, linear, cubic, antialias ----------===//
//
// mm.resize (ONNX Resize-19, every dim listed), after the onnx reference
// (onnx/reference/ops/op_resize.py): separable, so each dim gets, per output
// coordinate, a short list of (input index, weight) taps, and an output element is the
// sum over the product of its dims' taps. Coordinates and weights are computed in
// double; nearest copies elements of any dtype, linear and cubic take float dtypes and
// accumulate in double.
//
// Per dim (in = input size, scale, out = output size, length = scale * in as a double,
// as the reference uses it), output coordinate x maps to x_original by
// coordinate_transformation_mode, e.g. half_pixel (x + 0.5) / scale - 0.5. Then with
// ratio = x_original - floor(x_original) in (0, 1] (1 when x_original is whole) and
// i0 = ceil(x_original) - 1, the taps are i0 + t for the offsets t of the mode:
//   nearest: t = 0 or 1 by nearest_mode (whole x_original: 1);
//   linear:  t in [start, 1 - start], weight max(0, 1 - |s (t - ratio)|);
//   cubic:   t in [start, 1 - start], weight Keys(s (t - ratio)) with a = cubic_coeff_a;
// s = min(scale, 1) and start = floor(-w / s) + 1 (w = 1 linear, 2 cubic) with
// antialias, where the weights are then normalized; s = 1 (start 0 / -1) without.
// Indices past the edges read the edge element; with exclude_outside they weigh 0 and
// the weights are renormalized. tf_crop_and_resize gives extrapolation_value where any
// dim's x_original is outside [0, in - 1].
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"
#include "runtime/cpu/ShapeRules.h"

#include <cmath>

namespace mm::rt::cpu {
namespace {

// The integer values of the dialect's enums (MMConformanceOps.td), as the plan stores them.
enum class Mode : int64_t { nearest = 0, linear = 1, cubic = 2 };
enum class Coord : int64_t {
  half_pixel = 0,
  half_pixel_symmetric = 1,
  pytorch_half_pixel = 2,
  align_corners = 3,
  asymmetric = 4,
  tf_crop_and_resize = 5,
  tf_half_pixel_for_nn = 6,
};
enum class Nearest : int64_t { round_prefer_floor = 0, round_prefer_ceil = 1, floor = 2, ceil = 3 };

struct ResizeAttrs {
  Mode mode = Mode::nearest;
  Coord coord = Coord::half_pixel;
  Nearest nearest = Nearest::round_prefer_floor;
  double cubicA = -0.75, extrapolation = 0;
  bool excludeOutside = false, antialias = false;
};

struct Tap {
  int64_t index;
  double weight;
};

/// The taps of every output coordinate of one dim: taps[first[x], first[x + 1]); `outside`
/// marks coordinates that extrapolate (tf_crop_and_resize).
struct DimTaps {
  std::vector<Tap> taps;
  std::vector<size_t> first;
  std::vector<bool> outside;
};

double sourceCoordinate(const ResizeAttrs &a, int64_t x, int64_t in, int64_t outSize, double scale,
                        double roiStart, double roiEnd) {
  const double length = scale * static_cast<double>(in), xd = static_cast<double>(x);
  switch (a.coord) {
  case Coord::half_pixel:
    return (xd + 0.5) / scale - 0.5;
  case Coord::half_pixel_symmetric: {
    double adjustment = static_cast<double>(outSize) / length;
    double offset = static_cast<double>(in) / 2 * (1 - adjustment);
    return offset + (xd + 0.5) / scale - 0.5;
  }
  case Coord::pytorch_half_pixel:
    return outSize > 1 ? (xd + 0.5) / scale - 0.5 : 0.0;
  case Coord::align_corners:
    return length == 1 ? 0.0 : xd * static_cast<double>(in - 1) / (length - 1);
  case Coord::asymmetric:
    return xd / scale;
  case Coord::tf_crop_and_resize: {
    double span = (roiEnd - roiStart) * static_cast<double>(in - 1);
    return (length == 1 ? span / 2 : xd * span / (length - 1)) +
           roiStart * static_cast<double>(in - 1);
  }
  case Coord::tf_half_pixel_for_nn:
    return (xd + 0.5) / scale;
  }
  return 0;
}

/// Keys' cubic convolution kernel with parameter a (the onnx reference's
/// _cubic_coeffs_antialias compute_coeff).
double cubicWeight(double x, double a) {
  x = std::abs(x);
  if (x <= 1)
    return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2)
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

DimTaps dimTaps(const std::string &op, const ResizeAttrs &a, int64_t in, int64_t out, double scale,
                double roiStart, double roiEnd) {
  DimTaps d;
  d.first.push_back(0);
  d.outside.assign(out, false);
  std::vector<Tap> taps;
  for (int64_t x = 0; x < out; ++x) {
    double src = sourceCoordinate(a, x, in, out, scale, roiStart, roiEnd);
    taps.clear();
    if (a.coord == Coord::tf_crop_and_resize && (src < 0 || src > static_cast<double>(in - 1))) {
      d.outside[x] = true;
    } else if (in == 0) {
      fail(op, ": cannot resize an empty dim to ", out);
    } else {
      double fl = std::floor(src);
      bool whole = fl == src;
      double ratio = whole ? 1.0 : src - fl;
      int64_t i0 = static_cast<int64_t>(fl) - (whole ? 1 : 0);
      if (a.mode == Mode::nearest) {
        // The upper neighbour i0 + 1: always for a whole x_original (i0 + 1 is it).
        bool up = whole || a.nearest == Nearest::ceil ||
                  (a.nearest == Nearest::round_prefer_floor && ratio > 0.5) ||
                  (a.nearest == Nearest::round_prefer_ceil && ratio >= 0.5);
        taps.push_back({i0 + (up ? 1 : 0), 1.0});
      } else {
        const bool cubic = a.mode == Mode::cubic;
        const double s = a.antialias ? std::min(scale, 1.0) : 1.0;
        const int64_t start = static_cast<int64_t>(std::floor(-(cubic ? 2.0 : 1.0) / s)) + 1;
        double sum = 0;
        for (int64_t t = start; t <= 1 - start; ++t) {
          double arg = s * (static_cast<double>(t) - ratio);
          double w = cubic ? cubicWeight(arg, a.cubicA) : std::max(0.0, 1 - std::abs(arg));
          taps.push_back({i0 + t, w});
          sum += w;
        }
        if (a.antialias && sum != 0)
          for (Tap &t : taps)
            t.weight /= sum;
        if (a.excludeOutside) {
          sum = 0;
          for (Tap &t : taps) {
            if (t.index < 0 || t.index >= in)
              t.weight = 0;
            sum += t.weight;
          }
          if (sum != 0)
            for (Tap &t : taps)
              t.weight /= sum;
        }
      }
      for (const Tap &t : taps)
        if (t.weight != 0)
          d.taps.push_back({std::clamp<int64_t>(t.index, 0, in - 1), t.weight});
    }
    d.first.push_back(d.taps.size());
  }
  return d;
}

ResizeAttrs readAttrs(const std::string &op, const Attrs &attrs) {
  auto inRange = [&](const char *name, int64_t dflt, int64_t hi) {
    int64_t v = attrs.getInt(name, dflt);
    if (v < 0 || v > hi)
      fail(op, ": unknown ", name, " ", v);
    return v;
  };
  ResizeAttrs a;
  a.mode = static_cast<Mode>(inRange("mode", 0, 2));
  a.coord = static_cast<Coord>(inRange("coordinate_transformation_mode", 0, 6));
  a.nearest = static_cast<Nearest>(inRange("nearest_mode", 0, 3));
  a.cubicA = attrs.getFloat("cubic_coeff_a", -0.75);
  a.extrapolation = attrs.getFloat("extrapolation_value", 0.0);
  a.excludeOutside = attrs.getInt("exclude_outside", 0) != 0;
  a.antialias = attrs.getInt("antialias", 0) != 0;
  return a;
}

void resizeKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                  std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  const Tensor &x = *inputs[0];
  std::string op = opName(ctx);
  const Attrs &attrs = ctx.attrs();
  ResizeAttrs a = readAttrs(op, attrs);
  const std::vector<double> &scales = attrs.getFloats("scales");
  Shape shape = resizeShape(op, x.shape, attrs.getInts("sizes"), scales);
  const int64_t rank = x.rank();
  std::vector<double> roi;
  if (a.coord == Coord::tf_crop_and_resize) {
    if (attrs.has("roi"))
      roi = attrs.getFloats("roi");
    if (static_cast<int64_t>(roi.size()) != 2 * rank)
      fail(op, ": roi needs ", 2 * rank, " entries, got ", roi.size());
  }
  std::vector<DimTaps> dims;
  for (int64_t d = 0; d < rank; ++d)
    dims.push_back(dimTaps(op, a, x.shape[d], shape[d], scales[d], roi.empty() ? 0 : roi[d],
                           roi.empty() ? 1 : roi[rank + d]));
  checkOutputDType(ctx, 0, x.dtype);
  Tensor &y = allocateResult(ctx, outputs, 0, shape);
  if (y.numel() == 0)
    return;
  if (rank == 0) {
    std::memcpy(y.data, x.data, dtypeSize(x.dtype));
    return;
  }
  const std::vector<int64_t> strides = contiguousStrides(x.shape);
  const int64_t inner = shape.back(), rows = y.numel() / inner;
  const DimTaps &last = dims.back();

  // For one output row (all dims but the last fixed): the (offset, weight) products of the
  // outer dims' taps, or none when one of them extrapolates. fn(outIndex, taps) per row.
  auto forEachRow = [&](auto &&fn) {
    parallelFor(rows, std::max<int64_t>(1, kElementwiseGrain / inner),
                [&](int64_t begin, int64_t end) {
                  std::vector<Tap> outer, next;
                  for (int64_t r = begin; r < end; ++r) {
                    outer.assign(1, {0, 1.0});
                    bool outside = false;
                    for (int64_t d = rank - 2, rem = r; d >= 0; --d) {
                      int64_t o = rem % shape[d];
                      rem /= shape[d];
                      const DimTaps &t = dims[d];
                      outside = outside || t.outside[o];
                      next.clear();
                      for (size_t j = t.first[o]; j < t.first[o + 1]; ++j)
                        for (const Tap &p : outer)
                          next.push_back({p.index + t.taps[j].index * strides[d],
                                          p.weight * t.taps[j].weight});
                      outer.swap(next);
                    }
                    fn(r * inner, outside, outer);
                  }
                });
  };

  if (a.mode == Mode::nearest) {
    uint64_t fillBits = 0; // extrapolation_value in the input's dtype
    dispatch<kAllTypes>(x.dtype, op, [&](auto tag) {
      using S = typename decltype(tag)::type;
      S v = Elem<S>::store(static_cast<typename Elem<S>::C>(a.extrapolation));
      std::memcpy(&fillBits, &v, sizeof(S));
    });
    dispatchBySize(x.dtype, [&](auto tag) {
      using U = typename decltype(tag)::type;
      const U *src = x.as<U>();
      U *dst = y.as<U>();
      U fill;
      std::memcpy(&fill, &fillBits, sizeof(U));
      forEachRow([&](int64_t o, bool outside, const std::vector<Tap> &outer) {
        for (int64_t i = 0; i < inner; ++i) {
          bool out = outside || last.outside[i] || outer.empty();
          dst[o + i] = out ? fill : src[outer[0].index + last.taps[last.first[i]].index];
        }
      });
    });
    return;
  }
  dispatch<kFloatTypes>(x.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    using C = typename Elem<S>::C;
    const S *src = x.as<S>();
    S *dst = y.as<S>();
    const S fill = Elem<S>::store(static_cast<C>(a.extrapolation));
    forEachRow([&](int64_t o, bool outside, const std::vector<Tap> &outer) {
      for (int64_t i = 0; i < inner; ++i) {
        if (outside || last.outside[i]) {
          dst[o + i] = fill;
          continue;
        }
        double acc = 0;
        for (size_t j = last.first[i]; j < last.first[i + 1]; ++j)
          for (const Tap &p : outer)
            acc += p.weight * last.taps[j].weight *
                   static_cast<double>(Elem<S>::load(src[p.index + last.taps[j].index]));
        dst[o + i] = Elem<S>::store(static_cast<C>(acc));
      }
    });
  });
}

} // namespace

void registerResizeKernels(KernelRegistry &r) { r.add("mm.resize", resizeKernel); }

} // namespace mm::rt::cpu
