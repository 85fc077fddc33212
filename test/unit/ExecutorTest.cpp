//===- ExecutorTest.cpp - executor, KV cache and generation loop ------------===//
//
// Runs hand-made plans (PlanTestUtil.h) with small test kernels registered here, so the
// executor is tested independently of the real CPU kernels.
//
//===----------------------------------------------------------------------===//
#include "PlanTestUtil.h"
#include "TestUtil.h"

#include "runtime/core/Error.h"
#include "runtime/exec/Executor.h"
#include "runtime/exec/StridedView.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <cstring>

using namespace mm;
using namespace mm::rt;
using namespace mm::test;

namespace {

int concatCalls = 0;

void addKernel(cpu::KernelContext &ctx, const std::vector<const Tensor *> &in, std::vector<Tensor> &out) {
  if (in[0]->shape != in[1]->shape)
    fail("test add: shapes differ");
  out.at(0) = ctx.allocateOutput(0, in[0]->shape);
  for (int64_t i = 0; i < in[0]->numel(); ++i)
    out[0].as<float>()[i] = in[0]->as<float>()[i] + in[1]->as<float>()[i];
}

/// Concatenation of two f32 tensors along attribute `axis`.
void concatKernel(cpu::KernelContext &ctx, const std::vector<const Tensor *> &in, std::vector<Tensor> &out) {
  ++concatCalls;
  size_t axis = static_cast<size_t>(ctx.attrs().getInt("axis"));
  Shape s = in[0]->shape;
  s[axis] += in[1]->shape[axis];
  out.at(0) = ctx.allocateOutput(0, s);
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d)
    outer *= s[d];
  for (size_t d = axis + 1; d < s.size(); ++d)
    inner *= s[d];
  float *dst = out[0].as<float>();
  for (int64_t o = 0; o < outer; ++o)
    for (const Tensor *t : in) {
      int64_t n = t->shape[axis] * inner;
      std::memcpy(dst, t->as<float>() + o * n, static_cast<size_t>(n) * 4);
      dst += n;
    }
}

/// [1] f32: the sum of all elements.
void sumKernel(cpu::KernelContext &ctx, const std::vector<const Tensor *> &in, std::vector<Tensor> &out) {
  out.at(0) = ctx.allocateOutput(0, {1});
  float s = 0;
  for (int64_t i = 0; i < in[0]->numel(); ++i)
    s += in[0]->as<float>()[i];
  out[0].as<float>()[0] = s;
}

void shapeKernel(cpu::KernelContext &ctx, const std::vector<const Tensor *> &in, std::vector<Tensor> &out) {
  out.at(0) = ctx.allocateOutput(0, {in[0]->rank()});
  for (int64_t d = 0; d < in[0]->rank(); ++d)
    out[0].as<int64_t>()[d] = in[0]->shape[static_cast<size_t>(d)];
}

void dimKernel(cpu::KernelContext &ctx, const std::vector<const Tensor *> &in, std::vector<Tensor> &out) {
  out.at(0) = ctx.allocateOutput(0, {1});
  out[0].as<int64_t>()[0] = in[0]->shape.at(static_cast<size_t>(ctx.attrs().getInt("index")));
}

void failingKernel(cpu::KernelContext &, const std::vector<const Tensor *> &, std::vector<Tensor> &) {
  fail("test kernel failure");
}

void wrongShapeKernel(cpu::KernelContext &ctx, const std::vector<const Tensor *> &in, std::vector<Tensor> &out) {
  out.at(0) = ctx.allocateOutput(0, {7, 7});
}

cpu::KernelRegistry testKernels() {
  cpu::KernelRegistry r;
  r.add("mm.add", addKernel);
  r.add("mm.concat", concatKernel);
  r.add("test.sum", sumKernel);
  r.add("mm.shape", shapeKernel);
  r.add("mm.dim", dimKernel);
  return r;
}


