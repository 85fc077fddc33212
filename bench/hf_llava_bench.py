#!/usr/bin/env python3
"""The PyTorch peer for bench/gpu_bench.sh: HF transformers LLaVA in bf16 on one CUDA GPU.

Modes (each prints one JSON object on stdout; progress goes to stderr):

  inputs MODEL_DIR --out DIR      writes the benchmark inputs both runtimes use (numpy only):
      DIR/pix1.npy, DIR/pix8.npy   f32 [B, 3, S, S] uniform in [-1, 1) (seed 0; pix1 = pix8[:1]),
      DIR/prompt_ids.txt           comma-separated prompt: [bos] + [image token] * F + 32 text ids,
                                   F = image features per image (config.json: (S / patch)^2,
                                   + 1 with the 'full' strategy) - the prompt mmrun gets,
      DIR/inputs.json              the same facts as JSON.
  bandwidth                       device copy bandwidth: a 1 GiB device-to-device copy, timed
                                  with CUDA events; GB/s (1e9 bytes) counting read + write bytes.
  eager MODEL_DIR --inputs DIR    PyTorch eager, bf16, SDPA attention:
      - vision encoder + projector at batch 1 and 8 (ms): mean of the timed runs after warm-up,
        from the f32 host array to the f32 features on the host (as `mmrun --function
        vision_encoder`'s mean_run_ms counts its copies); the device-resident time too;
      - generation: an explicit greedy loop with HF's DynamicCache, timed like mmrun's:
        time to first token (ms) = host prompt + image -> first token id on the host (upload,
        vision, splice, prefill, argmax); decode tokens/s = tokens after the first / time from
        the first token to the last on the host (each step: forward of one token, argmax,
        token id to the host, as mmrun's loop does). No EOS stop: always --new-tokens tokens.
        One untimed generation, then --runs timed ones; medians;
      - peak device memory (MiB) of the timed generations: torch's caching allocator
        (max_memory_reserved; max_memory_allocated too).
  compile MODEL_DIR --inputs DIR  torch.compile: the vision function compiled with
      mode="reduce-overhead" (CUDA graphs), one static-shape compile per batch size; generation
      through model.generate with a static KV cache, which in transformers 5.x compiles the
      decode-step forward itself (prefill stays eager). A streamer notes when each token
      reaches the host, so TTFT and decode tokens/s are defined as in eager mode (generate's
      own per-step work included); min_new_tokens = N so EOS never stops it. Two untimed
      generations (compilation), then --runs timed ones; medians. Checks that dynamo compiled
      something (unique_graphs); a failure is reported as "<step>_error" in the JSON (exit
      status 0) so the other step and the eager figures stand.

Units: ms, tokens/s, MiB (2^20 bytes), GB/s (1e9 bytes/s). Needs torch with CUDA and
transformers 5.x (modes eager / compile / bandwidth); mode inputs needs only numpy.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

N_TEXT = 32


def log(*a):
    print("[hf_llava_bench]", *a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- inputs (numpy only)

def image_feature_count(cfg):
    """Image features per image for a LLaVA config dict: (image_size / patch_size)^2, plus the
    CLS position unless vision_feature_select_strategy is 'default' (which drops it)."""
    vc = cfg["vision_config"]
    n = (vc["image_size"] // vc["patch_size"]) ** 2
    return n if cfg.get("vision_feature_select_strategy", "default") == "default" else n + 1


def image_token_id(cfg):
    """The image placeholder token id of a LLaVA config dict (config.json 'image_token_index'
    in what transformers 5.x saves; 'image_token_id' accepted too)."""
    return cfg["image_token_index"] if "image_token_index" in cfg else cfg["image_token_id"]


def prompt_ids(cfg, n_text=N_TEXT):
    """[bos] + [image token] * features + n_text fixed text ids, each in 3 .. min(30002, image
    token - 1): never bos, eos or the image token (llava-1b: 3..30002). Raises ValueError if
    an id is outside the vocabulary."""
    tc = cfg["text_config"]
    img = image_token_id(cfg)
    text = [(7 + 13 * i) % min(30000, img - 3) + 3 for i in range(n_text)]
    ids = [tc.get("bos_token_id", 1)] + [img] * image_feature_count(cfg) + text
    if max(ids) >= tc["vocab_size"] or img in text:
        raise ValueError("prompt ids do not fit this model's vocabulary")
    return ids


def cmd_inputs(args):
    """Mode inputs: see the module docstring. Returns the facts it wrote to inputs.json."""
    with open(os.path.join(args.model_dir, "config.json")) as f:
        cfg = json.load(f)
    size = cfg["vision_config"]["image_size"]
    os.makedirs(args.out, exist_ok=True)
    pix8 = np.random.default_rng(0).uniform(-1, 1, (8, 3, size, size)).astype(np.float32)
    np.save(os.path.join(args.out, "pix8.npy"), pix8)
    np.save(os.path.join(args.out, "pix1.npy"), np.ascontiguousarray(pix8[:1]))
    ids = prompt_ids(cfg)
    with open(os.path.join(args.out, "prompt_ids.txt"), "w") as f:
        f.write(",".join(map(str, ids)) + "\n")
    info = {"image_size": size, "image_features": image_feature_count(cfg),
            "image_token_id": image_token_id(cfg), "text_tokens": N_TEXT,
            "prompt_tokens": len(ids)}
    with open(os.path.join(args.out, "inputs.json"), "w") as f:
        json.dump(info, f, indent=1)
    return info


def read_inputs(d):
    """(pix1 f32 [1,3,S,S], pix8 f32 [8,3,S,S], prompt ids list) written by mode inputs."""
    with open(os.path.join(d, "prompt_ids.txt")) as f:
        ids = [int(t) for t in f.read().strip().split(",")]
    return np.load(os.path.join(d, "pix1.npy")), np.load(os.path.join(d, "pix8.npy")), ids


# ---------------------------------------------------------------- torch helpers

def torch_info():
    """Versions of torch (and its CUDA) and transformers, and the GPU's name."""
    import torch
    import transformers
    return {"torch": torch.__version__, "torch_cuda": torch.version.cuda,
            "transformers": transformers.__version__,
            "device": torch.cuda.get_device_name(0)}


