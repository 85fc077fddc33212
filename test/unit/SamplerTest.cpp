//===- SamplerTest.cpp - the next-token sampler and the streamed text ---------===//
//
// Sampler (runtime/exec/Sampler.h) against values worked out by hand from transformers'
// logits processors (RepetitionPenalty, Temperature, TopK, TopP), its draws against the
// softmax they sample from, and TextStream (runtime/chat/TextStream.h): stop strings cut
// the text, text that may begin one is held back, and nothing else is.
//
//===----------------------------------------------------------------------===//
#include "runtime/chat/TextStream.h"
#include "runtime/core/Error.h"
#include "runtime/exec/GenerationSteps.h"
#include "runtime/exec/Sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <map>
#include <random>

namespace {
using mm::rt::Sampler;
using mm::rt::SamplingOptions;

SamplingOptions sampling(double temperature, int64_t topK = 0, double topP = 1, double penalty = 1) {
  SamplingOptions o;
  o.temperature = temperature;
  o.topK = topK;
  o.topP = topP;
  o.repetitionPenalty = penalty;
  o.seed = 123;
  return o;
}

TEST(SamplerTest, GreedyTakesTheFirstMaximum) {
  Sampler s(sampling(0));
  std::vector<float> logits{1, 3, 3, 2};
  EXPECT_EQ(s.next(logits, {}), 1);
}

TEST(SamplerTest, RepetitionPenaltyDividesPositiveAndMultipliesNegativeLogits) {
  // CTRL's rule, each seen token once however often it was seen.
  Sampler s(sampling(0, 0, 1, 2.0));
  std::vector<float> logits{4, -1, 3.5, 0.5};
  EXPECT_EQ(s.next(logits, {0, 0, 1}), 2); // 4 -> 2 loses to 3.5
  EXPECT_EQ(logits, (std::vector<float>{2, -2, 3.5, 0.5}));
}

/// Frequencies of 40000 draws.
std::map<int64_t, double> frequencies(Sampler &s, const std::vector<float> &logits) {
  std::map<int64_t, double> f;
  const int n = 40000;
  for (int i = 0; i < n; ++i) {
    std::vector<float> l(logits);
    f[s.next(l, {})] += 1.0 / n;
  }
  return f;
}

// A binomial frequency of 40000 draws has a standard deviation of at most 0.0025: 0.012 is
// almost 5 of them, so a sampler off by 0.02 in any probability fails.
constexpr double kFreqTol = 0.012;

TEST(SamplerTest, DrawsFollowTheSoftmax) {
  Sampler s(sampling(1.0));
  auto f = frequencies(s, {std::log(0.5f), std::log(0.3f), std::log(0.2f)});
  EXPECT_NEAR(f[0], 0.5, kFreqTol);
  EXPECT_NEAR(f[1], 0.3, kFreqTol);
  EXPECT_NEAR(f[2], 0.2, kFreqTol);
}

TEST(SamplerTest, TemperatureSharpens) {
  // softmax(log p / 0.5) = p^2 / sum p^2: 0.25, 0.09, 0.04 over 0.38.
  Sampler s(sampling(0.5));
  auto f = frequencies(s, {std::log(0.5f), std::log(0.3f), std::log(0.2f)});
  EXPECT_NEAR(f[0], 0.25 / 0.38, kFreqTol);
  EXPECT_NEAR(f[2], 0.04 / 0.38, kFreqTol);
}

TEST(SamplerTest, TopKKeepsTiesAtTheKthLogit) {
  // k = 2 over {2, 1, 1, 0}: the two 1s tie at the 2nd largest and both stay; 0 goes.
  Sampler s(sampling(1.0, 2));
  auto f = frequencies(s, {2, 1, 1, 0});
  const double e = std::exp(1.0), total = e * e + 2 * e;
  EXPECT_NEAR(f[0], e * e / total, kFreqTol);
  EXPECT_NEAR(f[1], e / total, kFreqTol);
  EXPECT_EQ(f.count(3), 0u);
}

TEST(SamplerTest, TopPDropsTheLeastLikelyWhileTheirMassStaysWithinOneMinusP) {
  // p = {0.5, 0.3, 0.15, 0.05}, top_p 0.8: ascending, 0.05 (cum 0.05 <= 0.2) and 0.15 (cum
  // 0.2 <= 0.2) are dropped; 0.3 (cum 0.5) stays. Left: 0.5 / 0.8 and 0.3 / 0.8.
  Sampler s(sampling(1.0, 0, 0.8));
  auto f = frequencies(s, {std::log(0.5f), std::log(0.3f), std::log(0.15f), std::log(0.05f)});
  EXPECT_NEAR(f[0], 0.625, kFreqTol);
  EXPECT_NEAR(f[1], 0.375, kFreqTol);
  EXPECT_EQ(f.count(2) + f.count(3), 0u);
}

TEST(SamplerTest, TopPKeepsWhatSortingWouldKeep) {
  // 300 random logits: the kept set by the definition (sort, keep while the mass before a
  // token is < p) against the sampler's draws, which must stay inside it and follow the
  // renormalised probabilities (the selection it uses instead of sorting must agree).
  std::mt19937 g(5);
  std::normal_distribution<float> n(0, 1.5f);
  std::vector<float> logits(300);
  for (float &l : logits)
    l = n(g);
  const double topP = 0.6;
  std::vector<std::pair<double, int64_t>> p;
  double z = 0;
  for (size_t i = 0; i < logits.size(); ++i)
    z += std::exp(double(logits[i]));
  for (size_t i = 0; i < logits.size(); ++i)
    p.push_back({std::exp(double(logits[i])) / z, int64_t(i)});
  std::sort(p.begin(), p.end(), [](auto &a, auto &b) { return a.first > b.first; });
  std::map<int64_t, double> kept;
  double before = 0, mass = 0;
  for (auto &[prob, id] : p) {
    if (before >= topP)
      break;
    kept[id] = prob;
    before += prob;
  }
  for (auto &[id, prob] : kept)
    mass += prob;
  Sampler s(sampling(1.0, 0, topP));
  auto f = frequencies(s, logits);
  for (auto &[id, freq] : f)
    EXPECT_TRUE(kept.count(id)) << "token " << id << " drawn but outside the top-p set";
  for (auto &[id, prob] : kept)
    EXPECT_NEAR(f[id], prob / mass, kFreqTol) << "token " << id;
}

TEST(SamplerTest, TopPKeepsTheMostLikelyToken) {
  for (double p : {0.01, 0.0}) { // top_p 0 keeps it too (min_tokens_to_keep)
    Sampler s(sampling(1.0, 0, p));
    auto f = frequencies(s, {0, 5, 1});
    EXPECT_EQ(f.size(), 1u) << p;
    EXPECT_EQ(f.count(1), 1u) << p;
  }
}

TEST(SamplerTest, TopPAfterTheTemperature) {
  // p = {0.5, 0.3, 0.2}; at temperature 0.5 they become {25, 9, 4} / 38 = {0.658, 0.237,
  // 0.105}: top_p 0.7 keeps two (the mass before the third is 0.895). Applied before the
  // temperature, top_p 0.7 would also keep two but {0.5, 0.3} -> {25, 9} / 34.
  // Top-p at 0.6 tells them apart: after the temperature one token (0.658 >= 0.6), before
  // it two (0.5 < 0.6).
  Sampler s(sampling(0.5, 0, 0.6));
  auto f = frequencies(s, {std::log(0.5f), std::log(0.3f), std::log(0.2f)});
  EXPECT_EQ(f.size(), 1u);
  EXPECT_EQ(f.count(0), 1u);
}

TEST(SamplerTest, TopPOverTheTopKSurvivors) {
  // Top-k 2 leaves {0.5, 0.3} -> {0.625, 0.375}; top-p 0.6 then keeps only the first
  // (0.625 >= 0.6). Over the whole vocabulary top-p 0.6 would keep two (0.5 < 0.6).
  Sampler s(sampling(1.0, 2, 0.6));
  auto f = frequencies(s, {std::log(0.5f), std::log(0.3f), std::log(0.2f)});
  EXPECT_EQ(f.size(), 1u);
  EXPECT_EQ(f.count(0), 1u);
}

TEST(SamplerTest, RepetitionPenaltyAppliesBeforeSamplingAndCountsThePrompt) {
  // Logits {ln 2, ln 2}: tied. Penalising token 0 (seen in the prompt) by 2 halves its
  // logit: ln 2 / 2 -> weights sqrt(2) : 2, so p(0) = 1.414 / 3.414 = 0.414.
  SamplingOptions o = sampling(1.0, 0, 1, 2.0);
  Sampler s(o);
  mm::rt::Tensor row = mm::rt::Tensor::host(mm::rt::DType::f32, {2});
  row.as<float>()[0] = row.as<float>()[1] = std::log(2.0f);
  std::map<int64_t, double> f;
  for (int i = 0; i < 40000; ++i)
    f[mm::rt::generation::sampleFromRow(s, row, {0}, {})] += 1.0 / 40000;
  EXPECT_NEAR(f[0], std::sqrt(2.0) / (std::sqrt(2.0) + 2), kFreqTol);
}

TEST(SamplerTest, TinyTemperaturesAreGreedyNotGarbage) {
  Sampler s(sampling(1e-38));
  std::vector<float> logits{1, 3, 2};
  EXPECT_EQ(s.next(logits, {}), 1);
}

TEST(SamplerTest, ASeedRepeatsTheDraws) {
  Sampler a(sampling(1.0)), b(sampling(1.0));
  for (int i = 0; i < 50; ++i) {
    std::vector<float> x{0, 0.5f, 1, 0.2f, 0.7f}, y(x);
    ASSERT_EQ(a.next(x, {}), b.next(y, {}));
  }
}

TEST(SamplerTest, BadOptionsAndLogitsAreErrors) {
  EXPECT_THROW(Sampler(sampling(-1)), mm::rt::Error);
  EXPECT_THROW(Sampler(sampling(NAN)), mm::rt::Error);
  EXPECT_THROW(Sampler(sampling(1, -1)), mm::rt::Error);
  EXPECT_THROW(Sampler(sampling(1, 0, -0.1)), mm::rt::Error);
  EXPECT_THROW(Sampler(sampling(1, 0, 1.5)), mm::rt::Error);
  EXPECT_THROW(Sampler(sampling(0, 0, 1, 0)), mm::rt::Error);
  Sampler s(sampling(1.0));
  std::vector<float> nan{0, NAN}, empty;
  EXPECT_THROW(s.next(nan, {}), mm::rt::Error);
  EXPECT_THROW(s.next(empty, {}), mm::rt::Error);
}

/// Byte-level-free vocabulary: each token is its text (a SentencePiece-style decoder
/// without the strip), so the stream's pieces are easy to follow.
const char *kWordsJson = R"({
  "decoder": {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
               {"type": "ByteFallback"}, {"type": "Fuse"}]},
  "added_tokens": [{"id": 0, "content": "</s>", "special": true, "normalized": false}],
  "model": {"type": "BPE", "byte_fallback": true,
            "vocab": {"</s>": 0, "▁Hello": 1, "▁wor": 2, "ld": 3, "▁END": 4, "!": 5, "<0xC3>": 6, "<0xA9>": 7},
            "merges": []}
})";

