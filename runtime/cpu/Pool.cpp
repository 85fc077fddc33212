//===- Pool.cpp - average, max and Lp pooling (ONNX, any number of spatial dims) ===//
//
// mm.avg_pool, mm.max_pool, mm.max_pool_with_indices and mm.lp_pool over [N, C, D1, ...,
// Dk] (ONNX AveragePool-22, MaxPool-22, LpPool-22). Output position o along spatial dim i
// reads the taps o * stride - pad_begin + j * dilation; per dim the taps that fall inside
// the input are listed once, so a window is the product of k short lists. Average and Lp
// accumulate in double; max takes any number type and ranks NaN above every number.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/KernelUtil.h"
#include "runtime/cpu/Registration.h"
#include "runtime/cpu/ShapeRules.h"

#include <cmath>
#include <limits>

namespace mm::rt::cpu {
namespace {

enum class PoolKind { avg, lp };

/// The taps of each output position along one spatial dim: `inside` lists the input
/// indices the window reads (in order), `padded` counts the taps inside the input or its
/// explicit pads (AveragePool's divisor with count_include_pad).
struct DimTaps {
  std::vector<std::vector<int64_t>> inside;
  std::vector<int64_t> padded;
};

/// Everything a pooling kernel needs: shapes, per-dim taps, row-/column-major strides of
/// the spatial dims.
struct PoolPlan {
  Shape in, out;
  int64_t k = 0, inPlane = 1, outPlane = 1;
  std::vector<DimTaps> taps;
  std::vector<int64_t> rowStrides, colStrides;
};

PoolPlan planPool(KernelContext &ctx, const Tensor &x) {
  std::string op = opName(ctx);
  const Attrs &a = ctx.attrs();
  PoolWindow w{a.getInts("kernel_shape"), a.getInts("strides"), a.getInts("dilations"),
               a.getInts("pads"), a.getInt("ceil_mode", 0) != 0};
  PoolPlan p;
  p.in = x.shape;
  p.out = poolShape(op, x.shape, w);
  p.k = x.rank() - 2;
  p.taps.resize(p.k);
  p.rowStrides.assign(p.k, 1);
  p.colStrides.assign(p.k, 1);
  for (int64_t i = 0; i < p.k; ++i) {
    int64_t dim = p.in[2 + i], begin = w.pads[i], end = w.pads[p.k + i];
    p.inPlane *= dim;
    p.outPlane *= p.out[2 + i];
    DimTaps &t = p.taps[i];
    t.inside.resize(p.out[2 + i]);
    t.padded.assign(p.out[2 + i], 0);
    for (int64_t o = 0; o < p.out[2 + i]; ++o)
      for (int64_t j = 0; j < w.kernel[i]; ++j) {
        int64_t at = o * w.strides[i] - begin + j * w.dilations[i];
        if (at >= 0 && at < dim)
          t.inside[o].push_back(at);
        if (at >= -begin && at < dim + end)
          ++t.padded[o];
      }
  }
  for (int64_t i = p.k - 2; i >= 0; --i)
    p.rowStrides[i] = p.rowStrides[i + 1] * p.in[3 + i];
  for (int64_t i = 1; i < p.k; ++i)
    p.colStrides[i] = p.colStrides[i - 1] * p.in[1 + i];
  return p;
}

/// Where a worker is: the output's spatial position and, within its window, the index
/// into each dim's tap list (reused across outputs, so the loops do not allocate).
struct Cursor {
  std::vector<int64_t> pos;
  std::vector<size_t> tap;
};

/// Calls fn(rowOffset, colOffset) for every tap of the window at `c.pos` that lies inside
/// the input, in row-major window order (offsets within an input plane).
template <typename Fn> void forEachTap(const PoolPlan &p, Cursor &c, Fn &&fn) {
  const int64_t k = p.k;
  for (int64_t i = 0; i < k; ++i) {
    if (p.taps[i].inside[c.pos[i]].empty())
      return;
    c.tap[i] = 0;
  }
  while (true) {
    int64_t row = 0, col = 0;
    for (int64_t i = 0; i < k; ++i) {
      int64_t at = p.taps[i].inside[c.pos[i]][c.tap[i]];
      row += at * p.rowStrides[i];
      col += at * p.colStrides[i];
    }
    fn(row, col);
    int64_t i = k - 1;
    while (i >= 0 && ++c.tap[i] == p.taps[i].inside[c.pos[i]].size())
      c.tap[i--] = 0;
    if (i < 0)
      return;
  }
}

/// Runs `body(plane, outIndex, cursor)` for every output element, planes (n, c) in
/// parallel; cursor.pos is the output's spatial position.
template <typename Body> void forEachOutput(const PoolPlan &p, Body &&body) {
  int64_t planes = p.out[0] * p.out[1];
  parallelFor(planes, 1, [&](int64_t begin, int64_t end) {
    Cursor c{std::vector<int64_t>(p.k), std::vector<size_t>(p.k)};
    for (int64_t plane = begin; plane < end; ++plane) {
      std::fill(c.pos.begin(), c.pos.end(), 0);
      for (int64_t o = 0; o < p.outPlane; ++o) {
        body(plane, plane * p.outPlane + o, c);
        for (int64_t i = p.k - 1; i >= 0 && ++c.pos[i] == p.out[2 + i]; --i)
          c.pos[i] = 0;
      }
    }
  });
}

/// mm.avg_pool (Kind avg) and mm.lp_pool (Kind lp).
template <PoolKind Kind>
void averageLikeKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                       std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  const Tensor &x = *inputs[0];
  std::string op = opName(ctx);
  PoolPlan p = planPool(ctx, x);
  const bool countPad = ctx.attrs().getInt("count_include_pad", 0) != 0;
  const int64_t pNorm = Kind == PoolKind::lp ? ctx.attrs().getInt("p", 2) : 1;
  if (pNorm < 1)
    fail(op, ": p must be >= 1, got ", pNorm);
  dispatch<kFloatTypes>(x.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    checkOutputDType(ctx, 0, x.dtype);
    Tensor &y = allocateResult(ctx, outputs, 0, p.out);
    const S *in = x.as<S>();
    S *out = y.as<S>();
    forEachOutput(p, [&](int64_t plane, int64_t o, Cursor &c) {
      const S *base = in + plane * p.inPlane;
      double acc = 0;
      int64_t count = 0;
      forEachTap(p, c, [&](int64_t row, int64_t) {
        double v = static_cast<double>(Elem<S>::load(base[row]));
        if constexpr (Kind == PoolKind::avg)
          acc += v;
        else
          acc += pNorm == 1 ? std::abs(v) : pNorm == 2 ? v * v : std::pow(std::abs(v), pNorm);
        ++count;
      });
      double r;
      if constexpr (Kind == PoolKind::avg) {
        if (countPad) {
          count = 1;
          for (int64_t i = 0; i < p.k; ++i)
            count *= p.taps[i].padded[c.pos[i]];
        }
        r = count ? acc / static_cast<double>(count) : std::numeric_limits<double>::quiet_NaN();
      } else {
        r = pNorm == 1 ? acc : pNorm == 2 ? std::sqrt(acc) : std::pow(acc, 1.0 / pNorm);
      }
      out[o] = Elem<S>::store(static_cast<typename Elem<S>::C>(r));
    });
  });
}

