//===- TokenizerParts.cpp - tokenizer.json's pipeline stages -----------------===//
//
// Each stage follows the Rust source of HF `tokenizers` 0.23 (tokenizers/src/normalizers,
// pre_tokenizers, decoders and tokenizer/normalizer.rs for the split behaviours).
//
//===----------------------------------------------------------------------===//
#include "runtime/text/TokenizerParts.h"

#include "runtime/core/Error.h"
#include "runtime/text/Unicode.h"

#include <nlohmann/json.hpp>
#include <pcre2.h>

#include <array>

namespace mm::rt::text {
using json = nlohmann::json;

namespace {

std::string typeOf(const json &j, const std::string &what) { return requiredString(j, "type", what); }

/// The PCRE2 match context with a JIT stack large enough for long whitespace runs (the
/// default 32 KiB is not), one per thread.
pcre2_match_context *matchContext() {
  struct Context {
    pcre2_jit_stack *stack = pcre2_jit_stack_create(32 * 1024, 16 * 1024 * 1024, nullptr);
    pcre2_match_context *context = pcre2_match_context_create(nullptr);
    Context() { pcre2_jit_stack_assign(context, nullptr, stack); }
    ~Context() {
      pcre2_match_context_free(context);
      pcre2_jit_stack_free(stack);
    }
  };
  thread_local Context c;
  return c.context;
}

std::string pcre2Message(int code) {
  PCRE2_UCHAR buffer[256];
  pcre2_get_error_message(code, buffer, sizeof(buffer));
  return reinterpret_cast<const char *>(buffer);
}

bool isGeneralCategory(const std::string &name) {
  static const char *const names[] = {"C",  "Cc", "Cf", "Cn", "Co", "Cs", "L",  "L&", "Ll", "Lm", "Lo", "Lt", "Lu",
                                      "M",  "Mc", "Me", "Mn", "N",  "Nd", "Nl", "No", "P",  "Pc", "Pd", "Pe", "Pf",
                                      "Pi", "Po", "Ps", "S",  "Sc", "Sk", "Sm", "So", "Z",  "Zl", "Zp", "Zs", "Any"};
  for (const char *n : names)
    if (name == n)
      return true;
  return false;
}

/// Oniguruma's \p{Han} is the Script property; PCRE2's (since 10.40) is
/// Script_Extensions, which also takes e.g. U+3002 IDEOGRAPHIC FULL STOP. Rewrites each
/// \p{X} / \P{X} that is not a general category to \p{sc:X}.
std::string scriptPropertiesAsScript(const std::string &pattern) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    out += pattern[i];
    if (pattern[i] != '\\' || i + 1 >= pattern.size())
      continue;
    char next = pattern[++i];
    out += next;
    size_t close = pattern.find('}', i);
    if ((next != 'p' && next != 'P') || i + 1 >= pattern.size() || pattern[i + 1] != '{' || close == std::string::npos)
      continue;
    std::string name = pattern.substr(i + 2, close - i - 2);
    out += "{" + (isGeneralCategory(name) || name.find(':') != std::string::npos ? name : "sc:" + name) + "}";
    i = close;
  }
  return out;
}

} // namespace

Regex::Regex(const std::string &source, const std::string &what) : what_(what) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  std::string pattern = scriptPropertiesAsScript(source);
  pcre2_code *code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                   PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
  if (!code)
    fail(what, ": regex '", source, "' does not compile at offset ", offset, ": ", pcre2Message(error));
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE); // without JIT, pcre2_match interprets
  code_ = std::shared_ptr<void>(code, [](void *p) { pcre2_code_free(static_cast<pcre2_code *>(p)); });
}

std::vector<std::pair<size_t, size_t>> Regex::findAll(std::string_view s) const {
  auto *code = static_cast<pcre2_code *>(code_.get());
  std::unique_ptr<pcre2_match_data, void (*)(pcre2_match_data *)> data(
      pcre2_match_data_create_from_pattern(code, nullptr), pcre2_match_data_free);
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t pos = 0; pos <= s.size();) {
    int rc = pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(s.data()), s.size(), pos, PCRE2_NO_UTF_CHECK,
                         data.get(), matchContext());
    if (rc == PCRE2_ERROR_NOMATCH)
      break;
    if (rc < 0)
      fail(what_, ": regex match failed: ", pcre2Message(rc));
    const PCRE2_SIZE *ovector = pcre2_get_ovector_pointer(data.get());
    size_t begin = ovector[0], end = ovector[1];
    if (begin == end) { // an empty match: look again one character on
      if (begin >= s.size())
        break;
      pos = begin + utf8Length(static_cast<unsigned char>(s[begin]));
      continue;
    }
    out.emplace_back(begin, end);
    pos = end;
  }
  return out;
}

