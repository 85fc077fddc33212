//===- CpuGeneration.cpp - the generation backend of the CPU executor --------===//
#include "runtime/exec/CpuGeneration.h"

#include "runtime/core/Error.h"
#include "runtime/exec/GenerationSteps.h"

#include <cstring>

namespace mm::rt {
namespace {

size_t indexOf(Stage stage) { return static_cast<size_t>(stage); }

Tensor hostView(const HeldTensor &t) {
  Tensor v;
  v.dtype = t.dtype;
  v.shape = t.shape;
  v.data = t.data;
  return v;
}

HeldTensor heldView(Tensor &t) { return {t.dtype, t.shape, t.data}; }

} // namespace

CpuGeneration::CpuGeneration(std::shared_ptr<const Plan> plan, const cpu::KernelRegistry &kernels)
    : plan_(std::move(plan)) {
  generation::requireGenerationInfo(*plan_);
  const GenerationInfo &g = plan_->generation();
  if (!g.visionFunction.empty())
    executors_[0] = std::make_unique<Executor>(plan_, g.visionFunction, kernels);
  executors_[1] = std::make_unique<Executor>(plan_, g.embedFunction, kernels);
  executors_[2] = std::make_unique<Executor>(plan_, g.decoderFunction, kernels);
}

const FunctionInfo *CpuGeneration::function(Stage stage) const {
  const Executor *e = executors_[indexOf(stage)].get();
  return e ? &e->function() : nullptr;
}

std::vector<HeldTensor> CpuGeneration::run(Stage stage, const std::vector<StageInput> &inputs) {
  std::vector<Tensor> args;
  for (const StageInput &in : inputs)
    args.push_back(in.isHeld ? hostView(in.held) : in.host);
  std::vector<Tensor> &out = outputs_[indexOf(stage)];
  out = executors_[indexOf(stage)]->run(args, stage == Stage::decoder ? cache_.get() : nullptr);
  std::vector<HeldTensor> held;
  for (Tensor &t : out)
    held.push_back(heldView(t));
  return held;
}

size_t CpuGeneration::resetKvCache(int64_t capacity) {
  cache_ = std::make_unique<KvCache>(decoder().function(), 1, capacity);
  return cache_->bytes();
}

void CpuGeneration::spliceImageFeatures(HeldTensor &embeds, const HeldTensor &features,
                                        const std::vector<int64_t> &inputIds, int64_t imageTokenId) {
  const size_t rowBytes = static_cast<size_t>(embeds.shape.back()) * dtypeSize(embeds.dtype);
  size_t k = 0;
  for (size_t i = 0; i < inputIds.size(); ++i)
    if (inputIds[i] == imageTokenId)
      std::memcpy(static_cast<uint8_t *>(embeds.data) + i * rowBytes,
                  static_cast<const uint8_t *>(features.data) + k++ * rowBytes, rowBytes);
}

Tensor CpuGeneration::toHost(const HeldTensor &t) {
  Tensor copy = Tensor::host(t.dtype, t.shape);
  if (copy.nbytes())
    std::memcpy(copy.data, t.data, copy.nbytes());
  return copy;
}

int64_t CpuGeneration::argmax(const HeldTensor &row) {
  Sampler greedy{SamplingOptions{}};
  return generation::sampleFromRow(greedy, convertFloat(hostView(row), DType::f32), {}, {});
}

void CpuGeneration::setProfiling(bool on) {
  for (auto &e : executors_)
    if (e)
      e->setProfiling(on);
}

} // namespace mm::rt