def cuda_event_ms(fn, warmup, iters):
    """Per-call device times of fn() in ms (CUDA events around each call), after warmup calls."""
    import torch
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iters):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return times


def wall_ms(fn, warmup, iters):
    """Mean wall time of fn() in ms over iters calls after warmup calls; the device is
    synchronised after each call (fn may sync itself, e.g. by copying to the host)."""
    import torch
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    total = 0.0
    for _ in range(iters):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        total += time.perf_counter() - t0
    return total / iters * 1e3


def cmd_bandwidth(args):
    """Mode bandwidth: see the module docstring. Returns the JSON object."""
    import torch
    nbytes = 1 << 30
    a = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    times = cuda_event_ms(lambda: b.copy_(a), warmup=3, iters=20)
    gbs = [2 * nbytes / (t / 1e3) / 1e9 for t in times]
    return dict(torch_info(), copy_bytes=nbytes, copy_ms_median=statistics.median(times),
                copy_bandwidth_gbs=statistics.median(gbs), copy_bandwidth_gbs_best=max(gbs),
                counted="read + write bytes (2 x 1 GiB per copy)")


def load_model(model_dir):
    """LlavaForConditionalGeneration in bf16 with SDPA attention, on cuda, eval mode."""
    import torch
    from transformers import LlavaForConditionalGeneration
    t0 = time.perf_counter()
    model = LlavaForConditionalGeneration.from_pretrained(
        model_dir, dtype=torch.bfloat16, attn_implementation="sdpa").to("cuda").eval()
    log(f"loaded {model_dir} in {time.perf_counter() - t0:.1f} s")
    return model


def decode_weight_bytes(model):
    """Bytes of the decoder weights one decode step reads: every language-model parameter
    except the embedding table (one row is gathered per token), plus lm_head."""
    lm = model.model.language_model
    n = sum(p.numel() * p.element_size() for p in lm.parameters())
    n -= lm.embed_tokens.weight.numel() * lm.embed_tokens.weight.element_size()
    return n + model.lm_head.weight.numel() * model.lm_head.weight.element_size()


def vision_features(model, pix):
    """Image features [B, F, hidden] exactly as the exported vision_encoder graph computes them
    (and as LlavaModel.get_image_features does): the vision tower's hidden state at
    vision_feature_layer, CLS dropped with the 'default' strategy, then the projector."""
    cfg, m = model.config, model.model
    hs = m.vision_tower(pix, output_hidden_states=True).hidden_states[cfg.vision_feature_layer]
    if cfg.vision_feature_select_strategy == "default":
        hs = hs[:, 1:]
    return m.multi_modal_projector(hs)


def bench_vision(fn, pixes, iters, res):
    """Times fn (pixel values bf16 on the device -> image features) on each f32 host array of
    pixes {batch: array}: vision_ms_b<B> from the host array to f32 features on the host (the
    table's figure, like mmrun's single-graph runs), vision_device_ms_b<B> device-resident
    (CUDA events); means over iters calls after warm-up. Records the feature shapes."""
    import torch
    for b, pix_np in pixes.items():
        host = torch.from_numpy(pix_np)
        def with_copies():
            return fn(host.to("cuda").to(torch.bfloat16)).float().cpu()
        res[f"vision_ms_b{b}"] = wall_ms(with_copies, warmup=3, iters=iters)
        dev = host.to("cuda").to(torch.bfloat16)
        res[f"vision_device_ms_b{b}"] = statistics.mean(
            cuda_event_ms(lambda: fn(dev), warmup=1, iters=iters))
        res[f"vision_features_shape_b{b}"] = list(with_copies().shape)
        log(f"vision b{b}: {res[f'vision_ms_b{b}']:.3f} ms")


