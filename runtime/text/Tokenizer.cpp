//===- Tokenizer.cpp - the HF tokenizer.json tokenizer -------------------------===//
//
// Follows tokenizers/src/tokenizer (mod.rs: encode_single_sequence, decode;
// added_vocabulary.rs: extract_and_normalize, find_matches; processors/template.rs).
//
//===----------------------------------------------------------------------===//
#include "runtime/text/Tokenizer.h"

#include "runtime/core/Error.h"
#include "runtime/io/FileUtil.h"
#include "runtime/text/Bpe.h"
#include "runtime/text/TokenizerParts.h"
#include "runtime/text/Unicode.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <unordered_map>

namespace mm::rt {
using json = nlohmann::json;
using namespace text;

namespace {

/// An entry of "added_tokens".
struct AddedToken {
  std::string content;
  int32_t id = 0;
  bool singleWord = false, lstrip = false, rstrip = false, normalized = false, special = false;
};

/// A piece of the input: text still to tokenize, or an added token already matched.
struct Piece {
  std::string text;
  int32_t id = -1;
};

/// Leftmost-longest matching of added-token contents (tokenizers uses Aho-Corasick with
/// MatchKind::LeftmostLongest): the contents in a hash map, and per first byte the
/// distinct content lengths, longest first, so a position costs one lookup per length
/// (vocabularies with tens of thousands of added tokens share a few lengths).
class AddedTokenMatcher {
public:
  /// Adds `pattern` (not empty) for token index `token`; the first added wins a duplicate.
  void add(const std::string &pattern, size_t token) {
    if (!tokens_.emplace(pattern, token).second)
      return;
    auto &lengths = lengthsByFirstByte_[static_cast<unsigned char>(pattern[0])];
    auto at = std::lower_bound(lengths.begin(), lengths.end(), pattern.size(), std::greater<size_t>());
    if (at == lengths.end() || *at != pattern.size())
      lengths.insert(at, pattern.size());
  }
  bool empty() const { return tokens_.empty(); }
  /// The first match at or after `from`: {begin, end, token index}; begin = npos if none.
  std::tuple<size_t, size_t, size_t> find(std::string_view s, size_t from) const {
    for (size_t p = from; p < s.size(); ++p)
      for (size_t length : lengthsByFirstByte_[static_cast<unsigned char>(s[p])]) {
        if (length > s.size() - p)
          continue;
        auto it = tokens_.find(std::string(s.substr(p, length)));
        if (it != tokens_.end())
          return {p, p + length, it->second};
      }
    return {std::string_view::npos, 0, 0};
  }

private:
  std::unordered_map<std::string, size_t> tokens_;
  std::array<std::vector<size_t>, 256> lengthsByFirstByte_;
};

char32_t lastChar(std::string_view s) {
  size_t i = s.size();
  while (i > 0 && (static_cast<unsigned char>(s[i - 1]) & 0xC0) == 0x80)
    --i;
  if (i > 0)
    --i;
  return nextCodePoint(s, i);
}

/// space_leftmost_at_end: where the run of whitespace ending `s` starts.
size_t whitespaceRunStartAtEnd(std::string_view s) {
  size_t start = s.size();
  while (start > 0) {
    size_t i = start - 1;
    while (i > 0 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80)
      --i;
    size_t j = i;
    if (!isWhitespace(nextCodePoint(s, j)))
      break;
    start = i;
  }
  return start;
}

/// space_rightmost_at_start: the length of the run of whitespace starting `s`.
size_t whitespaceRunAtStart(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    size_t j = i;
    if (!isWhitespace(nextCodePoint(s, j)))
      break;
    i = j;
  }
  return i;
}

/// One item of the TemplateProcessing "single" template: the sequence, or special ids.
struct TemplateItem {
  bool isSequence = false;
  std::vector<int32_t> ids;
};

} // namespace

