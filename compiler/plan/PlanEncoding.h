//===- PlanEncoding.h - MLIR types and attributes as plan FlatBuffer values -===//
//
// Element types map to plan DTypes (i1 -> boolean, signless/signed ints -> i*,
// unsigned -> u*). Op attributes map generically: bool/integer/enum -> IntAttr, float ->
// FloatAttr, string -> StringAttr, i64/i32/bool arrays and integer ArrayAttrs ->
// IntListAttr, float arrays -> FloatListAttr, dense elements -> TensorAttr (small
// tensors). The scalar `value` of mm.constant_of_shape is stored as a one-element
// TensorAttr so that it keeps its element type.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_PLAN_PLANENCODING_H
#define MM_COMPILER_PLAN_PLANENCODING_H

#include "runtime/plan/plan_generated.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"

namespace mm {

/// The plan dtype of `type`; fails (without a diagnostic) for unsupported types.
mlir::FailureOr<plan::fb::DType> planDType(mlir::Type type);

/// Bytes per element of a plan dtype.
uint64_t planDTypeSize(plan::fb::DType t);

/// The elements of `value` as row-major little-endian bytes of its plan dtype (bools one
/// byte each); emits an error at `loc` and fails for unsupported element types or storage.
mlir::FailureOr<std::vector<uint8_t>> denseBytes(mlir::ElementsAttr value, mlir::Location loc);

/// A TensorData holding the elements of `value`; emits an error at `loc` and fails for
/// unsupported element types or storage.
mlir::FailureOr<flatbuffers::Offset<plan::fb::TensorData>>
encodeTensorData(flatbuffers::FlatBufferBuilder &fbb, mlir::ElementsAttr value, mlir::Location loc,
                 uint64_t *bytes = nullptr);

/// The attributes of `op` (inherent ones, defaults filled in; discardable attributes
/// with a dialect prefix such as `mm.name` are skipped). Emits an error naming the op and
/// the attribute and fails for an attribute kind the plan cannot hold.
mlir::FailureOr<std::vector<flatbuffers::Offset<plan::fb::Attribute>>>
encodeAttributes(flatbuffers::FlatBufferBuilder &fbb, mlir::Operation *op);

} // namespace mm

#endif // MM_COMPILER_PLAN_PLANENCODING_H
