//===- ModelContract.h - function and value roles of a multimodal model ------===//
//
// The model contract in IR: what each function of a module is for and what each of its
// arguments and results means, as discardable attributes that -mm-raise-model-contract
// sets right after import and shape folding (from the exporters' tensor names) and that
// everything after it reads instead of names:
//   - `mm.role` on a func.func: "vision_encoder", "embedding" or "decoder";
//   - `mm.role` on an argument or result: one of the value roles below;
//   - `mm.kv = {layer = <i64 >= 0>, kind = "key" | "value"}` on a `kv_past` argument and on
//     the `kv_present` result it is appended into (present = concat(past, new) along the
//     sequence axis; the plan emitter records the pair as a KV-cache slot).
// The mm dialect verifies them (MMDialect.cpp): a role must be a known one and fit where
// it sits (input roles on arguments, output roles on results), `mm.kv` must sit on a
// rank-4 tensor whose role is kv_past (argument) or kv_present (result), layer at most
// kMaxLayer.
//
//===----------------------------------------------------------------------===//
#ifndef MM_MODELCONTRACT_H
#define MM_MODELCONTRACT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>

namespace mm::contract {

constexpr llvm::StringLiteral kRoleAttr = "mm.role";
constexpr llvm::StringLiteral kKvAttr = "mm.kv";
/// On the module: the compute type the model's own config asks for ("f32", "f16" or
/// "bf16"; a Hugging Face config.json's dtype / torch_dtype), which mmc compile --dtype
/// auto takes (modelFloatType in compiler/pipeline/Pipeline.h).
constexpr llvm::StringLiteral kConfigDtypeAttr = "mm.config_dtype";
/// The largest layer index `mm.kv` may hold.
constexpr int64_t kMaxLayer = 1000000;

/// What a function is for in the generation pipeline.
enum class FunctionRole { none, visionEncoder, embedding, decoder };

/// What a function argument or result means. Written in IR as the snake_case names
/// ("input_ids", ..., "kv_present").
enum class ValueRole {
  none,
  inputIds,      ///< argument: token ids [batch, seq], integer
  inputsEmbeds,  ///< token embeddings [batch, seq, hidden] (embedding result, decoder argument)
  attentionMask, ///< argument: [batch, past + seq], 1 = attend
  positionIds,   ///< argument: [batch, seq] positions ([3, batch, seq] for M-RoPE)
  pixelValues,   ///< argument: preprocessed images [batch, channels, height, width] (or a
                 ///< family's patches: Fuyu's, Qwen2-VL's [patches, C * T * P * P])
  imageFeatures, ///< result: vision-encoder features [batch, tokens, hidden]
  logits,        ///< result: decoder scores [batch, seq, vocab]
  kvPast,        ///< argument: a KV-cache input (carries mm.kv)
  kvPresent,     ///< result: the KV-cache output that appends to a kvPast input (carries mm.kv)
  imageGridThw   ///< argument: each image's patch grid [images, 3] (temporal, height, width
                 ///< patches), integer: Qwen2-VL's image_grid_thw
};
/// Whether `role` may sit on an argument / on a result (ValueRole's comments).
bool fitsArgument(ValueRole role);
bool fitsResult(ValueRole role);

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

/// How a kv_present result appends to its kv_past argument: present = mm.concat(past, new)
/// along the sequence axis, 1 or 2 of a rank-4 [batch, heads, sequence, head_dim] or
/// [batch, sequence, heads, head_dim] cache (the layouts the runtimes keep).
struct KvAppend {
  mlir::Operation *concat = nullptr; ///< the mm.concat; null when it is no such append
  int64_t sequenceAxis = -1;         ///< 1 or 2
  std::string whyNot;                ///< why it is not, when concat is null
};
/// Whether result `resultIndex` of `fn` is such an append to argument `argIndex`.
KvAppend kvAppend(mlir::func::FuncOp fn, unsigned argIndex, unsigned resultIndex);
/// The heads axis of a KV cache whose sequence axis is `sequenceAxis` (1 or 2): the other
/// one of 1 and 2.
inline int64_t kvHeadsAxis(int64_t sequenceAxis) { return sequenceAxis == 2 ? 1 : 2; }

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
