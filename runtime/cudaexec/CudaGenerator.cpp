//===- CudaGenerator.cpp - multimodal greedy generation on a CUDA device ------===//
#include "runtime/cudaexec/CudaGenerator.h"

#include "runtime/core/Error.h"
#include "runtime/cuda/Kernels.h"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace mm::rt::cudaexec {
namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// A [1, n] host tensor of dtype `t` holding `values`.
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

} // namespace

CudaGenerator::CudaGenerator(std::shared_ptr<const Plan> plan, bool cudaGraphs)
    : plan_(std::move(plan)) {
  const GenerationInfo &g = plan_->generation();
  if (!g.present || g.embedFunction.empty() || g.decoderFunction.empty())
    fail(plan_->origin(), ": the plan has no generation metadata (embedding and decoder "
                          "functions); run single graphs with --input");
  ctx_ = std::make_unique<CudaContext>();
  ctx_->setGraphsEnabled(cudaGraphs);
  if (!g.visionFunction.empty())
    vision_ = std::make_unique<CudaExecutor>(plan_, g.visionFunction, *ctx_);
  embed_ = std::make_unique<CudaExecutor>(plan_, g.embedFunction, *ctx_);
  decoder_ = std::make_unique<CudaExecutor>(plan_, g.decoderFunction, *ctx_);
  const FunctionInfo &dec = decoder_->function();
  if (dec.kvSlots.empty())
    fail(plan_->origin(), ": decoder '", dec.name, "' has no KV-cache slots");
  logitsOutput_ = std::max(dec.outputIndex("logits"), 0);
  for (size_t i = 0; i < dec.inputs.size(); ++i) {
    const std::string &name = dec.inputs[i].name;
    bool past = std::any_of(dec.kvSlots.begin(), dec.kvSlots.end(),
                            [&](const KvSlotInfo &s) { return s.pastInput == i; });
    if (!past && name != "inputs_embeds" && name != "attention_mask" && name != "position_ids")
      fail(plan_->origin(), ": decoder input '", name, "' is not one the generator can fill");
  }
  token_ = DeviceBuffer(sizeof(int64_t), "the next token");
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
  if (fn.inputs.size() != 1 || fn.outputs.size() != 1)
    fail("embedding function '", fn.name, "' must take input_ids and return inputs_embeds");
  DType idType = fn.tensors[fn.inputs[0].tensor].dtype;
  DeviceTensor e = embed_->run({{rowOf(idType, ids), false}})[0];
  if (e.shape.size() != 3 || e.shape[0] != 1 || e.shape[1] != static_cast<int64_t>(ids.size()))
    fail("embedding function '", fn.name, "' returned ", shapeString(e.shape), " for ", ids.size(),
         " tokens; expected [1, ", ids.size(), ", hidden]");
  return e;
}

