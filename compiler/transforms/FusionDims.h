//===- FusionDims.h - provable equalities of dims for fusion matchers ------===//
//
// A fusion pattern that looks through reshapes (the dynamo exporter's K^T as
// reshape -> transpose -> reshape, GQA's repeat_kv as unsqueeze -> expand -> reshape)
// is only exact when the dims the reshapes produce are the ones it assumes. Dynamic dims
// (`?`) cannot be compared through types, so FunctionDims runs shape folding's symbolic
// analysis (ShapeAnalysis) over a function once and answers "are these two dims equal"
// from the DimExprs: the same ONNX-named dim, the same sum past + seq, a product that
// reshape's -1 inference cancels...
//
// The answers describe the function as it was when FunctionDims was built: a pass must
// match everything first and rewrite afterwards (values created later are unknown and
// compare unequal).
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_TRANSFORMS_FUSIONDIMS_H
#define MM_COMPILER_TRANSFORMS_FUSIONDIMS_H

#include "compiler/transforms/ShapeAnalysis.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mm::fusion {

class FunctionDims {
public:
  /// Analyses every `mm` op of `f` in order. Diagnostics the analysis would emit (shape
  /// errors are -mm-fold-shapes' to report) are swallowed.
  explicit FunctionDims(mlir::func::FuncOp f);

  /// True when dim `i` of `a` and dim `j` of `b` are provably equal: both static and
  /// equal, the same symbolic expression, or read through transposes / identical
  /// reshapes from dims that are.
  bool equal(mlir::Value a, int64_t i, mlir::Value b, int64_t j);

private:
  bool equal(mlir::Value a, int64_t i, mlir::Value b, int64_t j, int depth);
  /// All dims of `a` and `b` equal (same rank).
  bool sameShape(mlir::Value a, mlir::Value b, int depth);
  /// Both defined by transposes (compare the dims they read) or by reshapes to one shape
  /// vector of equally shaped inputs (dim i of one is dim i of the other).
  bool structurallyEqual(mlir::Value a, int64_t i, mlir::Value b, int64_t j, int depth);

  shapes::ShapeAnalysis analysis_;
};

} // namespace mm::fusion

#endif // MM_COMPILER_TRANSFORMS_FUSIONDIMS_H