Pattern::Pattern(const json &j, const std::string &what) {
  if (j.is_object() && j.contains("String") && j.at("String").is_string()) {
    literal_ = j.at("String").get<std::string>();
    if (literal_.empty())
      fail(what, ": empty String pattern");
  } else if (j.is_object() && j.contains("Regex") && j.at("Regex").is_string()) {
    regex_ = std::make_shared<Regex>(j.at("Regex").get<std::string>(), what);
  } else {
    fail(what, ": pattern is neither {\"String\": ...} nor {\"Regex\": ...}");
  }
}

std::vector<std::pair<size_t, size_t>> Pattern::findAll(std::string_view s) const {
  if (regex_)
    return regex_->findAll(s);
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t at = s.find(literal_); at != std::string_view::npos; at = s.find(literal_, at + literal_.size()))
    out.emplace_back(at, at + literal_.size());
  return out;
}

namespace {

std::string replaceAll(const std::string &s, const Pattern &pattern, const std::string &content) {
  std::string out;
  size_t last = 0;
  for (auto [b, e] : pattern.findAll(s)) {
    out.append(s, last, b - last);
    out += content;
    last = e;
  }
  out.append(s, last, std::string::npos);
  return out;
}

//===-- Split behaviours (NormalizedString::split) ----------------------------===//

struct Span {
  size_t begin, end;
  bool isMatch;
};

enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

Behavior parseBehavior(const std::string &name, const std::string &what) {
  if (name == "Removed")
    return Behavior::Removed;
  if (name == "Isolated")
    return Behavior::Isolated;
  if (name == "MergedWithPrevious")
    return Behavior::MergedWithPrevious;
  if (name == "MergedWithNext")
    return Behavior::MergedWithNext;
  if (name == "Contiguous")
    return Behavior::Contiguous;
  fail(what, ": unknown split behavior '", name,
       "' (Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous)");
}

/// `s` cut into matches and the gaps between them, in order.
std::vector<Span> spans(std::string_view s, const std::vector<std::pair<size_t, size_t>> &matches, bool invert) {
  std::vector<Span> out;
  size_t last = 0;
  for (auto [b, e] : matches) {
    if (b > last)
      out.push_back({last, b, invert});
    out.push_back({b, e, !invert});
    last = e;
  }
  if (last < s.size())
    out.push_back({last, s.size(), invert});
  return out;
}

/// Merges matches into their neighbour as `behavior` says (the folds of normalizer.rs).
std::vector<Span> applyBehavior(std::vector<Span> in, Behavior behavior) {
  std::vector<Span> out;
  switch (behavior) {
  case Behavior::Removed:
    for (const Span &s : in)
      if (!s.isMatch)
        out.push_back(s);
    return out;
  case Behavior::Isolated:
    return in;
  case Behavior::MergedWithPrevious: {
    bool previousMatch = false;
    for (const Span &s : in) {
      if (s.isMatch && !previousMatch && !out.empty())
        out.back().end = s.end;
      else
        out.push_back(s);
      previousMatch = s.isMatch;
    }
    return out;
  }
  case Behavior::MergedWithNext: {
    bool previousMatch = false;
    for (auto it = in.rbegin(); it != in.rend(); ++it) {
      if (it->isMatch && !previousMatch && !out.empty())
        out.back().begin = it->begin;
      else
        out.push_back(*it);
      previousMatch = it->isMatch;
    }
    return {out.rbegin(), out.rend()};
  }
  case Behavior::Contiguous: {
    int previous = -1;
    for (const Span &s : in) {
      if (previous == int(s.isMatch) && !out.empty())
        out.back().end = s.end;
      else
        out.push_back(s);
      previous = int(s.isMatch);
    }
    return out;
  }
  }
  return out;
}

void splitEach(std::vector<std::string> &splits, const Pattern &pattern, Behavior behavior, bool invert) {
  std::vector<std::string> out;
  for (const std::string &s : splits)
    for (const Span &span : applyBehavior(spans(s, pattern.findAll(s), invert), behavior))
      if (span.end > span.begin)
        out.push_back(s.substr(span.begin, span.end - span.begin));
  splits = std::move(out);
}

//===-- Byte-level alphabet (GPT-2's bytes_to_unicode) -------------------------===//

struct ByteLevelTable {
  std::array<std::string, 256> charOf;
  std::array<int, 324> byteOf; // code points below 256 + 68
  ByteLevelTable() {
    byteOf.fill(-1);
    int next = 256;
    for (int b = 0; b < 256; ++b) {
      bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      char32_t c = printable ? char32_t(b) : char32_t(next++);
      appendUtf8(charOf[b], c);
      byteOf[c] = b;
    }
  }
};

const ByteLevelTable &byteLevelTable() {
  static const ByteLevelTable table;
  return table;
}

/// GPT-2's pre-tokenization pattern (ByteLevel with use_regex).
const Pattern &gpt2Pattern() {
  static const Pattern pattern(
      json{{"Regex", R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)"}},
      "GPT-2 pattern");
  return pattern;
}

std::string toByteLevel(const std::string &s) {
  std::string out;
  for (unsigned char b : s)
    out += byteLevelTable().charOf[b];
  return out;
}

} // namespace

const std::string &byteLevelChar(unsigned char byte) { return byteLevelTable().charOf[byte]; }

int byteOfByteLevelChar(char32_t c) { return c < 324 ? byteLevelTable().byteOf[c] : -1; }

//===-- Normalizers ------------------------------------------------------------===//

namespace {

/// A "Sequence" stage: the stages of list `key` applied in order.
template <typename Stage>
Stage sequenceOf(const json &j, const char *key, const std::string &what,
                     Stage (*parse)(const json &, const std::string &)) {
  const json &list = requiredField(j, key, what);
  if (!list.is_array())
    fail(what, ": \"", key, "\" is not a list");
  std::vector<Stage> parts;
  for (size_t i = 0; i < list.size(); ++i)
    parts.push_back(parse(list[i], what + "[" + std::to_string(i) + "]"));
  return [parts](auto &value) {
    for (const Stage &stage : parts)
      stage(value);
  };
}

} // namespace

Normalizer parseNormalizer(const json &j, const std::string &what) {
  std::string type = typeOf(j, what);
  if (type == "Sequence")
    return sequenceOf<Normalizer>(j, "normalizers", what, parseNormalizer);
  if (type == "NFC")
    return [](std::string &s) { s = toNfc(s); };
  if (type == "Prepend") {
    std::string prepend = requiredString(j, "prepend", what);
    return [prepend](std::string &s) {
      if (!s.empty())
        s.insert(0, prepend);
    };
  }
  if (type == "Replace") {
    auto pattern = std::make_shared<Pattern>(requiredField(j, "pattern", what), what);
    std::string content = requiredString(j, "content", what);
    return [pattern, content](std::string &s) { s = replaceAll(s, *pattern, content); };
  }
  fail(what, ": normalizer type '", type, "' is not supported (Sequence, NFC, Prepend, Replace)");
}

//===-- Pre-tokenizers ---------------------------------------------------------===//

PreTokenizer parsePreTokenizer(const json &j, const std::string &what) {
  std::string type = typeOf(j, what);
  if (type == "Sequence")
    return sequenceOf<PreTokenizer>(j, "pretokenizers", what, parsePreTokenizer);
  if (type == "Split") {
    auto pattern = std::make_shared<Pattern>(requiredField(j, "pattern", what), what);
    Behavior behavior = parseBehavior(requiredString(j, "behavior", what), what);
    bool invert = optionalBool(j, "invert", false, what);
    return [pattern, behavior, invert](std::vector<std::string> &splits) {
      splitEach(splits, *pattern, behavior, invert);
    };
  }
  if (type == "ByteLevel") {
    bool addPrefixSpace = optionalBool(j, "add_prefix_space", true, what);
    bool useRegex = optionalBool(j, "use_regex", true, what);
    return [addPrefixSpace, useRegex](std::vector<std::string> &splits) {
      if (addPrefixSpace)
        for (std::string &s : splits)
          if (s.empty() || s[0] != ' ')
            s.insert(0, " ");
      if (useRegex)
        splitEach(splits, gpt2Pattern(), Behavior::Isolated, false);
      for (std::string &s : splits)
        s = toByteLevel(s);
    };
  }
  fail(what, ": pre-tokenizer type '", type, "' is not supported (Sequence, Split, ByteLevel)");
}

//===-- Decoders ---------------------------------------------------------------===//

namespace {

/// "<0xAB>" -> 0xAB; -1 for any other token.
int byteFallbackValue(const std::string &token) {
  if (token.size() != 6 || token.compare(0, 3, "<0x") != 0 || token[5] != '>')
    return -1;
  auto hex = [](char c) {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    return -1;
  };
  int hi = hex(token[3]), lo = hex(token[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

void byteFallback(std::vector<std::string> &tokens) {
  std::vector<std::string> out;
  std::string bytes;
  auto flush = [&] {
    if (bytes.empty())
      return;
    if (firstInvalidUtf8(bytes) == std::string::npos)
      out.push_back(bytes);
    else
      out.insert(out.end(), bytes.size(), "\xEF\xBF\xBD"); // one U+FFFD per byte token
    bytes.clear();
  };
  for (std::string &t : tokens) {
    int b = byteFallbackValue(t);
    if (b >= 0) {
      bytes += char(b);
      continue;
    }
    flush();
    out.push_back(std::move(t));
  }
  flush();
  tokens = std::move(out);
}

/// Strip: up to `start` leading and `stop` trailing `content` characters off each token.
void strip(std::vector<std::string> &tokens, char32_t content, size_t start, size_t stop) {
  for (std::string &t : tokens) {
    std::vector<char32_t> chars;
    for (size_t i = 0; i < t.size();)
      chars.push_back(nextCodePoint(t, i));
    size_t begin = 0, end = chars.size();
    while (begin < start && begin < chars.size() && chars[begin] == content)
      ++begin;
    for (size_t i = 0; i < stop && end > begin && chars[end - 1] == content; ++i)
      --end;
    std::string out;
    for (size_t i = begin; i < end; ++i)
      appendUtf8(out, chars[i]);
    t = std::move(out);
  }
}

/// ByteLevel: every token's characters back to bytes (a token with a character outside
/// the alphabet keeps its UTF-8 bytes), all joined, then decoded lossily.
void byteLevelDecode(std::vector<std::string> &tokens) {
  std::string bytes;
  for (const std::string &t : tokens) {
    std::string own;
    bool mapped = true;
    for (size_t i = 0; i < t.size() && mapped;) {
      int b = byteOfByteLevelChar(nextCodePoint(t, i));
      mapped = b >= 0;
      own += char(b);
    }
    bytes += mapped ? own : t;
  }
  tokens.assign(1, lossyUtf8(bytes));
}

size_t countField(const json &j, const char *name, const std::string &what) {
  const json &v = requiredField(j, name, what);
  if (!v.is_number_unsigned())
    fail(what, ": \"", name, "\" is not a non-negative integer");
  return v.get<size_t>();
}

} // namespace

Decoder parseDecoder(const json &j, const std::string &what) {
  std::string type = typeOf(j, what);
  if (type == "Sequence")
    return sequenceOf<Decoder>(j, "decoders", what, parseDecoder);
  if (type == "Replace") {
    auto pattern = std::make_shared<Pattern>(requiredField(j, "pattern", what), what);
    std::string content = requiredString(j, "content", what);
    return [pattern, content](std::vector<std::string> &tokens) {
      for (std::string &t : tokens)
        t = replaceAll(t, *pattern, content);
    };
  }
  if (type == "ByteFallback")
    return byteFallback;
  if (type == "Fuse")
    return [](std::vector<std::string> &tokens) {
      std::string all;
      for (const std::string &t : tokens)
        all += t;
      tokens.assign(1, all);
    };
  if (type == "Strip") {
    std::string content = requiredString(j, "content", what);
    size_t i = 0;
    char32_t c = content.empty() || firstInvalidUtf8(content) != std::string::npos ? 0 : nextCodePoint(content, i);
    if (content.empty() || i != content.size())
      fail(what, ": Strip content '", content, "' is not one character");
    size_t start = countField(j, "start", what), stop = countField(j, "stop", what);
    return [c, start, stop](std::vector<std::string> &tokens) { strip(tokens, c, start, stop); };
  }
  if (type == "ByteLevel")
    return byteLevelDecode;
  fail(what, ": decoder type '", type, "' is not supported (Sequence, Replace, ByteFallback, Fuse, Strip, ByteLevel)");
}

} // namespace mm::rt::text
