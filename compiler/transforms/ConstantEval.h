//===- ConstantEval.h - evaluate mm ops on constant operands ---------------===//
//
// Constant folding for shape folding: computes the result of an `mm` op whose operands
// are all dense constants, with ONNX semantics (https://onnx.ai/onnx/operators/).
// Covered: data movement (Reshape, Squeeze, Unsqueeze, Flatten, Transpose, Expand,
// Tile, Gather, Concat, Slice), ConstantOfShape, integer Range, elementwise integer /
// float arithmetic (Add, Sub, Mul, Div, Max, Min, Neg, Abs, Relu, Sqrt, Reciprocal,
// Floor, Ceil), comparisons, logic, IsNaN, Where and Cast. Float results are computed
// in double and rounded once to the result type, which is exact IEEE arithmetic for
// f16/bf16/f32 (+, -, *, /, sqrt). Transcendentals (exp, erf, sin...) are not folded:
// their last bit depends on the math library, and the runtime must agree with the IR.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_TRANSFORMS_CONSTANTEVAL_H
#define MM_COMPILER_TRANSFORMS_CONSTANTEVAL_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

namespace mm::shapes {

/// The value of `op`'s single result, typed `resultType` (static shape), given the
/// values of all its operands; a null attribute when the op is not covered or the
/// result is not defined (integer division by zero, a float-to-int cast out of range,
/// NaN in Max/Min, an index out of range).
mlir::DenseElementsAttr evaluateConstant(mlir::Operation *op,
                                         llvm::ArrayRef<mlir::DenseElementsAttr> operands,
                                         mlir::RankedTensorType resultType);

} // namespace mm::shapes

#endif // MM_COMPILER_TRANSFORMS_CONSTANTEVAL_H