TEST(Executor, RunsAPlanAndReusesItsArena) {
  auto plan = loadPlanBytes(buildPlanBytes(addPlan()));
  cpu::KernelRegistry kernels = testKernels();
  Executor ex(plan, "f", kernels);
  for (int call = 0; call < 3; ++call) {
    std::vector<Tensor> out = ex.run({f32({4}, {1, 1, 1, 1})});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].shape, Shape{4});
    EXPECT_EQ(out[0].as<float>()[0], 12.0f);
    EXPECT_EQ(out[0].as<float>()[3], 45.0f);
    EXPECT_EQ(ex.arena().liveBlocks(), 0u);
  }
  // One activation (t, 16 bytes -> one 64-byte block) in the arena; y is an output.
  EXPECT_EQ(ex.arena().capacity(), 64u);
  EXPECT_EQ(ex.arena().growCount(), 1);
}

TEST(Executor, ValidatesInputsAgainstTheSignature) {
  auto plan = loadPlanBytes(buildPlanBytes(addPlan()));
  cpu::KernelRegistry kernels = testKernels();
  Executor ex(plan, "f", kernels);
  Tensor i64 = Tensor::host(DType::i64, {4});
  EXPECT_EQ(runError([&] { ex.run({i64}); }), "input 'x': expected f32 [n], got i64 [4]");
  EXPECT_EQ(runError([&] { ex.run({f32({2, 2}, {1, 2, 3, 4})}); }),
            "input 'x': expected f32 [n], got f32 [2, 2]");
  EXPECT_EQ(runError([&] { ex.run({}); }), "function 'f' takes 1 inputs, got 0");
  EXPECT_EQ(runError([&] { orderInputs(ex.function(), {{"y", i64}}); }),
            "function 'f' has no input 'y' (inputs: x)");
  // A kernel failure names the function and the op.
  EXPECT_EQ(runError([&] { ex.run({f32({3}, {1, 2, 3})}); }),
            "function 'f' op 0 (mm.add at test): test add: shapes differ");
  EXPECT_EQ(ex.arena().liveBlocks(), 0u);
}

TEST(Executor, SymbolicDimsMustAgreeAcrossInputs) {
  TPlan p = addPlan();
  TFunction &f = p.functions[0];
  f.tensors[1] = {DType::f32, {-1}, {"n"}, TensorKind::input, "x2"};
  f.inputs.push_back({"x2", 1});
  auto plan = loadPlanBytes(buildPlanBytes(p));
  cpu::KernelRegistry kernels = testKernels();
  Executor ex(plan, "f", kernels);
  EXPECT_EQ(runError([&] { ex.run({f32({4}, {1, 2, 3, 4}), f32({2}, {1, 2})}); }),
            "input 'x2': dim 'n' is 2 but input 'x' has n = 4");
}

TEST(Executor, MissingKernelsAreReportedAtLoad) {
  auto plan = loadPlanBytes(buildPlanBytes(addPlan()));
  cpu::KernelRegistry empty;
  EXPECT_EQ(runError([&] { Executor ex(plan, "f", empty); }),
            "test.plan: function 'f' uses ops without a CPU kernel: mm.add");
}

TEST(Executor, KernelFailuresAndWrongResultShapesNameTheOp) {
  auto plan = loadPlanBytes(buildPlanBytes(addPlan()));
  cpu::KernelRegistry failing;
  failing.add("mm.add", failingKernel);
  Executor a(plan, "f", failing);
  EXPECT_EQ(runError([&] { a.run({f32({4}, {1, 1, 1, 1})}); }),
            "function 'f' op 0 (mm.add at test): test kernel failure");
  TPlan p = addPlan();
  p.functions[0].tensors[3].shape = {4}; // declared static: the kernel's [7, 7] is wrong
  auto plan2 = loadPlanBytes(buildPlanBytes(p));
  cpu::KernelRegistry wrong;
  wrong.add("mm.add", wrongShapeKernel);
  Executor b(plan2, "f", wrong);
  EXPECT_EQ(runError([&] { b.run({f32({4}, {1, 1, 1, 1})}); }),
            "function 'f' op 0 (mm.add at test): result 0 has shape [7, 7] but the plan "
            "declares f32 [4]");
}

