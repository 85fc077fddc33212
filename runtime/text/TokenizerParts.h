//===- TokenizerParts.h - tokenizer.json's pipeline stages (private) ---------===//
//
// The stages of HF `tokenizers` (https://huggingface.co/docs/tokenizers/components) that
// the supported vocabularies use, parsed from their tokenizer.json objects:
//   - normalizers: Sequence, NFC, Prepend, Replace;
//   - pre-tokenizers: Sequence, Split (String or Regex pattern; behaviours Removed,
//     Isolated, MergedWithPrevious, MergedWithNext, Contiguous; invert), ByteLevel
//     (add_prefix_space, use_regex with GPT-2's pattern);
//   - decoders: Sequence, Replace, ByteFallback, Fuse, Strip, ByteLevel.
// Any other type is refused with an error naming it and the supported ones. Regexes are
// PCRE2's with UTF and Unicode properties (\s, \p{L}, \p{N} as in Oniguruma, which
// `tokenizers` uses).
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_TEXT_TOKENIZERPARTS_H
#define MM_RUNTIME_TEXT_TOKENIZERPARTS_H

#include "runtime/io/JsonFields.h"

#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mm::rt::text {

// tokenizer.json fields are read with runtime/io/JsonFields.h.
using io::optionalBool;
using io::optionalString;
using io::requiredField;
using io::requiredString;

/// A compiled PCRE2 pattern (UTF, UCP). Matching needs valid UTF-8 (not checked again).
class Regex {
public:
  Regex(const std::string &pattern, const std::string &what);
  /// The non-overlapping matches [begin, end) of `s`, left to right; empty matches skipped.
  std::vector<std::pair<size_t, size_t>> findAll(std::string_view s) const;

private:
  std::shared_ptr<void> code_;
  std::string what_;
};

/// A tokenizers "pattern": {"String": s} (literal) or {"Regex": r}.
class Pattern {
public:
  Pattern(const nlohmann::json &j, const std::string &what);
  std::vector<std::pair<size_t, size_t>> findAll(std::string_view s) const;

private:
  std::string literal_;
  std::shared_ptr<Regex> regex_;
};

/// Rewrites one string in place.
using Normalizer = std::function<void(std::string &)>;
/// Splits each string of a list into pieces (empty pieces dropped).
using PreTokenizer = std::function<void(std::vector<std::string> &)>;
/// Rewrites the list of token strings (tokenizers' Decoder::decode_chain).
using Decoder = std::function<void(std::vector<std::string> &)>;

/// From tokenizer.json's "normalizer" / "pre_tokenizer" / "decoder" objects (not null);
/// `what` (e.g. "tokenizer.json normalizer") names the object in errors.
Normalizer parseNormalizer(const nlohmann::json &j, const std::string &what);
PreTokenizer parsePreTokenizer(const nlohmann::json &j, const std::string &what);
Decoder parseDecoder(const nlohmann::json &j, const std::string &what);

/// GPT-2's byte-to-unicode table: the character standing for each byte in byte-level
/// vocabularies (UTF-8), and back (-1: not a byte-level character).
const std::string &byteLevelChar(unsigned char byte);
int byteOfByteLevelChar(char32_t c);

} // namespace mm::rt::text

#endif
