//===- Bpe.cpp - the BPE model of tokenizer.json ------------------------------===//
#include "runtime/text/Bpe.h"

#include "runtime/core/Error.h"
#include "runtime/text/TokenizerParts.h"
#include "runtime/text/Unicode.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <queue>

namespace mm::rt::text {
using json = nlohmann::json;

namespace {

/// One entry of "merges": "a b" (older files) or ["a", "b"].
std::pair<std::string, std::string> mergePair(const json &m, size_t index, const std::string &what) {
  if (m.is_string()) {
    const std::string &s = m.get_ref<const std::string &>();
    size_t space = s.find(' ');
    if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos)
      fail(what, ": merge ", index, " '", s, "' is not two tokens separated by one space");
    return {s.substr(0, space), s.substr(space + 1)};
  }
  if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string())
    return {m[0].get<std::string>(), m[1].get<std::string>()};
  fail(what, ": merge ", index, " is neither \"a b\" nor [\"a\", \"b\"]");
}

} // namespace

BpeModel::BpeModel(const json &model, const std::string &what) {
  if (model.contains("dropout") && !model.at("dropout").is_null() && model.at("dropout") != 0.0)
    fail(what, ": BPE dropout is not supported (inference tokenizes deterministically)");
  const json &vocab = model.contains("vocab") ? model.at("vocab") : json();
  if (!vocab.is_object())
    fail(what, ": \"vocab\" is not an object of token -> id");
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    if (!it.value().is_number_integer() || it.value().get<int64_t>() < 0 || it.value().get<int64_t>() >= (1 << 30))
      fail(what, ": vocab token '", it.key(), "' has no valid id");
    auto id = static_cast<int32_t>(it.value().get<int64_t>());
    vocab_[it.key()] = id;
    if (size_t(id) >= tokens_.size()) {
      tokens_.resize(size_t(id) + 1);
      present_.resize(size_t(id) + 1);
    }
    tokens_[size_t(id)] = it.key();
    present_[size_t(id)] = true;
  }
  prefix_ = optionalString(model, "continuing_subword_prefix", what);
  suffix_ = optionalString(model, "end_of_word_suffix", what);
  fuseUnk_ = optionalBool(model, "fuse_unk", false, what);
  byteFallback_ = optionalBool(model, "byte_fallback", false, what);
  ignoreMerges_ = optionalBool(model, "ignore_merges", false, what);
  std::string unk = optionalString(model, "unk_token", what);
  if (!unk.empty()) {
    auto id = tokenId(unk);
    if (!id)
      fail(what, ": unk_token '", unk, "' is not in the vocabulary");
    unk_ = *id;
  }
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof(name), "<0x%02X>", b);
    byteTokens_[size_t(b)] = tokenId(name).value_or(-1);
  }
  const json &merges = model.contains("merges") ? model.at("merges") : json();
  if (!merges.is_array())
    fail(what, ": \"merges\" is not a list");
  for (size_t i = 0; i < merges.size(); ++i) {
    auto [a, b] = mergePair(merges[i], i, what);
    auto ia = tokenId(a), ib = tokenId(b);
    if (!ia || !ib)
      fail(what, ": merge ", i, ": token '", !ia ? a : b, "' is not in the vocabulary");
    if (b.compare(0, prefix_.size(), prefix_) != 0)
      fail(what, ": merge ", i, ": '", b, "' does not start with the continuing_subword_prefix");
    std::string merged = a + b.substr(prefix_.size());
    auto id = tokenId(merged);
    if (!id)
      fail(what, ": merge ", i, ": the merged token '", merged, "' is not in the vocabulary");
    merges_[pairKey(*ia, *ib)] = Merge{static_cast<int32_t>(i), *id};
  }
}

std::optional<int32_t> BpeModel::tokenId(std::string_view token) const {
  auto it = vocab_.find(std::string(token));
  return it == vocab_.end() ? std::nullopt : std::optional<int32_t>(it->second);
}

const std::string *BpeModel::token(int32_t id) const {
  return id >= 0 && size_t(id) < tokens_.size() && present_[size_t(id)] ? &tokens_[size_t(id)] : nullptr;
}

std::optional<BpeModel::Merge> BpeModel::merge(int32_t a, int32_t b) const {
  auto it = merges_.find(pairKey(a, b));
  return it == merges_.end() ? std::nullopt : std::optional<Merge>(it->second);
}

void BpeModel::tokenize(const std::string &word, std::vector<int32_t> &out) const {
  if (word.empty())
    return;
  if (ignoreMerges_)
    if (auto id = tokenId(word)) {
      out.push_back(*id);
      return;
    }
  std::vector<int32_t> ids;
  std::optional<int32_t> pendingUnk;
  for (size_t i = 0; i < word.size();) {
    size_t begin = i;
    nextCodePoint(word, i);
    std::string s = word.substr(begin, i - begin);
    if (begin > 0)
      s.insert(0, prefix_);
    if (i == word.size())
      s += suffix_;
    if (auto id = tokenId(s)) {
      if (pendingUnk)
        ids.push_back(*pendingUnk);
      pendingUnk.reset();
      ids.push_back(*id);
      continue;
    }
    if (byteFallback_) {
      bool all = true;
      for (unsigned char b : s)
        all = all && byteTokens_[b] >= 0;
      if (all) { // as tokenizers does, a pending unk is not flushed first
        for (unsigned char b : s)
          ids.push_back(byteTokens_[b]);
        continue;
      }
    }
    if (unk_) {
      if (pendingUnk && !fuseUnk_)
        ids.push_back(*pendingUnk);
      pendingUnk = *unk_;
    }
  }
  if (pendingUnk)
    ids.push_back(*pendingUnk);
  mergeAll(ids);
  out.insert(out.end(), ids.begin(), ids.end());
}

/// Word::merge_all: a min-heap of (rank, position) over adjacent pairs; stale entries (the
/// pair changed since it was pushed) are skipped.
void BpeModel::mergeAll(std::vector<int32_t> &ids) const {
  struct Symbol {
    int32_t id;
    int prev, next;
    bool alive = true;
  };
  struct Candidate {
    int32_t rank, pos, newId;
    bool operator<(const Candidate &o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  std::vector<Symbol> sym(ids.size());
  for (size_t i = 0; i < ids.size(); ++i)
    sym[i] = {ids[i], int(i) - 1, i + 1 < ids.size() ? int(i) + 1 : -1};
  std::priority_queue<Candidate> queue;
  auto push = [&](int pos) {
    int next = sym[size_t(pos)].next;
    if (next < 0)
      return;
    if (auto m = merge(sym[size_t(pos)].id, sym[size_t(next)].id))
      queue.push({m->rank, pos, m->newId});
  };
  for (size_t i = 0; i + 1 < ids.size(); ++i)
    push(int(i));
  while (!queue.empty()) {
    Candidate top = queue.top();
    queue.pop();
    Symbol &left = sym[size_t(top.pos)];
    if (!left.alive || left.next < 0)
      continue;
    Symbol &right = sym[size_t(left.next)];
    auto m = merge(left.id, right.id);
    if (!m || m->newId != top.newId)
      continue;
    left.id = top.newId;
    right.alive = false;
    left.next = right.next;
    if (right.next >= 0)
      sym[size_t(right.next)].prev = top.pos;
    if (left.prev >= 0)
      push(left.prev);
    push(top.pos);
  }
  ids.clear();
  for (const Symbol &s : sym)
    if (s.alive)
      ids.push_back(s.id);
}

} // namespace mm::rt::text
