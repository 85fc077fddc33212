//===- TextStream.cpp - generated tokens to text, as they come ----------------===//
#include "runtime/chat/TextStream.h"

#include "runtime/core/Error.h"
#include "runtime/text/Unicode.h"

#include <algorithm>

namespace mm::rt {

TextStream::TextStream(const Tokenizer &tokenizer, std::vector<std::string> stopStrings)
    : decoder_(tokenizer, /*skipSpecialTokens=*/true), stops_(std::move(stopStrings)) {
  for (const std::string &s : stops_) {
    if (s.empty())
      fail("a stop string is empty");
    if (size_t bad = text::firstInvalidUtf8(s); bad != std::string::npos)
      fail("stop string '", s, "' is not valid UTF-8 (byte ", bad, ")");
  }
}

std::string TextStream::emit(std::string s) {
  text_ += s;
  return s;
}

std::string TextStream::push(int64_t id) {
  if (stopped_)
    return "";
  if (id < 0 || id > INT32_MAX)
    fail("token id ", id, " is outside the tokenizer's range");
  pending_ += decoder_.step(static_cast<int32_t>(id));
  // The first stop string to appear ends the text.
  size_t first = std::string::npos;
  for (const std::string &s : stops_)
    first = std::min(first, pending_.find(s));
  if (first != std::string::npos) {
    stopped_ = true;
    std::string out = pending_.substr(0, first);
    pending_.clear();
    return emit(std::move(out));
  }
  // Hold back the longest end of the pending text that begins a stop string. A stop
  // string is valid UTF-8, so the cut never falls inside a character.
  size_t hold = 0;
  for (const std::string &s : stops_)
    for (size_t n = std::min(s.size() - 1, pending_.size()); n > hold; --n)
      if (pending_.compare(pending_.size() - n, n, s, 0, n) == 0) {
        hold = n;
        break;
      }
  std::string out = pending_.substr(0, pending_.size() - hold);
  pending_.erase(0, pending_.size() - hold);
  return emit(std::move(out));
}

std::string TextStream::finish() {
  if (stopped_)
    return "";
  std::string rest = pending_ + decoder_.finish();
  pending_.clear();
  // An incomplete character at the end may complete a stop string no more; emit as is.
  for (const std::string &s : stops_)
    if (size_t at = rest.find(s); at != std::string::npos) {
      stopped_ = true;
      rest.resize(at);
    }
  return emit(std::move(rest));
}

} // namespace mm::rt
