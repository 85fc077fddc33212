# Tiny Hugging Face LLaVA folders (config.json + safetensors, no ONNX) in the configurations
# the HF importer (compiler/import/hf, issue 15) must tell apart, with PyTorch references;
# and, on request, a LLaVA-1.5-7B-shaped bf16 folder for the compile-time and speed checks.
# Needs torch and transformers (5.17 here): run it on the GPU machine.
#
#   GEN_TOOLS=../shared/tools GEN_DIR=/tmp/hf-models python3 models/recipes/gen_hf_models.py [NAME ...]
#
# NAME (default: the tiny ones):
#   clip-llama      CLIP (3 layers, CLS) + Llama: head_dim 64, GQA 2:1, q/k/v/o and MLP biases
#                   (attention_bias, mlp_bias), llama3 rope scaling, vision_feature_layer
#                   [-3, -1] (two hidden states concatenated), "default" select strategy
#   siglip-qwen2    SigLIP (no CLS, patch-embedding bias) + Qwen2 (q/k/v biases, rope_theta 1e6,
#                   tied embeddings), vision_feature_layer -1, "full" strategy, gelu_pytorch_tanh
#                   projector without biases; saved in shards with model.safetensors.index.json
#   clip-mistral-bf16  CLIP + Mistral with a sliding window of 12 tokens (shorter than the
#                   prompt), saved in bf16; the references are the f32 model of those bf16 values
#   paligemma       PaliGemma: SigLIP (post_layernorm) + Gemma (head_dim 64, MQA, GeGLU, RMSNorm
#                   with 1 + w, sqrt(hidden) embedding scale, tied embeddings); the prompt is the
#                   prefix (token_type_ids 0), attended bidirectionally
#   idefics3        Idefics3: its SigLIP-style ViT (8x8 patches, post_layernorm), the
#                   pixel-shuffle connector with scale_factor 2, Llama text (GQA 2:1)
#   smolvlm         SmolVLMForConditionalGeneration: the same ViT on a 24x24 patch grid (192 px,
#                   patch 8; 1/24 is not a binary fraction), scale_factor 4 (SmolVLM's), Llama
#                   text with tied embeddings (as SmolLM2's)
#   fuyu            FuyuForCausalLM: 8x8x3 patches through one linear (no image encoder) into a
#                   Persimmon decoder (fused per-head q/k/v, qk LayerNorm, partial rotary 0.5,
#                   relu2 MLP, LayerNorms with biases, head_dim 64); a 4x6 patch grid, each row's
#                   image tokens followed by a newline token as FuyuProcessor lays them out
#   qwen2vl         Qwen2VLForConditionalGeneration: the ViT (Conv3d patch embedding over 2 frames of
#                   8x8 patches, 2-D rotary, quick_gelu MLP, head_dim 16) and the 2x2 patch merger,
#                   Qwen2 text with M-RoPE (mrope_section [8, 12, 12], rope_theta 1e6, q/k/v biases,
#                   head_dim 64, GQA 2:1, untied lm_head); a 6 x 8 patch grid (12 image tokens of a
#                   3 x 4 grid: rows and columns differ), text on both sides of the image so the
#                   decode positions carry rope_deltas; pixel_values.npy holds the processor's
#                   flattened patches [48, 384] and generation.json image_grid_thw;
#                   reference-two-images/ the same for a 6 x 8 and a 4 x 4 image in one prompt
#   llava-7b-bf16   LLaVA-1.5-7B shapes (CLIP ViT-L/14-336, Llama-2-7B), random N(0, 0.02)
#                   weights, bf16, 5 GB shards; no references (for bench/import_paths_bench.sh)
# Every tiny model has random weights with every bias N(0, 0.05) and norm scale N(1, 0.1)
# (gen_models.randomize), so a dropped or misread parameter changes the outputs. Writes
# GEN_DIR/hf-llava-NAME/ (hf-NAME for the non-LLaVA families): config.json, generation_config.json, model.safetensors (or shards),
# reference/{generation.json, pixel_values.npy, image_features.npy, prefill_last_logits.npy}
# (fp32 PyTorch on the CPU: greedy tokens of generate, the [1, F, hidden] image features and
# the [vocab] logits after the prompt; the format of gen_models.py).
import json
import os
import sys
import traceback

