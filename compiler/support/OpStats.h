//===- OpStats.h - op counts per function ---------------------------------===//
//
// Used by `mmc import --stats` (and by passes' before/after reports): how many ops of
// each name every function of a module holds.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_SUPPORT_OPSTATS_H
#define MM_COMPILER_SUPPORT_OPSTATS_H

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mm {

/// Op counts of one function: op name ("mm.add") -> count, plus the total.
struct FunctionOpCounts {
  std::string function;                  ///< symbol name of the func.func
  std::map<std::string, int64_t> counts; ///< sorted by op name
  int64_t total = 0;                     ///< all ops in the body (terminators included)
};

/// Counts the ops nested in each top-level function of `module`, in module order.
/// Ops of nested regions count too; the function op itself does not.
std::vector<FunctionOpCounts> countOpsPerFunction(mlir::ModuleOp module);

/// Prints one block per function: "function @name: N ops" then "  <count>  <op name>" lines
/// sorted by op name.
void printOpCounts(llvm::raw_ostream &os, const std::vector<FunctionOpCounts> &stats);

/// Prints op counts before and after a transformation side by side: per function
/// "function @name: N ops <beforeLabel>, M <afterLabel>", a header line, then one
/// "  <before>  <after>  <op name>" line per op present in either, sorted by op name.
/// Functions are matched by name; one missing on a side counts as 0 ops there.
void printOpCountChanges(llvm::raw_ostream &os, const std::vector<FunctionOpCounts> &before,
                         const std::vector<FunctionOpCounts> &after, llvm::StringRef beforeLabel,
                         llvm::StringRef afterLabel);

} // namespace mm

#endif // MM_COMPILER_SUPPORT_OPSTATS_H
