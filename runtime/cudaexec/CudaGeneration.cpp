//===- CudaGeneration.cpp - the generation backend of the CUDA executor ------===//
#include "runtime/cudaexec/CudaGeneration.h"

#include "runtime/core/Error.h"
#include "runtime/cuda/Kernels.h"
#include "runtime/exec/GenerationSteps.h"

namespace mm::rt::cudaexec {
namespace {

size_t indexOf(Stage stage) { return static_cast<size_t>(stage); }

} // namespace

using namespace generation;

void requireGenerationOnCuda(const Plan &plan) {
  requireGenerationInfo(plan);
  const GenerationInfo &g = plan.generation();
  for (const std::string *f : {&g.visionFunction, &g.embedFunction, &g.decoderFunction})
    if (!f->empty())
      requireCudaPlacement(plan, plan.function(*f));
}

CudaGeneration::CudaGeneration(std::shared_ptr<const Plan> plan, CudaContext &ctx)
    : plan_(std::move(plan)), ctx_(&ctx) {
  requireGenerationOnCuda(*plan_);
  const GenerationInfo &g = plan_->generation();
  if (!g.visionFunction.empty())
    executors_[0] = std::make_unique<CudaExecutor>(plan_, g.visionFunction, *ctx_);
  executors_[1] = std::make_unique<CudaExecutor>(plan_, g.embedFunction, *ctx_);
  executors_[2] = std::make_unique<CudaExecutor>(plan_, g.decoderFunction, *ctx_);
  token_ = DeviceBuffer(sizeof(int64_t), "the next token", DeviceShare::arena);
  cuda::checkCuda(cudaMallocHost(reinterpret_cast<void **>(&hostToken_), sizeof(int64_t)),
                  "cudaMallocHost");
  for (cudaEvent_t &e : tokenReady_)
    cuda::checkCuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
}

CudaGeneration::~CudaGeneration() {
  cudaStreamSynchronize(ctx_->stream());
  if (hostToken_)
    cudaFreeHost(hostToken_);
  for (cudaEvent_t e : tokenReady_)
    if (e)
      cudaEventDestroy(e);
}

const FunctionInfo *CudaGeneration::function(Stage stage) const {
  const CudaExecutor *e = executors_[indexOf(stage)].get();
  return e ? &e->function() : nullptr;
}

std::vector<HeldTensor> CudaGeneration::run(Stage stage, const std::vector<StageInput> &inputs) {
  std::vector<RunInput> args(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].isHeld) {
      args[i].tensor.dtype = inputs[i].held.dtype;
      args[i].tensor.shape = inputs[i].held.shape;
      args[i].tensor.data = inputs[i].held.data;
      args[i].onDevice = true;
    } else {
      args[i].tensor = inputs[i].host;
    }
  }
  return executors_[indexOf(stage)]->run(args, stage == Stage::decoder ? cache_.get() : nullptr);
}

size_t CudaGeneration::resetKvCache(int64_t capacity) {
  if (!cache_ || cache_->capacity() != capacity)
    cache_ = std::make_unique<DeviceKvCache>(decoder().function(), 1, capacity);
  cache_->clear(ctx_->stream());
  return cache_->bytes();
}

void CudaGeneration::spliceImageFeatures(HeldTensor &embeds, const HeldTensor &features,
                                         const std::vector<int64_t> &inputIds,
                                         int64_t imageTokenId) {
  cudaStream_t s = ctx_->stream();
  ids_.reserve(inputIds.size() * sizeof(int64_t), "prompt ids", DeviceShare::arena);
  cuda::checkCuda(cudaMemcpyAsync(ids_.get(), inputIds.data(), inputIds.size() * sizeof(int64_t),
                                  cudaMemcpyHostToDevice, s),
                  "cudaMemcpyAsync");
  cuda::spliceImageFeatures(s, dtypeSize(embeds.dtype), embeds.data,
                            static_cast<const int64_t *>(ids_.get()),
                            static_cast<int64_t>(inputIds.size()), embeds.shape.back(), imageTokenId,
                            features.data, imageFeatureCount(features.shape), nullptr);
}

