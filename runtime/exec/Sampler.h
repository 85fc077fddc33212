//===- Sampler.h - choosing the next token from the logits -------------------===//
//
// transformers' generate (GenerationConfig: do_sample, temperature, top_k, top_p,
// repetition_penalty), in its order: the repetition penalty (Keskar et al. 2019, CTRL,
// https://arxiv.org/abs/1909.05858: the logit of every token already in the context is
// divided by the penalty when positive, multiplied when negative), then for sampling the
// temperature, top-k (tokens below the k-th largest logit dropped; ties kept) and top-p
// (nucleus, Holtzman et al. 2019, https://arxiv.org/abs/1904.09751: the least likely
// tokens dropped while the ones left hold at least p of the probability; the most likely
// always kept), then a draw from the softmax. Greedy (temperature 0) takes the first
// maximum, as torch.argmax. Draws come from a std::mt19937_64 seeded with `seed`, so a
// seed repeats a generation; they are not torch's draws.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_EXEC_SAMPLER_H
#define MM_RUNTIME_EXEC_SAMPLER_H

#include <cstdint>
#include <random>
#include <vector>

namespace mm::rt {

struct SamplingOptions {
  double temperature = 0;       ///< 0: greedy; > 0: sample from softmax(logits / temperature)
  int64_t topK = 0;             ///< sampling: keep the k largest logits (0: all)
  double topP = 1;              ///< sampling: nucleus mass in [0, 1] (1: all; 0: the top token)
  double repetitionPenalty = 1; ///< > 0; 1: none
  uint64_t seed = 0;

  /// Whether choosing needs the logits on the host (anything but plain greedy).
  bool needsLogits() const { return temperature > 0 || repetitionPenalty != 1; }
  /// Throws Error naming the option (temperature, top_k, top_p, repetition_penalty) when
  /// a value is out of range or not finite.
  void check() const;
};

class Sampler {
public:
  /// Checks `options` (SamplingOptions::check).
  explicit Sampler(const SamplingOptions &options);
  /// The next token from `logits` ([vocab] f32; the repetition penalty changes it in
  /// place, the warpers work on a list of the tokens still in the running); `context` holds the ids seen so far (prompt and generated), which the
  /// repetition penalty reads. Throws Error when the logits are empty or not finite where
  /// sampling needs them.
  int64_t next(std::vector<float> &logits, const std::vector<int64_t> &context);
  /// Whether next() reads `context` (a repetition penalty is set).
  bool readsContext() const { return options_.repetitionPenalty != 1; }

private:
  SamplingOptions options_;
  std::mt19937_64 rng_;
};

} // namespace mm::rt

#endif // MM_RUNTIME_EXEC_SAMPLER_H
