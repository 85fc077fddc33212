//===- ModelContract.h - function and value roles of a multimodal model ------===//
//
// The model contract in IR: what each function of a module is for and what each of its
// arguments and results means, as discardable attributes that -mm-raise-model-contract
// sets right after import (from the exporters' tensor names) and that everything after it
// reads instead of names:
//   - `mm.role` on a func.func: "vision_encoder", "embedding" or "decoder";
//   - `mm.role` on an argument or result: one of the value roles below;
//   - `mm.kv = {layer = <i64 >= 0>, kind = "key" | "value"}` on a `kv_past` argument and on
//     the `kv_present` result it is appended into (present = concat(past, new) along the
//     sequence axis; the plan emitter records the pair as a KV-cache slot).
// The mm dialect verifies them (MMDialect.cpp): a role must be a known one, `mm.kv` must
// sit on a rank-4 tensor whose role is kv_past (argument) or kv_present (result).
//
//===----------------------------------------------------------------------===//
#ifndef MM_MODELCONTRACT_H
#define MM_MODELCONTRACT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>

namespace mm::contract {

constexpr llvm::StringLiteral kRoleAttr = "mm.role";
constexpr llvm::StringLiteral kKvAttr = "mm.kv";

/// What a function is for in the generation pipeline.
enum class FunctionRole { none, visionEncoder, embedding, decoder };

/// What a function argument or result means. Written in IR as the snake_case names
/// ("input_ids", ..., "kv_present").
enum class ValueRole {
  none,
  inputIds,      ///< token ids [batch, seq], integer
  inputsEmbeds,  ///< token embeddings [batch, seq, hidden] (embedding result, decoder input)
  attentionMask, ///< [batch, past + seq], 1 = attend
  positionIds,   ///< [batch, seq] positions
  pixelValues,   ///< preprocessed images [batch, channels, height, width]
  imageFeatures, ///< vision-encoder result [batch, tokens, hidden]
  logits,        ///< decoder result [batch, seq, vocab]
  kvPast,        ///< a KV-cache input (carries mm.kv)
  kvPresent      ///< the KV-cache output that appends to a kvPast input (carries mm.kv)
};

/// One KV-cache tensor: the key or value cache of one decoder layer.
struct KvPosition {
  int64_t layer = 0;
  bool isValue = false;
  bool operator==(const KvPosition &o) const { return layer == o.layer && isValue == o.isValue; }
};

llvm::StringRef roleName(FunctionRole role);
llvm::StringRef roleName(ValueRole role);
/// The role named `name`, or std::nullopt when it names none.
std::optional<FunctionRole> parseFunctionRole(llvm::StringRef name);
std::optional<ValueRole> parseValueRole(llvm::StringRef name);

/// The roles set on `fn` (FunctionRole::none / ValueRole::none when unset).
FunctionRole functionRole(mlir::func::FuncOp fn);
ValueRole argRole(mlir::func::FuncOp fn, unsigned index);
ValueRole resultRole(mlir::func::FuncOp fn, unsigned index);
/// The `mm.kv` of argument or result `index`, or std::nullopt.
std::optional<KvPosition> argKv(mlir::func::FuncOp fn, unsigned index);
std::optional<KvPosition> resultKv(mlir::func::FuncOp fn, unsigned index);

/// The attribute values written by -mm-raise-model-contract.
mlir::StringAttr roleAttr(mlir::MLIRContext *ctx, FunctionRole role);
mlir::StringAttr roleAttr(mlir::MLIRContext *ctx, ValueRole role);
mlir::DictionaryAttr kvAttr(mlir::MLIRContext *ctx, KvPosition kv);

/// The function of `module` with role `role`, or null (the raising pass gives each role
/// to at most one function).
mlir::func::FuncOp functionWithRole(mlir::ModuleOp module, FunctionRole role);
/// The index of the first argument / result of `fn` with role `role`, or -1.
int argWithRole(mlir::func::FuncOp fn, ValueRole role);
int resultWithRole(mlir::func::FuncOp fn, ValueRole role);

/// Verifies one contract attribute (mm.role, mm.kv) on a function, argument or result
/// (the mm dialect's attribute verifiers call these). `type` is the argument's or
/// result's type; other attributes pass.
mlir::LogicalResult verifyFunctionAttr(mlir::Operation *op, mlir::NamedAttribute attr);
mlir::LogicalResult verifyValueAttr(mlir::Operation *op, bool isResult, unsigned index,
                                    mlir::Type type, mlir::NamedAttribute attr,
                                    mlir::DictionaryAttr all);

} // namespace mm::contract

#endif // MM_MODELCONTRACT_H
