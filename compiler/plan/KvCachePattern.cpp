//===- KvCachePattern.cpp - a decoder's KV-cache slots, from the model contract -===//
#include "compiler/plan/KvCachePattern.h"

#include "mm/MMOps.h"
#include "mm/ModelContract.h"

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
  for (unsigned a = 0; a < fn.getNumArguments(); ++a) {
    std::optional<KvPosition> kv = argKv(fn, a);
    if (!kv || argRole(fn, a) != ValueRole::kvPast)
      continue;
    for (const KvCacheMatch &m : out)
      if (m.layer == kv->layer && m.isValue == kv->isValue)
        return fn.emitError() << "KV-cache inputs '" << argName(fn, m.argIndex) << "' and '"
                              << argName(fn, a) << "' have the same mm.kv (layer " << kv->layer
                              << (kv->isValue ? " value" : " key") << ")";
    int result = -1;
    for (unsigned r = 0; r < fn.getNumResults(); ++r) {
      if (resultRole(fn, r) != ValueRole::kvPresent || !(resultKv(fn, r) == kv))
        continue;
      if (result >= 0)
        return fn.emitError() << "KV-cache results '" << resultName(fn, result) << "' and '"
                              << resultName(fn, r) << "' have the same mm.kv (layer " << kv->layer
                              << (kv->isValue ? " value" : " key") << ")";
      result = static_cast<int>(r);
    }
    if (result < 0)
      return fn.emitError() << "KV-cache input '" << argName(fn, a) << "' (layer " << kv->layer
                            << (kv->isValue ? " value" : " key")
                            << ") has no kv_present result with its mm.kv";
    KvAppend append = kvAppend(fn, a, static_cast<unsigned>(result));
    if (!append.concat)
      return fn.emitError() << "KV-cache input '" << argName(fn, a) << "' (layer " << kv->layer
                            << (kv->isValue ? " value" : " key") << ") and its result '"
                            << resultName(fn, result) << "' are no KV-cache pair: "
                            << append.whyNot;
    const int64_t axis = append.sequenceAxis;
    if (!out.empty() && out.front().axis != axis)
      return fn.emitError() << "KV-cache input '" << argName(fn, a) << "' appends along axis "
                            << axis << " but '" << argName(fn, out.front().argIndex)
                            << "' along axis " << out.front().axis;
    out.push_back({static_cast<int>(kv->layer), kv->isValue, a, static_cast<unsigned>(result),
                   append.concat, axis});
  }
  return out;
}

} // namespace mm
