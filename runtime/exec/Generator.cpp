//===- Generator.cpp - multimodal generation over a backend ------------------===//
#include "runtime/exec/Generator.h"

#include "runtime/core/Error.h"
#include "runtime/exec/GenerationSteps.h"

#include <sys/resource.h>

namespace mm::rt {

using namespace generation;

double peakResidentMiB() {
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0)
    return 0;
  return static_cast<double>(usage.ru_maxrss) / 1024.0; // ru_maxrss is in KiB on Linux
}

Generator::Generator(std::shared_ptr<const Plan> plan, std::unique_ptr<GenerationBackend> backend)
    : plan_(std::move(plan)), backend_(std::move(backend)) {
  requireGenerationInfo(*plan_);
  if (const FunctionInfo *vision = backend_->function(Stage::visionEncoder))
    featuresOutput_ = checkVision(*plan_, *vision);
  checkEmbed(*backend_->function(Stage::embedding));
  logitsOutput_ = checkDecoder(*plan_, *backend_->function(Stage::decoder));
}

HeldTensor Generator::embedTokens(const std::vector<int64_t> &ids) {
  const FunctionInfo &fn = *backend_->function(Stage::embedding);
  HeldTensor e = backend_->run(
      Stage::embedding, {StageInput::ofHost(rowOf(fn.tensors[fn.inputs[0].tensor].dtype, ids))})[0];
  checkEmbeddings(fn, e.shape, ids.size());
  return e;
}

HeldTensor Generator::decoderStep(const HeldTensor &embeds, const PositionIds &positions) {
  const FunctionInfo &fn = *backend_->function(Stage::decoder);
  return backend_->run(Stage::decoder,
                       decoderInputs(fn, embeds, backend_->kvLength(), embeds.shape.at(1), positions))
      [static_cast<size_t>(logitsOutput_)];
}

std::vector<StageInput> Generator::visionInputs(const Tensor &pixelValues, const Tensor *imageGridThw,
                                               const std::vector<std::array<int64_t, 3>> &grids) const {
  const FunctionInfo &fn = *backend_->function(Stage::visionEncoder);
  const bool wantsGrid = fn.inputWithRole(ValueRole::imageGridThw) >= 0;
  if (wantsGrid != (imageGridThw != nullptr))
    fail(wantsGrid ? "the vision encoder '" + fn.name + "' takes image_grid_thw (each image's patch grid), "
                     "but none was given"
                   : "image_grid_thw was given, but the vision encoder '" + fn.name + "' takes none");
  std::vector<StageInput> in = {StageInput::ofHost(pixelValues)};
  if (!wantsGrid)
    return in;
  if (pixelValues.rank() != 2)
    fail("the pixel values are ", shapeString(pixelValues.shape), "; with image_grid_thw the vision encoder '",
         fn.name, "' takes patch rows [patches, C * T * P * P]");
  checkImageGrids(grids, pixelValues.shape[0], info().mropeSpatialMergeSize, fn.name);
  in.push_back(StageInput::ofHost(*imageGridThw));
  return in;
}

Tensor Generator::hostRow(const HeldTensor &logits) {
  return convertFloat(backend_->toHost(lastRow(logits)), DType::f32); // exact for f16 and bf16
}

void Generator::decode(GenerationResult &r, const GenerationOptions &options, bool stepwise,
                       Sampler &sampler, const std::vector<int64_t> &prompt, const PositionIds &positions) {
  const GenerationInfo &g = info();
  bool more = true;
  while (more) {
    HeldTensor logits = decoderStep(embedTokens({nextInput(options, r, r.tokens.size())}), positions);
    int64_t token = 0;
    if (stepwise) {
      Tensor row = hostRow(logits);
      token = sampleFromRow(sampler, row, prompt, r.tokens);
      recordStepLogits(options, r, r.tokens.size(), row);
    } else {
      token = backend_->argmax(lastRow(logits));
    }
    more = acceptToken(g, options, r, token);
  }
}