def check_prompt(model, pix1, ids):
    """Raises ValueError unless the prompt holds one image token per image feature."""
    import torch
    with torch.inference_mode():
        n = vision_features(model, torch.from_numpy(pix1).to("cuda", torch.bfloat16)).shape[1]
    img = getattr(model.config, "image_token_id", None)
    k = sum(1 for t in ids if t == (model.config.image_token_index if img is None else img))
    if n != k:
        raise ValueError(f"the prompt has {k} image tokens but the image gives {n} features")
    return n


def memory_reset():
    """Frees torch's cached blocks and restarts its peak-memory counters."""
    import torch
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()


def memory_report():
    """Peak reserved / allocated MiB since memory_reset(), and the device's used MiB now."""
    import torch
    free, total = torch.cuda.mem_get_info()
    return {"peak_reserved_mib": torch.cuda.max_memory_reserved() / 2**20,
            "peak_allocated_mib": torch.cuda.max_memory_allocated() / 2**20,
            "device_used_mib_after": (total - free) / 2**20}


# ---------------------------------------------------------------- eager

def summarize_generations(runs, res, label):
    """Puts the timed generations' figures into res: per-run lists, medians, the last run's
    tokens, and the peak memory since memory_reset()."""
    res["memory"] = memory_report()
    res["ttft_ms_runs"] = [r[0] for r in runs]
    res["decode_tok_s_runs"] = [r[1] for r in runs]
    res["ttft_ms"] = statistics.median(res["ttft_ms_runs"])
    res["decode_tok_s"] = statistics.median(res["decode_tok_s_runs"])
    res["new_tokens"], res["tokens"] = len(runs[-1][2]), runs[-1][2]
    log(f"{label}: ttft {res['ttft_ms']:.2f} ms, decode {res['decode_tok_s']:.1f} tok/s")


def eager_generation(model, pix_np, ids, new_tokens):
    """One greedy generation with an explicit DynamicCache loop. Returns (ttft_ms,
    decode_tokens_per_s, tokens); see the module docstring for what each time covers."""
    import inspect
    import torch
    keep = {"logits_to_keep": 1} if "logits_to_keep" in inspect.signature(model.forward).parameters else {}
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    ids_d = torch.tensor([ids], device="cuda")
    pix = torch.from_numpy(pix_np).to("cuda").to(torch.bfloat16)
    out = model(input_ids=ids_d, pixel_values=pix, use_cache=True, **keep)
    tok = out.logits[:, -1].argmax(-1, keepdim=True)
    tokens = [tok.item()]
    t1 = time.perf_counter()
    past = out.past_key_values
    for _ in range(new_tokens - 1):
        out = model(input_ids=tok, past_key_values=past, use_cache=True)
        past = out.past_key_values
        tok = out.logits[:, -1].argmax(-1, keepdim=True)
        tokens.append(tok.item())
    t2 = time.perf_counter()
    return (t1 - t0) * 1e3, (len(tokens) - 1) / (t2 - t1), tokens


def cmd_eager(args):
    """Mode eager: see the module docstring. Returns the JSON object."""
    import torch
    pix1, pix8, ids = read_inputs(args.inputs)
    res = torch_info()
    model = load_model(args.model_dir)
    res["decode_weight_bytes"] = decode_weight_bytes(model)
    with torch.inference_mode():
        res["image_features"], res["prompt_tokens"] = check_prompt(model, pix1, ids), len(ids)
        eager_generation(model, pix1, ids, args.new_tokens)  # warm-up, untimed
        memory_reset()
        runs = [eager_generation(model, pix1, ids, args.new_tokens) for _ in range(args.runs)]
        summarize_generations(runs, res, "eager")
        bench_vision(lambda p: vision_features(model, p), {1: pix1, 8: pix8}, args.repeat, res)
    return res


# ---------------------------------------------------------------- torch.compile

def unique_graphs():
    """Graphs dynamo has compiled so far in this process."""
    import torch._dynamo.utils
    return torch._dynamo.utils.counters["stats"]["unique_graphs"]


class TokenClock:
    """A generate() streamer that notes when each put() arrives: generate puts the prompt
    first, then every new token as soon as it is on the host."""

    def __init__(self):
        self.times = []

    def put(self, value):
        self.times.append(time.perf_counter())

    def end(self):
        pass


