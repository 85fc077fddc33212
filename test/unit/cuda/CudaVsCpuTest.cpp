//===- CudaVsCpuTest.cpp - CUDA kernels against the CPU reference kernels ----===//
//
// The same random op inputs go through the CPU backend's kernel (cpuKernels(), run with
// the CPU tests' OpRun) and through the CUDA launch the executor will use for that op;
// the results must agree. This checks that the two backends read the op semantics
// (attributes, layouts, conventions) the same way; the numerics of each CUDA kernel are
// checked tightly against double references in CudaKernelTest.
//
// Tolerances: both sides compute in f32 and round once, in different orders. f32: 1e-5
// relative plus 1e-5 absolute (1e-4 * sqrt(K/1024) for the K-term dot products of linear
// and attention); bf16: two bf16 units (2^-7) relative, since each side may round a
// value near a rounding boundary the other way, plus 1e-3 absolute for the sums. bf16
// attention runs on tensor cores, which round each probability to bf16 (CudaAttentionTest):
// that moves an output by at most u * max|v| (v in [-1, 1] here), 1.1 u added for it.
//
//===----------------------------------------------------------------------===//
#include "CudaTestUtil.h"

#include "cpu/KernelTestUtil.h"
#include "runtime/cuda/Attention.h"
#include "runtime/cuda/Blas.h"
#include "runtime/cuda/Kernels.h"

