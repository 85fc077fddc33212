//===- OpStats.cpp - op counts per function -------------------------------===//
#include "compiler/support/OpStats.h"

#include "mlir/IR/SymbolTable.h"

#include "llvm/Support/Format.h"

using namespace mlir;

namespace mm {

std::vector<FunctionOpCounts> countOpsPerFunction(ModuleOp module) {
  std::vector<FunctionOpCounts> out;
  for (Operation &fn : module.getBody()->getOperations()) {
    auto name = fn.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    if (!name || fn.getNumRegions() == 0)
      continue;
    FunctionOpCounts stats;
    stats.function = name.str();
    fn.walk([&](Operation *op) {
      if (op == &fn)
        return;
      ++stats.counts[op->getName().getStringRef().str()];
      ++stats.total;
    });
    out.push_back(std::move(stats));
  }
  return out;
}

void printOpCounts(llvm::raw_ostream &os, const std::vector<FunctionOpCounts> &stats) {
  for (const FunctionOpCounts &f : stats) {
    os << "function @" << f.function << ": " << f.total << " ops\n";
    for (const auto &[name, count] : f.counts)
      os << llvm::format("  %6lld  ", static_cast<long long>(count)) << name << "\n";
  }
}

} // namespace mm