std::string streamed(mm::rt::TextStream &s, const std::vector<int64_t> &ids, std::vector<std::string> *pieces) {
  std::string all;
  for (int64_t id : ids) {
    std::string p = s.push(id);
    if (pieces)
      pieces->push_back(p);
    all += p;
  }
  return all + s.finish();
}

TEST(TextStreamTest, WithoutStopStringsEverythingIsEmittedAtOnce) {
  auto t = mm::rt::Tokenizer::fromJson(kWordsJson, "test");
  mm::rt::TextStream s(t, {});
  std::vector<std::string> pieces;
  EXPECT_EQ(streamed(s, {1, 2, 3, 0}, &pieces), " Hello world");
  EXPECT_EQ(pieces, (std::vector<std::string>{" Hello", " wor", "ld", ""})); // </s> skipped
}

TEST(TextStreamTest, AStopStringAcrossTokensEndsTheTextBeforeIt) {
  auto t = mm::rt::Tokenizer::fromJson(kWordsJson, "test");
  mm::rt::TextStream s(t, {"world"});
  std::vector<std::string> pieces;
  EXPECT_EQ(streamed(s, {1, 2, 3, 5}, &pieces), " Hello ");
  // " wor" may begin "world": held back; with "ld" the stop string is whole.
  EXPECT_EQ(pieces, (std::vector<std::string>{" Hello", " ", "", ""}));
  EXPECT_TRUE(s.stopped());
}

