//===- Passes.td - the mmc compiler passes --------------------------------===//
//
// One pass per file in compiler/transforms; each is declared here and registered with
// mmc-opt through registerMMPasses().
//
//===----------------------------------------------------------------------===//
#ifndef MM_TRANSFORMS_PASSES_TD
#define MM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

#endif // MM_TRANSFORMS_PASSES_TD