def compiled_generation(model, pix_np, ids, new_tokens):
    """One model.generate of exactly new_tokens greedy tokens with a static KV cache (which
    transformers 5.x compiles for the decode steps). Returns (ttft_ms, decode_tokens_per_s,
    tokens): from the host arrays to the first token on the host, then tokens after the first
    over the time from the first token to the last, as for mmrun."""
    import torch
    clock = TokenClock()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    ids_d = torch.tensor([ids], device="cuda")
    out = model.generate(input_ids=ids_d, attention_mask=torch.ones_like(ids_d),
                         pixel_values=torch.from_numpy(pix_np).to("cuda").to(torch.bfloat16),
                         do_sample=False, max_new_tokens=new_tokens, min_new_tokens=new_tokens,
                         cache_implementation="static", streamer=clock)
    tokens = out[0, len(ids):].tolist()
    if len(clock.times) != len(tokens) + 1:  # times[0]: the prompt
        raise RuntimeError(f"streamer saw {len(clock.times) - 1} tokens, generate returned {len(tokens)}")
    first, last = clock.times[1], clock.times[-1]
    return (first - t0) * 1e3, (len(tokens) - 1) / (last - first), tokens


def compile_vision(model, pix1, pix8, iters, res):
    """vision_features under torch.compile (reduce-overhead: CUDA graphs; one static-shape
    compile per batch size, during bench_vision's warm-up), timed like eager."""
    import torch
    fn = torch.compile(lambda p: vision_features(model, p), mode="reduce-overhead", dynamic=False)
    t0 = time.perf_counter()
    bench_vision(fn, {1: pix1, 8: pix8}, iters, res)
    res["vision_compile_and_bench_s"] = time.perf_counter() - t0


def compile_generation(model, pix1, ids, new_tokens, runs, res):
    """Two untimed static-cache generations (compilation, CUDA-graph recording), then `runs`
    timed ones into res. Raises RuntimeError if dynamo compiled nothing."""
    g0 = unique_graphs()
    t0 = time.perf_counter()
    for _ in range(2):  # compiles the decode step and records its CUDA graph
        compiled_generation(model, pix1, ids, new_tokens)
    res["generate_warmup_s"] = time.perf_counter() - t0
    res["compile_config"] = repr(getattr(model.generation_config, "compile_config", None))
    res["generate_dynamo_graphs"] = unique_graphs() - g0
    if res["generate_dynamo_graphs"] == 0:
        raise RuntimeError("generate(cache_implementation='static') compiled nothing "
                           "(no dynamo graphs): this would not be a torch.compile measurement")
    memory_reset()
    runs = [compiled_generation(model, pix1, ids, new_tokens) for _ in range(runs)]
    summarize_generations(runs, res, "compile")


def cmd_compile(args):
    """Mode compile: see the module docstring. Returns the JSON object."""
    import torch
    pix1, pix8, ids = read_inputs(args.inputs)
    res = torch_info()
    model = load_model(args.model_dir)
    res["decode_weight_bytes"] = decode_weight_bytes(model)
    res["image_features"], res["prompt_tokens"] = check_prompt(model, pix1, ids), len(ids)
    def vision():
        with torch.inference_mode():
            compile_vision(model, pix1, pix8, args.repeat, res)
    def generation():  # generate() sets its own no_grad, as users call it
        compile_generation(model, pix1, ids, args.new_tokens, args.runs, res)
    for name, step in (("vision", vision), ("generation", generation)):
        try:
            step()
        except Exception as ex:  # reported in the JSON; the other step and eager still count
            res[f"{name}_error"] = repr(ex)[:600]
            log(f"compile {name} failed: {ex!r}"[:600])
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["inputs", "bandwidth", "eager", "compile"])
    ap.add_argument("model_dir", nargs="?", help="LLaVA folder (config.json, model.safetensors)")
    ap.add_argument("--out", help="mode inputs: folder to write the inputs to")
    ap.add_argument("--inputs", help="modes eager/compile: the folder mode inputs wrote")
    ap.add_argument("--new-tokens", type=int, default=128)
    ap.add_argument("--runs", type=int, default=3, help="timed generations (median)")
    ap.add_argument("--repeat", type=int, default=19, help="timed vision runs (mean)")
    args = ap.parse_args()
    if args.mode != "bandwidth" and not args.model_dir:
        ap.error(f"mode {args.mode} needs MODEL_DIR")
    if args.mode == "inputs" and not args.out:
        ap.error("mode inputs needs --out")
    if args.mode in ("eager", "compile") and not args.inputs:
        ap.error(f"mode {args.mode} needs --inputs (the folder mode inputs wrote)")
    if args.new_tokens < 2 or args.runs < 1 or args.repeat < 1:
        ap.error("--new-tokens must be at least 2, --runs and --repeat at least 1")
    res = {"inputs": cmd_inputs, "bandwidth": cmd_bandwidth, "eager": cmd_eager,
           "compile": cmd_compile}[args.mode](args)
    res["mode"] = args.mode
    json.dump(res, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
