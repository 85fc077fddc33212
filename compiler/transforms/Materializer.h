//===- Materializer.h - IR for values known as DimExprs ---------------------===//
//
// Shape folding knows shape vectors and scalars as DimExprs (constants, dims of the
// function's tensors, affine combinations). The Materializer builds them back as `mm` IR
// in one function body: constants, `mm.dim` of the value where each symbol was first
// seen (function arguments first), add / sub / mul for affine terms, concat / squeeze /
// reshape / cast to the requested type. Everything it builds is recorded in the
// ShapeAnalysis, and dims and scalar expressions are built once per (value, dim) /
// expression.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_TRANSFORMS_MATERIALIZER_H
#define MM_COMPILER_TRANSFORMS_MATERIALIZER_H

#include "compiler/transforms/ShapeAnalysis.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <map>
#include <string>

namespace mm::shapes {

class Materializer {
public:
  /// Builds in `body` (a function's only block). The `mm.dim` ops already in it are
  /// reused.
  Materializer(mlir::Block &body, ShapeAnalysis &analysis);

  /// `elems` (row-major) as a value of integer type `t`, available before `user`;
  /// null when some symbol has no run-time source defined before `user`, or `t` is i1
  /// and not all elements are constant.
  mlir::Value elements(llvm::ArrayRef<DimExpr> elems, mlir::RankedTensorType t,
                       mlir::Operation *user);
  /// `mm.dim %v[i]` (tensor<1xi64>), one per (value, dim), right after v's definition.
  mlir::Value dim(mlir::Value v, int64_t i);
  /// A new `mm.constant` right before `insertBefore`, or at the start of the body when null.
  mlir::Value constant(mlir::DenseElementsAttr value, mlir::Location loc,
                       mlir::Operation *insertBefore = nullptr);
  /// True when `v` is defined (or is an argument) before `user` in the body.
  bool before(mlir::Value v, mlir::Operation *user) const;

  /// The constant DimExprs `elems` as an attribute of integer type `t` (i1: nonzero is
  /// true; narrower integers wrap).
  static mlir::DenseElementsAttr intsAttr(llvm::ArrayRef<DimExpr> elems, mlir::RankedTensorType t);

private:
  void insertAfterDefs(mlir::ValueRange operands);
  mlir::Value reshapeTo(mlir::Value flat, mlir::RankedTensorType t, DimExprs elems,
                        mlir::Location loc);
  mlir::Value scalar(const DimExpr &e, mlir::Operation *user);
  mlir::Value symbolValue(SymbolId s, mlir::Operation *user);
  mlir::Value constScalar(int64_t c, mlir::Location loc);
  mlir::Type i64() { return builder_.getI64Type(); }
  mlir::RankedTensorType scalarType() { return mlir::RankedTensorType::get({1}, i64()); }

  mlir::Block &body_;
  ShapeAnalysis &a_;
  mlir::OpBuilder builder_;
  llvm::DenseMap<std::pair<mlir::Value, int64_t>, mlir::Value> dimCache_;
  std::map<std::string, mlir::Value> scalarCache_;
};

} // namespace mm::shapes

#endif // MM_COMPILER_TRANSFORMS_MATERIALIZER_H
