//===- CudaGenerator.h - multimodal greedy generation on a CUDA device --------===//
//
// The loop of runtime/exec/Generator.h with the CUDA executor: vision encoder -> token
// embeddings -> image features spliced in on the device -> prefill -> greedy decode with
// the device KV cache (batch 1). Only the next token id crosses to the host per step (the
// argmax runs on the device) when decoding greedily; sampling copies each step's last logits
// row to the host and chooses there (runtime/exec/Sampler.h). With CUDA graphs on, each decode step (embedding and
// decoder) replays captured graphs from the third step on (docs/cuda-graphs.md).
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CUDAEXEC_CUDAGENERATOR_H
#define MM_RUNTIME_CUDAEXEC_CUDAGENERATOR_H

#include "runtime/cudaexec/CudaExecutor.h"
#include "runtime/exec/Generator.h"

#include <memory>
#include <vector>

namespace mm::rt::cudaexec {

/// Throws Error unless `plan` has generation metadata and its generation functions were
/// compiled for CUDA (before any device is touched).
void requireGenerationOnCuda(const Plan &plan);

class CudaGenerator {
public:
  /// Creates the executors on `ctx` (uploading the weights not on it yet); throws Error if
  /// the plan has no generation metadata, was not compiled for CUDA, or does not fit.
  /// `ctx` outlives the generator.
  CudaGenerator(std::shared_ptr<const Plan> plan, CudaContext &ctx);
  ~CudaGenerator();

  /// As Generator::generate; the result's tensors are host copies.
  GenerationResult generate(const Tensor *pixelValues, const std::vector<int64_t> &inputIds,
                            const GenerationOptions &options);

  const GenerationInfo &info() const { return plan_->generation(); }
  CudaExecutor *vision() { return vision_.get(); }
  CudaExecutor &decoder() { return *decoder_; }
  CudaExecutor &embed() { return *embed_; }

private:
  DeviceTensor embedTokens(const std::vector<int64_t> &ids);
  DeviceTensor decoderStep(const DeviceTensor &embeds, int64_t seq);
  /// argmax of the last row of logits [1, seq, vocab] into token_ (no wait).
  void enqueueArgmax(const DeviceTensor &logits);
  /// enqueueArgmax, then waits for the token.
  int64_t argmaxLast(const DeviceTensor &logits);
  /// Greedy decode after the first token (pipelined; see CudaGenerator.cpp).
  void decode(GenerationResult &r, const GenerationOptions &options);
  /// Decode after the first token one step at a time, each step's logits copied to the
  /// host: for sampling, the repetition penalty and teacher forcing (not pipelined).
  void decodeStepwise(GenerationResult &r, const GenerationOptions &options, Sampler &sampler,
                      const std::vector<int64_t> &prompt);
  /// The last row of logits [1, seq, vocab] as f32 on the host.
  Tensor lastRowOnHost(const DeviceTensor &logits);

  std::shared_ptr<const Plan> plan_;
  CudaContext *ctx_;
  std::unique_ptr<CudaExecutor> vision_, embed_, decoder_;
  std::unique_ptr<DeviceKvCache> cache_;
  DeviceBuffer token_, ids_;
  int64_t *hostToken_ = nullptr; ///< page-locked
  PinnedBuffer hostTokens_;      ///< the decode steps' token ids
  cudaEvent_t tokenReady_[2] = {nullptr, nullptr};
  int logitsOutput_ = 0;   ///< the decoder output of role logits
  int featuresOutput_ = 0; ///< the vision-encoder output of role image_features
};

} // namespace mm::rt::cudaexec

#endif // MM_RUNTIME_CUDAEXEC_CUDAGENERATOR_H