/// decoder(x [1,2,seq,3], past_key_values.0.key [1,2,past,3]):
///   present.0.key = concat(past, x, axis 2); s = sum(present); past_shape = shape(past);
///   past_len = dim(past, 2)
TPlan kvPlan() {
  TPlan p;
  TFunction f;
  f.name = "decoder";
  f.tensors = {
      {DType::f32, {1, 2, -1, 3}, {"", "", "seq", ""}, TensorKind::input, "x"},
      {DType::f32, {1, 2, -1, 3}, {"", "", "past", ""}, TensorKind::input, "past_key_values.0.key"},
      {DType::f32, {1, 2, -1, 3}, {}, TensorKind::activation, "present", 0, {}, 0, 4},
      {DType::f32, {1}, {}, TensorKind::activation, "s", 0, {}, 1, 4},
      {DType::i64, {4}, {}, TensorKind::activation, "past_shape", 0, {}, 2, 4},
      {DType::i64, {1}, {}, TensorKind::activation, "past_len", 0, {}, 3, 4},
  };
  f.ops = {{"mm.concat", {1, 0}, {2}, {{"axis", 2}}}, {"test.sum", {2}, {3}, {}},
           {"mm.shape", {1}, {4}, {}}, {"mm.dim", {1}, {5}, {{"index", 2}}}};
  f.inputs = {{"x", 0}, {"past_key_values.0.key", 1}};
  f.outputs = {{"present.0.key", 2}, {"s", 3}, {"past_shape", 4}, {"past_len", 5}};
  f.slots = {{0, false, 1, 0, 0, 2}};
  p.functions.push_back(f);
  return p;
}

Tensor ramp(Shape shape, float start) {
  Tensor t = Tensor::host(DType::f32, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i)
    t.as<float>()[i] = start + static_cast<float>(i);
  return t;
}

TEST(Executor, KvCacheAppendsInPlaceAndMatchesThePlainConcat) {
  auto plan = loadPlanBytes(buildPlanBytes(kvPlan()));
  cpu::KernelRegistry kernels = testKernels();
  Executor ex(plan, "decoder", kernels);
  const FunctionInfo &fn = ex.function();
  ASSERT_EQ(fn.kvSlots.size(), 1u);

  Tensor x1 = ramp({1, 2, 3, 3}, 0), x2 = ramp({1, 2, 1, 3}, 100);
  // Reference: plain runs with explicit past tensors (the concat kernel).
  Tensor empty = Tensor::host(DType::f32, {1, 2, 0, 3});
  std::vector<Tensor> r1 = ex.run({x1, empty});
  std::vector<Tensor> r2 = ex.run({x2, r1[0]});
  EXPECT_EQ(concatCalls, 2);

  KvCache cache(fn, 1, 8);
  EXPECT_EQ(cache.buffer(0).shape, (Shape{1, 2, 8, 3}));
  std::vector<Tensor> c1 = ex.run({x1, Tensor()}, &cache);
  EXPECT_EQ(cache.length(), 3);
  std::vector<Tensor> c2 = ex.run({x2, Tensor()}, &cache);
  EXPECT_EQ(cache.length(), 4);
  EXPECT_EQ(concatCalls, 2) << "the KV concat must not run as a kernel with a cache";
  EXPECT_EQ(c1[1].as<float>()[0], r1[1].as<float>()[0]);
  EXPECT_EQ(c2[1].as<float>()[0], r2[1].as<float>()[0]);
  EXPECT_EQ(c2[2].as<int64_t>()[2], 3); // shape(past) during step 2
  EXPECT_EQ(c2[3].as<int64_t>()[0], 3); // dim(past, 2)
  EXPECT_EQ(c2[0].data, nullptr);       // present.* stay in the cache
  // test.sum (a kernel) needed a contiguous copy of the view in each cache step;
  // mm.shape and mm.dim took the past view as is.
  EXPECT_EQ(ex.viewCopies(), 2);
  // The cache holds exactly the plain run's present.0.key, per head.
  const Tensor &buf = cache.buffer(0);
  for (int h = 0; h < 2; ++h)
    for (int s = 0; s < 4; ++s)
      for (int d = 0; d < 3; ++d)
        EXPECT_EQ(buf.as<float>()[(h * 8 + s) * 3 + d], r2[0].as<float>()[(h * 4 + s) * 3 + d]);
  EXPECT_EQ(ex.arena().liveBlocks(), 0u);
}

