//===- InjectedFault.h - the runtime faults the mutation check injects -------===//
//
// The mutation check (scripts/mutation-check.sh, issue 19) injects known faults and expects
// the suite's own end-to-end checks to see each one. Most live in the compiled IR and are
// made by editing it (test/mutation/mutate.py); the two here live in the runtime's KV-cache
// handling, so the runtime has a switch for them: the environment variable MM_INJECT_FAULT
// names one. Unset (always, outside that check) every query below returns its argument
// unchanged. When one is set, the first query prints a warning on stderr.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CORE_INJECTEDFAULT_H
#define MM_RUNTIME_CORE_INJECTEDFAULT_H

#include "runtime/core/DType.h"

#include <cstdint>

namespace mm::rt {

enum class InjectedFault {
  none,
  /// MM_INJECT_FAULT=kv-append-off-by-one: the prefill advances the KV cache's length by
  /// one position too many, so every decode step's keys and values land one row past where
  /// they belong (and take one position more) and each step attends to a row never written.
  kvAppendOffByOne,
  /// MM_INJECT_FAULT=kv-bf16-as-f16: a decode step's attention over a bf16 KV cache runs
  /// as f16: the query, the cached keys and values are read as f16 and the result is
  /// written as f16, all in the bf16 buffers.
  kvBf16ReadAsF16,
};

/// The fault MM_INJECT_FAULT names, read once (at the first call, which warns on stderr
/// when it names one). Throws Error naming the variable and the accepted values for any
/// other non-empty value.
InjectedFault injectedFault();
/// "kv-append-off-by-one", "kv-bf16-as-f16", or "" for none.
const char *injectedFaultName(InjectedFault fault);

/// The positions a step that appended `n` rows to a KV cache holding `length` of
/// `capacity` advances its length by: n, or n + 1 for a prefill (length 0) under
/// kvAppendOffByOne when the cache has room for it.
int64_t kvCacheAdvance(int64_t length, int64_t n, int64_t capacity);
/// The dtype a decode step's attention over a KV cache of dtype `t` runs in: t, or f16 for
/// a bf16 cache under kvBf16ReadAsF16.
DType kvDecodeAttentionType(DType t);

} // namespace mm::rt

#endif // MM_RUNTIME_CORE_INJECTEDFAULT_H
