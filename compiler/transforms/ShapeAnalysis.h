//===- ShapeAnalysis.h - symbolic dims and shape-vector values of mm ops ---===//
//
// For every value of a function, shape folding knows
//  - its dims as DimExprs (static sizes, the ONNX-named dims of the inputs, and what
//    the ops compute from them: past + seq after a Concat, a broadcast of two dims...),
//  - for small integer tensors with a static shape ("tracked": shape vectors, scalars,
//    masks of a few elements), the value of each element as a DimExpr.
// The rules follow the ONNX operator semantics of each `mm` op
// (https://onnx.ai/onnx/operators/). Ops without a rule keep the dims of their type;
// elements nobody can compute get fresh symbols.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_TRANSFORMS_SHAPEANALYSIS_H
#define MM_COMPILER_TRANSFORMS_SHAPEANALYSIS_H

#include "compiler/transforms/SymbolicDims.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace mm::shapes {

/// True for ranked tensors of integer (or i1) elements with a static shape of at most
/// `maxElements` elements: the values whose elements are tracked.
bool isTrackedIntType(mlir::Type t, int64_t maxElements);

/// Elements of a result as inferred: std::nullopt for an element no rule computes.
using ElemGuesses = llvm::SmallVector<std::optional<DimExpr>, 8>;

class ShapeAnalysis {
public:
  /// `maxTrackedElements` bounds the tracked integer tensors (e.g. 64).
  explicit ShapeAnalysis(int64_t maxTrackedElements) : maxTracked_(maxTrackedElements) {}

  DimSymbolTable &symbols() { return symbols_; }
  int64_t maxTrackedElements() const { return maxTracked_; }

  /// Gives each argument of `f` its dims: static sizes, and for dynamic dims the symbol
  /// of its ONNX name (the `mm.dims` argument attribute; unnamed dims get fresh symbols).
  void seedArguments(mlir::func::FuncOp f);

  /// The dims of `v`: as set, else taken from its type (fresh symbols for `?`).
  const DimExprs &dims(mlir::Value v);
  /// The elements of `v` when its type is tracked (as set, else fresh symbols), else null.
  const DimExprs *elems(mlir::Value v);
  /// Constant elements of `v` when all are known, else std::nullopt.
  std::optional<llvm::SmallVector<int64_t>> constElems(mlir::Value v);
  /// Records what is known of `v`; makes v the run-time source of the symbols that
  /// appear alone in its dims or elements and have none yet.
  void set(mlir::Value v, DimExprs dims, std::optional<DimExprs> elems);

  /// The dims of each result of `op` from its operands, or std::nullopt for a dim no rule
  /// computes. Emits an error at `op` and fails when the operands are inconsistent
  /// (a reshape that changes the element count, a broadcast of 3 to 4, ...).
  mlir::FailureOr<llvm::SmallVector<llvm::SmallVector<std::optional<DimExpr>, 4>, 1>>
  inferDims(mlir::Operation *op);

  /// The elements of result 0 of `op`, whose type must be tracked: one guess per element
  /// (all std::nullopt when no rule applies).
  ElemGuesses inferElems(mlir::Operation *op);

  /// `e` for an integer of `bits` bits: constants wrap to the width (i1: 0 or 1).
  static std::optional<DimExpr> fitToWidth(const DimExpr &e, unsigned bits);

private:
  int64_t maxTracked_;
  DimSymbolTable symbols_;
  llvm::DenseMap<mlir::Value, DimExprs> dims_;
  llvm::DenseMap<mlir::Value, DimExprs> elems_;
};

} // namespace mm::shapes

#endif // MM_COMPILER_TRANSFORMS_SHAPEANALYSIS_H