import torch

sys.path.insert(0, os.environ.get("GEN_TOOLS", os.path.join(os.path.dirname(__file__), "../../../shared/tools")))
import gen_models as G  # noqa: E402

WORK = os.environ.get("GEN_DIR", "/tmp/hf-models")


def rope(kind, theta, **extra):
    return {"rope_type": kind, "rope_theta": theta, **extra}


def text_config(cls, rope_params, **kw):
    # transformers 5 spells rotary settings rope_parameters; 4.x rope_theta + rope_scaling.
    try:
        return cls(rope_parameters=rope_params, **kw)
    except TypeError:
        scaling = {k: v for k, v in rope_params.items() if k != "rope_theta"}
        return cls(rope_theta=rope_params["rope_theta"], rope_scaling=scaling, **kw)


def build(name):
    from transformers import (CLIPVisionConfig, LlamaConfig, LlavaConfig, LlavaForConditionalGeneration,
                              MistralConfig, Qwen2Config, SiglipVisionConfig)
    clip = dict(hidden_size=64, intermediate_size=128, num_attention_heads=4, image_size=64, patch_size=16,
                projection_dim=64)
    small = dict(vocab_size=320, max_position_embeddings=256, tie_word_embeddings=False)
    if name == "clip-llama":
        vc = CLIPVisionConfig(num_hidden_layers=3, **clip)
        tc = text_config(LlamaConfig, rope("llama3", 10000.0, factor=8.0, low_freq_factor=1.0,
                                           high_freq_factor=4.0, original_max_position_embeddings=32),
                         hidden_size=128, intermediate_size=256, num_hidden_layers=2, num_attention_heads=2,
                         num_key_value_heads=1, head_dim=64, rms_norm_eps=1e-5, attention_bias=True,
                         mlp_bias=True, **small)
        top = dict(vision_feature_layer=[-3, -1], vision_feature_select_strategy="default",
                   projector_hidden_act="gelu")
    elif name == "siglip-qwen2":
        vc = SiglipVisionConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                num_attention_heads=4, image_size=64, patch_size=16)
        tc = text_config(Qwen2Config, rope("default", 1e6), hidden_size=64, intermediate_size=176,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, rms_norm_eps=1e-6,
                         vocab_size=320, max_position_embeddings=256, tie_word_embeddings=True)
        top = dict(vision_feature_layer=-1, vision_feature_select_strategy="full",
                   projector_hidden_act="gelu_pytorch_tanh", multimodal_projector_bias=False,
                   tie_word_embeddings=True)
    elif name == "clip-mistral-bf16":
        vc = CLIPVisionConfig(num_hidden_layers=2, **clip)
        tc = text_config(MistralConfig, rope("default", 10000.0), hidden_size=64, intermediate_size=176,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                         sliding_window=12, rms_norm_eps=1e-5, **small)
        top = dict(vision_feature_layer=-2, vision_feature_select_strategy="default", projector_hidden_act="gelu")
    else:
        raise ValueError(name)
    cfg = LlavaConfig(vision_config=vc, text_config=tc, image_token_index=300, **top)
    torch.manual_seed(0)
    m = LlavaForConditionalGeneration(cfg).eval()
    G.randomize(m, 0.08)
    return m, cfg


