//===- CudaExecutorTest.cpp - the CUDA executor's fused decode step ----------===//
//
// One attention layer as the importer emits it (the q and k heads of one buffer split
// apart and rotated with the same cos/sin, k and v appended to the KV cache, attention),
// hand-built as a CUDA plan and run by the CUDA executor with a device KV cache: a
// prefill of 5 positions and 4 decode steps, with the fused launches on (the decode step's
// rotary and cache append left to the decode-attention launch) and off.
//   - The outputs and the final caches must be equal bit for bit: the fused kernel rounds
//     and orders everything as the separate launches do.
//   - A fused decode step issues 3 launches fewer (2 rotary, 1 append); the prefill, which
//     the decode kernel does not take, 1 fewer (the merged rotary), through the fallback
//     that records the deferred rotary and append after all.
//   - Both match the CPU executor: f32 on both sides, 64-term dot products and softmaxes
//     over at most 9 keys summed in different orders, so 1e-5 relative + 1e-5 absolute.
//
//===----------------------------------------------------------------------===//
#include "CudaTestUtil.h"
#include "PlanTestUtil.h"

#include "runtime/cudaexec/CudaExecutor.h"
#include "runtime/cudaexec/DeviceKvCache.h"
#include "runtime/exec/Executor.h"
#include "runtime/exec/KvCache.h"

#include <cmath>
#include <cstring>
#include <random>

