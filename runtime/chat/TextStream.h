//===- TextStream.h - generated tokens to text, as they come ------------------===//
//
// The text of generated token ids while they stream (StreamDecoder: never half a UTF-8
// character; special tokens skipped, as tokenizer.decode(ids, skip_special_tokens=True)),
// with stop strings as vLLM's `stop` (include_stop_str_in_output false): the text ends
// before the first stop string that appears, and text that could be the start of one is
// held back until it is known not to be.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CHAT_TEXTSTREAM_H
#define MM_RUNTIME_CHAT_TEXTSTREAM_H

#include "runtime/text/Tokenizer.h"

#include <string>
#include <vector>

namespace mm::rt {

class TextStream {
public:
  /// Empty stop strings and ones that are not valid UTF-8 are refused (Error).
  TextStream(const Tokenizer &tokenizer, std::vector<std::string> stopStrings);
  /// Adds a generated token; returns the text that can be shown now (often ""). After a
  /// stop string, returns "" for every later token.
  std::string push(int64_t id);
  /// The text held back at the end of generation ("" after a stop string).
  std::string finish();
  /// Whether a stop string has appeared.
  bool stopped() const { return stopped_; }
  /// Everything returned so far.
  const std::string &text() const { return text_; }

private:
  std::string emit(std::string s);
  StreamDecoder decoder_;
  std::vector<std::string> stops_;
  std::string pending_, text_;
  bool stopped_ = false;
};

} // namespace mm::rt

#endif // MM_RUNTIME_CHAT_TEXTSTREAM_H
