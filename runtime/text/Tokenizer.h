//===- Tokenizer.h - the HF tokenizer.json tokenizer ---------------------------===//
//
// Encodes text to token ids and decodes ids to text as HF `tokenizers` (0.23) does for a
// tokenizer.json (https://huggingface.co/docs/tokenizers/api/tokenizer), for the BPE
// vocabularies of the supported decoders: byte-level BPE with a Split regex (Llama-3,
// Qwen2/3) and SentencePiece-style BPE with byte fallback (Llama-2, Vicuna, Mistral).
// Encoding runs tokenizers' pipeline:
//   1. added tokens with "normalized": false are cut out of the raw text (leftmost, then
//      longest match; single_word, lstrip and rstrip as tokenizers applies them);
//   2. each remaining piece is normalised, and added tokens with "normalized": true are
//      cut out of it;
//   3. the pre-tokenizer splits each piece into words, which the BPE model tokenizes;
//   4. with addSpecialTokens, the TemplateProcessing post-processor adds its special
//      tokens (e.g. Llama-2's <s>).
// Decoding maps ids to token strings (added tokens by content; ids with no token are
// skipped, as tokenizers does) and runs the decoder.
// The stages supported are listed in TokenizerParts.h; anything else in the file is
// refused when it is loaded, with an error naming it. "truncation" and "padding" are
// ignored: callers check lengths against the model's context themselves.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_TEXT_TOKENIZER_H
#define MM_RUNTIME_TEXT_TOKENIZER_H

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mm::rt {

class Tokenizer {
public:
  /// Parses tokenizer.json text; `what` (e.g. its path) names it in errors (mm::rt::Error).
  static Tokenizer fromJson(const std::string &json, const std::string &what);
  /// Reads and parses a tokenizer.json file.
  static Tokenizer fromFile(const std::string &path);

  /// The ids of `text` (UTF-8; invalid UTF-8 is an error naming the byte offset).
  std::vector<int32_t> encode(std::string_view text, bool addSpecialTokens) const;
  /// The text of `ids`; with skipSpecialTokens, special added tokens are left out. Always
  /// valid UTF-8 (byte sequences that do not form a character become U+FFFD).
  std::string decode(const std::vector<int32_t> &ids, bool skipSpecialTokens) const;

  /// The id of a token string (added tokens first, then the model's vocabulary).
  std::optional<int32_t> tokenId(std::string_view token) const;
  /// The token string of an id, or nullopt when there is none.
  std::optional<std::string> token(int32_t id) const;
  /// Whether `id` is a special added token.
  bool isSpecial(int32_t id) const;
  /// One past the largest id, added tokens included.
  int64_t vocabSize() const;

  Tokenizer(Tokenizer &&) noexcept;
  Tokenizer &operator=(Tokenizer &&) noexcept;
  ~Tokenizer();

private:
  struct Impl;
  explicit Tokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Incremental decoding for streaming generated text, as tokenizers' DecodeStream: each
/// step decodes the ids since a recent prefix and emits the new text only once it does
/// not end in U+FFFD, so a character split over several byte tokens is emitted whole and
/// decoders that look at the first token (Strip, ByteLevel prefix space) behave as in
/// one decode of the whole sequence.
class StreamDecoder {
public:
  StreamDecoder(const Tokenizer &tokenizer, bool skipSpecialTokens)
      : tokenizer_(tokenizer), skipSpecial_(skipSpecialTokens) {}
  /// The text that `id` completes (often empty while a character is incomplete).
  std::string step(int32_t id);
  /// What is left at the end of generation (an incomplete character as U+FFFD).
  std::string finish();

private:
  const Tokenizer &tokenizer_;
  bool skipSpecial_;
  std::vector<int32_t> ids_;
  std::string prefix_;
  size_t prefixIndex_ = 0;
};

} // namespace mm::rt

#endif
