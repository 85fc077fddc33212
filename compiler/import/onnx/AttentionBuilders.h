//===- AttentionBuilders.h - building blocks of the attention importers ----===//
//
// Shared by the importers of ONNX Attention / RotaryEmbedding (OpsTransformer.cpp) and of
// onnxruntime's MultiHeadAttention / GroupQueryAttention / RotaryEmbedding
// (OpsContribAttention.cpp): head layout changes, the KV-cache concat, causal and padding
// masks, GQA head repetition, the spelled-out attention for what mm.attention cannot
// express, and rotary tables.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_IMPORT_ONNX_ATTENTIONBUILDERS_H
#define MM_COMPILER_IMPORT_ONNX_ATTENTIONBUILDERS_H

#include "compiler/import/onnx/OpBuilders.h"

namespace mm::onnx_import {

inline bool isDyn(int64_t d) { return mlir::ShapedType::isDynamic(d); }

/// a @ b (mm.matmul with numpy's batch broadcasting); an error when they do not fit.
mlir::FailureOr<mlir::Value> matmulOf(NodeContext &c, mlir::Value a, mlir::Value b);

/// [B, S, H*D] -> [B, H, S, D] (callers check that H divides a static hidden size:
/// requireHeads).
mlir::Value splitHeads(NodeContext &c, mlir::Value x, int64_t heads);

/// Errors unless `heads` is positive and divides dim 2 of `x` [B, S, hidden] when static,
/// naming `what` (the node's attribute).
mlir::LogicalResult requireHeads(NodeContext &c, mlir::Value x, int64_t heads, llvm::StringRef what);

/// [B, H, S, D] -> [B, S, H*D].
mlir::Value mergeHeads(NodeContext &c, mlir::Value x);

/// Dim `axis` of `v` as a 0-D i64 value (mm.shape + squeeze).
mlir::Value dimScalar(NodeContext &c, mlir::Value v, int64_t axis);

/// [0, n) as a 1-D i64 tensor (static length when n is).
mlir::Value iota(NodeContext &c, mlir::Value n, int64_t staticLen);

/// ONNX Attention's causal rule as a boolean [S, T] mask: key t is visible to query i
/// iff t <= i + past (past = the past_key length, 0 without a cache).
mlir::FailureOr<mlir::Value> causalMask(NodeContext &c, mlir::Value q, mlir::Value presentK,
                                        mlir::Value pastK);

/// Pads a mask whose last dim is shorter than the key length with "masked" entries
/// (false, or -inf for additive masks), as the ONNX reference does.
mlir::FailureOr<mlir::Value> padMask(NodeContext &c, mlir::Value mask, int64_t keyLen);

/// KV heads repeated for GQA: [B, Hkv, T, D] -> [B, Hkv * rep, T, D], each head `rep`
/// times in a row (query head h reads KV head h / rep, as mm.attention does).
mlir::FailureOr<mlir::Value> repeatHeads(NodeContext &c, mlir::Value kv, int64_t rep);

/// A boolean mask as an additive one (0 where true, -inf where false).
mlir::Value additiveMask(NodeContext &c, mlir::Value mask, mlir::Type elt);

/// softmax(softcap * tanh(scale * Q K^T / softcap) + bias) V, spelled out with mm ops for
/// what mm.attention cannot express (softcap; ONNX applies it before the mask). With
/// `qk`, also sets it to the qk_matmul_output of `qkMode` (onnx/reference op_attention.py:
/// 0 and 1: the scaled, softcapped Q K^T; 2: plus the bias; 3: the softmax).
mlir::FailureOr<mlir::Value> composedAttention(NodeContext &c, mlir::Value q, mlir::Value k,
                                               mlir::Value v, mlir::Value bias, float scale,
                                               float softcap, int64_t qkMode = 0,
                                               mlir::Value *qk = nullptr);

/// cos/sin caches [.., R/2] -> mm.rotary's full width [.., R]: halves repeated
/// (rotate-half) or each value twice in a row (interleaved).
mlir::FailureOr<mlir::Value> fullWidth(NodeContext &c, mlir::Value half, bool interleaved);

/// mm.attention(q [B, Hq, S, D], k, v [B, Hkv, T, Dv], mask) -> [B, Hq, S, Dv] (a dynamic
/// batch of q taken from v).
mlir::Value buildAttention(NodeContext &c, mlir::Value q, mlir::Value k, mlir::Value v,
                           mlir::Value mask, float scale, bool causal);

/// present = concat(past, cur) along the sequence axis of [B, H, T, D] (`cur` when there
/// is no past): the KV-cache append the plan's KV slots are made of.
mlir::FailureOr<mlir::Value> concatPast(NodeContext &c, mlir::Value past, mlir::Value cur);

} // namespace mm::onnx_import

#endif // MM_COMPILER_IMPORT_ONNX_ATTENTIONBUILDERS_H
