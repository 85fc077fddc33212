//===- GenerationSteps.cpp - pieces shared by the CPU and CUDA generators ----===//
#include "runtime/exec/GenerationSteps.h"

#include "runtime/core/Error.h"

#include <algorithm>
#include <cstring>

namespace mm::rt::generation {

std::string counted(int64_t n, const char *noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

void requireGenerationInfo(const Plan &plan) {
  const GenerationInfo &g = plan.generation();
  if (!g.present || g.embedFunction.empty() || g.decoderFunction.empty())
    fail(plan.origin(), ": the plan has no generation metadata (embedding and decoder "
                        "functions); run single graphs with --input");
}

int checkDecoder(const Plan &plan, const FunctionInfo &dec) {
  if (dec.kvSlots.empty())
    fail(plan.origin(), ": decoder '", dec.name, "' has no KV-cache slots");
  for (size_t i = 0; i < dec.inputs.size(); ++i) {
    const ValueRole role = dec.inputs[i].role;
    if (!dec.isPastInput(i) && role != ValueRole::inputsEmbeds && role != ValueRole::attentionMask &&
        role != ValueRole::positionIds)
      fail(plan.origin(), ": decoder input '", dec.inputs[i].name, "' (role ", roleName(role),
           ") is not one the generator can fill (roles inputs_embeds, attention_mask, "
           "position_ids, or a KV-cache slot's kv_past)");
  }
  if (dec.inputWithRole(ValueRole::inputsEmbeds) < 0)
    fail(plan.origin(), ": decoder '", dec.name, "' has no input of role inputs_embeds");
  if (const int p = dec.inputWithRole(ValueRole::positionIds); p >= 0) {
    const Shape &s = dec.tensors[dec.inputs[p].tensor].shape;
    if (!(s.size() == 2 || (s.size() == 3 && (s[0] == 3 || s[0] < 0))))
      fail(plan.origin(), ": decoder input '", dec.inputs[p].name, "' (role position_ids) is ",
           shapeString(s), "; the generator fills [batch, seq] or M-RoPE's [3, batch, seq]");
  }
  const int logits = dec.outputWithRole(ValueRole::logits);
  if (logits < 0)
    fail(plan.origin(), ": decoder '", dec.name, "' has no output of role logits");
  return logits;
}

int checkVision(const Plan &plan, const FunctionInfo &vision) {
  const bool grid = vision.inputs.size() == 2 && vision.inputs[1].role == ValueRole::imageGridThw;
  if (vision.inputs.empty() || vision.inputs.size() > 2 || vision.inputs[0].role != ValueRole::pixelValues ||
      (vision.inputs.size() == 2 && !grid))
    fail(plan.origin(), ": vision encoder '", vision.name,
         "' must take an input of role pixel_values and, optionally, one of role image_grid_thw");
  const int features = vision.outputWithRole(ValueRole::imageFeatures);
  if (features < 0)
    fail(plan.origin(), ": vision encoder '", vision.name, "' has no output of role image_features");
  return features;
}

void checkEmbed(const FunctionInfo &embed) {
  if (embed.inputs.size() != 1 || embed.outputs.size() != 1 ||
      embed.inputs[0].role != ValueRole::inputIds)
    fail("embedding function '", embed.name, "' must take one input of role input_ids and "
         "return one result (inputs_embeds)");
}

void checkEmbeddings(const FunctionInfo &embed, const Shape &shape, size_t tokens) {
  if (shape.size() != 3 || shape[0] != 1 || shape[1] != static_cast<int64_t>(tokens))
    fail("embedding function '", embed.name, "' returned ", shapeString(shape), " for ", tokens,
         " tokens; expected [1, ", tokens, ", hidden]");
}

int64_t positionsFed(int64_t promptTokens, int64_t maxNewTokens) {
  return promptTokens + maxNewTokens - 1;
}

int64_t newTokensThatFit(int64_t promptTokens, int64_t maxPositions) {
  return maxPositions - promptTokens + 1;
}

int64_t checkRequest(const GenerationInfo &g, const std::vector<int64_t> &inputIds,
                     const GenerationOptions &options) {
  if (inputIds.empty())
    fail("the prompt (input ids) is empty");
  for (const auto &[what, list] : {std::pair{"prompt", &inputIds}, {"teacher", &options.teacherTokens}})
    for (int64_t id : *list)
      if (id < 0 || (g.vocabSize > 0 && id >= g.vocabSize))
        fail(what, " token id ", id, " is outside the vocabulary (", g.vocabSize, " tokens)");
  if (options.maxNewTokens < 1)
    fail("--max-new-tokens must be at least 1");
  if (options.kvCapacity < 0)
    fail("--kv-capacity must be positive (or 0 for prompt + max new tokens)");
  // Positions beyond 2^31 are no model's, and their cache sizes would overflow.
  constexpr int64_t kMaxPositions = int64_t{1} << 31;
  if (options.maxNewTokens > kMaxPositions || options.kvCapacity > kMaxPositions)
    fail(options.kvCapacity > kMaxPositions ? "--kv-capacity " : "--max-new-tokens ",
         std::max(options.maxNewTokens, options.kvCapacity), " is too large (at most ", kMaxPositions,
         " positions)");
  options.sampling.check();
  if (!options.teacherTokens.empty() && options.sampling.needsLogits())
    fail("teacher forcing is greedy: it takes no temperature or repetition penalty");
  const size_t fed = static_cast<size_t>(options.maxNewTokens - 1);
  if (!options.teacherTokens.empty() && options.teacherTokens.size() < fed)
    fail("teacher forcing needs ", counted(static_cast<int64_t>(fed), "token"), " for ",
         counted(options.maxNewTokens, "new token"), "; ", options.teacherTokens.size(), " given");
  const int64_t prompt = static_cast<int64_t>(inputIds.size());
  if (options.kvCapacity == 0)
    return prompt + options.maxNewTokens;
  const int64_t needed = positionsFed(prompt, options.maxNewTokens);
  if (options.kvCapacity < needed)
    fail("--kv-capacity ", options.kvCapacity, " is too small for ", counted(prompt, "prompt token"),
         " and ", counted(options.maxNewTokens, "new token"), " (the KV cache needs ", needed,
         " positions)");
  return options.kvCapacity;
}

int64_t nextInput(const GenerationOptions &options, const GenerationResult &r, size_t step) {
  return options.teacherTokens.empty() ? r.tokens.back() : options.teacherTokens.at(step - 1);
}

void recordStepLogits(const GenerationOptions &options, GenerationResult &r, size_t step,
                      const Tensor &row) {
  if (options.teacherTokens.empty())
    return;
  if (row.dtype != DType::f32 || row.rank() != 1)
    fail("step logits are ", dtypeName(row.dtype), " ", shapeString(row.shape), "; expected f32 [vocab]");
  const int64_t vocab = row.shape[0];
  if (step == 0)
    r.stepLogits = Tensor::host(DType::f32, {options.maxNewTokens, vocab});
  if (r.stepLogits.rank() != 2 || r.stepLogits.shape[1] != vocab || static_cast<int64_t>(step) >= r.stepLogits.shape[0])
    fail("step ", step, " logits do not fit ", shapeString(r.stepLogits.shape));
  std::memcpy(r.stepLogits.as<float>() + step * static_cast<size_t>(vocab), row.data, row.nbytes());
}

Tensor rowOf(DType t, const std::vector<int64_t> &values) {
  Tensor out = Tensor::host(t, {1, static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) {
    int64_t v = values[i];
    switch (t) {
    case DType::i64: out.as<int64_t>()[i] = v; break;
    case DType::i32: out.as<int32_t>()[i] = static_cast<int32_t>(v); break;
    case DType::f32: out.as<float>()[i] = static_cast<float>(v); break;
    case DType::boolean: out.as<uint8_t>()[i] = v != 0; break;
    default: fail("cannot build a ", dtypeName(t), " attention mask or position ids");
    }
  }
  return out;
}

std::vector<StageInput> decoderInputs(const FunctionInfo &decoder, const HeldTensor &embeds,
                                      int64_t past, int64_t seq, const PositionIds &positions) {
  std::vector<StageInput> inputs(decoder.inputs.size());
  for (size_t i = 0; i < decoder.inputs.size(); ++i) {
    const ValueRole role = decoder.inputs[i].role;
    const DType t = decoder.tensors[decoder.inputs[i].tensor].dtype;
    if (role == ValueRole::inputsEmbeds)
      inputs[i] = StageInput::ofHeld(embeds);
    else if (role == ValueRole::attentionMask)
      inputs[i] = StageInput::ofHost(rowOf(t, std::vector<int64_t>(static_cast<size_t>(past + seq), 1)));
    else if (role == ValueRole::positionIds)
      inputs[i] = StageInput::ofHost(positions.forStep(t, past, seq));
  }
  return inputs;
}

int64_t positionRows(const FunctionInfo &decoder) {
  const int i = decoder.inputWithRole(ValueRole::positionIds);
  return i >= 0 && decoder.tensors[decoder.inputs[i].tensor].shape.size() == 3 ? 3 : 1;
}

HeldTensor lastRow(const HeldTensor &logits) {
  const bool floatLogits = logits.dtype == DType::f32 || logits.dtype == DType::f16 ||
                           logits.dtype == DType::bf16;
  if (!floatLogits || logits.shape.size() != 3 || logits.shape[0] != 1 || logits.shape[1] < 1)
    fail("decoder logits are ", dtypeName(logits.dtype), " ", shapeString(logits.shape),
         "; expected f32, f16 or bf16 [1, seq, vocab]");
  const int64_t vocab = logits.shape[2];
  HeldTensor row{logits.dtype, {vocab}, nullptr};
  row.data = static_cast<uint8_t *>(logits.data) +
             static_cast<size_t>((logits.shape[1] - 1) * vocab) * dtypeSize(logits.dtype);
  return row;
}

std::vector<size_t> imageTokenPositions(const GenerationInfo &g, const std::vector<int64_t> &ids) {
  std::vector<size_t> positions;
  for (size_t i = 0; i < ids.size(); ++i)
    if (g.imageTokenId >= 0 && ids[i] == g.imageTokenId)
      positions.push_back(i);
  return positions;
}

void checkImageTokenCount(const GenerationInfo &g, size_t imageTokens, int64_t features) {
  if (static_cast<int64_t>(imageTokens) != features)
    fail("the prompt has ", counted(static_cast<int64_t>(imageTokens), "image token"), " (id ",
         g.imageTokenId, ") but the image gives ", counted(features, "image feature"));
}

int64_t imageFeatureCount(const Shape &features) {
  if (features.size() < 2)
    fail("vision encoder returned ", shapeString(features), "; expected [1, N, hidden]");
  return numElements(features) / features.back();
}

void checkFeaturesMatchEmbeddings(DType featureType, const Shape &features, DType embedType,
                                  const Shape &embeds) {
  if (featureType != embedType || features.back() != embeds.back())
    fail("image features ", dtypeName(featureType), " ", shapeString(features),
         " do not match the token embeddings ", dtypeName(embedType), " ", shapeString(embeds));
}

int64_t sampleFromRow(Sampler &sampler, const Tensor &row, const std::vector<int64_t> &prompt,
                      const std::vector<int64_t> &generated) {
  if (row.dtype != DType::f32 || row.rank() != 1)
    fail("logits row is ", dtypeName(row.dtype), " ", shapeString(row.shape), "; expected f32 [vocab]");
  std::vector<float> logits(row.as<float>(), row.as<float>() + row.numel());
  std::vector<int64_t> context;
  if (sampler.readsContext()) { // the repetition penalty: prompt and generated ids
    context = prompt;
    context.insert(context.end(), generated.begin(), generated.end());
  }
  return sampler.next(logits, context);
}

bool acceptToken(const GenerationInfo &g, const GenerationOptions &options, GenerationResult &r,
                 int64_t token) {
  r.tokens.push_back(token);
  r.stoppedAtEos = options.teacherTokens.empty() && !options.ignoreEos && isEos(g, token);
  r.stoppedByCaller = options.onToken && !options.onToken(token);
  return !r.stoppedAtEos && !r.stoppedByCaller &&
         static_cast<int64_t>(r.tokens.size()) < options.maxNewTokens;
}

void setDecodeRate(GenerationResult &r) {
  if (r.tokens.size() > 1 && r.decodeMs > 0)
    r.decodeTokensPerSecond = static_cast<double>(r.tokens.size() - 1) * 1000.0 / r.decodeMs;
}

bool isEos(const GenerationInfo &g, int64_t token) {
  return std::find(g.eosTokenIds.begin(), g.eosTokenIds.end(), token) != g.eosTokenIds.end();
}

} // namespace mm::rt::generation
