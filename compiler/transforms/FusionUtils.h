//===- FusionUtils.h - matching helpers shared by the fusion passes -------===//
//
// The fusion passes (-mm-fuse-*) recognise subgraphs that the ONNX exporters emit and
// replace them with one high-level `mm` op. These helpers read constants (with a
// tolerance suited to their element type), follow commutative operands, and check that
// the ops a pattern swallows have no users outside it.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_TRANSFORMS_FUSIONUTILS_H
#define MM_COMPILER_TRANSFORMS_FUSIONUTILS_H

#include "mm/MMOps.h"
#include "runtime/core/DimRules.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Value.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mm::fusion {

/// The ranked tensor type of `v` (every `mm` value has one), or null.
mlir::RankedTensorType tensorTypeOf(mlir::Value v);

/// Relative tolerance for comparing a constant of element type `t` with an exact real
/// number: two units in the last place of the type (f32: 2^-23, f16: 2^-9, bf16: 2^-6,
/// f64: 2^-51), so a constant written by an exporter rounds into it and a different
/// constant (1.7 instead of 1.702) does not.
double relativeTolerance(mlir::Type elementType);

/// The value of every element of an `mm.constant` with float elements when they are all
/// equal (a scalar, a splat, or a small uniform tensor); std::nullopt otherwise.
std::optional<double> uniformFloatConstant(mlir::Value v);

/// True when `v` is a uniform float `mm.constant` equal to `expected` within the
/// tolerance of its element type (see relativeTolerance).
bool isFloatConstant(mlir::Value v, double expected);

/// The elements of an integer `mm.constant`, or std::nullopt.
std::optional<llvm::SmallVector<int64_t>> intConstantElements(mlir::Value v);

/// `axis` mapped into [0, rank); std::nullopt when out of range.
using mm::dims::normalizeAxis;

/// True when `axes` (possibly negative) name exactly the last dim of a rank-`rank` tensor.
bool isLastAxis(llvm::ArrayRef<int64_t> axes, int64_t rank);

/// The operation defining `v` when it is an OpTy, else null.
template <typename OpTy> OpTy defOf(mlir::Value v) {
  return v ? v.getDefiningOp<OpTy>() : OpTy();
}

/// Calls `fn(a, b)` then `fn(b, a)`; true when either call returns true. For the operands
/// of commutative ops (add, mul), whose order the exporters do not fix.
template <typename Fn> bool eitherOrder(mlir::Value a, mlir::Value b, Fn &&fn) {
  return fn(a, b) || fn(b, a);
}

/// True when every user of every result of the ops in `interior` is itself in `interior`
/// or is `root`: the pattern may then erase them all once `root` is replaced.
bool usesConfined(llvm::ArrayRef<mlir::Operation *> interior, mlir::Operation *root);

/// The single user of `v` when `v` has exactly one use, else null.
mlir::Operation *singleUser(mlir::Value v);

/// 1 / sqrt(a) as reciprocal(sqrt(a)), div(1, sqrt(a)) or pow(a, -0.5) (the rsqrt
/// forms of the norms): `a`, else null. Appends the ops to `ops`.
mlir::Value matchInverseSqrt(mlir::Value inv, llvm::SmallVectorImpl<mlir::Operation *> &ops);

/// The shared core of the norms: op = div(x, sqrt(r)), or mul(x, 1 / sqrt(r)) with the
/// inverse root in any matchInverseSqrt form and the operands in either order. Calls
/// `matchRadicand(r, x)` (which checks the normalizer under the root against x); on
/// success appends the root's ops to `interior` after what matchRadicand appended.
template <typename Fn>
bool matchScaledByInverseRoot(mlir::Operation *op, llvm::SmallVectorImpl<mlir::Operation *> &interior,
                              Fn &&matchRadicand) {
  if (auto div = llvm::dyn_cast<mm::DivOp>(op)) {
    auto sqrt = defOf<mm::SqrtOp>(div.getRhs());
    if (!sqrt || !matchRadicand(sqrt.getInput(), div.getLhs()))
      return false;
    interior.push_back(sqrt);
    return true;
  }
  auto mul = llvm::dyn_cast<mm::MulOp>(op);
  return mul && eitherOrder(mul.getLhs(), mul.getRhs(), [&](mlir::Value x, mlir::Value inv) {
           llvm::SmallVector<mlir::Operation *> ops;
           mlir::Value radicand = matchInverseSqrt(inv, ops);
           if (!radicand || !matchRadicand(radicand, x))
             return false;
           interior.append(ops.begin(), ops.end());
           return true;
         });
}