GenerationResult Generator::generate(const Tensor *pixelValues, const Tensor *imageGridThw,
                                     const std::vector<int64_t> &inputIds,
                                     const GenerationOptions &options) {
  const GenerationInfo &g = info();
  const int64_t capacity = checkRequest(g, inputIds, options);
  GenerationResult r;
  r.promptTokens = static_cast<int64_t>(inputIds.size());
  if (imageGridThw && !pixelValues)
    fail("image_grid_thw was given without pixel values");
  if (pixelValues && !backend_->function(Stage::visionEncoder))
    fail("the plan has no vision encoder, but pixel values were given");
  // The vision inputs and the M-RoPE positions first: grids that do not fit the pixel
  // values or the prompt fail before any work.
  const std::vector<std::array<int64_t, 3>> grids =
      imageGridThw ? imageGrids(*imageGridThw) : std::vector<std::array<int64_t, 3>>{};
  const std::vector<StageInput> vision =
      pixelValues ? visionInputs(*pixelValues, imageGridThw, grids) : std::vector<StageInput>{};
  PositionIds positions;
  if (positionRows(*backend_->function(Stage::decoder)) == 3)
    positions = mropePositionIds(inputIds, g.imageTokenId, grids, g.mropeSpatialMergeSize);
  backend_->synchronize();
  auto start = Clock::now();

  // Vision encoder.
  const size_t imageTokens = imageTokenPositions(g, inputIds).size();
  HeldTensor features;
  if (pixelValues) {
    features = backend_->run(Stage::visionEncoder, vision)[static_cast<size_t>(featuresOutput_)];
    backend_->synchronize();
    r.visionMs = msSince(start);
    r.imageFeatureCount = imageFeatureCount(features.shape);
  }
  checkImageTokenCount(g, imageTokens, r.imageFeatureCount);

  // Embed the prompt and splice the features in.
  auto prefillStart = Clock::now();
  HeldTensor embeds = embedTokens(inputIds);
  if (r.imageFeatureCount > 0) {
    checkFeaturesMatchEmbeddings(features.dtype, features.shape, embeds.dtype, embeds.shape);
    backend_->spliceImageFeatures(embeds, features, inputIds, g.imageTokenId);
  }

  // Prefill: the first token from the last logits row, chosen on the host when sampling
  // or teacher forcing needs the row, else by the backend's argmax.
  r.kvCacheBytes = backend_->resetKvCache(capacity);
  HeldTensor logits = decoderStep(embeds, positions);
  Sampler sampler(options.sampling);
  const bool stepwise = !options.teacherTokens.empty() || options.sampling.needsLogits();
  int64_t token = 0;
  if (stepwise) {
    r.prefillLastLogits = hostRow(logits);
    token = sampleFromRow(sampler, r.prefillLastLogits, inputIds, r.tokens);
  } else {
    token = backend_->argmax(lastRow(logits));
  }
  r.prefillMs = msSince(prefillStart);
  r.ttftMs = msSince(start);
  if (!stepwise)
    r.prefillLastLogits = hostRow(logits); // outside the timing
  recordStepLogits(options, r, 0, r.prefillLastLogits);
  if (r.imageFeatureCount > 0) // a host copy for --dump-dir and the tests, outside the timing
    r.imageFeatures = backend_->toHost(features);

  // Decode (teacher-forced: the step logits recorded, EOS not stopping).
  if (acceptToken(g, options, r, token)) {
    auto decodeStart = Clock::now();
    auto accept = [&](int64_t t) { return acceptToken(g, options, r, t); };
    if (stepwise || !backend_->decodeGreedily(token, options.maxNewTokens - 1, positions, accept))
      decode(r, options, stepwise, sampler, inputIds, positions);
    backend_->synchronize();
    r.decodeMs = msSince(decodeStart);
  }
  setDecodeRate(r);
  return r;
}

} // namespace mm::rt