Tensor CudaGeneration::toHost(const HeldTensor &t) {
  Tensor host = Tensor::host(t.dtype, t.shape);
  ctx_->synchronize();
  if (host.nbytes())
    cuda::checkCuda(cudaMemcpy(host.data, t.data, host.nbytes(), cudaMemcpyDeviceToHost),
                    "cudaMemcpy");
  return host;
}

void CudaGeneration::enqueueArgmax(const HeldTensor &row) {
  cuda::argmaxRows(ctx_->stream(), row.dtype, row.data, 1, row.numel(), row.numel(),
                   static_cast<int64_t *>(token_.get()));
}

int64_t CudaGeneration::argmax(const HeldTensor &row) {
  enqueueArgmax(row);
  cuda::checkCuda(cudaMemcpyAsync(hostToken_, token_.get(), sizeof(int64_t), cudaMemcpyDeviceToHost,
                                  ctx_->stream()),
                  "cudaMemcpyAsync");
  ctx_->synchronize();
  return *hostToken_;
}

bool CudaGeneration::decodeGreedily(int64_t first, int64_t maxSteps, const PositionIds &positions,
                                    const std::function<bool(int64_t)> &accept) {
  const FunctionInfo &embedFn = embed().function();
  if (embedFn.tensors[embedFn.inputs.at(0).tensor].dtype != DType::i64)
    return false; // the argmax writes i64 ids: the loop's own steps feed other id types
  // Pipelined: a step's embedding reads the previous argmax from device memory, so the host
  // records step i + 1 while the device runs step i. Token ids come back through page-locked
  // memory and are accepted one step behind (a step launched after the last token is
  // discarded).
  cudaStream_t s = ctx_->stream();
  hostTokens_.reserve(static_cast<size_t>(maxSteps + 1) * sizeof(int64_t));
  auto *host = static_cast<int64_t *>(hostTokens_.data());
  // The first token into token_, which the first step's embedding reads (after a greedy
  // prefill token_ holds it already; the interface does not promise that the loop's last
  // argmax was this backend's, so it is written: 8 bytes, stream-ordered, outside graphs).
  host[0] = first;
  cuda::checkCuda(cudaMemcpyAsync(token_.get(), host, sizeof(int64_t), cudaMemcpyHostToDevice, s),
                  "cudaMemcpyAsync");
  const StageInput ids = StageInput::ofHeld({DType::i64, {1, 1}, token_.get()});
  const FunctionInfo &decoderFn = decoder().function();
  const size_t logits = static_cast<size_t>(decoderFn.outputWithRole(ValueRole::logits));
  auto readToken = [&](int64_t i) {
    cuda::checkCuda(cudaEventSynchronize(tokenReady_[i % 2]), "cudaEventSynchronize");
    return accept(host[i]);
  };
  bool more = true;
  int64_t i = 1;
  for (; i <= maxSteps && more; ++i) {
    HeldTensor step = run(Stage::embedding, {ids})[0];
    checkEmbeddings(embedFn, step.shape, 1);
    enqueueArgmax(lastRow(run(Stage::decoder, decoderInputs(decoderFn, step, kvLength(), 1, positions))[logits]));
    cuda::checkCuda(cudaMemcpyAsync(host + i, token_.get(), sizeof(int64_t), cudaMemcpyDeviceToHost, s),
                    "cudaMemcpyAsync");
    cuda::checkCuda(cudaEventRecord(tokenReady_[i % 2], s), "cudaEventRecord");
    if (i > 1)
      more = readToken(i - 1);
  }
  if (more && i > 1)
    readToken(i - 1);
  return true;
}

} // namespace mm::rt::cudaexec
