//===- mmc-opt.cpp - run mmc passes on textual IR -------------------------===//
//
// MlirOptMain with the `mm` and `func` dialects, the mmc passes and MLIR's generic
// transforms (canonicalize, cse, ...). Used by the lit tests and for debugging.
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/Passes.h"
#include "mm/MMDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mm::MMDialect, mlir::func::FuncDialect>();
  mlir::registerTransformsPasses();
  mm::registerMMPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "mmc optimizer driver\n", registry));
}
