//===- GeneratorTest.cpp - the generation loop over its backend interface ----===//
//
// A toy LLaVA plan (vision encoder, embedding, decoder with one KV-cache slot) whose
// kernels make every token a known function of the prompt, the image and the cache, run
// by the generation loop over the CPU backend and over a test backend that keeps its
// tensors behind a copy boundary (the interface is all a new backend needs).
//
//===----------------------------------------------------------------------===//
#include "PlanTestUtil.h"
#include "TestUtil.h"

#include "runtime/core/Error.h"
#include "runtime/exec/CpuGeneration.h"
#include "runtime/exec/Executor.h"
#include "runtime/exec/GenerationSteps.h"
#include "runtime/exec/Generator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>

using namespace mm;
using namespace mm::rt;
using namespace mm::test;

namespace {

/// embed: [1, seq] ids -> [1, seq, 2] rows {id, 0}.
void embedKernel(cpu::KernelContext &ctx, const std::vector<const Tensor *> &in, std::vector<Tensor> &out) {
  int64_t seq = in[0]->shape[1];
  out.at(0) = ctx.allocateOutput(0, {1, seq, 2});
  for (int64_t i = 0; i < seq; ++i) {
    out[0].as<float>()[2 * i] = static_cast<float>(in[0]->as<int64_t>()[i]);
    out[0].as<float>()[2 * i + 1] = 0;
  }
}

/// vision: [1, 2] pixels -> [1, 2, 2] features {p_i, 1}.
void visionKernel(cpu::KernelContext &ctx, const std::vector<const Tensor *> &in, std::vector<Tensor> &out) {
  out.at(0) = ctx.allocateOutput(0, {1, 2, 2});
  for (int i = 0; i < 2; ++i) {
    out[0].as<float>()[2 * i] = in[0]->as<float>()[i];
    out[0].as<float>()[2 * i + 1] = 1;
  }
}

/// [1, 1, seq, 2] view of the embeddings, as new KV entries.
void toKvKernel(cpu::KernelContext &ctx, const std::vector<const Tensor *> &in, std::vector<Tensor> &out) {
  Shape s = {1, 1, in[0]->shape[1], 2};
  out.at(0) = ctx.allocateOutput(0, s);
  std::memcpy(out[0].data, in[0]->data, in[0]->nbytes());
}

/// logits [1, seq, 8]: the last row one-hot at (T + sum of column 0 of the cache) mod 8,
/// T = positions; the rows before it one place further (a loop reading another row than
/// the last gets another token).
void logitsKernel(cpu::KernelContext &ctx, const std::vector<const Tensor *> &in, std::vector<Tensor> &out) {
  const Tensor &kv = *in[0];
  int64_t total = kv.shape[2], seq = in[1]->shape[1];
  double sum = 0;
  for (int64_t t = 0; t < total; ++t)
    sum += kv.as<float>()[2 * t];
  out.at(0) = ctx.allocateOutput(0, {1, seq, 8});
  int64_t token = (total + static_cast<int64_t>(std::lround(sum))) % 8;
  for (int64_t s = 0; s < seq; ++s)
    out[0].as<float>()[s * 8 + (s + 1 == seq ? token : (token + 1) % 8)] = 1;
}

TPlan generationPlan() {
  TPlan p;
  TFunction v{"vision_encoder"};
  v.tensors = {{DType::f32, {1, 2}, {}, TensorKind::input, "pixel_values"},
               {DType::f32, {1, 2, 2}, {}, TensorKind::activation, "f", 0, {}, 0, 1}};
  v.ops = {{"test.vision", {0}, {1}, {}}};
  v.inputs = {{"pixel_values", 0}};
  v.outputs = {{"image_features", 1}};
  v.role = FunctionRole::visionEncoder;
  v.inputRoles = {ValueRole::pixelValues};
  v.outputRoles = {ValueRole::imageFeatures};
  TFunction e{"embed_tokens"};
  e.tensors = {{DType::i64, {1, -1}, {"batch", "seq"}, TensorKind::input, "input_ids"},
               {DType::f32, {1, -1, 2}, {}, TensorKind::activation, "e", 0, {}, 0, 1}};
  e.ops = {{"test.embed", {0}, {1}, {}}};
  e.inputs = {{"input_ids", 0}};
  e.outputs = {{"inputs_embeds", 1}};
  e.role = FunctionRole::embedding;
  e.inputRoles = {ValueRole::inputIds};
  e.outputRoles = {ValueRole::inputsEmbeds};
  TFunction d{"decoder_model_merged"};
  d.tensors = {{DType::f32, {1, -1, 2}, {}, TensorKind::input, "inputs_embeds"},
               {DType::i64, {1, -1}, {}, TensorKind::input, "attention_mask"},
               {DType::i64, {1, -1}, {}, TensorKind::input, "position_ids"},
               {DType::f32, {1, 1, -1, 2}, {}, TensorKind::input, "past_key_values.0.key"},
               {DType::f32, {1, 1, -1, 2}, {}, TensorKind::activation, "new", 0, {}, 0, 1},
               {DType::f32, {1, 1, -1, 2}, {}, TensorKind::activation, "present", 0, {}, 1, 3},
               {DType::f32, {1, -1, 8}, {}, TensorKind::activation, "logits", 0, {}, 2, 3}};
  d.ops = {{"test.to_kv", {0}, {4}, {}}, {"mm.concat", {3, 4}, {5}, {{"axis", 2}}},
           {"test.logits", {5, 2}, {6}, {}}};
  // Names no exporter uses: the generator binds by role.
  d.inputs = {{"h", 0}, {"mask", 1}, {"pos", 2}, {"cache_k0", 3}};
  d.outputs = {{"scores", 6}, {"cache_k0_out", 5}};
  d.slots = {{0, false, 3, 1, 1, 2}};
  d.role = FunctionRole::decoder;
  d.inputRoles = {ValueRole::inputsEmbeds, ValueRole::attentionMask, ValueRole::positionIds};
  d.outputRoles = {ValueRole::logits};
  p.functions = {v, e, d};
  p.generation = true;
  p.vision = "vision_encoder";
  p.embed = "embed_tokens";
  p.decoder = "decoder_model_merged";
  p.imageTokenId = 9;
  p.eos = {7};
  return p;
}

/// The slot's concat(past, new) is the KV-cache append: with a cache it runs no kernel.
void appendKernel(cpu::KernelContext &, const std::vector<const Tensor *> &, std::vector<Tensor> &) {
  fail("the KV-cache append ran as a kernel");
}

cpu::KernelRegistry generationKernels() {
  cpu::KernelRegistry r;
  r.add("mm.concat", appendKernel);
  r.add("test.vision", visionKernel);
  r.add("test.embed", embedKernel);
  r.add("test.to_kv", toKvKernel);
  r.add("test.logits", logitsKernel);
  return r;
}

TEST(Generator, SplicesImageFeaturesAndDecodesGreedilyUntilEos) {
  auto plan = loadPlanBytes(buildPlanBytes(generationPlan()));
  cpu::KernelRegistry kernels = generationKernels();
  Generator gen(plan, std::make_unique<CpuGeneration>(plan, kernels));
  Tensor pixels = f32({1, 2}, {100, 200});
  GenerationOptions o;
  o.maxNewTokens = 10;
  // Prompt column 0 after the splice: 1, 100, 200, 2 -> (4 + 303) % 8 = 3; then the
  // decode step adds 3: (5 + 306) % 8 = 7 = EOS.
  GenerationResult r = gen.generate(&pixels, nullptr, {1, 9, 9, 2}, o);
  EXPECT_EQ(r.tokens, (std::vector<int64_t>{3, 7}));
  EXPECT_TRUE(r.stoppedAtEos);
  EXPECT_EQ(r.imageFeatureCount, 2);
  EXPECT_EQ(r.prefillLastLogits.shape, Shape{8});
  EXPECT_EQ(r.prefillLastLogits.as<float>()[3], 1.0f);
  // Without EOS in reach, generation stops at maxNewTokens.
  o.maxNewTokens = 1;
  EXPECT_EQ(gen.generate(&pixels, nullptr, {1, 9, 9, 2}, o).tokens, (std::vector<int64_t>{3}));
}

TEST(Generator, ImageTokenCountMustMatchTheFeatures) {
  auto plan = loadPlanBytes(buildPlanBytes(generationPlan()));
  cpu::KernelRegistry kernels = generationKernels();
  Generator gen(plan, std::make_unique<CpuGeneration>(plan, kernels));
  Tensor pixels = f32({1, 2}, {100, 200});
  EXPECT_EQ(runError([&] { gen.generate(&pixels, nullptr, {1, 9, 2}, {}); }),
            "the prompt has 1 image token (id 9) but the image gives 2 image features");
  EXPECT_EQ(runError([&] { gen.generate(nullptr, nullptr, {1, 9, 9, 2}, {}); }),
            "the prompt has 2 image tokens (id 9) but the image gives 0 image features");
  EXPECT_EQ(runError([&] { gen.generate(nullptr, nullptr, {}, {}); }), "the prompt (input ids) is empty");
}

/// The exception message of constructing a Generator over `p`.
std::string generatorError(const TPlan &p) {
  cpu::KernelRegistry kernels = generationKernels();
  return runError([&] {
    auto plan = loadPlanBytes(buildPlanBytes(p));
    Generator gen(plan, std::make_unique<CpuGeneration>(plan, kernels));
  });
}

TEST(Generator, NeedsTheRolesItBindsNotTheNames) {
  TPlan p = generationPlan();
  p.functions[2].outputRoles = {ValueRole::none};
  EXPECT_EQ(generatorError(p), "test.plan: decoder 'decoder_model_merged' has no output of role logits");
  p = generationPlan();
  p.functions[2].inputRoles[2] = ValueRole::none;
  EXPECT_EQ(generatorError(p),
            "test.plan: decoder input 'pos' (role none) is not one the generator can fill (roles "
            "inputs_embeds, attention_mask, position_ids, or a KV-cache slot's kv_past)");
  p = generationPlan();
  p.functions[2].inputRoles[0] = ValueRole::positionIds;
  EXPECT_EQ(generatorError(p), "test.plan: decoder 'decoder_model_merged' has no input of role inputs_embeds");
  p = generationPlan();
  p.functions[1].inputRoles = {ValueRole::none};
  EXPECT_EQ(generatorError(p), "embedding function 'embed_tokens' must take one input of role "
                               "input_ids and return one result (inputs_embeds)");
  p = generationPlan();
  p.functions[0].outputRoles = {ValueRole::none};
  EXPECT_EQ(generatorError(p),
            "test.plan: vision encoder 'vision_encoder' has no output of role image_features");
  p = generationPlan();
  p.functions[0].inputRoles = {ValueRole::none};
  EXPECT_EQ(generatorError(p), "test.plan: vision encoder 'vision_encoder' must take an input of role "
                               "pixel_values and, optionally, one of role image_grid_thw");
  p = generationPlan();
  p.functions[2].inputRoles[0] = ValueRole::positionIds; // [1, seq, 2]: neither 1-D nor M-RoPE rows
  p.functions[2].inputRoles[2] = ValueRole::inputsEmbeds;
  EXPECT_EQ(generatorError(p), "test.plan: decoder input 'h' (role position_ids) is [1, -1, 2]; the "
                               "generator fills [batch, seq] or M-RoPE's [3, batch, seq]");
}

//===----------------------------------------------------------------------===//
// A backend behind a copy boundary
//===----------------------------------------------------------------------===//

/// A GenerationBackend with a "device" of its own: the CPU executors behind a copy
/// boundary, written against the interface alone (nothing of CpuGeneration). Its held
/// tensors are buffers of its own, uploaded from the executors' outputs; the executors'
/// held inputs are downloaded into host tensors. A stage's buffers are freed when it runs
/// again, and reading a tensor that no live buffer holds throws, so a loop that used a
/// held tensor past its validity fails. With ownGreedyLoop it runs greedy decoding in its
/// own loop (decodeGreedily), as the CUDA backend does.
class CopyBoundaryBackend : public GenerationBackend {
public:
  CopyBoundaryBackend(std::shared_ptr<const Plan> plan, const cpu::KernelRegistry &kernels,
                      bool ownGreedyLoop)
      : plan_(std::move(plan)), ownGreedyLoop_(ownGreedyLoop) {
    const GenerationInfo &g = plan_->generation();
    if (!g.visionFunction.empty())
      executors_[0] = std::make_unique<Executor>(plan_, g.visionFunction, kernels);
    executors_[1] = std::make_unique<Executor>(plan_, g.embedFunction, kernels);
    executors_[2] = std::make_unique<Executor>(plan_, g.decoderFunction, kernels);
  }

