//===- IndexMaps.h - element index maps of ONNX data-movement ops ----------===//
//
// For ops that only move elements (broadcast, Gather, Concat, Slice, Transpose, Tile),
// the flat row-major index of the operand element that lands at each result position.
// Shape folding uses them both to fold constants and to track the symbolic elements of
// small shape vectors. All shapes are static. Semantics: https://onnx.ai/onnx/operators/.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_TRANSFORMS_INDEXMAPS_H
#define MM_COMPILER_TRANSFORMS_INDEXMAPS_H

#include "runtime/core/DimRules.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <utility>

namespace mm::shapes {

using IndexMap = llvm::SmallVector<int64_t, 16>;

/// Product of the dims (1 for rank 0); nullopt on overflow or a negative dim.
std::optional<int64_t> numElements(llvm::ArrayRef<int64_t> shape);

/// ONNX multidirectional broadcast: result position -> operand position.
IndexMap broadcastMap(llvm::ArrayRef<int64_t> result, llvm::ArrayRef<int64_t> operand);

/// ONNX Gather along `axis` (in [0, rank)) with `indices` already wrapped into
/// [0, data[axis]) and shaped `indicesShape`.
IndexMap gatherMap(llvm::ArrayRef<int64_t> data, int64_t axis, llvm::ArrayRef<int64_t> indices,
                   llvm::ArrayRef<int64_t> indicesShape);

/// Concat along `axis`: result position -> (input number, position in that input).
llvm::SmallVector<std::pair<unsigned, int64_t>, 16>
concatMap(llvm::ArrayRef<llvm::SmallVector<int64_t, 4>> inputs, int64_t axis);

/// One dim of an ONNX Slice after clamping: first index, step and element count.
/// One dim of an ONNX Slice (the rule is runtime/core/DimRules.h's sliceBounds).
using SliceDim = mm::dims::SliceBounds;
/// Slice with one SliceDim per data dim.
IndexMap sliceMap(llvm::ArrayRef<int64_t> data, llvm::ArrayRef<SliceDim> dims);

/// Transpose: result dim i is input dim perm[i].
IndexMap transposeMap(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> perm);

/// Tile: input repeated repeats[i] times along dim i.
IndexMap tileMap(llvm::ArrayRef<int64_t> input, llvm::ArrayRef<int64_t> repeats);

} // namespace mm::shapes

#endif // MM_COMPILER_TRANSFORMS_INDEXMAPS_H
