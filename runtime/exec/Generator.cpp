//===- Generator.cpp - multimodal greedy generation --------------------------===//
#include "runtime/exec/Generator.h"

#include "runtime/core/Error.h"
#include "runtime/exec/GenerationSteps.h"

#include <cstring>
#include <sys/resource.h>

namespace mm::rt {

using namespace generation;

double peakResidentMiB() {
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0)
    return 0;
  return static_cast<double>(usage.ru_maxrss) / 1024.0; // ru_maxrss is in KiB on Linux
}

Generator::Generator(std::shared_ptr<const Plan> plan, const cpu::KernelRegistry &kernels)
    : plan_(std::move(plan)) {
  requireGenerationInfo(*plan_);
  const GenerationInfo &g = plan_->generation();
  if (!g.visionFunction.empty()) {
    vision_ = std::make_unique<Executor>(plan_, g.visionFunction, kernels);
    featuresOutput_ = checkVision(*plan_, vision_->function());
  }
  embed_ = std::make_unique<Executor>(plan_, g.embedFunction, kernels);
  decoder_ = std::make_unique<Executor>(plan_, g.decoderFunction, kernels);
  logitsOutput_ = checkDecoder(*plan_, decoder_->function());
  checkEmbed(embed_->function());
}

void Generator::setProfiling(bool on) {
  if (vision_)
    vision_->setProfiling(on);
  embed_->setProfiling(on);
  decoder_->setProfiling(on);
}

Tensor Generator::embedTokens(const std::vector<int64_t> &ids) {
  const FunctionInfo &fn = embed_->function();
  Tensor e = embed_->run({rowOf(fn.tensors[fn.inputs[0].tensor].dtype, ids)})[0];
  checkEmbeddings(fn, e.shape, ids.size());
  return e;
}

Tensor Generator::decoderStep(const Tensor &embeds, KvCache &cache) {
  const FunctionInfo &fn = decoder_->function();
  const int64_t seq = embeds.shape[1];
  const int64_t past = cache.length();
  std::vector<Tensor> inputs(fn.inputs.size());
  for (size_t i = 0; i < fn.inputs.size(); ++i) {
    const ValueRole role = fn.inputs[i].role;
    DType t = fn.tensors[fn.inputs[i].tensor].dtype;
    if (role == ValueRole::inputsEmbeds)
      inputs[i] = embeds;
    else if (role == ValueRole::attentionMask || role == ValueRole::positionIds)
      inputs[i] = maskOrPositions(role, t, past, seq);
  }
  std::vector<Tensor> out = decoder_->run(inputs, &cache);
  return out[static_cast<size_t>(logitsOutput_)];
}

Tensor Generator::lastRow(const Tensor &logits) const {
  bool floatLogits = logits.dtype == DType::f32 || logits.dtype == DType::f16 ||
                     logits.dtype == DType::bf16;
  if (!floatLogits || logits.rank() != 3 || logits.shape[0] != 1 || logits.shape[1] < 1)
    fail("decoder logits are ", dtypeName(logits.dtype), " ", shapeString(logits.shape),
         "; expected f32, f16 or bf16 [1, seq, vocab]");
  const int64_t vocab = logits.shape[2];
  Tensor last;
  last.dtype = logits.dtype;
  last.shape = {vocab};
  last.data = static_cast<uint8_t *>(logits.data) +
              static_cast<size_t>((logits.shape[1] - 1) * vocab) * dtypeSize(logits.dtype);
  Tensor row = Tensor::host(DType::f32, {vocab}); // exact for f16 and bf16 logits
  Tensor converted = convertFloat(last, DType::f32);
  std::memcpy(row.data, converted.data, row.nbytes());
  return row;
}

GenerationResult Generator::generate(const Tensor *pixelValues,
                                     const std::vector<int64_t> &inputIds,
                                     const GenerationOptions &options) {
  const GenerationInfo &g = info();
  const int64_t capacity = checkRequest(g, inputIds, options);
  GenerationResult r;
  r.promptTokens = static_cast<int64_t>(inputIds.size());
  auto start = Clock::now();

  // Vision encoder.
  std::vector<size_t> imagePositions = imageTokenPositions(g, inputIds);
  if (pixelValues) {
    if (!vision_)
      fail("the plan has no vision encoder, but pixel values were given");
    r.imageFeatures = std::move(vision_->run({*pixelValues})[featuresOutput_]);
    r.visionMs = msSince(start);
    r.imageFeatureCount = imageFeatureCount(r.imageFeatures.shape);
  }
  checkImageTokenCount(g, imagePositions.size(), r.imageFeatureCount);

  // Embed the prompt and splice the features in.
  auto prefillStart = Clock::now();
  Tensor embeds = embedTokens(inputIds);
  if (r.imageFeatureCount > 0) {
    const Tensor &f = r.imageFeatures;
    const int64_t hidden = embeds.shape[2];
    checkFeaturesMatchEmbeddings(f.dtype, f.shape, embeds.dtype, embeds.shape);
    const size_t rowBytes = static_cast<size_t>(hidden) * dtypeSize(f.dtype);
    for (size_t k = 0; k < imagePositions.size(); ++k)
      std::memcpy(static_cast<uint8_t *>(embeds.data) + imagePositions[k] * rowBytes,
                  static_cast<const uint8_t *>(f.data) + k * rowBytes, rowBytes);
  }

  // Prefill.
  KvCache cache(decoder_->function(), 1, capacity);
  r.kvCacheBytes = cache.bytes();
  Sampler sampler(options.sampling);
  Tensor row = lastRow(decoderStep(embeds, cache));
  int64_t token = sampleFromRow(sampler, row, inputIds, r.tokens);
  r.prefillMs = msSince(prefillStart);
  r.ttftMs = msSince(start);
  r.prefillLastLogits = row;
  recordStepLogits(options, r, 0, row);

  // Decode (teacher-forced: the step logits copied, EOS not stopping).
  bool more = acceptToken(g, options, r, token);
  while (more) {
    auto stepStart = Clock::now();
    Tensor step = embedTokens({nextInput(options, r, r.tokens.size())});
    row = lastRow(decoderStep(step, cache));
    token = sampleFromRow(sampler, row, inputIds, r.tokens);
    recordStepLogits(options, r, r.tokens.size(), row);
    more = acceptToken(g, options, r, token);
    r.decodeMs += msSince(stepStart); // with the onToken hook, as on CUDA
  }
  setDecodeRate(r);
  return r;
}

} // namespace mm::rt