  const FunctionInfo *function(Stage stage) const override {
    const Executor *e = executors_[index(stage)].get();
    return e ? &e->function() : nullptr;
  }

  std::vector<HeldTensor> run(Stage stage, const std::vector<StageInput> &inputs) override {
    std::vector<Tensor> args;
    for (const StageInput &in : inputs)
      args.push_back(in.isHeld ? download(in.held) : in.host);
    const std::vector<Tensor> out =
        executors_[index(stage)]->run(args, stage == Stage::decoder ? cache_.get() : nullptr);
    buffers_[index(stage)].clear(); // what this stage held before is gone
    std::vector<HeldTensor> held;
    for (const Tensor &t : out) {
      if (!t.data) { // a kv_present output: the cache holds it
        held.push_back({});
        continue;
      }
      std::vector<uint8_t> &b = buffers_[index(stage)].emplace_back(std::max<size_t>(t.nbytes(), 1));
      if (t.nbytes())
        std::memcpy(b.data(), t.data, t.nbytes());
      held.push_back({t.dtype, t.shape, b.data()});
      ++uploads;
    }
    return held;
  }

  size_t resetKvCache(int64_t capacity) override {
    cache_ = std::make_unique<KvCache>(executors_[2]->function(), 1, capacity);
    return cache_->bytes();
  }
  int64_t kvLength() const override { return cache_->length(); }