namespace mm::rt::cuda::test {
namespace {

namespace cput = mm::rt::cpu::test;

DeviceBuffer toDevice(const Tensor &t) { return upload(t.data, t.nbytes()); }

std::vector<double> fromDevice(const DeviceBuffer &b, DType dtype, int64_t n) {
  return download(b, dtype, size_t(n));
}

double rtolFor(DType t) { return t == DType::f32 ? 1e-5 : 2.0 * unitRoundoff(t); }
double atolFor(DType t) { return t == DType::f32 ? 1e-5 : 1e-3; }

constexpr DType kTypes[] = {DType::f32, DType::bf16};

class CudaVsCpuTest : public CudaTest {};

TEST_F(CudaVsCpuTest, RmsNormAndLayerNorm) {
  for (DType dt : kTypes) {
    const int64_t rows = 3, cols = 512;
    Tensor x = cput::randomTensor(dt, {rows, cols}, 1, -2.0, 2.0);
    Tensor scale = cput::randomTensor(dt, {cols}, 2);
    Tensor bias = cput::randomTensor(dt, {cols}, 3);
    Tensor cpuRms = cput::OpRun("mm.rms_norm").in(x).in(scale).attr("epsilon", 1e-6)
                        .attr("scale_offset", 1.0).out(dt).run1();
    Tensor cpuLn = cput::OpRun("mm.layer_norm").in(x).in(scale).in(bias).attr("axis", int64_t(-1))
                       .attr("epsilon", 1e-5).out(dt).run1();
    DeviceBuffer dx = toDevice(x), ds = toDevice(scale), db = toDevice(bias);
    DeviceBuffer y1 = poisoned(dt, rows * cols), y2 = poisoned(dt, rows * cols);
    rmsNorm(stream, dt, dx.get(), nullptr, nullptr, ds.get(), dt, y1.get(), rows, cols, 1e-6f, 1.0f);
    layerNorm(stream, dt, dx.get(), nullptr, nullptr, ds.get(), db.get(), dt, y2.get(), rows,
              cols, 1e-5f);
    expectNear(fromDevice(y1, dt, rows * cols), cput::toDoubles(cpuRms), rtolFor(dt), atolFor(dt),
               std::string("rms_norm ") + dtypeLabel(dt));
    expectNear(fromDevice(y2, dt, rows * cols), cput::toDoubles(cpuLn), rtolFor(dt), atolFor(dt),
               std::string("layer_norm ") + dtypeLabel(dt));
  }
}

TEST_F(CudaVsCpuTest, AddRmsNormAndAddLayerNorm) {
  for (const char *op : {"mm.add_rms_norm", "mm.add_layer_norm"})
    if (!cpu::cpuKernels().find(op))
      GTEST_SKIP() << "the CPU backend has no " << op << " kernel to compare with";
  for (DType dt : kTypes) {
    const int64_t rows = 3, cols = 512;
    Tensor x = cput::randomTensor(dt, {rows, cols}, 21, -2.0, 2.0);
    Tensor r = cput::randomTensor(dt, {rows, cols}, 22, -2.0, 2.0);
    Tensor scale = cput::randomTensor(dt, {cols}, 23);
    Tensor bias = cput::randomTensor(dt, {cols}, 24);
    const std::vector<Tensor> rms = cput::OpRun("mm.add_rms_norm").in(x).in(r).in(scale)
                                        .attr("epsilon", 1e-6).attr("scale_offset", 0.0)
                                        .out(dt).out(dt).run();
    const std::vector<Tensor> ln = cput::OpRun("mm.add_layer_norm").in(x).in(r).in(scale)
                                       .in(bias).attr("axis", int64_t(-1)).attr("epsilon", 1e-5)
                                       .out(dt).out(dt).run();
    ASSERT_EQ(rms.size(), 2u);
    ASSERT_EQ(ln.size(), 2u);
    DeviceBuffer dx = toDevice(x), dr = toDevice(r), ds = toDevice(scale), db = toDevice(bias);
    DeviceBuffer y1 = poisoned(dt, rows * cols), s1 = poisoned(dt, rows * cols);
    DeviceBuffer y2 = poisoned(dt, rows * cols), s2 = poisoned(dt, rows * cols);
    rmsNorm(stream, dt, dx.get(), dr.get(), s1.get(), ds.get(), dt, y1.get(), rows, cols, 1e-6f,
            0.0f);
    layerNorm(stream, dt, dx.get(), dr.get(), s2.get(), ds.get(), db.get(), dt, y2.get(), rows,
              cols, 1e-5f);
    const std::string t = dtypeLabel(dt);
    expectNear(fromDevice(y1, dt, rows * cols), cput::toDoubles(rms[0]), rtolFor(dt),
               atolFor(dt), "add_rms_norm result " + t);
    expectNear(fromDevice(s1, dt, rows * cols), cput::toDoubles(rms[1]), 0.0, 0.0,
               "add_rms_norm sum " + t);
    expectNear(fromDevice(y2, dt, rows * cols), cput::toDoubles(ln[0]), rtolFor(dt), atolFor(dt),
               "add_layer_norm result " + t);
    expectNear(fromDevice(s2, dt, rows * cols), cput::toDoubles(ln[1]), 0.0, 0.0,
               "add_layer_norm sum " + t);
  }
}

TEST_F(CudaVsCpuTest, Activations) {
  for (DType dt : kTypes) {
    const int64_t n = 1000;
    Tensor x = cput::randomTensor(dt, {n}, 4, -5.0, 5.0);
    Tensor u = cput::randomTensor(dt, {n}, 5, -5.0, 5.0);
    DeviceBuffer dx = toDevice(x), du = toDevice(u), dy = poisoned(dt, n);
    struct Case {
      const char *op;
      int64_t approx;
      Activation act;
    };
    for (Case c : {Case{"mm.gelu", 0, Activation::gelu}, Case{"mm.gelu", 1, Activation::geluTanh},
                   Case{"mm.quick_gelu", -1, Activation::quickGelu},
                   Case{"mm.silu", -1, Activation::silu}}) {
      cput::OpRun run(c.op);
      run.in(x).out(dt);
      if (c.approx >= 0)
        run.attr("approximate", c.approx);
      const Tensor want = run.run1();
      activation(stream, dt, dx.get(), dy.get(), n, c.act);
      expectNear(fromDevice(dy, dt, n), cput::toDoubles(want), rtolFor(dt), atolFor(dt),
                 std::string(c.op) + " " + std::to_string(c.approx) + " " + dtypeLabel(dt));
    }
    const Tensor want = cput::OpRun("mm.swiglu").in(x).in(u).out(dt).run1();
    swiglu(stream, dt, dx.get(), n, du.get(), n, dy.get(), n, 1, n, Activation::silu);
    expectNear(fromDevice(dy, dt, n), cput::toDoubles(want), rtolFor(dt), atolFor(dt),
               std::string("swiglu ") + dtypeLabel(dt));
    for (int64_t approx : {0, 1}) { // GeGLU: the same kernel with a GELU gate
      const Tensor wantGe = cput::OpRun("mm.geglu").attr("approximate", approx).in(x).in(u).out(dt).run1();
      swiglu(stream, dt, dx.get(), n, du.get(), n, dy.get(), n, 1, n,
             approx ? Activation::geluTanh : Activation::gelu);
      expectNear(fromDevice(dy, dt, n), cput::toDoubles(wantGe), rtolFor(dt), atolFor(dt),
                 std::string("geglu ") + std::to_string(approx) + " " + dtypeLabel(dt));
    }
  }
}

TEST_F(CudaVsCpuTest, Rotary) {
  for (DType dt : kTypes)
    for (int64_t interleaved : {0, 1}) {
      const int64_t B = 2, H = 3, S = 7, D = 64, R = 32;
      Tensor x = cput::randomTensor(dt, {B, H, S, D}, 6);
      Tensor c = cput::randomTensor(dt, {B, S, R}, 7);
      Tensor s = cput::randomTensor(dt, {B, S, R}, 8);
      const Tensor want =
          cput::OpRun("mm.rotary").in(x).in(c).in(s).attr("interleaved", interleaved).out(dt).run1();
      DeviceBuffer dx = toDevice(x), dc = toDevice(c), ds = toDevice(s), dy = poisoned(dt, x.numel());
      RotaryArgs a;
      a.dtype = dt;
      a.x = dx.get();
      a.y = dy.get();
      a.batch = B;
      a.heads = H;
      a.seq = S;
      a.headDim = D;
      a.xStrideB = a.yStrideB = H * S * D;
      a.xStrideH = a.yStrideH = S * D;
      a.xStrideS = a.yStrideS = D;
      a.rotaryDim = R;
      a.interleaved = interleaved != 0;
      a.cos = dc.get();
      a.sin = ds.get();
      a.tableType = dt;
      a.tableRowStride = R;
      a.tableStrideB = S;
      rotary(stream, a);
      expectNear(fromDevice(dy, dt, x.numel()), cput::toDoubles(want), rtolFor(dt), atolFor(dt),
                 std::string("rotary ") + dtypeLabel(dt) + (interleaved ? " interleaved" : ""));
    }
}

TEST_F(CudaVsCpuTest, AttentionCausalGqaAndMasked) {
  for (DType dt : kTypes)
    for (bool masked : {false, true}) {
      const int64_t B = 2, Hq = 8, Hkv = 2, S = 19, T = 23, D = 64;
      Tensor q = cput::randomTensor(dt, {B, Hq, S, D}, 9, -2.0, 2.0);
      Tensor k = cput::randomTensor(dt, {B, Hkv, T, D}, 10, -2.0, 2.0);
      Tensor v = cput::randomTensor(dt, {B, Hkv, T, D}, 11);
      Tensor mask = cput::randomTensor(dt, {B, 1, S, T}, 12, -4.0, 0.0);
      cput::OpRun run("mm.attention");
      run.in(q).in(k).in(v);
      if (masked)
        run.in(mask);
      const Tensor want = run.attr("scale", 0.125).attr("causal", int64_t(masked ? 0 : 1)).out(dt).run1();
      DeviceBuffer dq = toDevice(q), dk = toDevice(k), dv = toDevice(v), dm = toDevice(mask),
                   dy = poisoned(dt, q.numel());
      PrefillAttentionArgs a;
      a.dtype = dt;
      a.batch = B;
      a.qHeads = Hq;
      a.kvHeads = Hkv;
      a.qLen = S;
      a.kvLen = T;
      a.headDim = D;
      a.q = {dq.get(), Hq * S * D, S * D, D};
      a.k = {dk.get(), Hkv * T * D, T * D, D};
      a.v = {dv.get(), Hkv * T * D, T * D, D};
      a.out = dy.get();
      a.outStrideB = Hq * S * D;
      a.outStrideH = S * D;
      a.outStrideS = D;
      a.scale = 0.125f;
      a.causal = !masked;
      if (masked) {
        a.maskKind = MaskKind::additive;
        a.mask = dm.get();
        a.maskStrideB = S * T;
        a.maskStrideH = 0;
        a.maskStrideS = T;
        a.maskStrideT = 1;
      }
      prefillAttention(stream, a);
      const double probabilityRounding = dt == DType::f32 ? 0.0 : 1.1 * unitRoundoff(dt);
      expectNear(fromDevice(dy, dt, q.numel()), cput::toDoubles(want), rtolFor(dt),
                 atolFor(dt) + probabilityRounding,
                 std::string("attention ") + dtypeLabel(dt) + (masked ? " masked" : " causal"));
    }
}

TEST_F(CudaVsCpuTest, LinearAndGather) {
  Blas blas;
  for (DType dt : kTypes)
    for (int64_t m : {int64_t(1), int64_t(6)}) {
      const int64_t K = 1024, N = 256;
      Tensor x = cput::randomTensor(dt, {m, K}, 13);
      Tensor w = cput::randomTensor(dt, {K, N}, 14);
      Tensor b = cput::randomTensor(dt, {N}, 15);
      const Tensor want = cput::OpRun("mm.linear").in(x).in(w).in(b)
                              .attr("activation", int64_t(Activation::silu)).out(dt).run1();
      DeviceBuffer dx = toDevice(x), dw = toDevice(w), db = toDevice(b), dy = poisoned(dt, m * N);
      Blas::LinearArgs a;
      a.dtype = dt;
      a.x = dx.get();
      a.w = dw.get();
      a.bias = db.get();
      a.y = dy.get();
      a.m = m;
      a.n = N;
      a.k = K;
      a.act = Activation::silu;
      blas.linear(stream, a);
      expectNear(fromDevice(dy, dt, m * N), cput::toDoubles(want), rtolFor(dt),
                 dt == DType::f32 ? 1e-4 : 2e-2,
                 std::string("linear ") + dtypeLabel(dt) + " m=" + std::to_string(m));
    }
  for (DType dt : kTypes) {
    Tensor table = cput::randomTensor(dt, {40, 24}, 16);
    Tensor ids = cput::makeI64({5}, {3, 0, 39, -2, 17});
    const Tensor want = cput::OpRun("mm.gather").in(table).in(ids).attr("axis", int64_t(0)).out(dt).run1();
    DeviceBuffer dt_ = toDevice(table), di = toDevice(ids), dy = poisoned(dt, 5 * 24);
    embeddingGather(stream, dtypeSize(dt), dt_.get(), 40, 24, di.as<int64_t>(), 5, dy.get(), nullptr);
    expectNear(fromDevice(dy, dt, 5 * 24), cput::toDoubles(want), 0.0, 0.0,
               std::string("gather ") + dtypeLabel(dt));
  }
}

} // namespace
} // namespace mm::rt::cuda::test
