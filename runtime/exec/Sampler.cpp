//===- Sampler.cpp - choosing the next token from the logits -----------------===//
#include "runtime/exec/Sampler.h"

#include "runtime/core/Error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace mm::rt {

void SamplingOptions::check() const {
  if (!std::isfinite(temperature) || temperature < 0)
    fail("temperature must be a finite number >= 0 (0: greedy), got ", temperature);
  if (topK < 0)
    fail("top_k must be >= 0 (0: all tokens), got ", topK);
  if (!(topP > 0 && topP <= 1))
    fail("top_p must be in (0, 1], got ", topP);
  if (!std::isfinite(repetitionPenalty) || repetitionPenalty <= 0)
    fail("repetition_penalty must be a finite number > 0 (1: none), got ", repetitionPenalty);
}

Sampler::Sampler(const SamplingOptions &options) : options_(options), rng_(options.seed) {
  options_.check();
}

namespace {

/// RepetitionPenaltyLogitsProcessor: each distinct token of the context once.
void penalise(std::vector<float> &logits, const std::vector<int64_t> &context, double penalty) {
  std::vector<int64_t> seen(context);
  std::sort(seen.begin(), seen.end());
  seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
  for (int64_t id : seen)
    if (id >= 0 && id < static_cast<int64_t>(logits.size())) {
      float &l = logits[static_cast<size_t>(id)];
      l = static_cast<float>(l < 0 ? l * penalty : l / penalty);
    }
}

int64_t argmax(const std::vector<float> &logits) {
  // The first maximum, as torch.argmax (NaN never wins a comparison).
  return std::max_element(logits.begin(), logits.end()) - logits.begin();
}

constexpr float kDropped = -std::numeric_limits<float>::infinity();

/// TopKLogitsWarper: logits below the k-th largest become -inf.
void keepTopK(std::vector<float> &logits, int64_t k) {
  if (k <= 0 || k >= static_cast<int64_t>(logits.size()))
    return;
  std::vector<float> sorted(logits);
  std::nth_element(sorted.begin(), sorted.begin() + (k - 1), sorted.end(), std::greater<float>());
  const float kth = sorted[static_cast<size_t>(k - 1)];
  for (float &l : logits)
    if (l < kth)
      l = kDropped;
}

/// softmax(logits) in double; dropped (-inf) logits get 0.
std::vector<double> softmax(const std::vector<float> &logits) {
  const float top = *std::max_element(logits.begin(), logits.end());
  std::vector<double> p(logits.size());
  double sum = 0;
  for (size_t i = 0; i < logits.size(); ++i)
    sum += p[i] = logits[i] == kDropped ? 0.0 : std::exp(double(logits[i]) - double(top));
  for (double &x : p)
    x /= sum;
  return p;
}

/// TopPLogitsWarper: in ascending order of probability, tokens are dropped while the mass
/// dropped so far (their own included) stays <= 1 - p; the most likely is always kept.
void keepTopP(std::vector<float> &logits, double topP) {
  if (topP >= 1)
    return;
  const std::vector<double> p = softmax(logits);
  std::vector<size_t> order(logits.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return logits[a] < logits[b]; });
  double cumulative = 0;
  for (size_t i = 0; i + 1 < order.size(); ++i) {
    cumulative += p[order[i]];
    if (cumulative > 1 - topP)
      break;
    logits[order[i]] = kDropped;
  }
}

} // namespace

int64_t Sampler::next(std::vector<float> &logits, const std::vector<int64_t> &context) {
  if (logits.empty())
    fail("the sampler got no logits");
  if (options_.repetitionPenalty != 1)
    penalise(logits, context, options_.repetitionPenalty);
  if (options_.temperature == 0)
    return argmax(logits);
  for (float l : logits)
    if (std::isnan(l) || l == std::numeric_limits<float>::infinity())
      fail("the logits hold NaN or +inf; cannot sample from them");
  for (float &l : logits)
    l = static_cast<float>(l / options_.temperature);
  keepTopK(logits, options_.topK);
  if (*std::max_element(logits.begin(), logits.end()) == kDropped)
    fail("every logit is -inf; cannot sample from them");
  keepTopP(logits, options_.topP);
  const std::vector<double> p = softmax(logits);
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
  double cumulative = 0;
  int64_t last = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == 0)
      continue;
    last = static_cast<int64_t>(i);
    cumulative += p[i];
    if (u < cumulative)
      return last;
  }
  return last; // rounding left u above the total: the last token with mass
}

} // namespace mm::rt
