//===- KnownValues.h - element values of small integer tensors -------------===//
//
// The importer tracks what it knows about the elements of small integer tensors (shape
// vectors and scalars: rank <= 1, at most kMaxKnownElements elements) so that Reshape,
// Expand, ConstantOfShape, Range, Tile and Slice get static result types where the graph
// computes their shape operands from static dims (Shape -> Gather -> Concat chains).
// This only refines types: the ops themselves are imported unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_IMPORT_ONNX_KNOWNVALUES_H
#define MM_COMPILER_IMPORT_ONNX_KNOWNVALUES_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mm::onnx_import {

constexpr int64_t kMaxKnownElements = 64;

/// What is known of one element: its value, or only that it is >= 0 (a dim size), and
/// for copies of a dynamic dim which one it is (`dimOf` dim `dim`), so that Reshape to
/// [x.shape[0], x.shape[1], -1] keeps x's static dims.
struct KnownInt {
  int64_t value = 0;
  bool known = false;
  bool nonNegative = false;
  mlir::Value dimOf;
  int64_t dim = -1;

  static KnownInt of(int64_t v) { return {v, true, v >= 0, {}, -1}; }
  static KnownInt unknown(bool nonNegative = false) { return {0, false, nonNegative, {}, -1}; }
  static KnownInt dimOfValue(mlir::Value v, int64_t d) { return {0, false, true, v, d}; }
  /// True when both are the same dynamic dim of the same value.
  bool sameDim(const KnownInt &o) const { return dimOf && dimOf == o.dimOf && dim == o.dim; }
};

/// Known elements of one tensor in row-major order (a scalar has one element).
using KnownInts = llvm::SmallVector<KnownInt, 4>;

/// Known elements of values, computed op by op as the importer creates them.
class KnownValues {
public:
  /// The known elements of `v`, or std::nullopt when `v` is not a tracked small integer
  /// tensor (wrong type, rank > 1, dynamic or too many elements) or nothing is known.
  std::optional<KnownInts> get(mlir::Value v) const;

  /// Fully known integer values of `v` (all elements known), else std::nullopt.
  std::optional<llvm::SmallVector<int64_t>> getInts(mlir::Value v) const;

  /// Derives what is known about the results of `op` (an mm op just created) from its
  /// operands and attributes; does nothing for ops it does not model.
  void infer(mlir::Operation *op);

private:
  void set(mlir::Value v, KnownInts k);
  llvm::DenseMap<mlir::Value, KnownInts> known_;
};

/// True for ranked integer (incl. i1) tensors of rank <= 1 and at most kMaxKnownElements
/// elements: the values KnownValues tracks.
bool isTrackedIntTensor(mlir::Type t);

} // namespace mm::onnx_import

#endif // MM_COMPILER_IMPORT_ONNX_KNOWNVALUES_H
