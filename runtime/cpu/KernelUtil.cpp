//===- KernelUtil.cpp - shared helpers of the CPU kernels -------------------===//
#include "runtime/cpu/KernelUtil.h"

#include "runtime/core/DimRules.h"

namespace mm::rt::cpu {

void unsupportedDType(const std::string &op, DType t, const char *what) {
  fail(op, ": unsupported ", what, " dtype ", dtypeName(t));
}

std::string opName(const KernelContext &ctx) {
  const std::string &name = ctx.attrs().opName();
  return name.empty() ? std::string("<op>") : name;
}

void checkInputCount(const KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                     size_t min, size_t max) {
  if (inputs.size() < min || inputs.size() > max) {
    if (min == max)
      fail(opName(ctx), ": expects ", min, " inputs, got ", inputs.size());
    fail(opName(ctx), ": expects ", min, " to ", max, " inputs, got ", inputs.size());
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i])
      fail(opName(ctx), ": input ", i, " is missing");
}

void checkOutputDType(KernelContext &ctx, size_t i, DType expected) {
  DType got = ctx.outputDType(i);
  if (got != expected)
    fail(opName(ctx), ": result ", i, " is declared ", dtypeName(got), " but the op produces ",
         dtypeName(expected));
}

int64_t normalizeAxis(const std::string &op, int64_t axis, int64_t rank) {
  if (std::optional<int64_t> n = dims::normalizeAxis(axis, rank))
    return *n;
  fail(op, ": axis ", axis, " out of range for rank ", rank);
}

std::vector<bool> axisMask(const std::string &op, const std::vector<int64_t> &axes,
                           int64_t rank) {
  std::vector<bool> mask(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    const int64_t n = normalizeAxis(op, a, rank);
    if (mask[n])
      fail(op, ": axis ", a, " repeated");
    mask[n] = true;
  }
  return mask;
}

std::vector<int64_t> readInts(const std::string &op, const char *what, const Tensor &t) {
  std::vector<int64_t> out(static_cast<size_t>(t.numel()));
  dispatch<kIntTypes>(
      t.dtype, op,
      [&](auto tag) {
        using S = typename decltype(tag)::type;
        const S *p = t.as<S>();
        for (size_t i = 0; i < out.size(); ++i) {
          if constexpr (std::is_same_v<S, uint64_t>)
            if (p[i] > static_cast<uint64_t>(INT64_MAX))
              fail(op, ": ", what, " value ", p[i], " does not fit in int64");
          out[i] = static_cast<int64_t>(p[i]);
        }
      },
      what);
  return out;
}

double readScalar(const std::string &op, const char *what, const Tensor &t) {
  if (t.numel() != 1)
    fail(op, ": ", what, " must have one element, got shape ", shapeString(t.shape));
  double v = 0;
  dispatch<kAllTypes>(
      t.dtype, op,
      [&](auto tag) {
        using S = typename decltype(tag)::type;
        v = static_cast<double>(Elem<S>::load(*t.as<S>()));
      },
      what);
  return v;
}

std::vector<int64_t> contiguousStrides(const Shape &shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    s[i - 1] = s[i] * shape[i];
  return s;
}

bool tryBroadcastShapes(const Shape &a, const Shape &b, Shape &out) {
  return dims::broadcastShapes(a, b, out, dims::kNoDynamic);
}

Shape broadcastShapes(const std::string &op, const Shape &a, const Shape &b) {
  Shape out;
  if (!tryBroadcastShapes(a, b, out))
    fail(op, ": shapes ", shapeString(a), " and ", shapeString(b), " are not broadcastable");
  return out;
}

bool broadcastsTo(const Shape &in, const Shape &target) {
  return dims::broadcastsTo(in, target, dims::kNoDynamic);
}

std::vector<int64_t> broadcastStrides(const Shape &in, const Shape &out) {
  std::vector<int64_t> s(out.size(), 0);
  std::vector<int64_t> c = contiguousStrides(in);
  size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    s[lead + i] = in[i] == 1 && out[lead + i] != 1 ? 0 : c[i];
  return s;
}

void stridedCopy(const Tensor &in, int64_t inOffset, const std::vector<int64_t> &inStrides,
                 Tensor &out) {
  StridedLoop<1> loop(out.shape, {inStrides});
  int64_t st = loop.innerStrides()[0];
  dispatchBySize(out.dtype, [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U *src = in.as<U>() + inOffset;
    U *dst = out.as<U>();
    parallelFor(loop.total(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
      loop.forRange(begin, end, [&](int64_t o, const std::array<int64_t, 1> &off, int64_t n) {
        const U *s = src + off[0];
        if (st == 1)
          std::memcpy(dst + o, s, static_cast<size_t>(n) * sizeof(U));
        else
          for (int64_t i = 0; i < n; ++i)
            dst[o + i] = s[i * st];
      });
    });
  });
}

template <typename T> void convertToCompute(const void *src, DType t, T *dst, int64_t n) {
  dispatch<kFloatTypes>(t, "convert", [&](auto tag) {
    using S = typename decltype(tag)::type;
    const S *p = static_cast<const S *>(src);
    for (int64_t i = 0; i < n; ++i)
      dst[i] = static_cast<T>(Elem<S>::load(p[i]));
  });
}

template <typename T> void convertFromCompute(const T *src, void *dst, DType t, int64_t n) {
  dispatch<kFloatTypes>(t, "convert", [&](auto tag) {
    using S = typename decltype(tag)::type;
    using C = typename Elem<S>::C;
    S *p = static_cast<S *>(dst);
    for (int64_t i = 0; i < n; ++i)
      p[i] = Elem<S>::store(static_cast<C>(src[i]));
  });
}

template <typename T> constexpr DType nativeDType() {
  return std::is_same_v<T, float> ? DType::f32 : DType::f64;
}

template <typename T> FloatInput<T>::FloatInput(const Tensor &t) {
  if (t.dtype == nativeDType<T>()) {
    data_ = t.as<T>();
    return;
  }
  copy_.resize(static_cast<size_t>(t.numel()));
  convertToCompute(t.data, t.dtype, copy_.data(), t.numel());
  data_ = copy_.data();
}

template <typename T> FloatOutput<T>::FloatOutput(Tensor &t) : t_(t) {
  if (t.dtype == nativeDType<T>()) {
    data_ = t.as<T>();
    return;
  }
  copy_.resize(static_cast<size_t>(t.numel()));
  data_ = copy_.data();
}

template <typename T> void FloatOutput<T>::finish() {
  if (!copy_.empty())
    convertFromCompute(copy_.data(), t_.data, t_.dtype, t_.numel());
}

template class FloatInput<float>;
template class FloatInput<double>;
template class FloatOutput<float>;
template class FloatOutput<double>;
template void convertToCompute<float>(const void *, DType, float *, int64_t);
template void convertToCompute<double>(const void *, DType, double *, int64_t);
template void convertFromCompute<float>(const float *, void *, DType, int64_t);
template void convertFromCompute<double>(const double *, void *, DType, int64_t);

} // namespace mm::rt::cpu
