//===- TensorData.h - ONNX element types, value types and tensor contents -===//
#ifndef MM_COMPILER_IMPORT_ONNX_TENSORDATA_H
#define MM_COMPILER_IMPORT_ONNX_TENSORDATA_H

#include "onnx.pb.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mm::onnx_import {

/// The MLIR element type of an ONNX TensorProto.DataType number (FLOAT -> f32, UINT8 ->
/// ui8, INT64 -> i64, BOOL -> i1, FLOAT16 -> f16, BFLOAT16 -> bf16, FLOAT8* -> f8*,
/// INT4/UINT4 -> i4/ui4, ...); a null type for STRING, COMPLEX and unknown numbers.
mlir::Type elementType(int32_t onnxType, mlir::MLIRContext *ctx);

/// The ONNX name of a data type number ("FLOAT", "INT64", ...; "type <n>" if unknown).
std::string dataTypeName(int32_t onnxType);

/// Bytes that `numElements` elements of `type` take in ONNX raw_data / external data:
/// bools one byte each, 4-bit types two per byte (rounded up).
uint64_t storageBytes(mlir::Type type, int64_t numElements);

/// The value of a TensorProto whose element type and shape are `type`, from its raw bytes
/// (`bytes`, in ONNX little-endian layout) or, when `bytes` is null, from its typed fields
/// (float_data, int32_data, int64_data, double_data, uint64_data). Errors (wrong byte or
/// element count) are emitted at `loc`, naming `what`.
mlir::FailureOr<mlir::DenseElementsAttr>
tensorValue(const onnx::TensorProto &tensor, mlir::RankedTensorType type,
            std::optional<llvm::ArrayRef<char>> bytes, mlir::Location loc, llvm::StringRef what);

/// The type of a TensorProto (data_type + dims); errors at `loc` for unsupported element
/// types or negative dims.
mlir::FailureOr<mlir::RankedTensorType> tensorType(const onnx::TensorProto &tensor,
                                                   mlir::Location loc, llvm::StringRef what);

/// A value's declared type: ranked tensor type plus the ONNX dim names ("" where unnamed).
struct DeclaredType {
  mlir::RankedTensorType type;
  llvm::SmallVector<std::string> dimNames;
};

/// The declared type of a graph input/output/value_info entry. Returns std::nullopt (no
/// error) when the entry carries no tensor type or no shape; errors at `loc` for
/// non-tensor types and unsupported element types.
mlir::FailureOr<std::optional<DeclaredType>> declaredType(const onnx::ValueInfoProto &info,
                                                          mlir::Location loc,
                                                          mlir::MLIRContext *ctx);

} // namespace mm::onnx_import

#endif // MM_COMPILER_IMPORT_ONNX_TENSORDATA_H
