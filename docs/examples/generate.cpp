// The example of docs/runtime.md: greedy generation through the runtime's public API.
//
//   generate PLAN IDS [MAX_NEW_TOKENS] [DEVICE]
//
// PLAN is a plan from `mmc compile`, IDS the prompt's token ids ("1,415,2936"; a prompt
// without image tokens). Prints the generated ids and the time to the first token; exits 1
// with the runtime's message on any error. test/e2e/runtime-api.test builds and runs it.
#include "mmrt/Session.h"

#include "runtime/core/Error.h"

#include <charconv>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace {
/// `text` as a whole decimal integer, or an Error naming `what`.
int64_t parseInteger(const std::string &text, const char *what) {
  int64_t value = 0;
  const char *end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end)
    mm::rt::fail(what, " '", text, "' is not an integer");
  return value;
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 3 || argc > 5) {
    std::fprintf(stderr, "usage: %s PLAN IDS [MAX_NEW_TOKENS] [DEVICE]\n", argv[0]);
    return 2;
  }
  try {
    mm::rt::SessionOptions options;
    if (argc > 4)
      options.device = argv[4];
    std::unique_ptr<mm::rt::Session> session = mm::rt::Session::open(argv[1], options);

    mm::rt::GenerationRequest request;
    std::stringstream ids(argv[2]);
    for (std::string id; std::getline(ids, id, ',');)
      request.inputIds.push_back(parseInteger(id, "token id"));
    request.options.maxNewTokens = argc > 3 ? parseInteger(argv[3], "MAX_NEW_TOKENS") : 8;

    mm::rt::GenerationResult r = session->generate(request);
    std::printf("tokens:");
    for (int64_t t : r.tokens)
      std::printf(" %lld", static_cast<long long>(t));
    std::printf("\ntime to first token: %.2f ms, decode %.1f tokens/s\n", r.ttftMs,
                r.decodeTokensPerSecond);
    const mm::rt::MemoryReport m = session->memory();
    std::printf("weights %llu bytes, KV cache %zu bytes, activations %llu bytes\n",
                static_cast<unsigned long long>(m.weightBytes), r.kvCacheBytes,
                static_cast<unsigned long long>(m.arenaBytes));
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "generate: error: %s\n", e.what());
    return 1;
  }
}
