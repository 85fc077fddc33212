//===- CudaOps.cpp - the launches of the device ops (but attention) ----------===//
//
// One method per op kind: check operands, compute the result shape (the CPU kernels'
// rules, runtime/cpu/ShapeRules.h), allocate or view the result, record the launch.
// Layout ops are views when possible (docs/cuda-graphs.md).
//
//===----------------------------------------------------------------------===//
#include "runtime/cudaexec/OpRecorder.h"

#include "runtime/core/DimRules.h"
#include "runtime/core/Error.h"
#include "runtime/cpu/ShapeRules.h"
#include "runtime/cuda/Blas.h"
#include "runtime/exec/Executor.h"

#include <algorithm>
#include <array>

namespace mm::rt::cudaexec {
namespace {

int64_t normAxis(int64_t axis, int64_t rank) {
  if (std::optional<int64_t> n = dims::normalizeAxis(axis, rank))
    return *n;
  fail("axis ", axis, " out of range for rank ", rank);
}

void requireFloat(DType t, const char *what) {
  if (!cuda::isKernelFloat(t))
    fail(what, " is ", dtypeName(t), "; the CUDA kernels take f32, f16 or bf16");
}

/// ONNX multidirectional broadcast of two shapes.
Shape broadcast(const Shape &a, const Shape &b) {
  Shape out;
  if (!dims::broadcastShapes(a, b, out, dims::kNoDynamic))
    fail("shapes ", shapeString(a), " and ", shapeString(b), " do not broadcast");
  return out;
}

/// Strides reading `v` broadcast to `out` (0 on broadcast and missing dims).
std::vector<int64_t> broadcastStrides(const CudaExecutor::Value &v, const Shape &out) {
  std::vector<int64_t> st = stridesOf(v), r(out.size(), 0);
  const size_t off = out.size() - v.shape.size();
  for (size_t d = 0; d < v.shape.size(); ++d)
    r[off + d] = v.shape[d] == 1 && out[off + d] != 1 ? 0 : st[d];
  return r;
}

/// A [rows, cols] view with a row stride, when the value has that form.
struct Rows {
  int64_t rows = 0, cols = 0, rowStride = 0;
};
bool rowsOf(const CudaExecutor::Value &v, Rows &r) {
  std::vector<int64_t> st = stridesOf(v);
  const size_t n = v.shape.size();
  if (n == 0 || st[n - 1] != 1)
    return false;
  r.cols = v.shape[n - 1];
  r.rows = numElements(v.shape) / std::max<int64_t>(r.cols, 1);
  r.rowStride = n >= 2 ? st[n - 2] : r.cols;
  for (size_t d = 0; d + 2 < n; ++d)
    if (v.shape[d] != 1 && st[d] != st[d + 1] * v.shape[d + 1])
      return false;
  return true;
}

} // namespace

using Value = CudaExecutor::Value;

void CudaExecutor::OpRecorder::linear() {
  Value &x = in(0), &w = in(1);
  makeContiguous(x);
  makeContiguous(w);
  requireFloat(x.dtype, "the input");
  if (w.shape.size() != 2 || x.shape.empty() || x.shape.back() != w.shape[0])
    fail("input ", shapeString(x.shape), " does not match the weight ", shapeString(w.shape),
         " ([K, N])");
  cuda::Blas::LinearArgs a;
  a.dtype = x.dtype;
  a.k = w.shape[0];
  a.n = w.shape[1];
  a.m = numElements(x.shape) / std::max<int64_t>(a.k, 1);
  if (w.dtype != x.dtype)
    fail("weight is ", dtypeName(w.dtype), " but the input is ", dtypeName(x.dtype));
  if (numInputs() > 2) {
    Value &bias = in(2);
    makeContiguous(bias);
    if (bias.dtype != x.dtype || bias.shape != Shape{a.n})
      fail("bias ", dtypeName(bias.dtype), " ", shapeString(bias.shape), " is not ",
           dtypeName(x.dtype), " [", a.n, "]");
    a.bias = bias.dev;
  }
  const int64_t act = attrs().getInt("activation", 0);
  if (act < 0 || act > static_cast<int64_t>(cuda::Activation::relu))
    fail("unknown activation ", act);
  a.act = static_cast<cuda::Activation>(act);
  Shape shape = x.shape;
  shape.back() = a.n;
  a.x = x.dev;
  a.w = w.dev;
  const bool fused = ex_.fusedInput_.tensor == op().inputs[0];
  if (fused) { // the input left by the previous op
    a.x = ex_.fusedInput_.x;
    a.input = ex_.fusedInput_.input;
  }
  a.constantWeight = ex_.isUploadedConstant(w.dev);
  a.y = result(0, shape, x.dtype).dev;
  if (fused) { // y is allocated: the blocks the fused input reads may be reused from here on
    for (void *b : ex_.fusedInput_.blocks)
      ex_.drop(b);
    ex_.fusedInput_ = {};
  }
  cuda::Blas *blas = &ex_.ctx_.blas();
  record([=](cudaStream_t s) { blas->linear(s, a); });
  const cuda::GemvInput &in = a.input;
  sign(index_, a.dtype, a.x, in.up, static_cast<int>(in.gate), in.rmsNorm, in.residual, in.scale, in.scaleF32, in.eps,
       in.scaleOffset, in.sumOut, a.w, a.constantWeight, a.bias, a.y, a.m, a.n, a.k, a.act);
}

void CudaExecutor::OpRecorder::matmul() {
  Value &a = in(0), &b = in(1);
  makeContiguous(a);
  makeContiguous(b);
  requireFloat(a.dtype, "the lhs");
  if (b.dtype != a.dtype)
    fail("operands are ", dtypeName(a.dtype), " and ", dtypeName(b.dtype));
  if (a.shape.size() < 2 || b.shape.size() < 2)
    fail("the CUDA backend takes mm.matmul operands of rank >= 2, got ", shapeString(a.shape),
         " and ", shapeString(b.shape));
  const int64_t m = a.shape[a.shape.size() - 2], k = a.shape.back();
  const int64_t n = b.shape.back();
  if (b.shape[b.shape.size() - 2] != k)
    fail("inner dims differ: ", shapeString(a.shape), " x ", shapeString(b.shape));
  Shape leadA(a.shape.begin(), a.shape.end() - 2), leadB(b.shape.begin(), b.shape.end() - 2);
  const int64_t ba = numElements(leadA), bb = numElements(leadB);
  Shape lead = broadcast(leadA, leadB);
  const int64_t batch = numElements(lead);
  int64_t strideA = m * k, strideB = k * n;
  if (ba == 1)
    strideA = 0;
  if (bb == 1)
    strideB = 0;
  if ((ba != 1 && ba != batch) || (bb != 1 && bb != batch))
    fail("batch dims ", shapeString(leadA), " and ", shapeString(leadB),
         " broadcast partially; the CUDA backend takes equal or fully broadcast batches");
  Shape shape = lead;
  shape.push_back(m);
  shape.push_back(n);
  Value &c = result(0, shape, a.dtype);
  const DType dt = a.dtype;
  const char *pa = a.dev, *pb = b.dev;
  char *pc = c.dev;
  cuda::Blas *blas = &ex_.ctx_.blas();
  record([=](cudaStream_t s) { blas->matmul(s, dt, pa, strideA, pb, strideB, pc, m * n, batch, m, n, k); });
  sign(index_, dt, pa, strideA, pb, strideB, pc, batch, m, n, k);
}

void CudaExecutor::OpRecorder::rmsNorm() {
  const bool residual = op().name == "mm.add_rms_norm";
  Value &x = in(0);
  makeContiguous(x);
  requireFloat(x.dtype, "the input");
  const char *res = nullptr;
  if (residual) {
    Value &r = in(1);
    makeContiguous(r);
    if (r.shape != x.shape || r.dtype != x.dtype)
      fail("lhs ", dtypeName(x.dtype), " ", shapeString(x.shape), " and rhs ", dtypeName(r.dtype),
           " ", shapeString(r.shape), " differ");
    res = r.dev;
  }
  Value &scale = in(residual ? 2 : 1);
  makeContiguous(scale);
  const int64_t cols = x.shape.empty() ? 1 : x.shape.back();
  if (numElements(scale.shape) != cols)
    fail("scale ", shapeString(scale.shape), " does not match ", cols, " columns");
  const int64_t rows = numElements(x.shape) / std::max<int64_t>(cols, 1);
  const char *px = x.dev, *pscale = scale.dev;
  const DType dt = x.dtype, st = scale.dtype;
  const Shape shape = x.shape;
  char *y = result(0, shape, dt).dev;
  char *sum = residual ? result(1, shape, dt).dev : nullptr;
  const float eps = static_cast<float>(attrs().getFloat("epsilon", 1e-6));
  const float offset = static_cast<float>(attrs().getFloat("scale_offset", 0.0));
  cuda::GemvInput fused;
  fused.rmsNorm = true;
  fused.residual = res;
  fused.scale = pscale;
  fused.scaleF32 = st == DType::f32;
  fused.eps = eps;
  fused.scaleOffset = offset;
  fused.sumOut = sum;
  if ((st == dt || st == DType::f32) &&
      leaveToNextLinear(dt, rows, cols, px, fused,
                        {x.block, residual ? in(1).block : nullptr, scale.block}))
    return; // the next op's GEMV normalises its input itself; y stays unwritten
  record([=](cudaStream_t s) { cuda::rmsNorm(s, dt, px, res, sum, pscale, st, y, rows, cols, eps, offset); });
  sign(index_, dt, px, res, sum, pscale, st, y, rows, cols, eps, offset);
}

void CudaExecutor::OpRecorder::layerNorm() {
  const bool residual = op().name == "mm.add_layer_norm";
  Value &x = in(0);
  makeContiguous(x);
  requireFloat(x.dtype, "the input");
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (normAxis(attrs().getInt("axis", -1), rank) != rank - 1)
    fail("the CUDA backend normalises over the last axis only (axis ", attrs().getInt("axis", -1), ")");
  const char *res = nullptr;
  size_t next = 1;
  if (residual) {
    Value &r = in(next++);
    makeContiguous(r);
    if (r.shape != x.shape || r.dtype != x.dtype)
      fail("lhs ", dtypeName(x.dtype), " ", shapeString(x.shape), " and rhs ", dtypeName(r.dtype),
           " ", shapeString(r.shape), " differ");
    res = r.dev;
  }
  Value &scale = in(next++);
  makeContiguous(scale);
  const int64_t cols = x.shape.back();
  if (numElements(scale.shape) != cols)
    fail("scale ", shapeString(scale.shape), " does not match ", cols, " columns");
  const char *bias = nullptr;
  if (numInputs() > next) {
    Value &b = in(next);
    makeContiguous(b);
    if (b.dtype != scale.dtype || numElements(b.shape) != cols)
      fail("bias ", dtypeName(b.dtype), " ", shapeString(b.shape), " does not match the scale");
    bias = b.dev;
  }
  const int64_t rows = numElements(x.shape) / std::max<int64_t>(cols, 1);
  const char *px = x.dev, *pscale = scale.dev;
  const DType dt = x.dtype, pt = scale.dtype;
  const Shape shape = x.shape;
  char *y = result(0, shape, dt).dev;
  char *sum = residual ? result(1, shape, dt).dev : nullptr;
  const float eps = static_cast<float>(attrs().getFloat("epsilon", 1e-5));
  record([=](cudaStream_t s) { cuda::layerNorm(s, dt, px, res, sum, pscale, bias, pt, y, rows, cols, eps); });
  sign(index_, dt, px, res, sum, pscale, bias, pt, y, rows, cols, eps);
}

void CudaExecutor::OpRecorder::rotary() {
  Value &x = in(0), &cosV = in(1), &sinV = in(2);
  ensureDevice(x);
  if (x.shape.size() != 4 || stridesOf(x)[3] != 1)
    makeContiguous(x);
  if (x.shape.size() != 4)
    fail("input ", shapeString(x.shape), " is not [batch, heads, seq, head_dim]");
  makeContiguous(cosV);
  makeContiguous(sinV);
  const Shape &xs = x.shape, &cs = cosV.shape;
  if (cs != sinV.shape || cs.size() < 2 || cs.size() > 3 || cs[cs.size() - 2] != xs[2] ||
      cs.back() > xs[3] || cs.back() % 2 != 0 || (cs.size() == 3 && cs[0] != 1 && cs[0] != xs[0]))
    fail("cos/sin ", shapeString(cs), " do not match the input ", shapeString(xs));
  if (cosV.dtype != sinV.dtype || (cosV.dtype != x.dtype && cosV.dtype != DType::f32))
    fail("cos/sin are ", dtypeName(cosV.dtype), "; expected ", dtypeName(x.dtype), " or f32");
  std::vector<int64_t> st = stridesOf(x);
  cuda::RotaryArgs a;
  a.dtype = x.dtype;
  a.x = x.dev;
  a.batch = xs[0];
  a.heads = xs[1];
  a.seq = xs[2];
  a.headDim = xs[3];
  a.xStrideB = st[0];
  a.xStrideH = st[1];
  a.xStrideS = st[2];
  a.yStrideB = xs[1] * xs[2] * xs[3];
  a.yStrideH = xs[2] * xs[3];
  a.yStrideS = xs[3];
  a.rotaryDim = cs.back();
  a.interleaved = attrs().getInt("interleaved", 0) != 0;
  a.cos = cosV.dev;
  a.sin = sinV.dev;
  a.tableType = cosV.dtype;
  a.tableRowStride = cs.back();
  a.tableStrideB = cs.size() == 3 && cs[0] == xs[0] && xs[0] > 1 ? xs[2] : 0; // in rows
  if (rotateWithNext(a))
    return;
  a.y = result(0, xs, x.dtype).dev;
  record([=](cudaStream_t s) { cuda::rotary(s, a); });
  sign(index_, a.dtype, a.x, a.y, a.batch, a.heads, a.seq, a.headDim, a.xStrideB, a.xStrideH,
       a.xStrideS, a.rotaryDim, a.interleaved, a.cos, a.sin, a.tableType, a.tableStrideB);
}

bool CudaExecutor::OpRecorder::leaveToNextLinear(DType dtype, int64_t rows, int64_t cols,
                                                 const char *x, const cuda::GemvInput &input,
                                                 std::vector<void *> blocks) {
  if (!ex_.ctx_.fusedLaunchesEnabled() || !ex_.fuses(index_, cuda::CudaFusion::feedsNextLinear) || rows != 1)
    return false;
  const OpInfo &next = ex_.fn_->ops[index_ + 1];
  const Value &w = values_[next.inputs[1]];
  if (!w.set || !w.dev || !w.strides.empty() || w.dtype != dtype || w.shape.size() != 2 ||
      w.shape[0] != cols)
    return false;
  cuda::Blas::LinearArgs a;
  a.dtype = dtype;
  a.x = x;
  a.input = input;
  a.w = w.dev;
  a.y = const_cast<char *>(x); // not written: gemvSupported only needs a pointer
  a.m = 1;
  a.k = cols;
  a.n = w.shape[1];
  if (!ex_.ctx_.blas().gemvTakesInput(a))
    return false;
  for (void *b : blocks)
    ex_.retain(b);
  ex_.fusedInput_ = {op().outputs[0], x, input, std::move(blocks)};
  return true;
}

bool CudaExecutor::OpRecorder::rotateWithNext(cuda::RotaryArgs a) {
  if (!ex_.ctx_.fusedLaunchesEnabled() || !ex_.fuses(index_, cuda::CudaFusion::rotaryPairWithNext))
    return false;
  const OpInfo &next = ex_.fn_->ops[index_ + 1];
  const Value &k = values_[next.inputs[0]];
  const size_t es = dtypeSize(a.dtype);
  if (!k.set || !k.dev || k.dtype != a.dtype || k.shape.size() != 4 ||
      ex_.fn_->tensors[next.outputs[0]].dtype != a.dtype ||
      ex_.fn_->tensors[op().outputs[0]].dtype != a.dtype)
    return false;
  // The strides of extent-1 dims (batch 1, one decode position) are never used.
  const std::vector<int64_t> ks = stridesOf(k);
  if (k.shape[0] != a.batch || k.shape[2] != a.seq || k.shape[3] != a.headDim ||
      (a.batch > 1 && ks[0] != a.xStrideB) || ks[1] != a.xStrideH ||
      (a.seq > 1 && ks[2] != a.xStrideS) || ks[3] != 1 ||
      k.dev != static_cast<const char *>(a.x) + a.heads * a.xStrideH * int64_t(es))
    return false;
  const int64_t hq = a.heads, hk = k.shape[1], s = a.seq, d = a.headDim;
  if (!fitsDeclaredShape(ex_.fn_->tensors[op().outputs[0]], {a.batch, hq, s, d}) ||
      !fitsDeclaredShape(ex_.fn_->tensors[next.outputs[0]], {a.batch, hk, s, d}))
    return false; // the unfused launches report the mismatch
  a.heads = hq + hk;
  a.yStrideB = a.heads * s * d;
  a.yStrideH = s * d;
  a.yStrideS = d;
  Value base;
  base.dtype = a.dtype;
  base.block = ex_.arenaAllocate(size_t(a.batch * a.heads * s * d) * es);
  char *y = static_cast<char *>(base.block);
  a.y = y;
  const std::vector<int64_t> strides{a.yStrideB, a.yStrideH, a.yStrideS, 1};
  view(0, base, y, {a.batch, hq, s, d}, strides);
  viewTensor(next.outputs[0], base, y + hq * s * d * int64_t(es), {a.batch, hk, s, d}, strides);
  ex_.drop(base.block); // the two views hold it
  ex_.doneByPrevious_ = index_ + 1;
  DeferredRotary &r = ex_.deferredRotary_;
  launchDeferredRotary(); // an earlier one nobody fused (none in the marked patterns)
  r.op = index_;
  r.args = a;
  r.qHeads = hq;
  r.blocks = {values_[op().inputs[0]].block, k.block, values_[op().inputs[1]].block,
              values_[op().inputs[2]].block}; // x, k, cos, sin
  for (void *b : r.blocks)
    ex_.retain(b);
  if (!cache_ || !ex_.fuses(index_, cuda::CudaFusion::rotaryIntoAttention))
    launchDeferredRotary();
  return true;
}

void CudaExecutor::OpRecorder::launchDeferredRotary() {
  DeferredRotary &r = ex_.deferredRotary_;
  if (r.op == SIZE_MAX)
    return;
  const cuda::RotaryArgs a = r.args;
  ex_.pending_.push_back({r.op, [=](cudaStream_t st) { cuda::rotary(st, a); }});
  sign(r.op, a.dtype, a.x, a.y, a.batch, a.heads, a.seq, a.headDim, a.xStrideB, a.xStrideH,
       a.xStrideS, a.rotaryDim, a.interleaved, a.cos, a.sin, a.tableType, a.tableStrideB);
  for (void *b : r.blocks)
    ex_.drop(b);
  r = DeferredRotary();
}

void CudaExecutor::OpRecorder::swiglu() {
  Value &gate = in(0), &up = in(1);
  ensureDevice(gate);
  ensureDevice(up);
  auto rows = [&](Value &v) {
    Rows r;
    if (!rowsOf(v, r)) {
      makeContiguous(v);
      rowsOf(v, r);
    }
    return r;
  };
  const Rows g = rows(gate), u = rows(up);
  if (gate.shape != up.shape || gate.dtype != up.dtype)
    fail("gate ", shapeString(gate.shape), " and up ", shapeString(up.shape), " differ");
  requireFloat(gate.dtype, "the gate");
  const char *pg = gate.dev, *pu = up.dev;
  const DType dt = gate.dtype;
  // mm.swiglu: SiLU; mm.geglu: the GELU its `approximate` names.
  const cuda::Activation act = op().name == "mm.swiglu" ? cuda::Activation::silu : geluActivation();
  char *y = result(0, gate.shape, dt).dev;
  cuda::GemvInput fused;
  fused.up = pu;
  fused.gate = act;
  if (leaveToNextLinear(dt, g.rows, g.cols, pg, fused, {gate.block, up.block}))
    return; // the next op's GEMV forms act(gate) * up itself; y stays unwritten
  record([=](cudaStream_t s) {
    cuda::swiglu(s, dt, pg, g.rowStride, pu, u.rowStride, y, g.cols, g.rows, g.cols, act);
  });
  sign(index_, dt, pg, g.rowStride, pu, u.rowStride, y, g.rows, g.cols, static_cast<int>(act));
}

cuda::Activation CudaExecutor::OpRecorder::geluActivation() const {
  const int64_t approx = attrs().getInt("approximate", 0);
  if (approx != 0 && approx != 1)
    fail("unknown approximate value ", approx, " (0 = none, 1 = tanh)");
  return approx == 0 ? cuda::Activation::gelu : cuda::Activation::geluTanh;
}

void CudaExecutor::OpRecorder::activation() {
  Value &x = in(0);
  makeContiguous(x);
  requireFloat(x.dtype, "the input");
  cuda::Activation act = cuda::Activation::none;
  const std::string &name = op().name;
  if (name == "mm.gelu")
    act = geluActivation();
  else if (name == "mm.quick_gelu")
    act = cuda::Activation::quickGelu;
  else if (name == "mm.silu")
    act = cuda::Activation::silu;
  else
    act = cuda::Activation::relu;
  const char *px = x.dev;
  const DType dt = x.dtype;
  const int64_t n = numElements(x.shape);
  char *y = result(0, x.shape, dt).dev;
  record([=](cudaStream_t s) { cuda::activation(s, dt, px, y, n, act); });
  sign(index_, dt, px, y, n, act);
}

void CudaExecutor::OpRecorder::cast() {
  Value &x = in(0);
  const DType to = resultType(0);
  if (to == x.dtype) {
    ensureDevice(x);
    view(0, x, x.dev, x.shape, x.strides);
    return;
  }
  requireFloat(x.dtype, "the source");
  requireFloat(to, "the result");
  makeContiguous(x);
  const char *px = x.dev;
  const DType from = x.dtype;
  const int64_t n = numElements(x.shape);
  char *y = result(0, x.shape, to).dev;
  record([=](cudaStream_t s) { cuda::convert(s, from, px, to, y, n); });
  sign(index_, from, px, to, y, n);
}

void CudaExecutor::OpRecorder::binary() {
  static const std::map<std::string, cuda::BinaryOp, std::less<>> ops = {
      {"mm.add", cuda::BinaryOp::add}, {"mm.sub", cuda::BinaryOp::sub},
      {"mm.mul", cuda::BinaryOp::mul}, {"mm.div", cuda::BinaryOp::div},
      {"mm.pow", cuda::BinaryOp::pow}, {"mm.max", cuda::BinaryOp::max},
      {"mm.min", cuda::BinaryOp::min}};
  Value &a = in(0), &b = in(1);
  ensureDevice(a);
  ensureDevice(b);
  if (a.dtype != b.dtype)
    fail("operands are ", dtypeName(a.dtype), " and ", dtypeName(b.dtype));
  requireFloat(a.dtype, "the operands");
  Shape shape = broadcast(a.shape, b.shape);
  if (shape.size() > static_cast<size_t>(cuda::kMaxLayoutRank))
    fail("rank ", shape.size(), " exceeds ", cuda::kMaxLayoutRank);
  std::vector<int64_t> sa = broadcastStrides(a, shape), sb = broadcastStrides(b, shape);
  std::array<int64_t, cuda::kMaxLayoutRank> dims{}, as{}, bs{};
  for (size_t d = 0; d < shape.size(); ++d) {
    dims[d] = shape[d];
    as[d] = sa[d];
    bs[d] = sb[d];
  }
  const int rank = static_cast<int>(shape.size());
  const cuda::BinaryOp bop = ops.at(op().name);
  const DType dt = a.dtype;
  const char *pa = a.dev, *pb = b.dev;
  char *y = result(0, shape, dt).dev;
  record([=](cudaStream_t s) {
    cuda::binaryElementwise(s, bop, dt, pa, as.data(), pb, bs.data(), y, dims.data(), rank);
  });
  sign(index_, bop, dt, pa, pb, y, rank, dims, as, bs);
}

void CudaExecutor::OpRecorder::gather() {
  Value &data = in(0);
  makeContiguous(data);
  if (Value &idx = in(1); idx.dev && !idx.host.data) {
    gatherDeviceIndices(data, idx);
    return;
  }
  const Tensor &idxT = hostIn(1);
  std::vector<int64_t> ids = hostInts(1);
  const int64_t rank = static_cast<int64_t>(data.shape.size());
  const int64_t axis = normAxis(attrs().getInt("axis", 0), rank);
  const int64_t dim = data.shape[static_cast<size_t>(axis)];
  for (int64_t &i : ids) {
    if (i < -dim || i >= dim)
      fail("index ", i, " out of range for a dim of size ", dim);
    if (i < 0)
      i += dim;
  }
  Shape shape(data.shape.begin(), data.shape.begin() + axis);
  shape.insert(shape.end(), idxT.shape.begin(), idxT.shape.end());
  shape.insert(shape.end(), data.shape.begin() + axis + 1, data.shape.end());
  const int64_t outer = numElements(Shape(data.shape.begin(), data.shape.begin() + axis));
  const int64_t inner = numElements(Shape(data.shape.begin() + axis + 1, data.shape.end()));
  const size_t idBytes = ids.size() * sizeof(int64_t);
  char *staged = static_cast<char *>(ex_.stage(ids.data(), idBytes));
  auto *devIds = static_cast<int64_t *>(ex_.arenaAllocate(idBytes));
  const size_t es = dtypeSize(data.dtype);
  const char *pd = data.dev;
  const int64_t n = static_cast<int64_t>(ids.size());
  char *y = result(0, shape, data.dtype).dev;
  record([=](cudaStream_t s) {
    cuda::checkCuda(cudaMemcpyAsync(devIds, staged, idBytes, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync");
    cuda::gatherAxis(s, es, pd, outer, dim, inner, devIds, n, y, nullptr);
  });
  sign(index_, staged, devIds, idBytes, es, pd, outer, dim, inner, n, y);
  ex_.drop(devIds);
}

/// Indices already on the device (e.g. the previous step's argmax, so that the decode
/// loop needs no host round trip): i64, contiguous; out-of-range ids give zero rows.
void CudaExecutor::OpRecorder::gatherDeviceIndices(Value &data, Value &idx) {
  makeContiguous(idx);
  if (idx.dtype != DType::i64)
    fail("device indices must be i64, got ", dtypeName(idx.dtype));
  const int64_t rank = static_cast<int64_t>(data.shape.size());
  const int64_t axis = normAxis(attrs().getInt("axis", 0), rank);
  const int64_t dim = data.shape[static_cast<size_t>(axis)];
  Shape shape(data.shape.begin(), data.shape.begin() + axis);
  shape.insert(shape.end(), idx.shape.begin(), idx.shape.end());
  shape.insert(shape.end(), data.shape.begin() + axis + 1, data.shape.end());
  const int64_t outer = numElements(Shape(data.shape.begin(), data.shape.begin() + axis));
  const int64_t inner = numElements(Shape(data.shape.begin() + axis + 1, data.shape.end()));
  const size_t es = dtypeSize(data.dtype);
  const char *pd = data.dev;
  const auto *ids = reinterpret_cast<const int64_t *>(idx.dev);
  const int64_t n = numElements(idx.shape);
  char *y = result(0, shape, data.dtype).dev;
  record([=](cudaStream_t s) { cuda::gatherAxis(s, es, pd, outer, dim, inner, ids, n, y, nullptr); });
  sign(index_, es, pd, outer, dim, inner, ids, n, y);
}

void CudaExecutor::OpRecorder::reshape() {
  Value &x = in(0);
  ensureDevice(x);
  const std::string &name = op().name;
  Shape shape = name == "mm.flatten"
                    ? cpu::flattenShape(name, x.shape, attrs().getInt("axis", 1))
                    : cpu::reshapeShape(name, x.shape, hostInts(1), attrs().getInt("allow_zero", 0) != 0);
  if (numElements(shape) != numElements(x.shape))
    fail("cannot view ", shapeString(x.shape), " as ", shapeString(shape));
  std::vector<int64_t> strides;
  if (isContiguous(x))
    view(0, x, x.dev, shape, {});
  else if (cpu::viewStrides(x.shape, x.strides, shape, strides))
    view(0, x, x.dev, shape, strides);
  else {
    makeContiguous(x);
    view(0, x, x.dev, shape, {});
  }
}

void CudaExecutor::OpRecorder::squeezeOrUnsqueeze() {
  Value &x = in(0);
  makeContiguous(x);
  const std::string &name = op().name;
  const std::vector<int64_t> &axes = attrs().getInts("axes");
  Shape shape = name == "mm.squeeze" ? cpu::squeezeShape(name, x.shape, axes)
                                     : cpu::unsqueezeShape(name, x.shape, axes);
  view(0, x, x.dev, shape, {});
}

void CudaExecutor::OpRecorder::transpose() {
  Value &x = in(0);
  ensureDevice(x);
  const std::vector<int64_t> &perm = attrs().getInts("perm");
  cpu::ViewSpec v = cpu::transposeView(op().name, x.shape, perm);
  std::vector<int64_t> st = stridesOf(x), out(perm.size());
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  for (size_t i = 0; i < perm.size(); ++i)
    out[i] = st[static_cast<size_t>(normAxis(perm[i], rank))];
  view(0, x, x.dev, v.shape, out);
}

void CudaExecutor::OpRecorder::slice() {
  Value &x = in(0);
  makeContiguous(x);
  cpu::ViewSpec v = cpu::sliceView(op().name, x.shape, hostInts(1), hostInts(2), hostInts(3), hostInts(4));
  view(0, x, x.dev + v.offset * static_cast<int64_t>(dtypeSize(x.dtype)), v.shape, v.strides);
}

void CudaExecutor::OpRecorder::expand() {
  Value &x = in(0);
  ensureDevice(x);
  std::vector<int64_t> req = hostInts(1);
  for (int64_t d : req)
    if (d < 0)
      fail("invalid dim ", d, " in shape ", shapeString(req));
  Shape shape = broadcast(x.shape, req);
  view(0, x, x.dev, shape, broadcastStrides(x, shape));
}

void CudaExecutor::OpRecorder::concat() {
  Value &first = in(0);
  const int64_t rank = static_cast<int64_t>(first.shape.size());
  const size_t axis = static_cast<size_t>(normAxis(attrs().getInt("axis"), rank));
  Shape shape = first.shape;
  shape[axis] = 0;
  for (size_t k = 0; k < numInputs(); ++k) {
    Value &t = in(k);
    bool ok = t.dtype == first.dtype && t.shape.size() == first.shape.size();
    for (size_t d = 0; ok && d < first.shape.size(); ++d)
      ok = d == axis || t.shape[d] == first.shape[d];
    if (!ok)
      fail("input ", dtypeName(t.dtype), shapeString(t.shape), " does not match ",
           dtypeName(first.dtype), shapeString(first.shape), " outside axis ", axis);
    shape[axis] += t.shape[axis];
  }
  for (size_t k = 0; k < numInputs(); ++k)
    ensureDevice(in(k));
  const size_t es = dtypeSize(first.dtype);
  Value &y = result(0, shape, first.dtype);
  std::vector<int64_t> dst = rowMajorStrides(shape);
  int64_t pos = 0;
  for (size_t k = 0; k < numInputs(); ++k) {
    Value &t = in(k);
    if (numElements(t.shape) > 0) {
      cuda::StridedLayout l = copyLayout(t.shape, stridesOf(t), dst);
      const char *src = t.dev;
      char *out = y.dev + pos * dst[axis] * static_cast<int64_t>(es);
      record([=](cudaStream_t s) { cuda::stridedCopy(s, es, src, out, l); });
      sign(index_, src, out, l.rank, l.shape, l.srcStride, l.dstStride);
    }
    pos += t.shape[axis];
  }
}

void CudaExecutor::OpRecorder::split() {
  Value &x = in(0);
  ensureDevice(x);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const size_t axis = static_cast<size_t>(normAxis(attrs().getInt("axis"), rank));
  const std::vector<int64_t> &sizes = attrs().getInts("sizes");
  int64_t total = 0;
  for (int64_t s : sizes)
    total += s;
  if (total != x.shape[axis] || sizes.size() != op().outputs.size())
    fail("sizes ", shapeString(sizes), " do not split dim ", axis, " of ", shapeString(x.shape),
         " into ", op().outputs.size(), " results");
  std::vector<int64_t> st = stridesOf(x);
  const int64_t es = static_cast<int64_t>(dtypeSize(x.dtype));
  int64_t pos = 0;
  for (size_t r = 0; r < sizes.size(); ++r) {
    Shape shape = x.shape;
    shape[axis] = sizes[r];
    view(r, x, x.dev + pos * st[axis] * es, shape, st);
    pos += sizes[r];
  }
}

const std::map<std::string, CudaExecutor::OpRecorder::Method, std::less<>> &
CudaExecutor::OpRecorder::table() {
  using R = OpRecorder;
  static const std::map<std::string, Method, std::less<>> t = {
      {"mm.linear", &R::linear},          {"mm.matmul", &R::matmul},
      {"mm.rms_norm", &R::rmsNorm},       {"mm.add_rms_norm", &R::rmsNorm},
      {"mm.layer_norm", &R::layerNorm},   {"mm.add_layer_norm", &R::layerNorm},
      {"mm.rotary", &R::rotary},          {"mm.swiglu", &R::swiglu},
      {"mm.geglu", &R::swiglu},
      {"mm.gelu", &R::activation},        {"mm.quick_gelu", &R::activation},
      {"mm.silu", &R::activation},        {"mm.relu", &R::activation},
      {"mm.cast", &R::cast},              {"mm.add", &R::binary},
      {"mm.sub", &R::binary},             {"mm.mul", &R::binary},
      {"mm.div", &R::binary},             {"mm.pow", &R::binary},
      {"mm.max", &R::binary},             {"mm.min", &R::binary},
      {"mm.gather", &R::gather},          {"mm.reshape", &R::reshape},
      {"mm.flatten", &R::reshape},        {"mm.squeeze", &R::squeezeOrUnsqueeze},
      {"mm.unsqueeze", &R::squeezeOrUnsqueeze}, {"mm.transpose", &R::transpose},
      {"mm.slice", &R::slice},            {"mm.expand", &R::expand},
      {"mm.concat", &R::concat},          {"mm.split", &R::split},
      {"mm.attention", &R::attention},
  };
  return t;
}

} // namespace mm::rt::cudaexec
