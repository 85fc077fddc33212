//===- CudaGeneration.h - the generation backend of the CUDA executor --------===//
//
// GenerationBackend over three CudaExecutors on the session's CudaContext and a
// DeviceKvCache: held tensors live in device memory, image features are spliced on the
// device, only the argmax's token id crosses to the host when decoding greedily (sampling
// and teacher forcing copy the last logits row). Greedy decoding after the first token is
// this backend's own loop (decodeGreedily): pipelined, each step's embedding reads the
// previous argmax from device memory, so the host records step i + 1 while the device runs
// step i; with CUDA graphs on, each decode step replays captured graphs from the third
// step on (docs/cuda-graphs.md).
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CUDAEXEC_CUDAGENERATION_H
#define MM_RUNTIME_CUDAEXEC_CUDAGENERATION_H

#include "runtime/cudaexec/CudaExecutor.h"
#include "runtime/exec/GenerationBackend.h"

#include <memory>
#include <vector>

namespace mm::rt::cudaexec {

/// Throws Error unless `plan` has generation metadata and its generation functions were
/// compiled for CUDA (before any device is touched).
void requireGenerationOnCuda(const Plan &plan);

class CudaGeneration : public GenerationBackend {
public:
  /// Creates the executors on `ctx` (uploading the weights not on it yet); throws Error if
  /// the plan has no generation metadata, was not compiled for CUDA, or does not fit.
  /// `ctx` outlives the backend.
  CudaGeneration(std::shared_ptr<const Plan> plan, CudaContext &ctx);
  ~CudaGeneration() override;

  const FunctionInfo *function(Stage stage) const override;
  std::vector<HeldTensor> run(Stage stage, const std::vector<StageInput> &inputs) override;
  size_t resetKvCache(int64_t capacity) override;
  int64_t kvLength() const override { return cache_ ? cache_->length() : 0; }
  void spliceImageFeatures(HeldTensor &embeds, const HeldTensor &features,
                           const std::vector<int64_t> &inputIds, int64_t imageTokenId) override;
  Tensor toHost(const HeldTensor &t) override;
  int64_t argmax(const HeldTensor &row) override;
  void synchronize() override { ctx_->synchronize(); }
  bool decodeGreedily(int64_t first, int64_t maxSteps, const PositionIds &positions,
                      const std::function<bool(int64_t)> &accept) override;

  /// The executors, for launch counts and memory (vision may be null).
  CudaExecutor *vision() const { return executors_[0].get(); }
  CudaExecutor &embed() const { return *executors_[1]; }
  CudaExecutor &decoder() const { return *executors_[2]; }

private:
  /// The argmax of `row` into token_ on the device (no wait).
  void enqueueArgmax(const HeldTensor &row);

  std::shared_ptr<const Plan> plan_;
  CudaContext *ctx_;
  std::unique_ptr<CudaExecutor> executors_[3]; ///< by Stage
  std::unique_ptr<DeviceKvCache> cache_;
  DeviceBuffer token_, ids_;
  int64_t *hostToken_ = nullptr; ///< page-locked
  PinnedBuffer hostTokens_;      ///< the decode steps' token ids
  cudaEvent_t tokenReady_[2] = {nullptr, nullptr};
};

} // namespace mm::rt::cudaexec

#endif // MM_RUNTIME_CUDAEXEC_CUDAGENERATION_H
