//===- TextMode.cpp - mmrun: images and text in, text out --------------------===//
//
// --prompt and --chat: the plan's processor (runtime/chat/Processor.h) renders the chat
// template, expands the image placeholders and tokenizes; the generator streams tokens,
// which TextStream turns into text (stop strings applied) printed as they come.
//
//===----------------------------------------------------------------------===//
#include "tools/mmrun/ReportingSession.h"

#include "runtime/chat/Processor.h"
#include "runtime/chat/TextStream.h"
#include "runtime/core/Error.h"
#include "runtime/exec/GenerationSteps.h"
#include "runtime/text/Unicode.h"

#include "llvm/Support/Format.h"

#include <iostream>

#include <sys/stat.h>

using namespace mm::rt;
using ojson = nlohmann::ordered_json;

namespace mmrun {

SamplingOptions SamplingOverrides::over(const GenerationDefaults &defaults) const {
  SamplingOptions d = defaults.choose(temperature);
  if (topK)
    d.topK = *topK;
  if (topP)
    d.topP = *topP;
  if (repetitionPenalty)
    d.repetitionPenalty = *repetitionPenalty;
  d.seed = seed;
  d.check();
  if ((topK || topP) && d.temperature == 0)
    llvm::errs() << "mmrun: warning: --top-k and --top-p apply to sampling; this generation is "
                    "greedy (give --temperature > 0, or a generation_config.json with do_sample)\n";
  return d;
}

namespace {

constexpr int64_t kDefaultMaxNewTokens = 256;

/// Throws naming `what` unless `text` is valid UTF-8.
void requireUtf8(const std::string &text, const char *what) {
  if (size_t bad = text::firstInvalidUtf8(text); bad != std::string::npos)
    fail(what, " is not valid UTF-8 (byte ", bad, ")");
}

/// One chat message. Processors with images take content as a list of parts
/// ({"type": "image"}, {"type": "text"}), as transformers' processors format it; text-only
/// tokenizer templates take a string.
ojson message(const std::string &role, const std::string &text, size_t images, bool parts) {
  if (!parts)
    return {{"role", role}, {"content", text}};
  ojson content = ojson::array();
  for (size_t i = 0; i < images; ++i)
    content.push_back({{"type", "image"}});
  content.push_back({{"type", "text"}, {"text", text}});
  return {{"role", role}, {"content", content}};
}

/// A conversation and what generates its replies.
class Conversation {
public:
  Conversation(std::shared_ptr<const Plan> plan, const TextOptions &o)
      : plan_(plan), o_(o), processor_(Processor::fromPlan(*plan)), gen_(plan, o.run) {
    const auto start = generation::Clock::now();
    for (const std::string &path : o.images) // one decoded image in memory at a time
      images_.push_back(processor_.processImage(decodeImageFile(path)));
    imageDecodeMs_ = generation::msSince(start);
    parts_ = processor_.hasImageProcessor();
    if (!o.system.empty()) {
      requireUtf8(o.system, "--system");
      if (!processor_.hasChatTemplate())
        fail("--system needs a chat template, and ", plan->origin(), " has none");
      messages_.push_back(message("system", o.system, 0, parts_));
    }
  }

