//===- Sampler.cpp - choosing the next token from the logits -----------------===//
#include "runtime/exec/Sampler.h"

#include "runtime/core/Error.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mm::rt {

void SamplingOptions::check() const {
  if (!std::isfinite(temperature) || temperature < 0)
    fail("temperature must be a finite number >= 0 (0: greedy), got ", temperature);
  if (topK < 0)
    fail("top_k must be >= 0 (0: all tokens), got ", topK);
  if (!(topP >= 0 && topP <= 1))
    fail("top_p must be in [0, 1], got ", topP);
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
  // The first maximum, as torch.argmax of NaN-free logits (a NaN is never greater, so it
  // wins only at index 0; the decoder's logits are checked finite by the tests, not here).
  return std::max_element(logits.begin(), logits.end()) - logits.begin();
}

/// A token still in the running: its logit after the temperature and its unnormalised
/// probability exp(logit - max logit).
struct Candidate {
  float logit;
  int32_t id;
  double weight = 0;
};
/// More likely first; equal logits in id order.
bool moreLikely(const Candidate &a, const Candidate &b) {
  return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
}

/// TopKLogitsWarper: the candidates below the k-th largest logit are dropped (ties kept).
void keepTopK(std::vector<Candidate> &c, int64_t k) {
  if (k <= 0 || k >= static_cast<int64_t>(c.size()))
    return;
  std::nth_element(c.begin(), c.begin() + (k - 1), c.end(), moreLikely);
  const float kth = c[static_cast<size_t>(k - 1)].logit;
  c.erase(std::remove_if(c.begin(), c.end(), [&](const Candidate &x) { return x.logit < kth; }), c.end());
}

/// Sets each candidate's weight; returns their sum.
double setWeights(std::vector<Candidate> &c) {
  float top = c[0].logit;
  for (const Candidate &x : c)
    top = std::max(top, x.logit);
  double sum = 0;
  for (Candidate &x : c)
    sum += x.weight = std::exp(x.logit - top); // float exp, as torch's float32 softmax
  return sum;
}

/// TopPLogitsWarper: in ascending order of probability, tokens are dropped while the mass
/// dropped so far (their own included) stays <= 1 - p; the most likely is always kept.
/// Equivalently, in descending order a token is kept while the mass before it is < p. The
/// kept set is found without sorting, by a selection on mass (expected linear time): the
/// range [lo, hi) is undecided, everything before lo kept, everything from hi on dropped.
void keepTopP(std::vector<Candidate> &c, double topP, double sum) {
  if (topP >= 1 || c.size() < 2)
    return;
  if (topP == 0) { // min_tokens_to_keep: the most likely stays
    std::nth_element(c.begin(), c.begin(), c.end(), moreLikely);
    c.resize(1);
    return;
  }
  double need = topP * sum; // mass the kept set must still reach
  size_t lo = 0, hi = c.size();
  while (lo < hi && need > 0) {
    const Candidate pivot = c[lo + (hi - lo) / 2];
    auto mid = std::partition(c.begin() + lo, c.begin() + hi,
                              [&](const Candidate &x) { return moreLikely(x, pivot); });
    const size_t m = static_cast<size_t>(mid - c.begin());
    double above = 0;
    for (size_t i = lo; i < m; ++i)
      above += c[i].weight;
    if (above >= need) { // the last kept token is among the more likely ones
      hi = m;
      continue;
    }
    // All of them are kept, and the pivot too (the mass before it is still short).
    std::iter_swap(mid, std::find_if(mid, c.begin() + hi, [&](const Candidate &x) { return x.id == pivot.id; }));
    need -= above + pivot.weight;
    lo = m + 1;
  }
  c.resize(lo);
}

} // namespace

int64_t Sampler::next(std::vector<float> &logits, const std::vector<int64_t> &context) {
  if (logits.empty())
    fail("the sampler got no logits");
  if (options_.repetitionPenalty != 1)
    penalise(logits, context, options_.repetitionPenalty);
  if (options_.temperature == 0)
    return argmax(logits);
  float top = -std::numeric_limits<float>::infinity();
  for (float l : logits) {
    if (std::isnan(l) || l == std::numeric_limits<float>::infinity())
      fail("the logits hold NaN or +inf; cannot sample from them");
    top = std::max(top, l);
  }
  if (top == -std::numeric_limits<float>::infinity())
    fail("every logit is -inf; cannot sample from them");
  // (logit - max) / temperature in double: <= 0, so a tiny temperature gives -inf (weight
  // 0), never +inf; the order and the softmax are those of logit / temperature.
  std::vector<Candidate> c;
  c.reserve(logits.size());
  for (size_t i = 0; i < logits.size(); ++i)
    if (logits[i] != -std::numeric_limits<float>::infinity())
      c.push_back({static_cast<float>((double(logits[i]) - top) / options_.temperature),
                   static_cast<int32_t>(i)});
  keepTopK(c, options_.topK);
  double sum = setWeights(c);
  if (options_.topP < 1) {
    keepTopP(c, options_.topP, sum);
    sum = 0;
    for (const Candidate &x : c)
      sum += x.weight;
  }
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng_) * sum;
  double cumulative = 0;
  for (const Candidate &x : c) {
    cumulative += x.weight;
    if (u < cumulative)
      return x.id;
  }
  return c.back().id; // rounding left u above the total
}

} // namespace mm::rt
