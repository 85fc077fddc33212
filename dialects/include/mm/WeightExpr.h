//===- WeightExpr.h - expressions of weights the plan emitter folds ----------===//
//
// The one rule for which ops over weights never run: the plan emitter
// (compiler/plan/FunctionEncoder.cpp) writes their results into the plan's weight blob,
// and -mm-plan-cuda-graphs places them as weights (uploaded at load, no launch):
//   - mm.weight, mm.constant;
//   - mm.concat of folded values (static shapes, at least one weight), either none of them
//     transposed, or all of them 2-D transposes concatenated along axis 1 (written as the
//     transpose of their sources concatenated along axis 0: merged Q/K/V of [N, K]
//     weights);
//   - mm.cast between f32, f16 and bf16 of a folded value (static shape) that holds no
//     converted bytes, or whose converted bytes are f32 (an exact widening of f16/bf16,
//     so the two conversions are one);
//   - mm.transpose {perm = [1, 0]} of a folded, non-empty 2-D value that is not itself a transpose
//     (torch.onnx's TorchScript export without constant folding stores nn.Linear's [N, K]
//     weights behind a Transpose; written transposed, so nothing runs per call);
//   - mm.reshape of a folded weight that is not a transpose, both shapes static (the same
//     bytes under another shape: a patch-embedding weight [O, C, kh, kw] as [O, C*kh*kw],
//     -mm-lower-patch-embedding).
//
//===----------------------------------------------------------------------===//
#ifndef MM_WEIGHTEXPR_H
#define MM_WEIGHTEXPR_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace mm {

/// What a folded value holds.
struct WeightExprInfo {
  bool weight = false;     ///< written into the blob (else an mm.constant, kept inline)
  bool converted = false;  ///< its bytes are converted from another float type
  bool transposed = false; ///< a 2-D transpose of the bytes it reads
};

/// The info of `op`'s result when the plan emitter folds `op` (rules above), else
/// std::nullopt. `infoOf` returns the info of an earlier folded value, or null.
std::optional<WeightExprInfo>
foldedWeightExpr(mlir::Operation &op,
                 llvm::function_ref<const WeightExprInfo *(mlir::Value)> infoOf);

/// The info of `v` when the plan emitter folds every op that computes it (walking its
/// defining ops), else std::nullopt: for passes that must know before the emitter runs
/// (FuseLinear merges only projections whose merged weight folds).
std::optional<WeightExprInfo> weightExprOf(mlir::Value v);

/// Whether `t` is f32, f16 or bf16 (the float types weight casts convert between).
bool isWeightFloat(mlir::Type elementType);

} // namespace mm

#endif // MM_WEIGHTEXPR_H
