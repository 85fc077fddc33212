//===- PlanWriter.h - write a plan file atomically --------------------------===//
#ifndef MM_COMPILER_PLAN_PLANWRITER_H
#define MM_COMPILER_PLAN_PLANWRITER_H

#include "compiler/plan/FunctionEncoder.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace mm {

/// Writes the plan file layout of runtime/plan/PlanFormat.h: header, `flatbuffer`, zero
/// padding to a 4 KiB boundary, then every weight of `weights` at its blob offset, extent
/// by extent from its source files (relative sources are tried as given, then under
/// `modelDir`; each regular file is mapped into memory once, and its pages are released
/// as they are written) or inline bytes. Conversions and transposes run on every hardware
/// thread (llvm::parallelFor); the plan is the same whatever the thread count. Writes to
/// a temporary file next to `outputPath` (removed on a signal too) and renames it at the
/// end; on any error (diagnostic at the weight's location, or at `loc` for I/O; a weight
/// source that is `outputPath` itself, or not a regular file, is an error) the temporary
/// file is removed and nothing is left at `outputPath`. A transposed weight is written one
/// block of whole output rows at a time, at most `transposeBlockBytes` each (the memory the
/// writer holds besides its conversion chunk); a weight whose output row is longer is an
/// error. Tests pass a small block to cover several.
mlir::LogicalResult writePlanFile(llvm::StringRef outputPath, llvm::ArrayRef<uint8_t> flatbuffer,
                                  const WeightTable &weights, llvm::StringRef modelDir,
                                  mlir::Location loc, uint64_t &fileBytes,
                                  uint64_t transposeBlockBytes = uint64_t(64) << 20);

} // namespace mm

#endif // MM_COMPILER_PLAN_PLANWRITER_H
