//===- FusionReport.cpp - what `mmc compile` says about fusion ------------===//
#include "tools/mmc/FusionReport.h"

#include "compiler/plan/KvCachePattern.h"
#include "compiler/support/Locations.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/Support/WithColor.h"

namespace mm {
namespace {

/// Splits a remark "@fn: pattern not raised: why" (fusion::reportNearMiss); false for any
/// other remark.
bool parseNearMiss(llvm::StringRef text, NearMiss &m) {
  if (!text.consume_front("@"))
    return false;
  auto [fn, rest] = text.split(": ");
  auto [pattern, why] = rest.split(" not raised: ");
  if (fn.empty() || pattern.empty() || why.empty())
    return false;
  m.function = fn.str();
  m.pattern = pattern.str();
  m.why = why.str();
  return true;
}

llvm::raw_ostream &warning() { return llvm::WithColor::warning(llvm::errs(), "mmc"); }

/// True when `fn` takes past_key_values.* arguments (a decoder exported with a cache).
bool takesPastKeyValues(mlir::func::FuncOp fn) {
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    if (llvm::StringRef(argName(fn, i)).starts_with("past_key_values."))
      return true;
  return false;
}

} // namespace

NearMissCollector::NearMissCollector(mlir::MLIRContext *ctx)
    : handler_(ctx, [this](mlir::Diagnostic &d) {
        NearMiss m;
        if (d.getSeverity() != mlir::DiagnosticSeverity::Remark || !parseNearMiss(d.str(), m))
          return mlir::failure(); // not ours: the next handler prints it
        m.node = describeLocation(d.getLocation());
        misses_.push_back(std::move(m));
        return mlir::success();
      }) {}

void printNearMisses(llvm::raw_ostream &os, const std::vector<NearMiss> &misses) {
  os << "near misses:" << (misses.empty() ? " none" : "") << "\n";
  for (const NearMiss &m : misses)
    os << "  @" << m.function << ": " << m.pattern << " at node " << m.node
       << " not raised: " << m.why << "\n";
}

void warnAboutDecoders(mlir::ModuleOp module, const std::vector<NearMiss> &misses, bool cuda) {
  for (auto fn : module.getOps<mlir::func::FuncOp>()) {
    if (fn.isExternal())
      continue;
    if (findKvCacheSlots(fn).empty()) {
      if (takesPastKeyValues(fn))
        warning() << "@" << fn.getSymName() << " takes past_key_values inputs but returns no "
                  << "present = concat(past, new): it has no KV-cache slots, so mmrun cannot "
                  << "generate with it (an Optimum decoder compiled with use_cache_branch=0?)\n";
      continue;
    }
    for (const NearMiss &m : misses)
      if (m.function == fn.getSymName() && m.pattern == "attention")
        warning() << "decoder @" << m.function << " keeps an unfused attention at node "
                  << m.node << " (" << m.why
                  << "); it runs as separate matmul and softmax ops\n";
    auto segments = fn->getAttrOfType<mlir::ArrayAttr>("mm.segments");
    if (!cuda || !segments || segments.size() <= 1)
      continue;
    warning() << "the decode step of @" << fn.getSymName() << " splits into " << segments.size()
              << " CUDA-graph segments, so it is not captured as one graph:";
    for (auto s : segments.getAsRange<mlir::DictionaryAttr>())
      if (auto end = s.getAs<mlir::StringAttr>("end"); end && end.getValue() != "end of function")
        llvm::errs() << " " << end.getValue() << ";";
    llvm::errs() << "\n";
  }
}

} // namespace mm
