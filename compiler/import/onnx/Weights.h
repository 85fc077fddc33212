//===- Weights.h - initializers as mm.weight references or mm.constant ----===//
#ifndef MM_COMPILER_IMPORT_ONNX_WEIGHTS_H
#define MM_COMPILER_IMPORT_ONNX_WEIGHTS_H

#include "compiler/import/onnx/ModelLoader.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/StringMap.h"

namespace mm::onnx_import {

/// Sizes of the external-data files seen so far (stat once per file).
using FileSizes = llvm::StringMap<uint64_t>;

/// True when an initializer of this type becomes an inline mm.constant rather than a
/// weight reference: at most 16 elements of any type, or an integer (incl. bool) tensor of
/// at most 1024 elements (shape vectors, index tables the shape folder needs).
bool isSmallConstant(mlir::RankedTensorType type);

/// Creates the op for `init` at the builder's insertion point:
///  - small (isSmallConstant) or stored in typed fields (float_data, ...): mm.constant,
///    its bytes read from the model, the typed fields or the external file;
///  - otherwise mm.weight naming the bytes: the model file and the raw_data offset for
///    embedded data, or `<model dir>/<location>` with `offset`/`length` for external data.
/// External data is checked without reading it: the location must be a relative path
/// inside the model's folder, the file must exist, and offset + length must fit in it.
/// Errors are emitted at `loc` and name the initializer and file.
mlir::FailureOr<mlir::Value> importInitializer(mlir::OpBuilder &b, const LoadedModel &model,
                                               const Initializer &init, mlir::Location loc,
                                               FileSizes &sizes);

} // namespace mm::onnx_import

#endif // MM_COMPILER_IMPORT_ONNX_WEIGHTS_H
