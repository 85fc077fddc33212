//===- MaskPattern.h - what an attention mask built on the host hides --------===//
//
// Decoders build their attention mask from attention_mask and the positions; a runtime
// that knows the mask's values before launching attention can drop a mask that hides
// nothing and turn a causal one into the kernel's causal flag (the CUDA executor does).
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_EXEC_MASKPATTERN_H
#define MM_RUNTIME_EXEC_MASKPATTERN_H

#include "runtime/core/Tensor.h"

namespace mm::rt {

enum class MaskPattern {
  none,   ///< every key visible to every query
  causal, ///< query s sees key t exactly when t <= s + (kvLen - qLen)
  general ///< anything else (padding, other values, other shapes)
};

/// Classifies `mask` [..., qLen, kvLen] (the leading dims are batch / heads; each plane is
/// checked): a boolean (or u8) mask is visible where nonzero; an additive float mask
/// (f32, f16, bf16) is visible where 0 and hidden where it hides the key (at most -1e4,
/// -inf included: runtime/core/MaskRule.h); any other
/// value, dtype or a shape not ending in [qLen, kvLen] is `general`.
MaskPattern classifyMask(const Tensor &mask, int64_t qLen, int64_t kvLen);

} // namespace mm::rt

#endif // MM_RUNTIME_EXEC_MASKPATTERN_H
