//===- KvCachePattern.cpp - a decoder's KV-cache slots, from the model contract -===//
#include "compiler/plan/KvCachePattern.h"

#include "mm/MMOps.h"
#include "mm/ModelContract.h"
#include "runtime/core/DimRules.h"

using namespace mlir;
using namespace mm::contract;

namespace mm {

std::string argName(func::FuncOp fn, unsigned i) {
  if (auto name = fn.getArgAttrOfType<StringAttr>(i, "mm.name"))
    return name.str();
  return "arg" + std::to_string(i);
}

std::string resultName(func::FuncOp fn, unsigned i) {
  if (auto name = fn.getResultAttrOfType<StringAttr>(i, "mm.name"))
    return name.str();
  return "result" + std::to_string(i);
}

FailureOr<std::vector<KvCacheMatch>> findKvCacheSlots(func::FuncOp fn) {
  std::vector<KvCacheMatch> out;
  if (fn.isExternal())
    return out;
  auto ret = dyn_cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  for (unsigned a = 0; a < fn.getNumArguments(); ++a) {
    std::optional<KvPosition> kv = argKv(fn, a);
    if (!kv || argRole(fn, a) != ValueRole::kvPast)
      continue;
    int result = -1;
    for (unsigned r = 0; ret && r < fn.getNumResults(); ++r)
      if (resultRole(fn, r) == ValueRole::kvPresent && resultKv(fn, r) == kv)
        result = static_cast<int>(r);
    auto concat = result < 0 ? ConcatOp() : ret.getOperand(result).getDefiningOp<ConcatOp>();
    if (!concat || concat->getNumOperands() != 2 || concat->getOperand(0) != fn.getArgument(a))
      return fn.emitError() << "KV-cache input '" << argName(fn, a) << "' (layer " << kv->layer
                            << (kv->isValue ? " value" : " key")
                            << ") has no result that is concat(past, new) with its mm.kv";
    auto type = cast<RankedTensorType>(concat.getType());
    int64_t axis = dims::normalizeAxis(static_cast<int64_t>(concat.getAxis()), type.getRank())
                       .value_or(-1);
    if (axis != 1 && axis != 2)
      return fn.emitError() << "KV-cache input '" << argName(fn, a) << "' appends along axis "
                            << axis << ", not a sequence axis (1 or 2 of [batch, heads, "
                            << "sequence, head_dim] or [batch, sequence, heads, head_dim])";
    if (!out.empty() && out.front().axis != axis)
      return fn.emitError() << "KV-cache input '" << argName(fn, a) << "' appends along axis "
                            << axis << " but '" << argName(fn, out.front().argIndex)
                            << "' along axis " << out.front().axis;
    out.push_back({static_cast<int>(kv->layer), kv->isValue, a, static_cast<unsigned>(result),
                   concat, axis});
  }
  return out;
}

} // namespace mm
