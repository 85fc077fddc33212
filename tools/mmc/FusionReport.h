//===- FusionReport.h - what `mmc compile` says about fusion --------------===//
//
// The fusion passes report each block they start to match but do not raise as a remark
// (fusion::reportNearMiss in compiler/transforms/FusionUtils.h). `mmc compile` collects
// them: --stats lists every near miss with its ONNX node; a decoder (a function with a
// KV cache) that keeps an unfused attention gets a warning whatever the options, and so
// does a CUDA decoder whose step splits into more than one CUDA-graph segment.
//
//===----------------------------------------------------------------------===//
#ifndef MM_TOOLS_MMC_FUSIONREPORT_H
#define MM_TOOLS_MMC_FUSIONREPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mm {

/// One block a fusion pass did not raise.
struct NearMiss {
  std::string function; ///< symbol name, without '@'
  std::string pattern;  ///< "attention", "rms_norm", "layer_norm"
  std::string why;
  std::string node;     ///< describeLocation() of the block's first op
};

/// Collects the fusion passes' near-miss remarks while it lives; other diagnostics go on
/// to the handlers registered before it.
class NearMissCollector {
public:
  explicit NearMissCollector(mlir::MLIRContext *ctx);
  const std::vector<NearMiss> &nearMisses() const { return misses_; }

private:
  std::vector<NearMiss> misses_;
  mlir::ScopedDiagnosticHandler handler_;
};

/// --stats: "near misses:" and one line per miss ("none" when there is none).
void printNearMisses(llvm::raw_ostream &os, const std::vector<NearMiss> &misses);

/// Warnings on stderr for the decoders of `module` (functions with a KV-cache input, role
/// kv_past) that will decode slowly: an attention not raised (with its node and reason)
/// and, for a CUDA plan, a step split into several CUDA-graph segments (with the reason
/// each one ends).
void warnAboutDecoders(mlir::ModuleOp module, const std::vector<NearMiss> &misses, bool cuda);

} // namespace mm

#endif // MM_TOOLS_MMC_FUSIONREPORT_H
