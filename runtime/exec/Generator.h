//===- Generator.h - the multimodal generation loop, over any backend ---------===//
//
// The LLaVA-style loop over a plan with GenerationInfo, one for every backend
// (GenerationBackend.h): vision encoder -> splice the image features at the image-token
// positions of the prompt's embeddings -> prefill the decoder -> decode, one token per
// step, with the backend's KV cache (batch 1); each token greedy or sampled (Sampler.h).
// Stops after maxNewTokens tokens, at an EOS token (which is kept), or when
// GenerationOptions::onToken says so.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_EXEC_GENERATOR_H
#define MM_RUNTIME_EXEC_GENERATOR_H

#include "runtime/exec/GenerationBackend.h"
#include "runtime/exec/PositionIds.h"
#include "runtime/exec/Sampler.h"

#include <functional>

#include <memory>
#include <vector>

namespace mm::rt {

struct GenerationOptions {
  int64_t maxNewTokens = 16;
  /// KV-cache positions; 0 = prompt length + maxNewTokens.
  int64_t kvCapacity = 0;
  /// Teacher forcing, for checking logits against a reference run: when not empty, decode
  /// step k (k >= 1) feeds teacherTokens[k - 1] instead of the previous step's argmax, EOS
  /// does not stop the generation, and GenerationResult::stepLogits holds every step's
  /// logits. Needs at least maxNewTokens - 1 ids (checkRequest).
  std::vector<int64_t> teacherTokens;
  /// How each token is chosen (greedy by default). Teacher forcing is greedy only.
  SamplingOptions sampling;
  /// Called with each token as soon as it is known (the streaming hook: text output, stop
  /// strings); returning false ends the generation after that token
  /// (GenerationResult::stoppedByCaller). An EOS token is passed too. May be empty.
  std::function<bool(int64_t token)> onToken;
  /// EOS tokens do not stop the generation (benchmarks: a fixed number of new tokens).
  bool ignoreEos = false;
};

struct GenerationResult {
  std::vector<int64_t> tokens; ///< generated ids (an EOS that stopped generation included)
  bool stoppedAtEos = false;
  bool stoppedByCaller = false;  ///< GenerationOptions::onToken returned false
  int64_t promptTokens = 0;
  int64_t imageFeatureCount = 0; ///< rows spliced into the prompt
  double visionMs = 0;           ///< vision encoder
  double prefillMs = 0;          ///< embedding + splice + decoder over the prompt
  double ttftMs = 0;             ///< start to first token (vision + prefill + argmax)
  double decodeMs = 0;           ///< all decode steps
  double decodeTokensPerSecond = 0; ///< tokens after the first / decodeMs
  Tensor imageFeatures;          ///< vision encoder output (empty without an image)
  Tensor prefillLastLogits;      ///< [vocab] f32 logits of the last prompt position
  /// With teacher forcing: [maxNewTokens, vocab] f32, row k the logits of step k (row 0
  /// the prefill's last position; tokens[k] is the argmax of row k). Empty otherwise.
  Tensor stepLogits;
  size_t kvCacheBytes = 0;
};

class Generator {
public:
  /// Generation over `backend` (CpuGeneration.h, runtime/cudaexec/CudaGeneration.h, or any
  /// other GenerationBackend); checks the plan's generation functions by role (the
  /// decoder's KV-cache slots and inputs, the embedding's one input_ids input, the vision
  /// encoder's pixel_values and image_features). Throws Error naming what is missing.
  Generator(std::shared_ptr<const Plan> plan, std::unique_ptr<GenerationBackend> backend);

  /// Generates from `inputIds` (with `pixelValues`, may be null when the prompt has no
  /// image token; `imageGridThw` [images, 3], Qwen2-VL's, when the vision encoder takes
  /// it, else null). Throws Error, e.g. when the number of image tokens in the prompt
  /// differs from the number of image features (both numbers are given), or when the
  /// grids are missing, not wanted, or do not fit the pixel values or the prompt
  /// (PositionIds.h). The result's tensors are host tensors.
  GenerationResult generate(const Tensor *pixelValues, const Tensor *imageGridThw,
                            const std::vector<int64_t> &inputIds, const GenerationOptions &options);

  const GenerationInfo &info() const { return plan_->generation(); }
  GenerationBackend &backend() { return *backend_; }

private:
  HeldTensor embedTokens(const std::vector<int64_t> &ids);
  HeldTensor decoderStep(const HeldTensor &embeds, const PositionIds &positions);
  /// The vision encoder's inputs: the pixel values and, when it takes them, the grids
  /// (`imageGridThw`, read as `grids`), checked against each other.
  std::vector<StageInput> visionInputs(const Tensor &pixelValues, const Tensor *imageGridThw,
                                       const std::vector<std::array<int64_t, 3>> &grids) const;
  /// The last row of decoder logits [1, seq, vocab] as f32 [vocab] on the host.
  Tensor hostRow(const HeldTensor &logits);
  /// Decode after the first token, one step at a time: greedy through the backend's argmax,
  /// or (stepwise) each step's logits row on the host for the sampler and teacher forcing.
  void decode(GenerationResult &r, const GenerationOptions &options, bool stepwise,
              Sampler &sampler, const std::vector<int64_t> &prompt, const PositionIds &positions);

  std::shared_ptr<const Plan> plan_;
  std::unique_ptr<GenerationBackend> backend_;
  int logitsOutput_ = 0;   ///< the decoder output of role logits
  int featuresOutput_ = 0; ///< the vision-encoder output of role image_features
};

/// Peak resident set size of this process so far, in MiB (getrusage).
double peakResidentMiB();

} // namespace mm::rt

#endif // MM_RUNTIME_EXEC_GENERATOR_H
