#!/usr/bin/env python3
"""Benchmark-sized Hugging Face folders of the non-LLaVA families, and their PyTorch peer:
HF eager in bf16 on one CUDA GPU, timed as mmrun --json times a generation (issue 15).

  hf_family_speed.py make paligemma-3b DIR   PaliGemma-3B-224 shapes (SigLIP So400m/14,
                                             Gemma-2B: 18 layers, 1 KV head, head_dim 256),
                                             random N(0, 0.02) bf16 weights, 5 GB shards;
                                             writes DIR and DIR/bench_inputs/{pix.npy,
                                             prompt_ids.txt}: one 224 px image (256 image
                                             tokens), BOS, 32 text tokens, newline
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


def make(kind, out):
    from transformers import GemmaConfig, PaliGemmaConfig, PaliGemmaForConditionalGeneration, SiglipVisionConfig
    if kind != "paligemma-3b":
        raise SystemExit(f"hf_family_speed.py: unknown model '{kind}'")
    vc = SiglipVisionConfig(hidden_size=1152, intermediate_size=4304, num_hidden_layers=27, num_attention_heads=16,
                            image_size=224, patch_size=14, vision_use_head=False)
    tc = GemmaConfig(hidden_size=2048, intermediate_size=16384, num_hidden_layers=18, num_attention_heads=8,
                     num_key_value_heads=1, head_dim=256, vocab_size=257216, hidden_act="gelu_pytorch_tanh")
    cfg = PaliGemmaConfig(vision_config=vc, text_config=tc, image_token_index=257152, projection_dim=2048,
                          vocab_size=257216)
    torch.manual_seed(0)
    with torch.device("cuda"):
        m = PaliGemmaForConditionalGeneration(cfg).to(torch.bfloat16).eval()
        with torch.no_grad():
            for p in m.parameters():
                if p.dim() >= 2:
                    p.normal_(0, 0.02)
    m.save_pretrained(out, max_shard_size="5GB")
    inputs = os.path.join(out, "bench_inputs")
    os.makedirs(inputs, exist_ok=True)
    g = np.random.default_rng(0)
    np.save(os.path.join(inputs, "pix.npy"), g.uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32))
    ids = [257152] * 256 + [2] + [int(t) for t in g.integers(1000, 20000, N_TEXT)] + [108]
    with open(os.path.join(inputs, "prompt_ids.txt"), "w") as f:
        f.write(",".join(map(str, ids)))
    print(json.dumps({"saved": out, "prompt_tokens": len(ids)}))


def eager(folder, runs, new_tokens):
    from transformers import DynamicCache, PaliGemmaForConditionalGeneration
    m = PaliGemmaForConditionalGeneration.from_pretrained(folder, dtype=torch.bfloat16,
                                                          attn_implementation="sdpa").to("cuda").eval()
    inputs = os.path.join(folder, "bench_inputs")
    pix_np = np.load(os.path.join(inputs, "pix.npy"))
    ids = [int(t) for t in open(os.path.join(inputs, "prompt_ids.txt")).read().split(",")]

    def generate():
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        pix = torch.from_numpy(pix_np).to("cuda", torch.bfloat16)
        x = torch.tensor([ids], device="cuda")
        cache = DynamicCache(config=m.config.get_text_config())
        with torch.no_grad():
            out = m(input_ids=x, pixel_values=pix, token_type_ids=torch.zeros_like(x), past_key_values=cache,
                    use_cache=True)
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