/// mm.max_pool, and mm.max_pool_with_indices (WithIndices: the flat input index of each
/// maximum as a second result).
template <bool WithIndices>
void maxKernel(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
               std::vector<Tensor> &outputs) {
  checkInputCount(ctx, inputs, 1, 1);
  const Tensor &x = *inputs[0];
  std::string op = opName(ctx);
  PoolPlan p = planPool(ctx, x);
  const int64_t order = WithIndices ? ctx.attrs().getInt("storage_order", 0) : 0;
  if (order != 0 && order != 1)
    fail(op, ": storage_order must be 0 or 1, got ", order);
  dispatch<kNumericTypes>(x.dtype, op, [&](auto tag) {
    using S = typename decltype(tag)::type;
    using C = typename Elem<S>::C;
    checkOutputDType(ctx, 0, x.dtype);
    Tensor &y = allocateResult(ctx, outputs, 0, p.out);
    int64_t *indices = nullptr;
    if constexpr (WithIndices) {
      checkOutputDType(ctx, 1, DType::i64);
      indices = allocateResult(ctx, outputs, 1, p.out).template as<int64_t>();
    }
    const S *in = x.as<S>();
    S *out = y.as<S>();
    forEachOutput(p, [&](int64_t plane, int64_t o, Cursor &c) {
      const S *base = in + plane * p.inPlane;
      C best = std::numeric_limits<C>::lowest();
      if constexpr (std::is_floating_point_v<C>)
        best = -std::numeric_limits<C>::infinity();
      int64_t bestAt = -1;
      forEachTap(p, c, [&](int64_t row, int64_t col) {
        C v = Elem<S>::load(base[row]);
        if (bestAt < 0 || ranksAbove<true>(v, best)) {
          best = v;
          bestAt = order ? col : row;
        }
      });
      out[o] = Elem<S>::store(best);
      if constexpr (WithIndices)
        indices[o] = plane * p.inPlane + std::max<int64_t>(bestAt, 0);
    });
  });
}

} // namespace

void registerPoolKernels(KernelRegistry &r) {
  r.add("mm.avg_pool", averageLikeKernel<PoolKind::avg>);
  r.add("mm.lp_pool", averageLikeKernel<PoolKind::lp>);
  r.add("mm.max_pool", maxKernel<false>);
  r.add("mm.max_pool_with_indices", maxKernel<true>);
}

} // namespace mm::rt::cpu
