#!/usr/bin/env python3
"""Benchmark-sized Hugging Face folders of the non-LLaVA families, and their PyTorch peer:
HF eager in bf16 on one CUDA GPU, timed as mmrun --json times a generation (issue 15).

  hf_family_speed.py make paligemma-3b DIR   PaliGemma-3B-224 shapes (SigLIP So400m/14,
                                             Gemma-2B: 18 layers, 1 KV head, head_dim 256),
                                             random N(0, 0.02) bf16 weights, 5 GB shards;
                                             writes DIR and DIR/bench_inputs/{pix.npy,
                                             prompt_ids.txt}: one 224 px image (256 image
                                             tokens), BOS, 32 text tokens, newline
  hf_family_speed.py make qwen2vl-7b DIR     Qwen2-VL-7B-Instruct shapes (the 32-block ViT of
                                             1280, the merger to 3584; Qwen2-7B text: 28
                                             layers, 28 heads of 128, 4 KV heads, M-RoPE
                                             [16, 24, 24]), random N(0, 0.02) bf16 weights;
                                             bench_inputs/{pix.npy, prompt_ids.txt,
                                             grid.txt}: one 448 px image (32 x 32 patches,
                                             256 image tokens) between vision_start and
                                             vision_end, 32 text tokens after it
  hf_family_speed.py eager DIR [--runs 3] [--new-tokens 128]
                                             greedy generation with an explicit loop over
                                             HF's DynamicCache: TTFT (ms) = host inputs to the
                                             first token id on the host (vision, prefill,
                                             argmax); decode tokens/s = tokens after the
                                             first / time from the first to the last; one
                                             untimed run, then medians of --runs; prints one
                                             JSON object

Needs torch with CUDA and transformers 5.x (run it on the GPU machine).
"""
import argparse
import json
import os
import statistics
import time

import numpy as np
import torch

N_TEXT = 32


def random_bf16(cls, cfg):
    torch.manual_seed(0)
    with torch.device("cuda"):
        m = cls(cfg).to(torch.bfloat16).eval()
        with torch.no_grad():
            for p in m.parameters():
                if p.dim() >= 2:
                    p.normal_(0, 0.02)
    return m


def make_qwen2vl(out):
    from transformers import Qwen2VLConfig, Qwen2VLForConditionalGeneration
    vc = dict(depth=32, embed_dim=1280, hidden_size=3584, num_heads=16, mlp_ratio=4, hidden_act="quick_gelu",
              patch_size=14, spatial_merge_size=2, temporal_patch_size=2)
    tc = dict(hidden_size=3584, intermediate_size=18944, num_hidden_layers=28, num_attention_heads=28,
              num_key_value_heads=4, vocab_size=152064, max_position_embeddings=32768, rms_norm_eps=1e-6,
              rope_parameters={"rope_type": "default", "rope_theta": 1e6, "mrope_section": [16, 24, 24]})
    cfg = Qwen2VLConfig(vision_config=vc, text_config=tc, tie_word_embeddings=False)
    random_bf16(Qwen2VLForConditionalGeneration, cfg).save_pretrained(out, max_shard_size="5GB")
    inputs = os.path.join(out, "bench_inputs")
    os.makedirs(inputs, exist_ok=True)
    g = np.random.default_rng(0)
    grid = [1, 32, 32]
    np.save(os.path.join(inputs, "pix.npy"), g.uniform(-1, 1, (1024, 3 * 2 * 14 * 14)).astype(np.float32))
    ids = [151652] + [cfg.image_token_id] * 256 + [151653] + [int(t) for t in g.integers(1000, 20000, N_TEXT)]
    with open(os.path.join(inputs, "prompt_ids.txt"), "w") as f:
        f.write(",".join(map(str, ids)))
    with open(os.path.join(inputs, "grid.txt"), "w") as f:
        f.write(",".join(map(str, grid)))
    print(json.dumps({"saved": out, "prompt_tokens": len(ids)}))