TEST(TextStreamTest, HeldBackTextThatIsNoStopStringIsEmittedLaterOrAtTheEnd) {
  auto t = mm::rt::Tokenizer::fromJson(kWordsJson, "test");
  mm::rt::TextStream s(t, {"world!"});
  EXPECT_EQ(s.push(2), " "); // "wor" held
  EXPECT_EQ(s.push(3), "");  // "world" held
  EXPECT_EQ(s.push(1), "world Hello");
  EXPECT_EQ(s.push(2), " ");
  EXPECT_EQ(s.finish(), "wor");
  EXPECT_FALSE(s.stopped());
  EXPECT_EQ(s.text(), " world Hello wor");
}

TEST(TextStreamTest, AStopStringWithAnAccentWaitsForTheWholeCharacter) {
  auto t = mm::rt::Tokenizer::fromJson(kWordsJson, "test");
  mm::rt::TextStream s(t, {"é!"});
  EXPECT_EQ(s.push(1), " Hello");
  EXPECT_EQ(s.push(6), ""); // half of é: nothing to show yet
  EXPECT_EQ(s.push(7), ""); // é may begin the stop string
  EXPECT_EQ(s.push(5), "");
  EXPECT_TRUE(s.stopped());
  EXPECT_EQ(s.push(4), "");
  EXPECT_EQ(s.text(), " Hello");
}

