//===- KernelUtil.h - shared helpers of the CPU kernels ---------------------===//
//
// Element storage types and their compute types, dtype dispatch, ONNX broadcasting
// iteration, axis handling, and f32 staging buffers for f16/bf16 tensors. Internal to
// runtime/cpu.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CPU_KERNELUTIL_H
#define MM_RUNTIME_CPU_KERNELUTIL_H

#include "runtime/core/Error.h"
#include "runtime/core/Half.h"
#include "runtime/core/Parallel.h"
#include "runtime/cpu/CpuKernels.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace mm::rt::cpu {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// Storage type of a bool element: one byte, any non-zero value reads as true.
struct Bool {
  uint8_t v = 0;
};

/// Elem<S>::C is the type S computes in; load/store convert between them.
template <typename S> struct Elem {
  using C = S;
  static C load(S s) { return s; }
  static S store(C c) { return c; }
};
template <> struct Elem<Half> {
  using C = float;
  static float load(Half s) { return static_cast<float>(s); }
  static Half store(float c) { return Half(c); }
};
template <> struct Elem<BFloat16> {
  using C = float;
  static float load(BFloat16 s) { return static_cast<float>(s); }
  static BFloat16 store(float c) { return BFloat16(c); }
};
template <> struct Elem<Bool> {
  using C = bool;
  static bool load(Bool s) { return s.v != 0; }
  static Bool store(bool c) { return Bool{static_cast<uint8_t>(c)}; }
};

template <typename S>
constexpr bool kIsFloatStorage =
    std::is_floating_point_v<S> || std::is_same_v<S, Half> || std::is_same_v<S, BFloat16>;

/// a ranks strictly above b, NaN ranking above every number (NanHigh) or below (as
/// numpy's argmax / argmin, TopK and max pooling pick a NaN).
template <bool NanHigh, typename C> bool ranksAbove(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb)
      return na != nb && (na == NanHigh);
  }
  return a > b;
}

/// A type tag passed to dispatch callbacks: `using S = typename decltype(tag)::type`.
template <typename T> struct Tag { using type = T; };

//===----------------------------------------------------------------------===//
// Dtype dispatch
//===----------------------------------------------------------------------===//

constexpr unsigned bit(DType t) { return 1u << static_cast<unsigned>(t); }
constexpr unsigned kFloatTypes =
    bit(DType::f32) | bit(DType::f64) | bit(DType::f16) | bit(DType::bf16);
constexpr unsigned kSignedInts =
    bit(DType::i8) | bit(DType::i16) | bit(DType::i32) | bit(DType::i64);
constexpr unsigned kUnsignedInts =
    bit(DType::u8) | bit(DType::u16) | bit(DType::u32) | bit(DType::u64);
constexpr unsigned kIntTypes = kSignedInts | kUnsignedInts;
constexpr unsigned kNumericTypes = kFloatTypes | kIntTypes;
constexpr unsigned kAllTypes = kNumericTypes | bit(DType::boolean);

/// Throws the standard "unsupported dtype" error.
[[noreturn]] void unsupportedDType(const std::string &op, DType t, const char *what = "input");

/// Calls fn(Tag<S>{}) with S the storage type of `t`, for the dtypes in `Set`; other
/// dtypes throw Error naming `op`. Only the types in `Set` are instantiated.
template <unsigned Set, typename Fn>
void dispatch(DType t, const std::string &op, Fn &&fn, const char *what = "input") {
#define MM_DISPATCH_CASE(D, T)                                                                     \
  case DType::D:                                                                                   \
    if constexpr ((Set & bit(DType::D)) != 0) {                                                    \
      fn(Tag<T>{});                                                                                \
      return;                                                                                      \
    }                                                                                              \
    break;
  switch (t) {
    MM_DISPATCH_CASE(f32, float)
    MM_DISPATCH_CASE(f64, double)
    MM_DISPATCH_CASE(f16, Half)
    MM_DISPATCH_CASE(bf16, BFloat16)
    MM_DISPATCH_CASE(i8, int8_t)
    MM_DISPATCH_CASE(i16, int16_t)
    MM_DISPATCH_CASE(i32, int32_t)
    MM_DISPATCH_CASE(i64, int64_t)
    MM_DISPATCH_CASE(u8, uint8_t)
    MM_DISPATCH_CASE(u16, uint16_t)
    MM_DISPATCH_CASE(u32, uint32_t)
    MM_DISPATCH_CASE(u64, uint64_t)
    MM_DISPATCH_CASE(boolean, Bool)
  }
#undef MM_DISPATCH_CASE
  unsupportedDType(op, t, what);
}