TEST(Executor, KvCacheErrors) {
  auto plan = loadPlanBytes(buildPlanBytes(kvPlan()));
  cpu::KernelRegistry kernels = testKernels();
  Executor ex(plan, "decoder", kernels);
  KvCache cache(ex.function(), 1, 4);
  ex.run({ramp({1, 2, 3, 3}, 0), Tensor()}, &cache);
  std::string err = runError([&] { ex.run({ramp({1, 2, 2, 3}, 0), Tensor()}, &cache); });
  EXPECT_NE(err.find("KV cache full: 3 + 2 positions exceed its capacity 4"), std::string::npos) << err;
  EXPECT_EQ(cache.length(), 3); // a failed step leaves the cache as it was
  err = runError([&] { ex.run({ramp({1, 2, 1, 3}, 0), ramp({1, 2, 3, 3}, 0)}, &cache); });
  EXPECT_EQ(err, "input 'past_key_values.0.key' is supplied by the KV cache; leave it out");
  err = runError([&] { ex.run({ramp({1, 3, 1, 3}, 0), Tensor()}, &cache); });
  EXPECT_EQ(err, "input 'x': expected f32 [1, 2, seq, 3], got f32 [1, 3, 1, 3]");
}

TEST(StridedView, CopiesAViewOfALargerBuffer) {
  Tensor buf = ramp({2, 5, 4}, 0);
  Tensor view = buf;
  view.shape = {2, 3, 4};
  std::vector<float> out(24);
  copyStridedToContiguous(view, contiguousStridesOf(buf.shape), out.data());
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c)
        EXPECT_EQ(out[(a * 3 + b) * 4 + c], static_cast<float>((a * 5 + b) * 4 + c));
}

int attentionCalls = 0;

/// Reference attention: query [B, Hq, S, D], key/value [B, Hkv, T, D], optional additive
/// f32 mask broadcastable as [B or 1, Hq or 1, S, T]; query head h reads KV head
/// h / (Hq / Hkv); softmax(scale * q.k + mask) v.
void attentionKernel(cpu::KernelContext &ctx, const std::vector<const Tensor *> &in,
                     std::vector<Tensor> &out) {
  ++attentionCalls;
  const Tensor &q = *in[0], &k = *in[1], &v = *in[2];
  const Tensor *m = in.size() > 3 ? in[3] : nullptr;
  int64_t B = q.shape[0], Hq = q.shape[1], S = q.shape[2], D = q.shape[3];
  int64_t Hkv = k.shape[1], T = k.shape[2];
  double scale = ctx.attrs().getFloat("scale");
  out.at(0) = ctx.allocateOutput(0, {B, Hq, S, D});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h)
      for (int64_t s = 0; s < S; ++s) {
        int64_t kh = h / (Hq / Hkv);
        std::vector<double> w(static_cast<size_t>(T));
        double mx = -1e300, sum = 0;
        for (int64_t t = 0; t < T; ++t) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += q.as<float>()[((b * Hq + h) * S + s) * D + d] *
                   k.as<float>()[((b * Hkv + kh) * T + t) * D + d];
          double bias = 0;
          if (m) {
            int64_t mb = m->shape[0] == 1 ? 0 : b, mh = m->shape[1] == 1 ? 0 : h;
            bias = m->as<float>()[((mb * m->shape[1] + mh) * S + s) * T + t];
          }
          w[static_cast<size_t>(t)] = scale * dot + bias;
          mx = std::max(mx, w[static_cast<size_t>(t)]);
        }
        for (double &x : w)
          sum += (x = std::exp(x - mx));
        for (int64_t d = 0; d < D; ++d) {
          double acc = 0;
          for (int64_t t = 0; t < T; ++t)
            acc += w[static_cast<size_t>(t)] / sum * v.as<float>()[((b * Hkv + kh) * T + t) * D + d];
          out[0].as<float>()[((b * Hq + h) * S + s) * D + d] = static_cast<float>(acc);
        }
      }
}

