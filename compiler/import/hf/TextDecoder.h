//===- TextDecoder.h - Llama-family decoders from a checkpoint ---------------===//
//
// The embedding and the decoder of the text models of the families (Architectures.h):
// Llama, Mistral, Qwen2, Gemma, Persimmon and Qwen2-VL's (transformers' modeling_llama.py
// and its copies, modeling_gemma.py, modeling_persimmon.py: persimmonLayer in
// TextDecoder.cpp, modeling_qwen2_vl.py: Qwen2's layers with M-RoPE tables),
// built at the fused level with the ONNX exports' signatures (Optimum's names) and the
// model contract set:
//
//   @embed_tokens(input_ids [batch, seq] i64) -> inputs_embeds [batch, seq, hidden]
//   @decoder_model_merged(inputs_embeds, attention_mask [batch, total] i64,
//       position_ids [batch, seq] i64 (M-RoPE, Qwen2-VL: [3, batch, seq], the temporal,
//       height and width rows), past_key_values.<i>.key/value [batch, kv_heads,
//       past, head_dim]) -> logits [batch, seq, vocab], present.<i>.key/value
//       [batch, kv_heads, total, head_dim]   (present = concat(past, new) along axis 2)
//
// Each Llama-family layer (Persimmon's: persimmonLayer): RMSNorm, q/k/v projections (nn.Linear [N, K] weights as transposes the plan
// writer folds; -mm-fuse-linear merges them), rotary embedding on q and k, the KV append,
// attention under the causal (or prefix-LM) and padding mask (additive, 0 / -inf, [batch,
// 1, seq, total]), o_proj, residual add, RMSNorm, the gated MLP (SwiGLU; Gemma's GeGLU),
// residual add; then the final norm and lm_head (the embedding matrix when tied). Gemma's
// embedding scale and 1 + w norm scales, and a family's position offset, as TextConfig
// says.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_IMPORT_HF_TEXTDECODER_H
#define MM_COMPILER_IMPORT_HF_TEXTDECODER_H

#include "compiler/import/hf/GraphBuilder.h"
#include "compiler/import/hf/HfConfig.h"

namespace mm::hf {

/// Where a decoder's tensors are: `model` holds embed_tokens, layers.<i> and norm
/// (Persimmon: final_layernorm);
/// `lmHead` holds lm_head.weight.
struct TextPrefixes {
  Prefixes model, lmHead;
};

/// The rotary inverse frequencies [rotaryDim / 2] of `t` (its rope_type applied), f32 as
/// transformers computes them.
std::vector<float> rotaryInverseFrequencies(const TextConfig &t);

/// Adds @embed_tokens and @decoder_model_merged to `module`; `tied` reads lm_head from the
/// embedding. Fails with a message in `error`.
mlir::LogicalResult buildTextModel(mlir::ModuleOp module, mlir::Location loc, const TextConfig &t,
                                   bool tied, const TextPrefixes &prefixes, const TensorMap &tensors,
                                   mlir::Type floatType, std::string &error);

} // namespace mm::hf

#endif // MM_COMPILER_IMPORT_HF_TEXTDECODER_H
