//===- Bpe.h - the BPE model of tokenizer.json (private) ---------------------===//
//
// HF `tokenizers`' BPE model (tokenizers/src/models/bpe): a word is split into its
// characters (each looked up in the vocabulary, with continuing_subword_prefix after the
// first and end_of_word_suffix on the last; a character not in it becomes its <0xXX> byte
// tokens with byte_fallback, else the unk token, fused with neighbouring unks when
// fuse_unk), then adjacent pairs are merged lowest merge rank first, leftmost first among
// equal ranks (Sennrich et al. 2016, https://arxiv.org/abs/1508.07909). With
// ignore_merges a word that is itself in the vocabulary is one token. No dropout.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_TEXT_BPE_H
#define MM_RUNTIME_TEXT_BPE_H

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mm::rt::text {

class BpeModel {
public:
  /// From tokenizer.json's "model" object ("type": "BPE"); errors name `what`, and the
  /// merge or token at fault.
  BpeModel(const nlohmann::json &model, const std::string &what);

  /// Appends the ids of one pre-tokenized word.
  void tokenize(const std::string &word, std::vector<int32_t> &out) const;

  std::optional<int32_t> tokenId(std::string_view token) const;
  /// The token string of `id`, or nullptr when the vocabulary has no such id.
  const std::string *token(int32_t id) const;
  /// One past the largest id.
  int64_t size() const { return static_cast<int64_t>(tokens_.size()); }

private:
  struct Merge {
    int32_t rank, newId;
  };
  static uint64_t pairKey(int32_t a, int32_t b) { return (uint64_t(uint32_t(a)) << 32) | uint32_t(b); }
  std::optional<Merge> merge(int32_t a, int32_t b) const;
  void mergeAll(std::vector<int32_t> &ids) const;

  std::unordered_map<std::string, int32_t> vocab_;
  std::vector<std::string> tokens_;
  std::vector<bool> present_;
  std::unordered_map<uint64_t, Merge> merges_;
  std::optional<int32_t> unk_;
  bool fuseUnk_ = false, byteFallback_ = false, ignoreMerges_ = false;
  std::string prefix_, suffix_;
  std::array<int32_t, 256> byteTokens_{};
};

} // namespace mm::rt::text

#endif
