//===- KvCachePattern.h - a decoder's KV-cache slots, from the model contract -===//
//
// -mm-raise-model-contract pairs each KV-cache input (role kv_past, `mm.kv = {layer,
// kind}`) with the result that appends to it (role kv_present, the same `mm.kv`):
// present = concat(past, new) along the sequence axis. Each pair is a KV-cache slot: the
// runtime keeps the cache and writes only `new` into it in place. The passes after the
// raising keep the concat; a pair whose concat is gone is an error here.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_PLAN_KVCACHEPATTERN_H
#define MM_COMPILER_PLAN_KVCACHEPATTERN_H

#include "mm/ModelContract.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <vector>

namespace mm {

struct KvCacheMatch {
  int layer = 0;
  bool isValue = false;       ///< key or value
  unsigned argIndex = 0;      ///< the kv_past argument
  unsigned resultIndex = 0;   ///< the kv_present result
  mlir::Operation *concat = nullptr; ///< mm.concat(past, new)
  int64_t axis = 0;           ///< non-negative concat axis (the sequence axis)
  int64_t headsAxis() const { return contract::kvHeadsAxis(axis); }
};

/// The name of argument `i` (its `mm.name`, else "arg<i>").
std::string argName(mlir::func::FuncOp fn, unsigned i);
/// The name of result `i` (its `mm.name`, else "result<i>").
std::string resultName(mlir::func::FuncOp fn, unsigned i);

/// The KV-cache slots of `fn`: each kv_past argument with the kv_present result of the
/// same `mm.kv`, which must append to it (contract::kvAppend). Emits an error at `fn` and
/// fails when a pair has no such result or is no such append, when two arguments or two
/// results share an `mm.kv`, or when the slots do not all append along one axis.
mlir::FailureOr<std::vector<KvCacheMatch>> findKvCacheSlots(mlir::func::FuncOp fn);

} // namespace mm

#endif // MM_COMPILER_PLAN_KVCACHEPATTERN_H
