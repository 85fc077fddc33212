//===- OpStats.cpp - op counts per function -------------------------------===//
#include "compiler/support/OpStats.h"

#include "mlir/IR/SymbolTable.h"

#include "llvm/Support/Format.h"

#include <algorithm>

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

void printOpCountChanges(llvm::raw_ostream &os, const std::vector<FunctionOpCounts> &before,
                         const std::vector<FunctionOpCounts> &after, llvm::StringRef beforeLabel,
                         llvm::StringRef afterLabel) {
  static const FunctionOpCounts kNone;
  auto find = [](const std::vector<FunctionOpCounts> &v, const std::string &name) {
    for (const FunctionOpCounts &f : v)
      if (f.function == name)
        return &f;
    return &kNone;
  };
  std::vector<std::string> names;
  for (const auto *side : {&before, &after})
    for (const FunctionOpCounts &f : *side)
      if (std::find(names.begin(), names.end(), f.function) == names.end())
        names.push_back(f.function);
  for (const std::string &name : names) {
    const FunctionOpCounts &b = *find(before, name), &a = *find(after, name);
    os << "function @" << name << ": " << b.total << " ops " << beforeLabel << ", " << a.total
       << " " << afterLabel << "\n";
    os << llvm::format("  %8s  %8s  op\n", beforeLabel.str().c_str(), afterLabel.str().c_str());
    std::map<std::string, std::pair<int64_t, int64_t>> rows;
    for (const auto &[op, n] : b.counts)
      rows[op].first = n;
    for (const auto &[op, n] : a.counts)
      rows[op].second = n;
    for (const auto &[op, n] : rows)
      os << llvm::format("  %8lld  %8lld  ", static_cast<long long>(n.first),
                         static_cast<long long>(n.second))
         << op << "\n";
  }
}

} // namespace mm