  void spliceImageFeatures(HeldTensor &embeds, const HeldTensor &features,
                           const std::vector<int64_t> &inputIds, int64_t imageTokenId) override {
    requireHeld(embeds);
    const Tensor f = download(features);
    const size_t row = static_cast<size_t>(embeds.shape.back()) * dtypeSize(embeds.dtype);
    size_t k = 0;
    for (size_t i = 0; i < inputIds.size(); ++i)
      if (inputIds[i] == imageTokenId)
        std::memcpy(static_cast<uint8_t *>(embeds.data) + i * row,
                    static_cast<const uint8_t *>(f.data) + k++ * row, row);
  }

  Tensor toHost(const HeldTensor &t) override { return download(t); }

  int64_t argmax(const HeldTensor &row) override {
    const Tensor r = convertFloat(download(row), DType::f32);
    int64_t best = 0;
    for (int64_t i = 1; i < r.numel(); ++i)
      if (r.as<float>()[i] > r.as<float>()[best])
        best = i;
    return best;
  }

  void synchronize() override {}

  bool decodeGreedily(int64_t first, int64_t maxSteps, const PositionIds &positions,
                      const std::function<bool(int64_t)> &accept) override {
    if (!ownGreedyLoop_)
      return false;
    const FunctionInfo &decoder = executors_[2]->function();
    const size_t logits = static_cast<size_t>(decoder.outputWithRole(ValueRole::logits));
    int64_t token = first;
    for (int64_t step = 0; step < maxSteps; ++step) {
      HeldTensor e = run(Stage::embedding, {StageInput::ofHost(generation::rowOf(DType::i64, {token}))})[0];
      token = argmax(generation::lastRow(
          run(Stage::decoder, generation::decoderInputs(decoder, e, kvLength(), 1, positions))[logits]));
      ++ownSteps;
      if (!accept(token))
        break;
    }
    return true;
  }

