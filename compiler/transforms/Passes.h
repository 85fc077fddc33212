//===- Passes.h - the mmc compiler passes ----------------------------------===//
#ifndef MM_TRANSFORMS_PASSES_H
#define MM_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mm {

#define GEN_PASS_DECL
#include "compiler/transforms/Passes.h.inc"

/// registerMMPasses(): registers every mmc pass (for mmc-opt and pipeline parsing).
#define GEN_PASS_REGISTRATION
#include "compiler/transforms/Passes.h.inc"

} // namespace mm

#endif // MM_TRANSFORMS_PASSES_H
