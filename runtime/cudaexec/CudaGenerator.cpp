//===- CudaGenerator.cpp - multimodal greedy generation on a CUDA device ------===//
#include "runtime/cudaexec/CudaGenerator.h"

#include "runtime/core/Error.h"
#include "runtime/cuda/Kernels.h"
#include "runtime/exec/GenerationSteps.h"

#include <chrono>

namespace mm::rt::cudaexec {

using namespace generation;

void requireGenerationOnCuda(const Plan &plan) {
  requireGenerationInfo(plan);
  const GenerationInfo &g = plan.generation();
  for (const std::string *f : {&g.visionFunction, &g.embedFunction, &g.decoderFunction})
    if (!f->empty())
      requireCudaPlacement(plan, plan.function(*f));
}

CudaGenerator::CudaGenerator(std::shared_ptr<const Plan> plan, CudaContext &ctx)
    : plan_(std::move(plan)), ctx_(&ctx) {
  requireGenerationOnCuda(*plan_);
  const GenerationInfo &g = plan_->generation();
  if (!g.visionFunction.empty()) {
    vision_ = std::make_unique<CudaExecutor>(plan_, g.visionFunction, *ctx_);
    featuresOutput_ = checkVision(*plan_, vision_->function());
  }
  embed_ = std::make_unique<CudaExecutor>(plan_, g.embedFunction, *ctx_);
  decoder_ = std::make_unique<CudaExecutor>(plan_, g.decoderFunction, *ctx_);
  logitsOutput_ = checkDecoder(*plan_, decoder_->function());
  checkEmbed(embed_->function());
  token_ = DeviceBuffer(sizeof(int64_t), "the next token", DeviceShare::arena);
  cuda::checkCuda(cudaMallocHost(reinterpret_cast<void **>(&hostToken_), sizeof(int64_t)),
                  "cudaMallocHost");
  for (cudaEvent_t &e : tokenReady_)
    cuda::checkCuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
}

CudaGenerator::~CudaGenerator() {
  if (ctx_)
    cudaStreamSynchronize(ctx_->stream());
  if (hostToken_)
    cudaFreeHost(hostToken_);
  for (cudaEvent_t e : tokenReady_)
    if (e)
      cudaEventDestroy(e);
}

DeviceTensor CudaGenerator::embedTokens(const std::vector<int64_t> &ids) {
  const FunctionInfo &fn = embed_->function();
  DeviceTensor e = embed_->run({{rowOf(fn.tensors[fn.inputs[0].tensor].dtype, ids), false}})[0];
  checkEmbeddings(fn, e.shape, ids.size());
  return e;
}

DeviceTensor CudaGenerator::decoderStep(const DeviceTensor &embeds, int64_t seq) {
  const FunctionInfo &fn = decoder_->function();
  const int64_t past = cache_->length();
  std::vector<RunInput> inputs(fn.inputs.size());
  for (size_t i = 0; i < fn.inputs.size(); ++i) {
    const ValueRole role = fn.inputs[i].role;
    DType t = fn.tensors[fn.inputs[i].tensor].dtype;
    if (role == ValueRole::inputsEmbeds) {
      inputs[i].tensor.dtype = embeds.dtype;
      inputs[i].tensor.shape = embeds.shape;
      inputs[i].tensor.data = embeds.data;
      inputs[i].onDevice = true;
    } else if (role == ValueRole::attentionMask || role == ValueRole::positionIds) {
      inputs[i].tensor = maskOrPositions(role, t, past, seq);
    }
  }
  return decoder_->run(inputs, cache_.get())[static_cast<size_t>(logitsOutput_)];
}

void CudaGenerator::enqueueArgmax(const DeviceTensor &logits) {
  if (logits.shape.size() != 3 || logits.shape[0] != 1 || logits.shape[1] < 1)
    fail("decoder logits are ", shapeString(logits.shape), "; expected [1, seq, vocab]");
  const int64_t vocab = logits.shape[2];
  const char *last = static_cast<const char *>(logits.data) +
                     (logits.shape[1] - 1) * vocab * static_cast<int64_t>(dtypeSize(logits.dtype));
  cuda::argmaxRows(ctx_->stream(), logits.dtype, last, 1, vocab, vocab,
                   static_cast<int64_t *>(token_.get()));
}

void CudaGenerator::decode(GenerationResult &r, const GenerationOptions &options) {
  const GenerationInfo &g = info();
  // Pipelined: a step's embedding reads the previous argmax from device memory, so the host
  // records step i + 1 while the device runs step i. Token ids come back through page-locked
  // memory and are accepted one step behind (a step launched after the last token is
  // discarded).
  const DType idType = embed_->function().tensors[embed_->function().inputs.at(0).tensor].dtype;
  if (idType != DType::i64)
    fail("embedding input '", embed_->function().inputs.at(0).name, "' is ", dtypeName(idType),
         "; the CUDA generator feeds i64 token ids");
  const int64_t maxNewTokens = options.maxNewTokens;
  hostTokens_.reserve(static_cast<size_t>(maxNewTokens) * sizeof(int64_t));
  auto *host = static_cast<int64_t *>(hostTokens_.data());
  cudaStream_t s = ctx_->stream();
  Tensor ids;
  ids.dtype = DType::i64;
  ids.shape = {1, 1};
  ids.data = token_.get();
  auto start = Clock::now();
  auto readToken = [&](int64_t i) {
    cuda::checkCuda(cudaEventSynchronize(tokenReady_[i % 2]), "cudaEventSynchronize");
    return acceptToken(g, options, r, host[i]);
  };
  bool more = true;
  int64_t i = 1;
  for (; i < maxNewTokens && more; ++i) {
    DeviceTensor step = embed_->run({{ids, true}})[0];
    enqueueArgmax(decoderStep(step, 1));
    cuda::checkCuda(cudaMemcpyAsync(host + i, token_.get(), sizeof(int64_t), cudaMemcpyDeviceToHost, s),
                    "cudaMemcpyAsync");
    cuda::checkCuda(cudaEventRecord(tokenReady_[i % 2], s), "cudaEventRecord");
    if (i > 1)
      more = readToken(i - 1);
  }
  if (more)
    readToken(i - 1);
  ctx_->synchronize();
  r.decodeMs = msSince(start);
}

void CudaGenerator::decodeStepwise(GenerationResult &r, const GenerationOptions &options,
                                   Sampler &sampler, const std::vector<int64_t> &prompt) {
  const GenerationInfo &g = info();
  auto start = Clock::now();
  bool more = true;
  while (more) {
    DeviceTensor step = embedTokens({nextInput(options, r, r.tokens.size())});
    Tensor row = lastRowOnHost(decoderStep(step, 1));
    int64_t token = sampleFromRow(sampler, row, prompt, r.tokens);
    recordStepLogits(options, r, r.tokens.size(), row);
    more = acceptToken(g, options, r, token);
  }
  r.decodeMs = msSince(start);
}

Tensor CudaGenerator::lastRowOnHost(const DeviceTensor &logits) {
  const int64_t vocab = logits.shape.back();
  Tensor last = Tensor::host(logits.dtype, {vocab});
  const int64_t rows = logits.numel() / vocab;
  ctx_->synchronize();
  cuda::checkCuda(cudaMemcpy(last.data,
                             static_cast<const char *>(logits.data) +
                                 (rows - 1) * vocab * static_cast<int64_t>(dtypeSize(logits.dtype)),
                             last.nbytes(), cudaMemcpyDeviceToHost),
                  "cudaMemcpy");
  return convertFloat(last, DType::f32); // f32 whatever the plan's type, as on the CPU
}

int64_t CudaGenerator::argmaxLast(const DeviceTensor &logits) {
  enqueueArgmax(logits);
  cuda::checkCuda(cudaMemcpyAsync(hostToken_, token_.get(), sizeof(int64_t), cudaMemcpyDeviceToHost,
                                  ctx_->stream()),
                  "cudaMemcpyAsync");
  ctx_->synchronize();
  return *hostToken_;
}

GenerationResult CudaGenerator::generate(const Tensor *pixelValues,
                                         const std::vector<int64_t> &inputIds,
                                         const GenerationOptions &options) {
  const GenerationInfo &g = info();
  const int64_t capacity = checkRequest(g, inputIds, options);
  GenerationResult r;
  r.promptTokens = static_cast<int64_t>(inputIds.size());
  ctx_->synchronize();
  auto start = Clock::now();

  const size_t imageTokens = imageTokenPositions(g, inputIds).size();
  DeviceTensor features;
  if (pixelValues) {
    if (!vision_)
      fail("the plan has no vision encoder, but pixel values were given");
    features = std::move(vision_->run({{*pixelValues, false}})[featuresOutput_]);
    ctx_->synchronize();
    r.visionMs = msSince(start);
    r.imageFeatureCount = imageFeatureCount(features.shape);
  }
  checkImageTokenCount(g, imageTokens, r.imageFeatureCount);

  auto prefillStart = Clock::now();
  DeviceTensor embeds = embedTokens(inputIds);
  cudaStream_t s = ctx_->stream();
  if (r.imageFeatureCount > 0) {
    const int64_t hidden = embeds.shape[2];
    checkFeaturesMatchEmbeddings(features.dtype, features.shape, embeds.dtype, embeds.shape);
    ids_.reserve(inputIds.size() * sizeof(int64_t), "prompt ids", DeviceShare::arena);
    cuda::checkCuda(cudaMemcpyAsync(ids_.get(), inputIds.data(), inputIds.size() * sizeof(int64_t),
                                    cudaMemcpyHostToDevice, s),
                    "cudaMemcpyAsync");
    cuda::spliceImageFeatures(s, dtypeSize(embeds.dtype), embeds.data,
                              static_cast<const int64_t *>(ids_.get()), r.promptTokens, hidden,
                              g.imageTokenId, features.data, r.imageFeatureCount, nullptr);
  }

  if (!cache_ || cache_->capacity() != capacity)
    cache_ = std::make_unique<DeviceKvCache>(decoder_->function(), 1, capacity);
  cache_->clear(s);
  r.kvCacheBytes = cache_->bytes();
  DeviceTensor logits = decoderStep(embeds, r.promptTokens);
  Sampler sampler(options.sampling);
  const bool stepwise = !options.teacherTokens.empty() || options.sampling.needsLogits();
  int64_t token = 0;
  if (stepwise) { // the prefill's logits are needed on the host to choose the token
    r.prefillLastLogits = lastRowOnHost(logits);
    token = sampleFromRow(sampler, r.prefillLastLogits, inputIds, r.tokens);
  } else {
    token = argmaxLast(logits);
  }
  r.prefillMs = msSince(prefillStart);
  r.ttftMs = msSince(start);
  if (!stepwise)
    r.prefillLastLogits = lastRowOnHost(logits); // outside the timing
  recordStepLogits(options, r, 0, r.prefillLastLogits);
  if (r.imageFeatureCount > 0) { // host copy for --dump-dir and the tests, outside the timing
    r.imageFeatures = Tensor::host(features.dtype, features.shape);
    cuda::checkCuda(cudaMemcpy(r.imageFeatures.data, features.data, features.nbytes(),
                               cudaMemcpyDeviceToHost),
                    "cudaMemcpy");
  }
  if (acceptToken(g, options, r, token)) {
    if (stepwise)
      decodeStepwise(r, options, sampler, inputIds);
    else
      decode(r, options);
  }
  setDecodeRate(r);
  return r;
}

} // namespace mm::rt::cudaexec
