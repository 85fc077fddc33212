//===- MaskRule.h - when an additive attention mask hides a key -------------===//
//
// One rule for the compiler (-mm-fuse-attention rebuilds masks whose fill hides keys as
// 0 / -inf) and the runtime (classifyMask turns a mask that hides nothing, or only the
// future, into no mask or the kernels' causal flag): a value at most -1e4 hides the key.
// -inf (torch's SDPA), finfo.min of f32 / f16 / bf16 (HF eager: -3.4e38, -65504), -1e9
// and -1e4 (older exporters) all do: added to scores of any usual magnitude, each gives
// exp() = 0 in f32, as -inf does. Only a row whose every key is hidden tells them apart
// (-inf gives zeros, a finite fill the average of v), and only padding rows are hidden
// entirely.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CORE_MASKRULE_H
#define MM_RUNTIME_CORE_MASKRULE_H

namespace mm {

/// The largest additive mask value that hides a key.
constexpr double kHiddenKeyAtMost = -1e4;

/// True when adding `v` to a score hides its key.
constexpr bool hidesKey(double v) { return v <= kHiddenKeyAtMost; }

} // namespace mm

#endif // MM_RUNTIME_CORE_MASKRULE_H