def make(kind, out):
    from transformers import GemmaConfig, PaliGemmaConfig, PaliGemmaForConditionalGeneration, SiglipVisionConfig
    if kind == "qwen2vl-7b":
        return make_qwen2vl(out)
    if kind != "paligemma-3b":
        raise SystemExit(f"hf_family_speed.py: unknown model '{kind}'")
    vc = SiglipVisionConfig(hidden_size=1152, intermediate_size=4304, num_hidden_layers=27, num_attention_heads=16,
                            image_size=224, patch_size=14, vision_use_head=False)
    tc = GemmaConfig(hidden_size=2048, intermediate_size=16384, num_hidden_layers=18, num_attention_heads=8,
                     num_key_value_heads=1, head_dim=256, vocab_size=257216, hidden_act="gelu_pytorch_tanh")
    cfg = PaliGemmaConfig(vision_config=vc, text_config=tc, image_token_index=257152, projection_dim=2048,
                          vocab_size=257216)
    random_bf16(PaliGemmaForConditionalGeneration, cfg).save_pretrained(out, max_shard_size="5GB")
    inputs = os.path.join(out, "bench_inputs")
    os.makedirs(inputs, exist_ok=True)
    g = np.random.default_rng(0)
    np.save(os.path.join(inputs, "pix.npy"), g.uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32))
    ids = [257152] * 256 + [2] + [int(t) for t in g.integers(1000, 20000, N_TEXT)] + [108]
    with open(os.path.join(inputs, "prompt_ids.txt"), "w") as f:
        f.write(",".join(map(str, ids)))
    print(json.dumps({"saved": out, "prompt_tokens": len(ids)}))


def eager(folder, runs, new_tokens):
    from transformers import AutoConfig, DynamicCache, PaliGemmaForConditionalGeneration, Qwen2VLForConditionalGeneration
    qwen2vl = AutoConfig.from_pretrained(folder).model_type == "qwen2_vl"
    cls = Qwen2VLForConditionalGeneration if qwen2vl else PaliGemmaForConditionalGeneration
    m = cls.from_pretrained(folder, dtype=torch.bfloat16, attn_implementation="sdpa").to("cuda").eval()
    inputs = os.path.join(folder, "bench_inputs")
    pix_np = np.load(os.path.join(inputs, "pix.npy"))
    ids = [int(t) for t in open(os.path.join(inputs, "prompt_ids.txt")).read().split(",")]
    grid = [int(t) for t in open(os.path.join(inputs, "grid.txt")).read().split(",")] if qwen2vl else None

    def prefill_inputs(x):
        # PaliGemma: the prompt is the prefix; Qwen2-VL: the grid and the processor's
        # mm_token_type_ids (1 at image tokens) for M-RoPE.
        if not qwen2vl:
            return {"token_type_ids": torch.zeros_like(x)}
        return {"image_grid_thw": torch.tensor([grid], device="cuda"),
                "mm_token_type_ids": (x == m.config.image_token_id).int()}

    def generate():
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        pix = torch.from_numpy(pix_np).to("cuda", torch.bfloat16)
        x = torch.tensor([ids], device="cuda")
        cache = DynamicCache(config=m.config.get_text_config())
        with torch.no_grad():
            out = m(input_ids=x, pixel_values=pix, past_key_values=cache, use_cache=True, **prefill_inputs(x))
            tok = int(out.logits[0, -1].argmax())
            t1 = time.perf_counter()
            for _ in range(new_tokens - 1):
                out = m(input_ids=torch.tensor([[tok]], device="cuda"), past_key_values=cache, use_cache=True)
                tok = int(out.logits[0, -1].argmax())
            t2 = time.perf_counter()
        return (t1 - t0) * 1e3, (new_tokens - 1) / (t2 - t1)

    generate()
    timed = [generate() for _ in range(runs)]
    print(json.dumps({"ttft_ms": statistics.median(t for t, _ in timed),
                      "decode_tokens_per_s": statistics.median(d for _, d in timed),
                      "runs": runs, "new_tokens": new_tokens,
                      "peak_reserved_mib": torch.cuda.max_memory_reserved() / 2**20}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["make", "eager"])
    ap.add_argument("args", nargs="+")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--new-tokens", type=int, default=128)
    a = ap.parse_args()
    if a.mode == "make":
        make(a.args[0], a.args[1])
    else:
        eager(a.args[0], a.runs, a.new_tokens)


if __name__ == "__main__":
    main()