struct Tokenizer::Impl {
  std::string what;
  std::optional<Normalizer> normalizer;
  std::optional<PreTokenizer> preTokenizer;
  std::optional<BpeModel> model;
  std::optional<Decoder> decoder;
  std::vector<TemplateItem> single; ///< empty: no special tokens are added
  std::vector<AddedToken> added;
  std::unordered_map<int32_t, size_t> addedById;
  std::unordered_map<std::string, size_t> addedByContent;
  AddedTokenMatcher rawMatcher, normalizedMatcher;

  void parseAddedTokens(const json &list);
  void parsePostProcessor(const json &j, const std::string &where);
  std::vector<Piece> splitOnAddedTokens(const std::string &s, const AddedTokenMatcher &matcher) const;
};

void Tokenizer::Impl::parseAddedTokens(const json &list) {
  if (list.is_null())
    return;
  if (!list.is_array())
    fail(what, ": \"added_tokens\" is not a list");
  for (size_t i = 0; i < list.size(); ++i) {
    const json &t = list[i];
    std::string where = what + ": added_tokens[" + std::to_string(i) + "]";
    if (!t.is_object() || !t.contains("content") || !t.at("content").is_string() || !t.contains("id") ||
        !t.at("id").is_number_integer() || t.at("id").get<int64_t>() < 0 || t.at("id").get<int64_t>() >= (1 << 30))
      fail(where, ": needs a string \"content\" and an id in [0, 2^30)");
    AddedToken a;
    a.content = t.at("content").get<std::string>();
    if (a.content.empty())
      fail(where, ": empty content");
    a.id = static_cast<int32_t>(t.at("id").get<int64_t>());
    a.singleWord = optionalBool(t, "single_word", false, where);
    a.lstrip = optionalBool(t, "lstrip", false, where);
    a.rstrip = optionalBool(t, "rstrip", false, where);
    a.normalized = optionalBool(t, "normalized", true, where);
    a.special = optionalBool(t, "special", false, where);
    addedById[a.id] = added.size();
    addedByContent[a.content] = added.size();
    added.push_back(a);
  }
  // tokenizers matches "normalized" tokens by their own normalised content.
  for (size_t i = 0; i < added.size(); ++i) {
    if (!added[i].normalized) {
      rawMatcher.add(added[i].content, i);
      continue;
    }
    std::string pattern = added[i].content;
    if (normalizer)
      (*normalizer)(pattern);
    if (!pattern.empty())
      normalizedMatcher.add(pattern, i);
  }
}

void Tokenizer::Impl::parsePostProcessor(const json &j, const std::string &where) {
  if (j.is_null())
    return;
  std::string type = j.is_object() && j.contains("type") && j.at("type").is_string() ? j.at("type").get<std::string>() : "";
  if (type == "ByteLevel") // changes offsets only
    return;
  if (type == "Sequence") {
    const json &list = j.contains("processors") ? j.at("processors") : json();
    if (!list.is_array())
      fail(where, ": \"processors\" is not a list");
    for (size_t i = 0; i < list.size(); ++i)
      parsePostProcessor(list[i], where + "[" + std::to_string(i) + "]");
    return;
  }
  if (type != "TemplateProcessing")
    fail(where, ": post-processor type '", type, "' is not supported (TemplateProcessing, ByteLevel, Sequence)");
  if (!single.empty())
    fail(where, ": more than one TemplateProcessing");
  const json &items = j.contains("single") ? j.at("single") : json();
  const json &specials = j.contains("special_tokens") ? j.at("special_tokens") : json::object();
  if (!items.is_array() || !specials.is_object())
    fail(where, ": needs a \"single\" list and a \"special_tokens\" object");
  for (const json &item : items) {
    TemplateItem t;
    if (item.contains("Sequence")) {
      if (item.at("Sequence").value("id", "") != "A")
        fail(where, ": the single template refers to a sequence other than A");
      t.isSequence = true;
    } else if (item.contains("SpecialToken") && item.at("SpecialToken").contains("id") &&
               item.at("SpecialToken").at("id").is_string()) {
      std::string name = item.at("SpecialToken").at("id").get<std::string>();
      if (!specials.contains(name) || !specials.at(name).contains("ids") || !specials.at(name).at("ids").is_array())
        fail(where, ": special token '", name, "' has no ids in special_tokens");
      for (const json &id : specials.at(name).at("ids")) {
        if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= (1 << 30))
          fail(where, ": special token '", name, "' has an invalid id");
        t.ids.push_back(static_cast<int32_t>(id.get<int64_t>()));
      }
    } else {
      fail(where, ": a single-template item is neither a Sequence nor a SpecialToken");
    }
    single.push_back(std::move(t));
  }
}