/// Calls fn(Tag<U>{}) with U an unsigned integer type of the element size of `t`: for
/// kernels that only move elements.
template <typename Fn> void dispatchBySize(DType t, Fn &&fn) {
  switch (dtypeSize(t)) {
  case 1:
    fn(Tag<uint8_t>{});
    return;
  case 2:
    fn(Tag<uint16_t>{});
    return;
  case 4:
    fn(Tag<uint32_t>{});
    return;
  default:
    fn(Tag<uint64_t>{});
    return;
  }
}

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

/// The op's name for messages ("mm.add"; "<op>" if the context has none).
std::string opName(const KernelContext &ctx);

/// Throws unless min <= inputs.size() <= max.
void checkInputCount(const KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                     size_t min, size_t max);

/// Throws unless the declared dtype of result `i` is `expected`.
void checkOutputDType(KernelContext &ctx, size_t i, DType expected);

/// Maps a possibly negative axis into [0, rank); throws when out of range.
int64_t normalizeAxis(const std::string &op, int64_t axis, int64_t rank);
/// Marks each of `axes` (normalised) in a mask of `rank` entries; throws when an axis is
/// out of range or repeated.
std::vector<bool> axisMask(const std::string &op, const std::vector<int64_t> &axes,
                           int64_t rank);

/// Reads an integer tensor of any integer dtype as int64 values.
std::vector<int64_t> readInts(const std::string &op, const char *what, const Tensor &t);

/// Reads a one-element numeric or bool tensor as double.
double readScalar(const std::string &op, const char *what, const Tensor &t);

/// Row-major strides (in elements) of a shape.
std::vector<int64_t> contiguousStrides(const Shape &shape);

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

/// ONNX multidirectional broadcast of two shapes; false when incompatible.
bool tryBroadcastShapes(const Shape &a, const Shape &b, Shape &out);
/// ONNX multidirectional broadcast of two shapes; throws naming `op` when incompatible.
Shape broadcastShapes(const std::string &op, const Shape &a, const Shape &b);
/// True when `in` broadcasts to exactly `target` (right-aligned, dims equal or 1).
bool broadcastsTo(const Shape &in, const Shape &target);

/// Strides (in elements) reading `in` as if broadcast to `out` (0 on broadcast dims);
/// `in` is right-aligned against `out`.
std::vector<int64_t> broadcastStrides(const Shape &in, const Shape &out);