  /// Adds the user's turn, generates the reply (streamed to `os`) and keeps it in the
  /// history.
  void turn(const std::string &text, llvm::raw_ostream &os) {
    requireUtf8(text, o_.chat && turns_ > 0 ? "the chat line" : "--prompt");
    const auto start = generation::Clock::now();
    const bool first = turns_++ == 0;
    const size_t images = first ? images_.size() : 0;
    std::string prompt;
    if (processor_.hasChatTemplate() && !o_.raw) {
      messages_.push_back(message("user", text, images, parts_));
      prompt = processor_.renderChat(messages_, /*addGenerationPrompt=*/true);
    } else {
      if (o_.chat)
        fail("--chat needs a chat template, and ", plan_->origin(), " has none; use --prompt");
      prompt = processor_.plainPrompt(text, images);
    }
    // A template renders the whole history, the first message's images included, so every
    // turn feeds them; a plain prompt holds them in its first turn only.
    const bool templated = processor_.hasChatTemplate() && !o_.raw;
    EncodedPrompt e = processor_.encode(prompt, templated || first ? images_ : std::vector<ProcessedImage>());
    GenerationOptions options = generationOptions(static_cast<int64_t>(e.ids.size()));
    TextStream stream(processor_.tokenizer(), o_.stops);
    options.onToken = [&](int64_t id) {
      std::string piece = stream.push(id);
      if (!o_.json) {
        os << piece;
        os.flush();
      }
      return !stream.stopped();
    };
    Tensor pixels;
    if (e.pixelValues.data)
      pixels = gen_.toVisionInput(e.pixelValues, plan_->origin() + ": the image processor");
    const Tensor *image = pixels.data ? &pixels : nullptr;
    const Tensor *grids = e.imageGridThw.data ? &e.imageGridThw : nullptr;
    // Template, tokenizer and image decoding and processing (the first turn: with the
    // images decoded at the start).
    const double preprocessMs = generation::msSince(start) + (first ? imageDecodeMs_ : 0);
    if (o_.warmup > 0) { // untimed runs with the same options, their text not shown
      GenerationOptions quiet = options;
      quiet.onToken = nullptr;
      for (int w = 0; w < o_.warmup; ++w)
        gen_.generate(image, grids, e.ids, quiet);
    }
    GenerationResult r = gen_.generate(image, grids, e.ids, options);
    std::string rest = stream.finish();
    const char *reason = stream.stopped() ? "stop string" : r.stoppedAtEos ? "eos" : "length";
    if (processor_.hasChatTemplate() && !o_.raw)
      messages_.push_back(message("assistant", stream.text(), 0, parts_));
    if (o_.json) {
      ojson j = gen_.statsJson(r);
      j["text"] = stream.text();
      j["tokens"] = r.tokens;
      j["finish_reason"] = std::string(reason) == "length" ? "length" : "stop";
      j["stop_reason"] = reason;
      j["prompt"] = e.text;
      j["prompt_ids"] = e.ids;
      j["prompt_tokens"] = r.promptTokens;
      j["image_features"] = r.imageFeatureCount;
      j["timing"]["preprocess_ms"] = preprocessMs;
      j["device"] = o_.run.device;
      os << j.dump() << "\n";
    } else {
      os << rest << "\n";
      os.flush();
      llvm::errs() << llvm::format("mmrun: %lld prompt tokens, %lld new tokens (%s); time to "
                                   "first token %.2f ms, decode %.2f tokens/s\n",
                                   static_cast<long long>(r.promptTokens),
                                   static_cast<long long>(r.tokens.size()), reason, r.ttftMs,
                                   r.decodeTokensPerSecond);
    }
    if (o_.run.profile)
      gen_.printProfiles(llvm::errs());
  }

private:
  /// The generation options for a prompt of `promptTokens`: the request's, with the new
  /// tokens cut to what the context leaves.
  GenerationOptions generationOptions(int64_t promptTokens) const {
    const GenerationInfo &g = gen_.info();
    const GenerationDefaults &d = processor_.generationDefaults();
    GenerationOptions options;
    options.sampling = o_.sampling.over(d);
    options.kvCapacity = o_.kvCapacity;
    options.ignoreEos = o_.ignoreEos;
    int64_t maxNew = o_.maxNewTokens ? *o_.maxNewTokens
                                     : (d.maxNewTokens > 0 ? d.maxNewTokens : kDefaultMaxNewTokens);
    if (g.maxPositions > 0) {
      if (promptTokens > g.maxPositions)
        fail("the prompt is ", generation::counted(promptTokens, "token"), "; the model's context ",
             "holds ", g.maxPositions, " positions (max_position_embeddings)");
      const int64_t room = generation::newTokensThatFit(promptTokens, g.maxPositions);
      if (maxNew > room) {
        llvm::errs() << "mmrun: note: " << generation::counted(maxNew, "new token") << " "
                     << (o_.maxNewTokens ? "asked" : "by default") << ", " << room
                     << " fit the model's context of " << g.maxPositions
                     << " positions after the prompt\n";
        maxNew = room;
      }
    }
    options.maxNewTokens = maxNew;
    return options;
  }

  std::shared_ptr<const Plan> plan_;
  const TextOptions &o_;
  Processor processor_;
  ReportingSession gen_;
  std::vector<ProcessedImage> images_;
  ojson messages_ = ojson::array();
  bool parts_ = false;
  int turns_ = 0;
  double imageDecodeMs_ = 0;
};

} // namespace

int runText(std::shared_ptr<const Plan> plan, const TextOptions &o, llvm::raw_ostream &os) {
  Conversation session(plan, o);
  if (!o.chat) {
    session.turn(o.prompt, os);
    return 0;
  }
  // One user turn per line of stdin; an empty line is skipped; end of input ends the chat.
  struct stat in;
  if (fstat(0, &in) == 0 && S_ISDIR(in.st_mode))
    fail("--chat: stdin is a directory; give the user's lines on stdin");
  if (!o.prompt.empty())
    session.turn(o.prompt, os);
  std::string line;
  while (true) {
    llvm::errs() << "> ";
    llvm::errs().flush();
    if (!std::getline(std::cin, line))
      break;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.empty())
      continue;
    session.turn(line, os);
  }
  if (std::cin.bad())
    fail("--chat: reading stdin failed");
  llvm::errs() << "\n";
  return 0;
}

int runTokenizer(const Plan &plan, const std::string *tokenize, const std::string *detokenize,
                 llvm::raw_ostream &os) {
  const Processor processor = Processor::fromPlan(plan);
  const Tokenizer &tokenizer = processor.tokenizer();
  if (tokenize) {
    nlohmann::json ids = tokenizer.encode(*tokenize, /*addSpecialTokens=*/true);
    os << ids.dump() << "\n";
  }
  if (detokenize) {
    std::vector<int32_t> ids;
    for (int64_t id : parseIds(*detokenize, "--detokenize")) {
      if (id >= tokenizer.vocabSize())
        fail("--detokenize: token id ", id, " is outside the tokenizer's ", tokenizer.vocabSize(), " ids");
      ids.push_back(static_cast<int32_t>(id));
    }
    os << tokenizer.decode(ids, /*skipSpecialTokens=*/false) << "\n";
  }
  return 0;
}

} // namespace mmrun