def build_family(name, std=0.08):
    """PaliGemma, Idefics3 and SmolVLM tiny models (random weights as build's, matrices N(0, std))."""
    from transformers import (GemmaConfig, Idefics3Config, Idefics3ForConditionalGeneration, LlamaConfig,
                              PaliGemmaConfig, PaliGemmaForConditionalGeneration, SiglipVisionConfig)
    llama = dict(vocab_size=320, hidden_size=128, intermediate_size=256, num_hidden_layers=2, num_attention_heads=2,
                 num_key_value_heads=1, head_dim=64, rms_norm_eps=1e-5, max_position_embeddings=256)
    if name == "paligemma":
        vc = SiglipVisionConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                num_attention_heads=4, image_size=64, patch_size=16)
        tc = text_config(GemmaConfig, rope("default", 10000.0), vocab_size=320, hidden_size=128,
                         intermediate_size=256, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
                         head_dim=64, rms_norm_eps=1e-6, max_position_embeddings=256,
                         hidden_act="gelu_pytorch_tanh")
        cfg = PaliGemmaConfig(vision_config=vc, text_config=tc, image_token_index=300, projection_dim=128,
                              hidden_size=128, vocab_size=320)
        cls = PaliGemmaForConditionalGeneration
    elif name == "idefics3":
        from transformers import Idefics3VisionConfig
        vc = Idefics3VisionConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                  num_attention_heads=4, image_size=64, patch_size=8)
        tc = text_config(LlamaConfig, rope("default", 10000.0), tie_word_embeddings=False, **llama)
        cfg = Idefics3Config(vision_config=vc, text_config=tc, image_token_id=300, scale_factor=2,
                             tie_word_embeddings=False)
        cls = Idefics3ForConditionalGeneration
    elif name == "smolvlm":
        from transformers import SmolVLMConfig, SmolVLMForConditionalGeneration, SmolVLMVisionConfig
        vc = SmolVLMVisionConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                 num_attention_heads=4, image_size=192, patch_size=8)
        tc = text_config(LlamaConfig, rope("default", 100000.0), tie_word_embeddings=True, **llama)
        cfg = SmolVLMConfig(vision_config=vc, text_config=tc, image_token_id=300, scale_factor=4,
                            tie_word_embeddings=True)
        cls = SmolVLMForConditionalGeneration
    elif name == "fuyu":
        from transformers import FuyuConfig, FuyuForCausalLM, PersimmonConfig
        tc = text_config(PersimmonConfig, rope("default", 25000.0, partial_rotary_factor=0.5), vocab_size=320,
                         hidden_size=128, intermediate_size=256, num_hidden_layers=2, num_attention_heads=2,
                         layer_norm_eps=1e-5, max_position_embeddings=256, qk_layernorm=True, hidden_act="relu2")
        cfg = FuyuConfig(text_config=tc, hidden_size=128, vocab_size=320, patch_size=8, num_channels=3,
                         image_token_id=300, tie_word_embeddings=False)
        cls = FuyuForCausalLM
    else:
        raise ValueError(name)
    torch.manual_seed(0)
    m = cls(cfg).eval()
    G.randomize(m, std)
    return m, cfg


def save_references(out, prompt, image_token, new, pix, feats, logits, note="", **extra):
    """out/{generation.json, pixel_values.npy, image_features.npy, prefill_last_logits.npy}
    (the format of gen_models.py); `extra` adds fields to generation.json before the note."""
    os.makedirs(out, exist_ok=True)
    record = {"prompt_ids": prompt, "image_token_index": image_token, "greedy_new_tokens": new,
              "max_new_tokens": 16, "pixel_values_shape": list(pix.shape), **extra,
              "note": "fp32 PyTorch CPU, transformers " + __import__("transformers").__version__ + note}
    with open(f"{out}/generation.json", "w") as f:
        json.dump(record, f, indent=1)
    G.save_npy(f"{out}/pixel_values.npy", pix)
    G.save_npy(f"{out}/image_features.npy", feats)
    G.save_npy(f"{out}/prefill_last_logits.npy", logits)


def build_qwen2vl(std):
    from transformers import Qwen2VLConfig, Qwen2VLForConditionalGeneration
    from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLTextConfig, Qwen2VLVisionConfig
    vc = Qwen2VLVisionConfig(depth=2, embed_dim=64, hidden_size=128, num_heads=4, mlp_ratio=2, hidden_act="quick_gelu",
                             in_channels=3, patch_size=8, spatial_merge_size=2, temporal_patch_size=2)
    tc = text_config(Qwen2VLTextConfig, rope("default", 1e6, mrope_section=[8, 12, 12]), vocab_size=320,
                     hidden_size=128, intermediate_size=256, num_hidden_layers=2, num_attention_heads=2,
                     num_key_value_heads=1, rms_norm_eps=1e-6, max_position_embeddings=256, tie_word_embeddings=False)
    cfg = Qwen2VLConfig(vision_config=vc.to_dict(), text_config=tc.to_dict(), image_token_id=300, video_token_id=301,
                        vision_start_token_id=298, vision_end_token_id=299, tie_word_embeddings=False)
    torch.manual_seed(0)
    m = Qwen2VLForConditionalGeneration(cfg).eval()
    G.randomize(m, std)
    return m, cfg


