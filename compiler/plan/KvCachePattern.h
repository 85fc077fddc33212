//===- KvCachePattern.h - find a decoder's KV-cache slots -------------------===//
//
// A decoder exported with a KV cache (Hugging Face / Optimum naming) takes
// past_key_values.<i>.key|value [batch, kv_heads, past, head_dim] and returns
// present.<i>.key|value = concat(past, new, axis = 2). Each such concat is a KV-cache
// slot: the runtime keeps the cache and writes only `new` into it in place.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_PLAN_KVCACHEPATTERN_H
#define MM_COMPILER_PLAN_KVCACHEPATTERN_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <vector>

namespace mm {

struct KvCacheMatch {
  int layer = 0;
  bool isValue = false;       ///< key or value
  unsigned argIndex = 0;      ///< the past_key_values argument
  unsigned resultIndex = 0;   ///< the present result
  mlir::Operation *concat = nullptr; ///< mm.concat(past, new)
  int64_t axis = 0;           ///< non-negative concat axis
};

/// The name of argument `i` (its `mm.name`, else "arg<i>").
std::string argName(mlir::func::FuncOp fn, unsigned i);
/// The name of result `i` (its `mm.name`, else "result<i>").
std::string resultName(mlir::func::FuncOp fn, unsigned i);

/// Every argument past_key_values.<i>.<k> whose value feeds, as first operand, a 2-operand
/// mm.concat whose result the function returns as present.<i>.<k>.
std::vector<KvCacheMatch> findKvCacheSlots(mlir::func::FuncOp fn);

} // namespace mm

#endif // MM_COMPILER_PLAN_KVCACHEPATTERN_H