namespace mm::rt::cudaexec::test {
namespace {

using mm::test::TFunction;
using mm::test::TOp;
using mm::test::TPlan;
using mm::test::TTensor;
using cuda::checkCuda;

constexpr int64_t kHq = 8, kHkv = 2, kD = 64, kCapacity = 16;

/// decoder(qk [1, Hq+Hkv, S, D], v [1, Hkv, S, D], cos, sin [1, S, D], past key/value):
/// q, k = split(qk, heads); out = attention(rotary(q), concat(past_k, rotary(k)),
/// concat(past_v, v)); present.0.* = the concats.
std::shared_ptr<const Plan> layerPlan(bool fusionBits = true) {
  const std::vector<std::string> seq = {"", "", "seq", ""}, past = {"", "", "past", ""};
  TFunction f;
  f.name = "decoder";
  auto act = [](Shape shape, const char *name, int first, int last) {
    return TTensor{DType::f32, std::move(shape), {}, TensorKind::activation, name, 0, {}, first, last};
  };
  f.tensors = {
      {DType::f32, {1, kHq + kHkv, -1, kD}, seq, TensorKind::input, "qk"},
      {DType::f32, {1, kHkv, -1, kD}, seq, TensorKind::input, "v"},
      {DType::f32, {1, -1, kD}, {"", "seq", ""}, TensorKind::input, "cos"},
      {DType::f32, {1, -1, kD}, {"", "seq", ""}, TensorKind::input, "sin"},
      {DType::f32, {1, kHkv, -1, kD}, past, TensorKind::input, "past_key_values.0.key"},
      {DType::f32, {1, kHkv, -1, kD}, past, TensorKind::input, "past_key_values.0.value"},
      act({1, kHq, -1, kD}, "q", 0, 1),
      act({1, kHkv, -1, kD}, "k", 0, 2),
      act({1, kHq, -1, kD}, "q_rot", 1, 5),
      act({1, kHkv, -1, kD}, "k_rot", 2, 3),
      act({1, kHkv, -1, kD}, "K", 3, 6), // function outputs live to the end
      act({1, kHkv, -1, kD}, "V", 4, 6),
      act({1, kHq, -1, kD}, "out", 5, 6),
  };
  const Placement dev = Placement::device; // all in one CUDA-graph segment
  f.ops = {TOp{"mm.split", {0}, {6, 7}, {{"axis", 1}}, dev, 0},
           TOp{"mm.rotary", {6, 2, 3}, {8}, {}, dev, 0},
           TOp{"mm.rotary", {7, 2, 3}, {9}, {}, dev, 0},
           TOp{"mm.concat", {4, 9}, {10}, {{"axis", 2}}, dev, 0},
           TOp{"mm.concat", {5, 1}, {11}, {{"axis", 2}}, dev, 0},
           TOp{"mm.attention", {8, 10, 11}, {12}, {}, dev, 0}};
  f.segments = {{0, 5, "end of function"}};
  // The fused launches -mm-plan-cuda-fusion decides for this layer: the q/k rotary pair
  // into the decode attention, and both appends into it.
  using cuda::CudaFusion;
  if (fusionBits) {
    f.ops[1].fusion = static_cast<uint8_t>(CudaFusion::rotaryPairWithNext) |
                      static_cast<uint8_t>(CudaFusion::rotaryIntoAttention);
    f.ops[3].fusion = f.ops[4].fusion = static_cast<uint8_t>(CudaFusion::appendIntoAttention);
  }
  f.inputs = {{"qk", 0},  {"v", 1}, {"cos", 2}, {"sin", 3}, {"past_key_values.0.key", 4},
              {"past_key_values.0.value", 5}};
  f.outputs = {{"out", 12}, {"present.0.key", 10}, {"present.0.value", 11}};
  f.slots = {{0, false, 4, 1, 3, 2}, {0, true, 5, 2, 4, 2}};
  TPlan p;
  p.target = "cuda";
  p.functions.push_back(f);
  auto plan = mm::test::loadPlanBytes(mm::test::buildPlanBytes(p));
  // Attributes TOp cannot hold (an int list, a float).
  const FunctionInfo &fn = plan->function("decoder");
  const_cast<OpInfo &>(fn.ops[0]).attrs.set("sizes", std::vector<int64_t>{kHq, kHkv});
  const_cast<OpInfo &>(fn.ops[5]).attrs.set("scale", 0.125);
  return plan;
}

Tensor randomTensor(Shape shape, std::mt19937 &gen) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Tensor t = Tensor::host(DType::f32, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i)
    t.as<float>()[i] = u(gen);
  return t;
}

/// The inputs of each call but the pasts: qk, v, cos, sin for positions [pos, pos + s).
std::vector<Tensor> stepInputs(int64_t pos, int64_t s, std::mt19937 &gen) {
  Tensor c = Tensor::host(DType::f32, {1, s, kD}), sn = Tensor::host(DType::f32, {1, s, kD});
  for (int64_t p = 0; p < s; ++p)
    for (int64_t ch = 0; ch < kD; ++ch) { // Llama's rotate-half tables
      const double angle = double(pos + p) * std::pow(10000.0, -2.0 * double(ch % (kD / 2)) / kD);
      c.as<float>()[p * kD + ch] = float(std::cos(angle));
      sn.as<float>()[p * kD + ch] = float(std::sin(angle));
    }
  return {randomTensor({1, kHq + kHkv, s, kD}, gen), randomTensor({1, kHkv, s, kD}, gen), c, sn};
}

std::vector<std::vector<Tensor>> callInputs() {
  std::mt19937 gen(31);
  std::vector<std::vector<Tensor>> calls = {stepInputs(0, 5, gen)};
  for (int64_t pos = 5; pos < 9; ++pos)
    calls.push_back(stepInputs(pos, 1, gen));
  return calls;
}

struct GpuRun {
  std::vector<std::vector<float>> outs;
  std::vector<std::vector<uint8_t>> caches;
  std::vector<int64_t> launches; ///< per call
};

GpuRun runOnGpu(const std::shared_ptr<const Plan> &plan, bool fused) {
  CudaContext ctx;
  ctx.setFusedLaunchesEnabled(fused);
  CudaExecutor ex(plan, "decoder", ctx);
  DeviceKvCache cache(ex.function(), 1, kCapacity);
  GpuRun r;
  int64_t before = 0;
  for (const std::vector<Tensor> &in : callInputs()) {
    std::vector<RunInput> args;
    for (const Tensor &t : in)
      args.push_back({t, false});
    args.resize(6); // the pasts: the cache holds them
    std::vector<DeviceTensor> outs = ex.run(args, &cache);
    ctx.synchronize();
    std::vector<float> out(size_t(outs[0].numel()));
    checkCuda(cudaMemcpy(out.data(), outs[0].data, outs[0].nbytes(), cudaMemcpyDeviceToHost),
              "download the output");
    r.outs.push_back(out);
    const int64_t total = ex.stats().launches;
    r.launches.push_back(total - before);
    before = total;
  }
  for (size_t s = 0; s < 2; ++s) {
    std::vector<uint8_t> bytes(size_t(kHkv * kCapacity * kD) * sizeof(float));
    checkCuda(cudaMemcpy(bytes.data(), cache.buffer(s), bytes.size(), cudaMemcpyDeviceToHost),
              "download the cache");
    r.caches.push_back(bytes);
  }
  return r;
}

/// The outputs of each call on the CPU executor with its KV cache.
std::vector<std::vector<double>> cpuOutputs(const std::shared_ptr<const Plan> &plan) {
  Executor cpu(plan, "decoder");
  KvCache cache(cpu.function(), 1, kCapacity);
  std::vector<std::vector<double>> outs;
  for (std::vector<Tensor> in : callInputs()) {
    in.resize(6);
    const Tensor out = cpu.run(in, &cache)[0];
    outs.emplace_back(out.as<float>(), out.as<float>() + out.numel());
  }
  return outs;
}

class CudaExecutorTest : public cuda::test::CudaTest {};

// Executors on one context read one device copy of a weight they share (the session's
// weights: an embedding and a tied lm_head, a function prepared twice).
TEST_F(CudaExecutorTest, ExecutorsOnOneContextUploadEachWeightOnce) {
  TPlan p = mm::test::addPlan(); // y = (x + w) + c, w a [4] f32 weight
  p.target = "cuda";
  for (TOp &op : p.functions[0].ops) {
    op.placement = Placement::device;
    op.segment = 0;
  }
  p.functions[0].segments = {{0, 1, "end of function"}};
  TFunction g = p.functions[0];
  g.name = "g";
  p.functions.push_back(g);
  const std::shared_ptr<const Plan> plan = mm::test::loadPlanBytes(mm::test::buildPlanBytes(p));
  CudaContext ctx;
  CudaExecutor f(plan, "f", ctx);
  EXPECT_EQ(ctx.weights().weightBytes(), 4 * sizeof(float));
  CudaExecutor second(plan, "g", ctx);
  EXPECT_EQ(ctx.weights().weightBytes(), 4 * sizeof(float)); // not uploaded again
  Tensor x = Tensor::host(DType::f32, {4});
  for (int i = 0; i < 4; ++i)
    x.as<float>()[i] = float(i);
  for (CudaExecutor *e : {&f, &second}) {
    const Tensor y = e->runToHost({x})[0];
    ASSERT_EQ(y.numel(), 4);
    for (int i = 0; i < 4; ++i) // x + w + c: i + (i + 1) + 10 (i + 1)
      EXPECT_EQ(y.as<float>()[i], float(i + (i + 1) + 10 * (i + 1)));
  }
}

TEST_F(CudaExecutorTest, FusedDecodeStepMatchesSeparateLaunchesAndCpu) {
  const std::shared_ptr<const Plan> plan = layerPlan();
  const std::vector<std::vector<double>> want = cpuOutputs(plan);
  const GpuRun fused = runOnGpu(plan, true), separate = runOnGpu(plan, false);

  ASSERT_EQ(fused.outs.size(), 5u);
  for (size_t c = 0; c < fused.outs.size(); ++c) {
    ASSERT_EQ(fused.outs[c].size(), separate.outs[c].size());
    EXPECT_EQ(std::memcmp(fused.outs[c].data(), separate.outs[c].data(),
                          fused.outs[c].size() * sizeof(float)),
              0)
        << "call " << c << ": fused and separate launches differ";
    EXPECT_EQ(fused.launches[c] + (c == 0 ? 1 : 3), separate.launches[c])
        << "call " << c << " issued " << fused.launches[c] << " launches fused, "
        << separate.launches[c] << " separate";
  }
  EXPECT_EQ(fused.caches, separate.caches) << "the KV caches differ";
  // The executor fuses what the plan's bits say, nothing more: without them, fused
  // launches on, it launches as with fusion off.
  const GpuRun unmarked = runOnGpu(layerPlan(false), true);
  EXPECT_EQ(unmarked.launches, separate.launches);
  EXPECT_EQ(unmarked.caches, separate.caches);
  for (size_t c = 0; c < want.size(); ++c)
    cuda::test::expectNear(std::vector<double>(fused.outs[c].begin(), fused.outs[c].end()),
                           want[c], 1e-5, 1e-5, "call " + std::to_string(c) + " vs CPU");
}

} // namespace
} // namespace mm::rt::cudaexec::test
