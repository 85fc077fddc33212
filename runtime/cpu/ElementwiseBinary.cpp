//===- ElementwiseBinary.cpp - broadcasting two- and three-input kernels ----===//
//
// ONNX Add, Sub, Mul, Div, Mod, Pow, Max, Min, And, Or, Equal, Less, LessOrEqual,
// Greater, GreaterOrEqual and Where, with multidirectional broadcasting. Integer
// arithmetic wraps (two's complement); integer Div truncates toward zero; integer Div and
// Mod throw on division by zero; float Max/Min propagate NaN (as numpy's maximum/minimum).
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"

#include <cmath>
#include <limits>

namespace mm::rt::cpu {
namespace {

/// Unsigned type wide enough that integer arithmetic on it cannot hit signed overflow
/// after promotion.
template <typename C>
using WrapT = std::conditional_t<(sizeof(C) < sizeof(unsigned)), unsigned, std::make_unsigned_t<C>>;

struct AddFn {
  template <typename C> C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>)
      return static_cast<C>(WrapT<C>(a) + WrapT<C>(b));
    else
      return a + b;
  }
};
struct SubFn {
  template <typename C> C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>)
      return static_cast<C>(WrapT<C>(a) - WrapT<C>(b));
    else
      return a - b;
  }
};
struct MulFn {
  template <typename C> C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>)
      return static_cast<C>(WrapT<C>(a) * WrapT<C>(b));
    else
      return a * b;
  }
};
struct DivFn {
  template <typename C> C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      if (b == 0)
        fail("mm.div: integer division by zero");
      if constexpr (std::is_signed_v<C>)
        if (b == C(-1))
          return static_cast<C>(WrapT<C>(0) - WrapT<C>(a)); // min / -1 wraps to min
      return static_cast<C>(a / b);
    } else {
      return a / b;
    }
  }
};
/// ONNX Mod. Fmod: the remainder has the dividend's sign (C fmod / %); otherwise (integers
/// only) the divisor's sign, as Python's %.
template <bool Fmod> struct ModFn {
  template <typename C> C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      return std::fmod(a, b);
    } else {
      if (b == 0)
        fail("mm.mod: integer division by zero");
      if constexpr (std::is_signed_v<C>) {
        if (b == C(-1))
          return 0; // also avoids the trap on min % -1
        C r = static_cast<C>(a % b);
        if (!Fmod && r != 0 && ((r < 0) != (b < 0)))
          r = static_cast<C>(r + b);
        return r;
      } else {
        return static_cast<C>(a % b);
      }
    }
  }
};
struct PowFn {
  template <typename C> C operator()(C a, C b) const { return std::pow(a, b); }
};
struct MaxFn {
  template <typename C> C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>)
      if (std::isnan(a) || std::isnan(b))
        return std::numeric_limits<C>::quiet_NaN();
    return a < b ? b : a;
  }
};
struct MinFn {
  template <typename C> C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>)
      if (std::isnan(a) || std::isnan(b))
        return std::numeric_limits<C>::quiet_NaN();
    return b < a ? b : a;
  }
};
struct AndFn {
  bool operator()(bool a, bool b) const { return a && b; }
};
struct OrFn {
  bool operator()(bool a, bool b) const { return a || b; }
};
struct EqualFn {
  template <typename C> bool operator()(C a, C b) const { return a == b; }
};
struct LessFn {
  template <typename C> bool operator()(C a, C b) const { return a < b; }
};
struct LessEqualFn {
  template <typename C> bool operator()(C a, C b) const { return a <= b; }
};
struct GreaterFn {
  template <typename C> bool operator()(C a, C b) const { return a > b; }
};
struct GreaterEqualFn {
  template <typename C> bool operator()(C a, C b) const { return a >= b; }
};

/// out = f(a, b) with broadcasting; inputs stored as S, result as R.
template <typename S, typename R, typename F>
void mapBinary(const Tensor &a, const Tensor &b, Tensor &out, F f) {
  BroadcastLoop<2> loop(out.shape, {&a.shape, &b.shape});
  const S *pa = a.as<S>(), *pb = b.as<S>();
  R *po = out.as<R>();
  int64_t sa = loop.innerStrides()[0], sb = loop.innerStrides()[1];
  using LA = Elem<S>;
  auto run = [&](int64_t o, const std::array<int64_t, 2> &off, int64_t n) {
    const S *x = pa + off[0], *y = pb + off[1];
    R *z = po + o;
    if (sa == 1 && sb == 1) {
      for (int64_t i = 0; i < n; ++i)
        z[i] = Elem<R>::store(f(LA::load(x[i]), LA::load(y[i])));
    } else if (sa == 1 && sb == 0) {
      auto yv = LA::load(*y);
      for (int64_t i = 0; i < n; ++i)
        z[i] = Elem<R>::store(f(LA::load(x[i]), yv));
    } else if (sa == 0 && sb == 1) {
      auto xv = LA::load(*x);
      for (int64_t i = 0; i < n; ++i)
        z[i] = Elem<R>::store(f(xv, LA::load(y[i])));
    } else {
      for (int64_t i = 0; i < n; ++i)
        z[i] = Elem<R>::store(f(LA::load(x[i * sa]), LA::load(y[i * sb])));
    }
  };
  parallelFor(loop.total(), kElementwiseGrain,
              [&](int64_t begin, int64_t end) { loop.forRange(begin, end, run); });
}