/// Iteration over an output of shape `out` whose K inputs are read through per-dim
/// element strides (0 on broadcast dims; negative strides walk backwards). Dims are
/// collapsed where every operand is contiguous across them, so the common cases reduce
/// to a single inner loop with strides 0 or 1.
template <size_t K> class StridedLoop {
public:
  StridedLoop(const Shape &out, const std::array<std::vector<int64_t>, K> &inStrides) {
    for (size_t d = 0; d < out.size(); ++d) {
      if (out[d] == 1)
        continue;
      std::array<int64_t, K> st;
      for (size_t k = 0; k < K; ++k)
        st[k] = inStrides[k][d];
      if (!dims_.empty()) {
        bool mergeable = true;
        for (size_t k = 0; k < K; ++k)
          mergeable &= strides_.back()[k] == st[k] * out[d];
        if (mergeable) {
          dims_.back() *= out[d];
          strides_.back() = st;
          continue;
        }
      }
      dims_.push_back(out[d]);
      strides_.push_back(st);
    }
    if (dims_.empty()) {
      dims_.push_back(1);
      strides_.push_back({});
    }
    total_ = numElements(out);
  }

  int64_t total() const { return total_; }
  int64_t inner() const { return dims_.back(); }
  const std::array<int64_t, K> &innerStrides() const { return strides_.back(); }

  /// Calls fn(outOffset, inOffsets, count) for runs of consecutive output elements
  /// covering [begin, end); each run lies within one inner row, and element j of the run
  /// reads input k at inOffsets[k] + j * innerStrides()[k].
  template <typename Fn> void forRange(int64_t begin, int64_t end, Fn &&fn) const {
    if (begin >= end)
      return;
    size_t r = dims_.size();
    int64_t inner = dims_.back();
    std::vector<int64_t> idx(r, 0);
    std::array<int64_t, K> off{};
    int64_t rem = begin;
    for (size_t d = r; d-- > 0;) {
      idx[d] = rem % dims_[d];
      rem /= dims_[d];
      for (size_t k = 0; k < K; ++k)
        off[k] += idx[d] * strides_[d][k];
    }
    int64_t pos = begin;
    while (pos < end) {
      int64_t count = std::min(inner - idx[r - 1], end - pos);
      fn(pos, off, count);
      pos += count;
      // Advance the odometer by `count` along the inner dim, carrying outward.
      idx[r - 1] += count;
      for (size_t k = 0; k < K; ++k)
        off[k] += count * strides_[r - 1][k];
      for (size_t d = r - 1; d > 0 && idx[d] == dims_[d]; --d) {
        for (size_t k = 0; k < K; ++k)
          off[k] += strides_[d - 1][k] - dims_[d] * strides_[d][k];
        idx[d] = 0;
        ++idx[d - 1];
      }
    }
  }

private:
  std::vector<int64_t> dims_;
  std::vector<std::array<int64_t, K>> strides_;
  int64_t total_ = 0;
};

/// StridedLoop over inputs broadcast (ONNX rules) to `out`.
template <size_t K> class BroadcastLoop : public StridedLoop<K> {
public:
  BroadcastLoop(const Shape &out, const std::array<const Shape *, K> &ins)
      : StridedLoop<K>(out, stridesOf(out, ins)) {}

private:
  static std::array<std::vector<int64_t>, K> stridesOf(const Shape &out,
                                                       const std::array<const Shape *, K> &ins) {
    std::array<std::vector<int64_t>, K> st;
    for (size_t k = 0; k < K; ++k)
      st[k] = broadcastStrides(*ins[k], out);
    return st;
  }
};

/// Elements per parallel chunk for cheap elementwise work.
constexpr int64_t kElementwiseGrain = 1 << 15;

/// y[i] = store(f(load(x[i]))) over same-shape tensors, computing in Elem<S>::C and
/// storing as R (in parallel for large tensors).
template <typename S, typename R = S, typename F> void mapUnary(const Tensor &x, Tensor &y, F f) {
  const S *in = x.as<S>();
  R *out = y.as<R>();
  parallelFor(x.numel(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      out[i] = Elem<R>::store(f(Elem<S>::load(in[i])));
  });
}

/// Copies into the contiguous tensor `out` the elements of `in` (dtype `out.dtype`) read
/// from element offset `inOffset` through `inStrides` (one per dim of `out`).
void stridedCopy(const Tensor &in, int64_t inOffset, const std::vector<int64_t> &inStrides,
                 Tensor &out);

//===----------------------------------------------------------------------===//
// f32/f64 staging of float tensors
//===----------------------------------------------------------------------===//

/// The elements of a float tensor as T (float or double): a view when the tensor already
/// holds T, else a converted copy.
template <typename T> class FloatInput {
public:
  explicit FloatInput(const Tensor &t);
  const T *data() const { return data_; }

private:
  const T *data_ = nullptr;
  std::vector<T> copy_;
};

/// A T buffer for a float output: writes go straight into the tensor when it holds T,
/// else into a scratch buffer that finish() converts into the tensor.
template <typename T> class FloatOutput {
public:
  explicit FloatOutput(Tensor &t);
  T *data() { return data_; }
  void finish();

private:
  Tensor &t_;
  T *data_ = nullptr;
  std::vector<T> copy_;
};

/// Converts n values of `src` (float dtype `t`) to T.
template <typename T> void convertToCompute(const void *src, DType t, T *dst, int64_t n);
/// Converts n T values into `dst` (float dtype `t`).
template <typename T> void convertFromCompute(const T *src, void *dst, DType t, int64_t n);

} // namespace mm::rt::cpu

#endif // MM_RUNTIME_CPU_KERNELUTIL_H