/// AddedVocabulary::find_matches over one piece.
std::vector<Piece> Tokenizer::Impl::splitOnAddedTokens(const std::string &s, const AddedTokenMatcher &matcher) const {
  std::vector<Piece> out;
  size_t start = 0; // the end of the previous piece
  for (size_t from = 0;;) {
    auto [begin, end, index] = matcher.find(s, from);
    if (begin == std::string_view::npos)
      break;
    from = end;
    const AddedToken &t = added[index];
    if (t.singleWord) {
      bool spaceBefore = begin == 0 || !isAlphanumeric(lastChar(std::string_view(s).substr(0, begin)));
      size_t j = end;
      bool spaceAfter = end == s.size() || !isAlphanumeric(nextCodePoint(s, j));
      if (!spaceBefore || !spaceAfter)
        continue;
    }
    if (t.lstrip)
      begin = std::max(whitespaceRunStartAtEnd(std::string_view(s).substr(0, begin)), start);
    if (t.rstrip)
      end += whitespaceRunAtStart(std::string_view(s).substr(end));
    if (start < begin)
      out.push_back({s.substr(start, begin - start), -1});
    out.push_back({s.substr(begin, end - begin), t.id});
    start = end;
  }
  if (start < s.size())
    out.push_back({s.substr(start), -1});
  return out;
}

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::Tokenizer(Tokenizer &&) noexcept = default;
Tokenizer &Tokenizer::operator=(Tokenizer &&) noexcept = default;
Tokenizer::~Tokenizer() = default;

Tokenizer Tokenizer::fromJson(const std::string &text, const std::string &what) {
  const json j = io::parseJsonObject(text, what);
  auto impl = std::make_unique<Impl>();
  impl->what = what;
  auto stage = [&](const char *name) -> const json & {
    static const json null;
    return j.contains(name) ? j.at(name) : null;
  };
  if (!stage("normalizer").is_null())
    impl->normalizer = parseNormalizer(stage("normalizer"), what + ": normalizer");
  if (!stage("pre_tokenizer").is_null())
    impl->preTokenizer = parsePreTokenizer(stage("pre_tokenizer"), what + ": pre_tokenizer");
  if (!stage("decoder").is_null())
    impl->decoder = parseDecoder(stage("decoder"), what + ": decoder");
  const json &model = stage("model");
  if (!model.is_object())
    fail(what, ": no \"model\" object");
  std::string type = model.contains("type") && model.at("type").is_string() ? model.at("type").get<std::string>()
                     : model.contains("merges")                           ? "BPE"
                                                                          : "";
  if (type != "BPE")
    fail(what, ": model type '", type, "' is not supported (BPE)");
  impl->model.emplace(model, what + ": model");
  impl->parseAddedTokens(stage("added_tokens"));
  impl->parsePostProcessor(stage("post_processor"), what + ": post_processor");
  return Tokenizer(std::move(impl));
}

Tokenizer Tokenizer::fromFile(const std::string &path) { return fromJson(io::readFile(path), path); }

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool addSpecialTokens) const {
  const Impl &m = *impl_;
  if (size_t bad = firstInvalidUtf8(text); bad != std::string_view::npos)
    fail("the text is not valid UTF-8 (at byte ", bad, ")");
  std::vector<int32_t> ids;
  for (Piece &raw : m.splitOnAddedTokens(std::string(text), m.rawMatcher)) {
    if (raw.id >= 0) {
      ids.push_back(raw.id);
      continue;
    }
    if (m.normalizer)
      (*m.normalizer)(raw.text);
    for (Piece &piece : m.splitOnAddedTokens(raw.text, m.normalizedMatcher)) {
      if (piece.id >= 0) {
        ids.push_back(piece.id);
        continue;
      }
      std::vector<std::string> words{std::move(piece.text)};
      if (m.preTokenizer)
        (*m.preTokenizer)(words);
      for (const std::string &w : words)
        m.model->tokenize(w, ids);
    }
  }
  if (!addSpecialTokens || m.single.empty())
    return ids;
  std::vector<int32_t> out;
  for (const TemplateItem &item : m.single)
    out.insert(out.end(), item.isSequence ? ids.begin() : item.ids.begin(), item.isSequence ? ids.end() : item.ids.end());
  return out;
}

