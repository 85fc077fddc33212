//===- TokenizerTest.cpp - streaming decode and lossy UTF-8 ------------------===//
//
// What the parity corpus (test/tokenizer) does not reach: StreamDecoder emitting a
// character split over byte-fallback tokens only when it is whole, and from_utf8_lossy's
// one U+FFFD per maximal subpart (Unicode 15, section 3.9, table 3-8's examples).
//
//===----------------------------------------------------------------------===//
#include "runtime/core/Error.h"
#include "runtime/text/Tokenizer.h"
#include "runtime/text/Unicode.h"

#include <gtest/gtest.h>

namespace {
using mm::rt::StreamDecoder;
using mm::rt::Tokenizer;

/// A SentencePiece-style vocabulary (Llama-2's normalizer and decoder) whose only tokens
/// for "😀" (F0 9F 98 80) are its four byte-fallback tokens.
const char *kByteFallbackJson = R"({
  "normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
                 {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
  "decoder": {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
               {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
  "added_tokens": [{"id": 0, "content": "</s>", "special": true, "normalized": false}],
  "model": {"type": "BPE", "byte_fallback": true, "fuse_unk": true,
            "vocab": {"</s>": 0, "<0xF0>": 1, "<0x9F>": 2, "<0x98>": 3, "<0x80>": 4, "▁": 5, "h": 6, "i": 7, "▁h": 8, "▁hi": 9},
            "merges": ["▁ h", "▁h i"]}
})";

TEST(TokenizerTest, ByteFallbackEncodesACharacterAsItsBytes) {
  Tokenizer t = Tokenizer::fromJson(kByteFallbackJson, "test");
  EXPECT_EQ(t.encode("hi 😀", false), (std::vector<int32_t>{9, 5, 1, 2, 3, 4}));
  EXPECT_EQ(t.decode({9, 5, 1, 2, 3, 4, 0}, false), "hi 😀</s>");
  EXPECT_EQ(t.decode({9, 5, 1, 2, 3, 4, 0}, true), "hi 😀");
  EXPECT_EQ(t.decode({9, 1, 2}, false), "hi\xEF\xBF\xBD\xEF\xBF\xBD"); // one U+FFFD per byte token
}

TEST(TokenizerTest, AddedTokensSharingAFirstByteMatchLeftmostLongest) {
  // "<a>", "<ab>" and "<abc>" share '<' and differ in length; text between them, and an
  // unclosed "<a", goes to the model.
  const char *json = R"({
    "added_tokens": [{"id": 0, "content": "<a>", "special": true, "normalized": false},
                     {"id": 1, "content": "<ab>", "special": true, "normalized": false},
                     {"id": 2, "content": "<abc>", "special": true, "normalized": false}],
    "model": {"type": "BPE", "vocab": {"<a>": 0, "<ab>": 1, "<abc>": 2, "x": 4, "<": 5, "a": 6}, "merges": []}
  })";
  Tokenizer t = Tokenizer::fromJson(json, "test");
  EXPECT_EQ(t.encode("<abc><ab>x<a><a", false), (std::vector<int32_t>{2, 1, 4, 0, 5, 6}));
}

TEST(TokenizerTest, StreamDecoderEmitsOnlyWholeCharacters) {
  Tokenizer t = Tokenizer::fromJson(kByteFallbackJson, "test");
  StreamDecoder stream(t, /*skipSpecialTokens=*/true);
  std::vector<std::string> pieces;
  for (int32_t id : {9, 5, 1, 2, 3, 4, 9, 0})
    pieces.push_back(stream.step(id));
  // "hi" (Strip takes the first token's space), " ", nothing until the 4th byte, " hi".
  EXPECT_EQ(pieces, (std::vector<std::string>{"hi", " ", "", "", "", "😀", " hi", ""}));
  EXPECT_EQ(stream.finish(), "");
  StreamDecoder cut(t, true);
  EXPECT_EQ(cut.step(1) + cut.step(2), "");
  EXPECT_EQ(cut.finish(), "\xEF\xBF\xBD\xEF\xBF\xBD"); // an incomplete character at the end
}

TEST(TokenizerTest, EncodeRefusesInvalidUtf8) {
  Tokenizer t = Tokenizer::fromJson(kByteFallbackJson, "test");
  try {
    t.encode("hi \xC3", false);
    FAIL() << "no error";
  } catch (const mm::rt::Error &e) {
    EXPECT_STREQ(e.what(), "the text is not valid UTF-8 (at byte 3)");
  }
}

TEST(TokenizerTest, LossyUtf8ReplacesEachMaximalSubpart) {
  using mm::rt::text::lossyUtf8;
  const std::string fffd = "\xEF\xBF\xBD";
  // Table 3-8: 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64 -> a, FFFD, FFFD, FFFD, b, FFFD, c, FFFD, FFFD, d
  EXPECT_EQ(lossyUtf8("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64"),
            "a" + fffd + fffd + fffd + "b" + fffd + "c" + fffd + fffd + "d");
  EXPECT_EQ(lossyUtf8("\xED\xA0\x80"), fffd + fffd + fffd); // a surrogate: 3 subparts
  EXPECT_EQ(lossyUtf8("\xE0\x80"), fffd + fffd);            // overlong lead
  EXPECT_EQ(lossyUtf8("\xF0\x9F\x98"), fffd);               // truncated at the end
  EXPECT_EQ(lossyUtf8("ok \xF0\x9F\x98\x80"), "ok 😀");
}

} // namespace