TEST(TextStreamTest, TheEarliestOfSeveralStopStringsWins) {
  auto t = mm::rt::Tokenizer::fromJson(kWordsJson, "test");
  // The last in the list appears first in the text: " " is emitted, "Hello" held back
  // (it begins "Hello wor"), then " wor" completes it.
  mm::rt::TextStream a(t, {"END", "ld!", "Hello wor"});
  EXPECT_EQ(streamed(a, {1, 2, 3, 5, 4}, nullptr), " ");
  EXPECT_TRUE(a.stopped());
  // Both in the pending text "world": "ld" (at 3) ends it, not "world!" (which would be
  // at 0 but is not complete).
  mm::rt::TextStream b(t, {"world!", "ld"});
  EXPECT_EQ(streamed(b, {1, 2, 3, 5}, nullptr), " Hello wor");
}

TEST(TextStreamTest, HoldingBackServesEveryStopString) {
  auto t = mm::rt::Tokenizer::fromJson(kWordsJson, "test");
  // " wor" may begin "world" (the second stop string): "wor" is held back although it
  // cannot begin "END"; " END" then stops the text after it.
  mm::rt::TextStream s(t, {"END", "world"});
  EXPECT_EQ(s.push(1), " Hello");
  EXPECT_EQ(s.push(2), " ");
  EXPECT_EQ(s.push(4), "wor ");
  EXPECT_TRUE(s.stopped());
}

TEST(TextStreamTest, EmptyOrInvalidStopStringsAreRefused) {
  auto t = mm::rt::Tokenizer::fromJson(kWordsJson, "test");
  EXPECT_THROW(mm::rt::TextStream(t, {""}), mm::rt::Error);
  EXPECT_THROW(mm::rt::TextStream(t, {"a\xff"}), mm::rt::Error);
}

} // namespace