/// True when `a` and `b` are ranked tensors of one element type and rank whose dims can be
/// equal (equal, or either dynamic). Imported graphs may carry a static dim on one side
/// of an elementwise op and `?` on the other (an exporter's value_info specialised to
/// the traced shape); fused ops accept such pairs and refine with refineType().
bool compatibleTypes(mlir::Type a, mlir::Type b);

/// `v` as type `t` (compatible with v's): v itself when the types are equal, else an
/// `mm.cast` to `t` (same element type: it only changes which dims are static).
mlir::Value refineType(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, mlir::Type t);

/// True when `op` is an `mm.cast` between two float element types (a precision change,
/// not a dims-only refinement).
bool isFloatPrecisionCast(mlir::Operation *op);

/// `v` with the float precision casts in front of it skipped (HF's precision islands:
/// `x.to(torch.float32)` before a softmax or a norm, `.to(x.dtype)` after it): the first
/// value up the chain that is not such a cast's result. Appends the casts to `ops`.
/// The fused ops compute in f32 whatever their element type, so a pattern may absorb
/// these casts; the element type it then gives its fused op is stated where it does.
mlir::Value skipPrecisionCasts(mlir::Value v, llvm::SmallVectorImpl<mlir::Operation *> &ops);

/// `v` with element type `elem` (its shape kept): v itself, or an `mm.cast`.
mlir::Value castElements(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, mlir::Type elem);

/// The input a fused norm reads for `xf`, the value the island normalises, when the
/// pattern's result has element type `elem`: the source of `xf`'s precision cast when
/// that source already has type `elem` (Cast up, norm, Cast down: the norm reads and
/// writes `elem`), else `xf` itself (the norm then reads and writes xf's type and its
/// result is cast to `elem` after it).
mlir::Value normInput(mlir::Value xf, mlir::Type elem);

/// Reports why a pattern did not fire where a block of its kind starts (`anchor`: the
/// softmax of an attention, the normalising multiply of a norm): a remark
/// "@<function>: <pattern> not raised: <why>" at the anchor's location. The fusion passes
/// report with their report-near-misses option; `mmc compile` collects the remarks
/// (--stats lists them; an attention left in a decoder is also a warning).
void reportNearMiss(mlir::Operation *anchor, llvm::StringRef pattern, llvm::StringRef why);

/// Why a norm whose pattern grew from its core to `last` cannot be raised, or "" when it
/// can: the fused op's input (normInput) must have the result's shape, and no value
/// inside the pattern (`interior`) may be used outside it.
std::string normMatchProblem(mlir::Value input, mlir::RankedTensorType resultType,
                             llvm::ArrayRef<mlir::Operation *> interior, mlir::Operation *last);

/// Reports a near miss (reportNearMiss) at every op of `root` for which `match(op, why)`
/// finds no match but sets `why`: the blocks a pass left after its rewrites.
template <typename MatchFn>
void reportNearMisses(mlir::Operation *root, llvm::StringRef pattern, MatchFn &&match) {
  std::string why;
  root->walk([&](mlir::Operation *op) {
    if (!match(op, why) && !why.empty())
      reportNearMiss(op, pattern, why);
  });
}

/// A uniform float constant of type `type` (an `mm.constant` splat) built at the
/// rewriter's insertion point.
mlir::Value createSplatConstant(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::RankedTensorType type, double value);

/// An F32 attribute holding `value` (the epsilon and scale attributes of the fused ops).
mlir::FloatAttr f32Attr(mlir::Builder &b, double value);

} // namespace mm::fusion

#endif // MM_COMPILER_TRANSFORMS_FUSIONUTILS_H