  int64_t uploads = 0, downloads = 0, ownSteps = 0;

private:
  static size_t index(Stage stage) { return static_cast<size_t>(stage); }

  /// Throws unless `t` lies in a buffer this backend still holds.
  void requireHeld(const HeldTensor &t) const {
    const auto *p = static_cast<const uint8_t *>(t.data);
    for (const auto &stage : buffers_)
      for (const std::vector<uint8_t> &b : stage)
        if (p >= b.data() && p + t.nbytes() <= b.data() + b.size())
          return;
    fail("the generation loop read a held tensor the backend no longer holds");
  }

  Tensor download(const HeldTensor &t) {
    requireHeld(t);
    Tensor host = Tensor::host(t.dtype, t.shape);
    if (host.nbytes())
      std::memcpy(host.data, t.data, host.nbytes());
    ++downloads;
    return host;
  }

  std::shared_ptr<const Plan> plan_;
  bool ownGreedyLoop_;
  std::unique_ptr<Executor> executors_[3];
  std::vector<std::vector<uint8_t>> buffers_[3];
  std::unique_ptr<KvCache> cache_;
};

void expectSameTensor(const Tensor &a, const Tensor &b, const char *what) {
  ASSERT_EQ(a.dtype, b.dtype) << what;
  ASSERT_EQ(a.shape, b.shape) << what;
  EXPECT_EQ(std::memcmp(a.data, b.data, a.nbytes()), 0) << what;
}

// The loop over a backend written against the interface alone gives the tokens the toy
// kernels make (worked out by hand: column 0 after the splice is 1, 100, 201, 2, so the
// first token is (4 + 304) % 8 = 4, then each step adds the token fed and one position),
// and what the CPU backend gives: prefill logits, image features, teacher-forced step
// logits; greedy (the loop's steps and the backend's own greedy loop), teacher-forced and
// sampled. The KV cache holds exactly the positions fed (the CPU cache throws when full),
// so a loop running one step too many fails.
TEST(GenerationBackend, ACopyBoundaryBackendGeneratesWhatTheCpuBackendDoes) {
  auto plan = loadPlanBytes(buildPlanBytes(generationPlan()));
  const cpu::KernelRegistry kernels = generationKernels();
  Generator cpu(plan, std::make_unique<CpuGeneration>(plan, kernels));
  const Tensor pixels = f32({1, 2}, {100, 201});
  const std::vector<int64_t> prompt = {1, 9, 9, 2};
  GenerationOptions greedy;
  greedy.maxNewTokens = 6;
  greedy.kvCapacity = generation::positionsFed(4, 6);
  greedy.ignoreEos = true;
  GenerationOptions teacher = greedy;
  teacher.teacherTokens = {5, 1, 4, 2, 6};
  GenerationOptions sampled = greedy;
  sampled.sampling.temperature = 1.5;
  sampled.sampling.seed = 7;
  EXPECT_EQ(cpu.generate(&pixels, nullptr, prompt, greedy).tokens, (std::vector<int64_t>{4, 1, 3, 7, 7, 7}));
  EXPECT_EQ(cpu.generate(&pixels, nullptr, prompt, teacher).tokens, (std::vector<int64_t>{4, 2, 4, 1, 4, 3}));
  for (bool ownGreedyLoop : {false, true})
    for (const GenerationOptions *o : {&greedy, &teacher, &sampled}) {
      auto backend = std::make_unique<CopyBoundaryBackend>(plan, kernels, ownGreedyLoop);
      CopyBoundaryBackend &b = *backend;
      Generator other(plan, std::move(backend));
      const GenerationResult want = cpu.generate(&pixels, nullptr, prompt, *o);
      const GenerationResult got = other.generate(&pixels, nullptr, prompt, *o);
      SCOPED_TRACE(std::string(ownGreedyLoop ? "own greedy loop, " : "the loop's steps, ") +
                   (o == &greedy ? "greedy" : o == &teacher ? "teacher-forced" : "sampled"));
      EXPECT_EQ(got.tokens, want.tokens);
      EXPECT_EQ(got.tokens.size(), 6u);
      EXPECT_EQ(got.kvCacheBytes, want.kvCacheBytes);
      EXPECT_EQ(got.imageFeatureCount, 2);
      expectSameTensor(got.prefillLastLogits, want.prefillLastLogits, "prefill logits");
      expectSameTensor(got.imageFeatures, want.imageFeatures, "image features");
      if (o == &teacher)
        expectSameTensor(got.stepLogits, want.stepLogits, "step logits");
      EXPECT_GE(got.ttftMs, got.prefillMs);
      EXPECT_GT(got.decodeMs, 0);
      // It ran through the boundary: every held input came down, every output went up;
      // its own loop ran the greedy steps only.
      EXPECT_GT(b.uploads, 0);
      EXPECT_GT(b.downloads, 0);
      EXPECT_EQ(b.ownSteps, ownGreedyLoop && o == &greedy ? 5 : 0);
    }
}

// The backend's own greedy loop stops where the loop would: at EOS (7, kept) and when the
// caller's onToken says so, running no step after the last token.
TEST(GenerationBackend, ABackendsOwnGreedyLoopStopsAtEosAndWhenTheCallerSaysSo) {
  auto plan = loadPlanBytes(buildPlanBytes(generationPlan()));
  const cpu::KernelRegistry kernels = generationKernels();
  const Tensor pixels = f32({1, 2}, {100, 201});
  GenerationOptions o;
  o.maxNewTokens = 6;
  {
    auto backend = std::make_unique<CopyBoundaryBackend>(plan, kernels, true);
    CopyBoundaryBackend &b = *backend;
    Generator gen(plan, std::move(backend));
    const GenerationResult r = gen.generate(&pixels, nullptr, {1, 9, 9, 2}, o);
    EXPECT_EQ(r.tokens, (std::vector<int64_t>{4, 1, 3, 7}));
    EXPECT_TRUE(r.stoppedAtEos);
    EXPECT_EQ(b.ownSteps, 3);
  }
  int seen = 0;
  o.onToken = [&](int64_t) { return ++seen < 2; };
  auto backend = std::make_unique<CopyBoundaryBackend>(plan, kernels, true);
  CopyBoundaryBackend &b = *backend;
  Generator gen(plan, std::move(backend));
  const GenerationResult r = gen.generate(&pixels, nullptr, {1, 9, 9, 2}, o);
  EXPECT_EQ(r.tokens, (std::vector<int64_t>{4, 1}));
  EXPECT_TRUE(r.stoppedByCaller);
  EXPECT_EQ(b.ownSteps, 1);
}

} // namespace
