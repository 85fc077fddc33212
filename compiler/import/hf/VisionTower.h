//===- VisionTower.h - CLIP, SigLIP and Idefics3 image encoders from a checkpoint ===//
//
// The ViT of CLIPVisionModel (Radford et al. 2021) and SiglipVisionModel (Zhai et al.
// 2023) as transformers implements them (modeling_clip.py, modeling_siglip.py), at the
// fused level:
//   embeddings: the patch convolution (stride = kernel = patch size; SigLIP's with a
//     bias), flattened to [batch, patches, hidden]; CLIP prepends the class embedding;
//     plus the position embedding; CLIP then applies pre_layrnorm;
//   each encoder layer: LayerNorm, q/k/v projections with biases, attention (scale
//     head_dim^-0.5, no mask), out_proj, residual add, LayerNorm, fc1 with hidden_act as
//     its epilogue, fc2, residual add.
// hidden_states[0] is the embeddings' output and hidden_states[i] layer i's, as in
// transformers' output_hidden_states (post_layernorm is not applied to them; it is to
// last_hidden_state). Idefics3's ViT (Idefics3VisionTransformer, SmolVLM's the same) is
// SigLIP's with NaViT-style position ids (Dehghani et al. 2023): a patch's fractional
// coordinates in the image, bucketed into the grid of position embeddings. For the
// full-size frames its processor makes (tiles and the resized global image) they are the
// patch indices, which is what this builds. (transformers computes them with f32
// fractions and torch.bucketize, whose rounding repeats some ids for some grids: measured
// with torch 2.11 on the H200 machine, on the CPU for a side of 25, 29 or 31 patches (400,
// 165 and 232 ids off by one), not for 24, 26 (Idefics3-8B's), 27 (SmolVLM's 384/14) or
// 32 (SmolVLM 256M's and 500M's); on CUDA for none of these. mmc uses the exact indices.)
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_IMPORT_HF_VISIONTOWER_H
#define MM_COMPILER_IMPORT_HF_VISIONTOWER_H

#include "compiler/import/hf/GraphBuilder.h"
#include "compiler/import/hf/HfConfig.h"

namespace mm::hf {

/// hidden_states[0 .. upTo] of the tower for `pixels` [batch, channels, size, size] (fewer
/// once `g` has failed); `prefixes` hold embeddings.*, pre_layrnorm.* and
/// encoder.layers.<i>.*.
std::vector<mlir::Value> visionHiddenStates(GraphBuilder &g, const VisionConfig &v,
                                            const Prefixes &prefixes, mlir::Value pixels,
                                            int64_t upTo);

/// SiglipVisionModel's and Idefics3VisionTransformer's last_hidden_state [batch, patches,
/// hidden]: every layer, then post_layernorm.
mlir::Value visionLastHiddenState(GraphBuilder &g, const VisionConfig &v, const Prefixes &prefixes,
                                  mlir::Value pixels);

} // namespace mm::hf

#endif // MM_COMPILER_IMPORT_HF_VISIONTOWER_H