/// decoder(q [2,4,S,2], k, v [2,2,S,2], mask [2,M,S,T], past key/value [2,2,past,2]):
/// present.0.{key,value} = concat(past, new); out = attention(q, K, V, mask). M = 1 or 4.
TPlan attentionPlan(int64_t maskHeads) {
  TPlan p;
  TFunction f;
  f.name = "decoder";
  f.tensors = {
      {DType::f32, {2, 4, -1, 2}, {}, TensorKind::input, "q"},
      {DType::f32, {2, 2, -1, 2}, {}, TensorKind::input, "k"},
      {DType::f32, {2, 2, -1, 2}, {}, TensorKind::input, "v"},
      {DType::f32, {2, maskHeads, -1, -1}, {}, TensorKind::input, "mask"},
      {DType::f32, {2, 2, -1, 2}, {}, TensorKind::input, "past_key_values.0.key"},
      {DType::f32, {2, 2, -1, 2}, {}, TensorKind::input, "past_key_values.0.value"},
      {DType::f32, {2, 2, -1, 2}, {}, TensorKind::activation, "K", 0, {}, 0, 3},
      {DType::f32, {2, 2, -1, 2}, {}, TensorKind::activation, "V", 0, {}, 1, 3},
      {DType::f32, {2, 4, -1, 2}, {}, TensorKind::activation, "out", 0, {}, 2, 3},
  };
  f.ops = {{"mm.concat", {4, 1}, {6}, {{"axis", 2}}},
           {"mm.concat", {5, 2}, {7}, {{"axis", 2}}},
           {"mm.attention", {0, 6, 7, 3}, {8}, {}}};
  f.inputs = {{"q", 0}, {"k", 1}, {"v", 2}, {"mask", 3}, {"past_key_values.0.key", 4},
              {"past_key_values.0.value", 5}};
  f.outputs = {{"out", 8}, {"present.0.key", 6}, {"present.0.value", 7}};
  f.slots = {{0, false, 4, 1, 0, 2}, {0, true, 5, 2, 1, 2}};
  p.functions.push_back(f);
  return p;
}

TEST(Executor, AttentionReadsKvCacheViewsWithoutCopies) {
  for (int64_t maskHeads : {1, 4}) {
    TPlan p = attentionPlan(maskHeads);
    // The scale attribute is a float: add it by hand (TOp holds ints only).
    auto plan = loadPlanBytes(buildPlanBytes(p));
    const_cast<OpInfo &>(plan->function("decoder").ops[2]).attrs.set("scale", 0.5);
    cpu::KernelRegistry kernels = testKernels();
    kernels.add("mm.attention", attentionKernel);
    Executor ex(plan, "decoder", kernels);
    auto step = [&](int64_t past, int64_t s, float seed) {
      return std::vector<Tensor>{ramp({2, 4, s, 2}, seed), ramp({2, 2, s, 2}, seed * 0.5f),
                                 ramp({2, 2, s, 2}, -seed), ramp({2, maskHeads, s, past + s}, 0.25f)};
    };
    // Small varied values; plain runs: concat kernels, one attention call.
    std::vector<Tensor> in1 = step(0, 3, 0.1f), in2 = step(3, 1, 0.2f);
    for (auto *in : {&in1, &in2})
      for (Tensor &t : *in)
        for (int64_t i = 0; i < t.numel(); ++i)
          t.as<float>()[i] = 0.1f * std::sin(t.as<float>()[i] + static_cast<float>(i));
    Tensor empty = Tensor::host(DType::f32, {2, 2, 0, 2});
    std::vector<Tensor> r1 = ex.run({in1[0], in1[1], in1[2], in1[3], empty, empty});
    attentionCalls = 0;
    std::vector<Tensor> r2 = ex.run({in2[0], in2[1], in2[2], in2[3], r1[1], r1[2]});
    EXPECT_EQ(attentionCalls, 1);
    // With the cache: one call per (batch, KV head) on slices of the cache buffers.
    KvCache cache(ex.function(), 2, 6);
    ex.run({in1[0], in1[1], in1[2], in1[3], Tensor(), Tensor()}, &cache);
    attentionCalls = 0;
    std::vector<Tensor> c2 = ex.run({in2[0], in2[1], in2[2], in2[3], Tensor(), Tensor()}, &cache);
    EXPECT_EQ(attentionCalls, 4);
    EXPECT_EQ(ex.viewCopies(), 0);
    // Every tensor here is a function input or output: a contiguous copy of K or V would
    // be the only thing ever put in the arena.
    EXPECT_EQ(ex.arena().peak(), 0u);
    ASSERT_EQ(c2[0].shape, r2[0].shape);
    for (int64_t i = 0; i < r2[0].numel(); ++i)
      EXPECT_EQ(c2[0].as<float>()[i], r2[0].as<float>()[i]) << "mask heads " << maskHeads << " at " << i;
  }
}

} // namespace
