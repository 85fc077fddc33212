//===- InjectedFault.cpp - the runtime faults the mutation check injects -----===//
#include "runtime/core/InjectedFault.h"

#include "runtime/core/Error.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace mm::rt {

namespace {
constexpr InjectedFault kFaults[] = {InjectedFault::kvAppendOffByOne, InjectedFault::kvBf16ReadAsF16};

InjectedFault readFault() {
  const char *value = std::getenv("MM_INJECT_FAULT");
  if (!value || !*value)
    return InjectedFault::none;
  for (InjectedFault f : kFaults)
    if (std::string(value) == injectedFaultName(f)) {
      std::fprintf(stderr, "mm runtime: warning: MM_INJECT_FAULT=%s: a test fault is injected "
                           "into the runtime; results are wrong\n", value);
      return f;
    }
  fail("MM_INJECT_FAULT='", value, "' names no fault (kv-append-off-by-one, kv-bf16-as-f16)");
}
} // namespace

InjectedFault injectedFault() {
  static const InjectedFault fault = readFault();
  return fault;
}

const char *injectedFaultName(InjectedFault fault) {
  switch (fault) {
  case InjectedFault::kvAppendOffByOne:
    return "kv-append-off-by-one";
  case InjectedFault::kvBf16ReadAsF16:
    return "kv-bf16-as-f16";
  case InjectedFault::none:
    break;
  }
  return "";
}

int64_t kvCacheAdvance(int64_t length, int64_t n, int64_t capacity) {
  if (injectedFault() == InjectedFault::kvAppendOffByOne && length == 0 && n > 0 && n < capacity)
    return n + 1;
  return n;
}

DType kvDecodeAttentionType(DType t) {
  if (injectedFault() == InjectedFault::kvBf16ReadAsF16 && t == DType::bf16)
    return DType::f16;
  return t;
}

} // namespace mm::rt
