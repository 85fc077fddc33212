//===- ShapeInference.h - result shapes of ONNX ops ------------------------===//
//
// Shape rules shared by the op handlers. Dims are MLIR dims: ShapedType::kDynamic for
// `?`. Every function gives the most static shape that the inputs prove and `?` where the
// dim depends on run-time values.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_IMPORT_ONNX_SHAPEINFERENCE_H
#define MM_COMPILER_IMPORT_ONNX_SHAPEINFERENCE_H

#include "compiler/import/onnx/KnownValues.h"
#include "runtime/core/DimRules.h"

#include "mlir/IR/BuiltinTypes.h"

#include <optional>

namespace mm::onnx_import {

using Shape = llvm::SmallVector<int64_t, 4>;

/// The largest dim (and attribute such as a pad or stride) the importer accepts: 2^40.
/// Larger values only come from corrupt files; rejecting them keeps dim arithmetic far
/// from int64 overflow.
constexpr int64_t kMaxDim = int64_t(1) << 40;

using dims::normalizeAxis;

/// numpy multidirectional broadcasting of `shapes` (runtime/core/DimRules.h);
/// std::nullopt when two static dims (neither 1) differ.
std::optional<Shape> broadcastShapes(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes);

/// The dims of a tensor whose shape is the 1-D vector `shape` of length `rank` (e.g.
/// ConstantOfShape): known elements become static dims, the rest `?`.
Shape shapeFromKnown(const std::optional<KnownInts> &shape, int64_t rank);

/// ONNX Reshape of `data` to the `rank`-element shape vector `shape` (0 copies the input
/// dim unless allowZero, -1 is inferred). Elements that copy one of `data`'s own dynamic
/// dims cancel against it; when the other input dims are static and only one output dim
/// is unknown, that dim is derived from the element count.
Shape reshapeShape(mlir::Value data, const std::optional<KnownInts> &shape, int64_t rank,
                   bool allowZero);

/// ONNX Expand of `in` to the `rank`-element shape vector `shape` (numpy broadcasting).
Shape expandShape(llvm::ArrayRef<int64_t> in, const std::optional<KnownInts> &shape, int64_t rank);

/// The length of ONNX Slice over one dim of size `dim` (possibly `?`) with the given
/// start/end/step (std::nullopt = unknown at import).
int64_t slicedDim(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                  std::optional<int64_t> step);

/// numpy.matmul result shape; std::nullopt when ranks are 0 or batch dims do not
/// broadcast.
std::optional<Shape> matmulShape(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs);

/// Product of dims, `?` when any is dynamic or the product exceeds 2^60 (no real tensor
/// has that many elements).
int64_t productOfDims(llvm::ArrayRef<int64_t> dims);

} // namespace mm::onnx_import

#endif // MM_COMPILER_IMPORT_ONNX_SHAPEINFERENCE_H
