//===- FusionReport.cpp - what `mmc compile` says about fusion ------------===//
#include "tools/mmc/FusionReport.h"

#include "mm/ModelContract.h"
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
    if (fn.isExternal() || contract::argWithRole(fn, contract::ValueRole::kvPast) < 0)
      continue; // (-mm-raise-model-contract warns about a past input it does not pair)
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