std::string Tokenizer::decode(const std::vector<int32_t> &ids, bool skipSpecialTokens) const {
  const Impl &m = *impl_;
  std::vector<std::string> tokens;
  for (int32_t id : ids) {
    if (auto it = m.addedById.find(id); it != m.addedById.end()) {
      if (!(skipSpecialTokens && m.added[it->second].special))
        tokens.push_back(m.added[it->second].content);
    } else if (const std::string *t = m.model->token(id)) {
      tokens.push_back(*t);
    }
  }
  if (!m.decoder) {
    std::string out;
    for (size_t i = 0; i < tokens.size(); ++i)
      out += (i ? " " : "") + tokens[i];
    return out;
  }
  (*m.decoder)(tokens);
  std::string out;
  for (const std::string &t : tokens)
    out += t;
  return out;
}

std::optional<int32_t> Tokenizer::tokenId(std::string_view token) const {
  if (auto it = impl_->addedByContent.find(std::string(token)); it != impl_->addedByContent.end())
    return impl_->added[it->second].id;
  return impl_->model->tokenId(token);
}

std::optional<std::string> Tokenizer::token(int32_t id) const {
  if (auto it = impl_->addedById.find(id); it != impl_->addedById.end())
    return impl_->added[it->second].content;
  if (const std::string *t = impl_->model->token(id))
    return *t;
  return std::nullopt;
}

bool Tokenizer::isSpecial(int32_t id) const {
  auto it = impl_->addedById.find(id);
  return it != impl_->addedById.end() && impl_->added[it->second].special;
}

int64_t Tokenizer::vocabSize() const {
  int64_t n = impl_->model->size();
  for (const AddedToken &a : impl_->added)
    n = std::max<int64_t>(n, int64_t(a.id) + 1);
  return n;
}

//===-- StreamDecoder (tokenizers' step_decode_stream) -------------------------===//

namespace {
bool endsWithReplacement(const std::string &s) {
  return s.size() >= 3 && s.compare(s.size() - 3, 3, "\xEF\xBF\xBD") == 0;
}
} // namespace

std::string StreamDecoder::step(int32_t id) {
  if (prefix_.empty() && !ids_.empty()) {
    std::string newPrefix = tokenizer_.decode(ids_, skipSpecial_);
    if (!endsWithReplacement(newPrefix)) {
      prefix_ = newPrefix;
      prefixIndex_ = ids_.size();
    }
  }
  ids_.push_back(id);
  std::string text = tokenizer_.decode(ids_, skipSpecial_);
  if (text.size() <= prefix_.size() || endsWithReplacement(text))
    return {};
  if (text.compare(0, prefix_.size(), prefix_) != 0)
    fail("streaming decode: the text of the ids no longer starts with the text already emitted");
  std::string fresh = text.substr(prefix_.size());
  ids_.erase(ids_.begin(), ids_.begin() + long(prefixIndex_));
  prefixIndex_ = ids_.size();
  prefix_ = tokenizer_.decode(ids_, skipSpecial_);
  return fresh;
}

std::string StreamDecoder::finish() {
  std::string text = tokenizer_.decode(ids_, skipSpecial_);
  std::string rest = text.size() > prefix_.size() && text.compare(0, prefix_.size(), prefix_) == 0
                         ? text.substr(prefix_.size())
                         : std::string();
  ids_.clear();
  prefix_.clear();
  prefixIndex_ = 0;
  return rest;
}

} // namespace mm::rt
