//===- KvCachePattern.cpp - find a decoder's KV-cache slots -----------------===//
#include "compiler/plan/KvCachePattern.h"

#include "mm/MMOps.h"

#include "llvm/Support/Regex.h"

using namespace mlir;

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

std::vector<KvCacheMatch> findKvCacheSlots(func::FuncOp fn) {
  std::vector<KvCacheMatch> out;
  if (fn.isExternal())
    return out;
  auto ret = dyn_cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  if (!ret)
    return out;
  llvm::Regex pastRe("^past_key_values\\.([0-9]+)\\.(key|value)$");
  for (unsigned a = 0; a < fn.getNumArguments(); ++a) {
    SmallVector<StringRef, 3> m;
    std::string name = argName(fn, a);
    if (!pastRe.match(name, &m))
      continue;
    std::string present = "present." + m[1].str() + "." + m[2].str();
    for (OpOperand &use : fn.getArgument(a).getUses()) {
      auto concat = dyn_cast<ConcatOp>(use.getOwner());
      if (!concat || use.getOperandNumber() != 0 || concat->getNumOperands() != 2)
        continue;
      auto type = cast<RankedTensorType>(concat.getType());
      int64_t axis = concat.getAxis();
      if (axis < 0)
        axis += type.getRank();
      for (OpOperand &r : ret->getOpOperands())
        if (r.get() == concat.getResult() && resultName(fn, r.getOperandNumber()) == present) {
          KvCacheMatch match;
          unsigned layer = 0;
          if (m[1].getAsInteger(10, layer) || layer > 1000000)
            continue;
          match.layer = static_cast<int>(layer);
          match.isValue = m[2] == "value";
          match.argIndex = a;
          match.resultIndex = r.getOperandNumber();
          match.concat = concat;
          match.axis = axis;
          out.push_back(match);
        }
    }
  }
  return out;
}

} // namespace mm