def qwen2vl_references(m, cfg, base, grids=((1, 6, 8),), ref="reference"):
    """Qwen2-VL's references in base/ref: pixel_values [sum of t * h * w, C * T * P * P] as
    Qwen2VLImageProcessor lays them out (random values) for the images of `grids` (each
    [t, h, w] patches), each image's tokens between vision_start and vision_end with text
    around them."""
    g = torch.Generator().manual_seed(1)
    vc = cfg.vision_config
    patches = sum(t * h * w for t, h, w in grids)
    pix = torch.rand(patches, vc.in_channels * vc.temporal_patch_size * vc.patch_size ** 2, generator=g) * 2 - 1
    grid = torch.tensor([list(t) for t in grids])
    prompt = [11]
    for k, (t, h, w) in enumerate(grids):
        prompt += ([5] if k else []) + [298] + [cfg.image_token_id] * (t * h * w // vc.spatial_merge_size ** 2) + [299]
    prompt += [23, 57, 88, 4]
    ids = torch.tensor([prompt])
    seen = []
    hook = m.model.language_model.register_forward_pre_hook(
        lambda mod, a, kw: seen.append(kw.get("inputs_embeds")), with_kwargs=True)
    # transformers 5 wants the processor's mm_token_type_ids (1 at image tokens) for M-RoPE.
    types = (ids == cfg.image_token_id).int()
    kw = dict(pixel_values=pix, image_grid_thw=grid, attention_mask=torch.ones_like(ids), mm_token_type_ids=types)
    with torch.no_grad():
        full = m(input_ids=ids, **kw)
    hook.remove()
    feats = seen[0][0][torch.tensor(prompt) == cfg.image_token_id][None]
    with torch.no_grad():
        positions, deltas = m.model.get_rope_index(ids, types, grid, None, torch.ones_like(ids))
        gen = m.generate(input_ids=ids, max_new_tokens=16, do_sample=False, **kw)
    new = gen[0, len(prompt):].tolist()
    G.log(base, ref, "image features", tuple(feats.shape), "greedy new tokens", new, "rope_deltas",
          deltas.tolist(), "positions", positions[:, 0].tolist())
    save_references(f"{base}/{ref}", prompt, cfg.image_token_id, new, pix, feats, full.logits[0, -1],
                    "; pixel_values.npy holds the flattened patches of image_grid_thw", image_grid_thw=grid.tolist(),
                    mrope_position_ids=positions[:, 0].tolist(), rope_deltas=deltas.tolist())
    return new


def language_model_of(m):
    for attr in ("language_model", "text_model"):
        if hasattr(m.model, attr):
            return getattr(m.model, attr)
    raise AttributeError("no language model in " + type(m).__name__)


def family_references(name, m, cfg, base):
    """The reference files of references() for PaliGemma / Idefics3. The image features are
    what the model splices into the text model's inputs_embeds (a forward pre-hook reads
    them), whatever get_image_features returns in this transformers version."""
    g = torch.Generator().manual_seed(1)
    if name == "fuyu":
        return fuyu_references(m, cfg, base, g)
    isz = cfg.vision_config.image_size
    pix = torch.rand(1, 3, isz, isz, generator=g) * 2 - 1
    image_token = cfg.image_token_index if name == "paligemma" else cfg.image_token_id
    if name == "paligemma":
        n = (isz // cfg.vision_config.patch_size) ** 2
        prompt = [image_token] * n + [2, 11, 23, 57, 88, 4]
        model_pix = pix
    else:
        grid = isz // cfg.vision_config.patch_size
        n = (grid // cfg.scale_factor) ** 2
        prompt = [1, 299] + [image_token] * n + [299, 11, 23, 57, 88, 4]
        model_pix = pix[:, None]  # [batch, images, 3, H, W]
    ids = torch.tensor([prompt])
    extra = {"token_type_ids": torch.zeros_like(ids)} if name == "paligemma" else {}
    seen = []
    hook = language_model_of(m).register_forward_pre_hook(
        lambda mod, a, kw: seen.append(kw.get("inputs_embeds")), with_kwargs=True)
    with torch.no_grad():
        full = m(input_ids=ids, pixel_values=model_pix, attention_mask=torch.ones_like(ids), **extra)
    hook.remove()
    embeds = seen[0][0]
    feats = embeds[torch.tensor(prompt) == image_token][None]
    with torch.no_grad():
        gen = m.generate(input_ids=ids, pixel_values=model_pix, max_new_tokens=16, do_sample=False,
                         attention_mask=torch.ones_like(ids), **extra)
    new = gen[0, len(prompt):].tolist()
    G.log(base, "image features", tuple(feats.shape), "greedy new tokens", new)
    if name == "paligemma":  # what the prefix mask changes, for the record
        with torch.no_grad():
            causal = m(input_ids=ids, pixel_values=model_pix, attention_mask=torch.ones_like(ids))
            gen_causal = m.generate(input_ids=ids, pixel_values=model_pix, max_new_tokens=16, do_sample=False,
                                    attention_mask=torch.ones_like(ids))
        G.log(base, "without token_type_ids: logits differ by",
              float((causal.logits[0, -1] - full.logits[0, -1]).abs().max()),
              "tokens", gen_causal[0, len(prompt):].tolist())
    save_references(f"{base}/reference", prompt, image_token, new, pix, feats, full.logits[0, -1],
                    "; token_type_ids all 0 (the prompt is the prefix)" if name == "paligemma" else
                    "; pixel_values fed as [1, 1, 3, H, W] (one image, not split)")
    return new


def fuyu_references(m, cfg, base, g):
    """Fuyu's references: its image input is FuyuProcessor's patches [1, rows * cols,
    P * P * C] (saved as pixel_values.npy, what mmrun --pixel-values feeds), its features
    vision_embed_tokens of them."""
    rows, cols, p = 4, 6, cfg.patch_size
    patches = torch.rand(1, rows * cols, p * p * cfg.num_channels, generator=g) * 2 - 1
    prompt = ([cfg.image_token_id] * cols + [299]) * rows + [1, 11, 23, 57, 88, 4]
    ids = torch.tensor([prompt])
    with torch.no_grad():
        feats = m.model.vision_embed_tokens(patches)
        full = m(input_ids=ids, image_patches=patches, attention_mask=torch.ones_like(ids))
        gen = m.generate(input_ids=ids, image_patches=patches, max_new_tokens=16, do_sample=False,
                         attention_mask=torch.ones_like(ids))
    new = gen[0, len(prompt):].tolist()
    G.log(base, "image features", tuple(feats.shape), "greedy new tokens", new)
    save_references(f"{base}/reference", prompt, cfg.image_token_id, new, patches, feats, full.logits[0, -1],
                    "; pixel_values.npy holds the image patches [1, 24, 192] (image_patches)")
    return new


def references(m, cfg, base):
    isz = cfg.vision_config.image_size
    g = torch.Generator().manual_seed(1)
    pix = torch.rand(1, 3, isz, isz, generator=g) * 2 - 1
    # modeling_llava's feature selection: the hidden states at vision_feature_layer (each
    # without its first token under "default"), concatenated, then the projector.
    layers = cfg.vision_feature_layer if isinstance(cfg.vision_feature_layer, list) else [cfg.vision_feature_layer]
    with torch.no_grad():
        out = m.model.vision_tower(pix, output_hidden_states=True)
        hs = [out.hidden_states[l] for l in layers]
        if cfg.vision_feature_select_strategy == "default":
            hs = [h[:, 1:] for h in hs]
        feats = m.model.multi_modal_projector(torch.cat(hs, dim=-1))
    prompt = [1] + [cfg.image_token_index] * feats.shape[1] + [11, 23, 57, 88, 4]
    ids = torch.tensor([prompt])
    with torch.no_grad():
        gen = m.generate(input_ids=ids, pixel_values=pix, max_new_tokens=16, do_sample=False,
                         attention_mask=torch.ones_like(ids))
        full = m(input_ids=ids, pixel_values=pix, attention_mask=torch.ones_like(ids))
    new = gen[0, len(prompt):].tolist()
    G.log(base, "image features", tuple(feats.shape), "greedy new tokens", new)
    save_references(f"{base}/reference", prompt, cfg.image_token_index, new, pix, feats, full.logits[0, -1])


def gen_tiny(name):
    if name == "qwen2vl":
        base = os.path.join(WORK, "hf-qwen2vl")
        for std in (0.08, 0.15, 0.25):
            m, cfg = build_qwen2vl(std)
            if len(set(qwen2vl_references(m, cfg, base))) >= 6:
                break
        G.log(base, "matrices N(0, %g)" % std)
        # Two images (the vision encoder's attention kept within each, the M-RoPE positions
        # counting on after each).
        qwen2vl_references(m, cfg, base, grids=((1, 6, 8), (1, 4, 4)), ref="reference-two-images")
        m.save_pretrained(base)
        return
    if name in ("paligemma", "idefics3", "smolvlm", "fuyu"):
        base = os.path.join(WORK, f"hf-{name}")
        # The first weight scale whose greedy tokens are varied (Gemma's sqrt(hidden)
        # embedding scale makes a tiny model with N(0, 0.08) matrices repeat one token).
        for std in (0.08, 0.15, 0.25, 0.4):
            m, cfg = build_family(name, std)
            if len(set(family_references(name, m, cfg, base))) >= 6:
                break
        G.log(base, "matrices N(0, %g)" % std)
        m.save_pretrained(base)
        return
    base = os.path.join(WORK, f"hf-llava-{name}")
    m, cfg = build(name)
    if name == "clip-mistral-bf16":
        m = m.to(torch.bfloat16)
        m.save_pretrained(base)
        m = m.to(torch.float32)  # the references: f32 arithmetic on the bf16 values
    elif name == "siglip-qwen2":
        m.save_pretrained(base, max_shard_size="300KB")
    else:
        m.save_pretrained(base)
    references(m, cfg, base)


def gen_7b():
    from transformers import CLIPVisionConfig, LlamaConfig, LlavaConfig, LlavaForConditionalGeneration
    base = os.path.join(WORK, "hf-llava-llava-7b-bf16")
    vc = CLIPVisionConfig(hidden_size=1024, intermediate_size=4096, num_hidden_layers=24, num_attention_heads=16,
                          image_size=336, patch_size=14, projection_dim=768)
    tc = LlamaConfig(hidden_size=4096, intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32,
                     num_key_value_heads=32, vocab_size=32064, max_position_embeddings=4096, rms_norm_eps=1e-5,
                     tie_word_embeddings=False)
    cfg = LlavaConfig(vision_config=vc, text_config=tc, image_token_index=32000, vision_feature_layer=-2,
                      vision_feature_select_strategy="default", projector_hidden_act="gelu")
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    with torch.device(dev):
        m = LlavaForConditionalGeneration(cfg).to(torch.bfloat16).eval()
        with torch.no_grad():
            for p in m.parameters():
                if p.dim() >= 2:
                    p.normal_(0, 0.02)
    m.save_pretrained(base, max_shard_size="5GB")
    G.log(base, "saved", sorted(os.listdir(base)))


def main():
    names = sys.argv[1:] or ["clip-llama", "siglip-qwen2", "clip-mistral-bf16", "paligemma", "idefics3", "smolvlm", "fuyu",
                              "qwen2vl"]
    failed = False
    for n in names:
        try:
            gen_7b() if n == "llava-7b-bf16" else gen_tiny(n)
        except Exception:
            G.log(n, "FAILED", traceback.format_exc()[-2500:])
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