/// Kernel for lhs, rhs of one dtype in `Set`; the result is that dtype, or bool when
/// `BoolResult` (comparisons).
template <typename F, unsigned Set, bool BoolResult>
void binaryKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                  std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 2, 2);
  const Tensor &a = *inputs[0], &b = *inputs[1];
  std::string op = opName(ctx);
  if (a.dtype != b.dtype)
    fail(op, ": operand dtypes differ (", dtypeName(a.dtype), " vs ", dtypeName(b.dtype), ")");
  Shape shape = broadcastShapes(op, a.shape, b.shape);
  dispatch<Set>(a.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    checkOutputDType(ctx, 0, BoolResult ? DType::boolean : a.dtype);
    Tensor &out = allocateResult(ctx, outputs, 0, shape);
    if constexpr (BoolResult)
      mapBinary<S, Bool>(a, b, out, F{});
    else
      mapBinary<S, S>(a, b, out, F{});
  });
}

/// ONNX Where: condition ? x : y, the three operands broadcast together.
void whereKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                 std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 3, 3);
  const Tensor &c = *inputs[0], &x = *inputs[1], &y = *inputs[2];
  std::string op = opName(ctx);
  if (c.dtype != DType::boolean)
    unsupportedDType(op, c.dtype, "condition");
  if (x.dtype != y.dtype)
    fail(op, ": x and y dtypes differ (", dtypeName(x.dtype), " vs ", dtypeName(y.dtype), ")");
  checkOutputDType(ctx, 0, x.dtype);
  Shape shape = broadcastShapes(op, broadcastShapes(op, c.shape, x.shape), y.shape);
  Tensor &out = allocateResult(ctx, outputs, 0, shape);
  BroadcastLoop<3> loop(shape, {&c.shape, &x.shape, &y.shape});
  auto st = loop.innerStrides();
  dispatchBySize(x.dtype, [&](auto tag) {
    using U = typename decltype(tag)::type;
    const uint8_t *pc = c.as<uint8_t>();
    const U *px = x.as<U>(), *py = y.as<U>();
    U *po = out.as<U>();
    parallelFor(loop.total(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
      loop.forRange(begin, end, [&](int64_t o, const std::array<int64_t, 3> &off, int64_t n) {
        for (int64_t i = 0; i < n; ++i)
          po[o + i] = pc[off[0] + i * st[0]] ? px[off[1] + i * st[1]] : py[off[2] + i * st[2]];
      });
    });
  });
}

constexpr unsigned kBool = bit(DType::boolean);

/// `fmod` selects C semantics (required for floats); without it only integers are allowed.
void modKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
               std::vector<Tensor> &outputs) {
  if (ctx.attrs().getInt("fmod", 0) != 0)
    binaryKernel<ModFn<true>, kNumericTypes, false>(ctx, inputs, outputs);
  else
    binaryKernel<ModFn<false>, kIntTypes, false>(ctx, inputs, outputs);
}

} // namespace

void registerBinaryKernels(KernelRegistry &r) {
  r.add("mm.add", binaryKernel<AddFn, kNumericTypes, false>);
  r.add("mm.sub", binaryKernel<SubFn, kNumericTypes, false>);
  r.add("mm.mul", binaryKernel<MulFn, kNumericTypes, false>);
  r.add("mm.div", binaryKernel<DivFn, kNumericTypes, false>);
  r.add("mm.mod", modKernel);
  r.add("mm.pow", binaryKernel<PowFn, kFloatTypes, false>);
  r.add("mm.max", binaryKernel<MaxFn, kNumericTypes, false>);
  r.add("mm.min", binaryKernel<MinFn, kNumericTypes, false>);
  r.add("mm.and", binaryKernel<AndFn, kBool, false>);
  r.add("mm.or", binaryKernel<OrFn, kBool, false>);
  r.add("mm.equal", binaryKernel<EqualFn, kAllTypes, true>);
  r.add("mm.less", binaryKernel<LessFn, kNumericTypes, true>);
  r.add("mm.less_or_equal", binaryKernel<LessEqualFn, kNumericTypes, true>);
  r.add("mm.greater", binaryKernel<GreaterFn, kNumericTypes, true>);
  r.add("mm.greater_or_equal", binaryKernel<GreaterEqualFn, kNumericTypes, true>);
  r.add("mm.where", whereKernel);
}

} // namespace mm::rt::cpu