DeviceTensor CudaGenerator::decoderStep(const DeviceTensor &embeds, int64_t seq) {
  const FunctionInfo &fn = decoder_->function();
  const int64_t past = cache_->length();
  std::vector<RunInput> inputs(fn.inputs.size());
  for (size_t i = 0; i < fn.inputs.size(); ++i) {
    const std::string &name = fn.inputs[i].name;
    DType t = fn.tensors[fn.inputs[i].tensor].dtype;
    if (name == "inputs_embeds") {
      inputs[i].tensor.dtype = embeds.dtype;
      inputs[i].tensor.shape = embeds.shape;
      inputs[i].tensor.data = embeds.data;
      inputs[i].onDevice = true;
    } else if (name == "attention_mask") {
      inputs[i].tensor = rowOf(t, std::vector<int64_t>(static_cast<size_t>(past + seq), 1));
    } else if (name == "position_ids") {
      std::vector<int64_t> pos(static_cast<size_t>(seq));
      for (int64_t s = 0; s < seq; ++s)
        pos[static_cast<size_t>(s)] = past + s;
      inputs[i].tensor = rowOf(t, pos);
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

void CudaGenerator::decode(GenerationResult &r, int64_t maxNewTokens) {
  const GenerationInfo &g = info();
  auto isEos = [&](int64_t t) {
    return std::find(g.eosTokenIds.begin(), g.eosTokenIds.end(), t) != g.eosTokenIds.end();
  };
  r.stoppedAtEos = isEos(r.tokens.back());
  if (r.stoppedAtEos || maxNewTokens <= 1)
    return;
  // Pipelined: a step's embedding reads the previous argmax from device memory, so the host
  // records step i + 1 while the device runs step i. Token ids come back through page-locked
  // memory and are checked for EOS one step behind (a step launched after an EOS is
  // discarded).
  const DType idType = embed_->function().tensors[embed_->function().inputs.at(0).tensor].dtype;
  if (idType != DType::i64)
    fail("embedding input '", embed_->function().inputs.at(0).name, "' is ", dtypeName(idType),
         "; the CUDA generator feeds i64 token ids");
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
    r.tokens.push_back(host[i]);
    r.stoppedAtEos = isEos(host[i]);
  };
  int64_t i = 1;
  for (; i < maxNewTokens && !r.stoppedAtEos; ++i) {
    DeviceTensor step = embed_->run({{ids, true}})[0];
    enqueueArgmax(decoderStep(step, 1));
    cuda::checkCuda(cudaMemcpyAsync(host + i, token_.get(), sizeof(int64_t), cudaMemcpyDeviceToHost, s),
                    "cudaMemcpyAsync");
    cuda::checkCuda(cudaEventRecord(tokenReady_[i % 2], s), "cudaEventRecord");
    if (i > 1)
      readToken(i - 1);
  }
  if (!r.stoppedAtEos)
    readToken(i - 1);
  ctx_->synchronize();
  r.decodeMs = msSince(start);
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
  if (inputIds.empty())
    fail("the prompt (input ids) is empty");
  if (options.maxNewTokens < 1)
    fail("--max-new-tokens must be at least 1");
  GenerationResult r;
  r.promptTokens = static_cast<int64_t>(inputIds.size());
  ctx_->synchronize();
  auto start = Clock::now();

  std::vector<int64_t> imagePositions;
  for (size_t i = 0; i < inputIds.size(); ++i)
    if (g.imageTokenId >= 0 && inputIds[i] == g.imageTokenId)
      imagePositions.push_back(static_cast<int64_t>(i));
  DeviceTensor features;
  if (pixelValues) {
    if (!vision_)
      fail("the plan has no vision encoder, but pixel values were given");
    features = vision_->run({{*pixelValues, false}})[0];
    ctx_->synchronize();
    r.visionMs = msSince(start);
    if (features.shape.size() < 2)
      fail("vision encoder returned ", shapeString(features.shape), "; expected [1, N, hidden]");
    r.imageFeatureCount = features.numel() / features.shape.back();
  }
  if (static_cast<int64_t>(imagePositions.size()) != r.imageFeatureCount)
    fail("the prompt has ", imagePositions.size(), " image tokens (id ", g.imageTokenId,
         ") but the image gives ", r.imageFeatureCount, " image features");

  auto prefillStart = Clock::now();
  DeviceTensor embeds = embedTokens(inputIds);
  cudaStream_t s = ctx_->stream();
  if (r.imageFeatureCount > 0) {
    const int64_t hidden = embeds.shape[2];
    if (features.dtype != embeds.dtype || features.shape.back() != hidden)
      fail("image features ", dtypeName(features.dtype), " ", shapeString(features.shape),
           " do not match the token embeddings ", dtypeName(embeds.dtype), " ", shapeString(embeds.shape));
    ids_.reserve(inputIds.size() * sizeof(int64_t), "prompt ids");
    cuda::checkCuda(cudaMemcpyAsync(ids_.get(), inputIds.data(), inputIds.size() * sizeof(int64_t),
                                    cudaMemcpyHostToDevice, s),
                    "cudaMemcpyAsync");
    cuda::spliceImageFeatures(s, dtypeSize(embeds.dtype), embeds.data,
                              static_cast<const int64_t *>(ids_.get()), r.promptTokens, hidden,
                              g.imageTokenId, features.data, r.imageFeatureCount, nullptr);
  }

  const int64_t capacity = options.kvCapacity > 0 ? options.kvCapacity
                                                  : r.promptTokens + options.maxNewTokens;
  if (!cache_ || cache_->capacity() != capacity)
    cache_ = std::make_unique<DeviceKvCache>(decoder_->function(), 1, capacity);
  cache_->clear(s);
  r.kvCacheBytes = cache_->bytes();
  DeviceTensor logits = decoderStep(embeds, r.promptTokens);
  int64_t token = argmaxLast(logits);
  r.prefillMs = msSince(prefillStart);
  r.ttftMs = msSince(start);
  // The last prompt position's logits (host copy, outside the timing).
  const int64_t vocab = logits.shape[2];
  Tensor last = Tensor::host(logits.dtype, {vocab});
  cuda::checkCuda(cudaMemcpy(last.data,
                             static_cast<const char *>(logits.data) +
                                 (logits.shape[1] - 1) * vocab * static_cast<int64_t>(dtypeSize(logits.dtype)),
                             last.nbytes(), cudaMemcpyDeviceToHost),
                  "cudaMemcpy");
  r.prefillLastLogits = last;
  if (r.imageFeatureCount > 0) { // host copy for --dump-dir and the tests, outside the timing
    r.imageFeatures = Tensor::host(features.dtype, features.shape);
    cuda::checkCuda(cudaMemcpy(r.imageFeatures.data, features.data, features.nbytes(),
                               cudaMemcpyDeviceToHost),
                    "cudaMemcpy");
  }
  r.tokens.push_back(token);
  decode(r, options.maxNewTokens);
  if (r.tokens.size() > 1 && r.decodeMs > 0)
    r.decodeTokensPerSecond = static_cast<double>(r.tokens.size() - 1) * 1000.0 / r.decodeMs;
  return r;
}

} // namespace mm::rt::cudaexec
