#!/usr/bin/env python3
"""mmc/mmrun vs onnxruntime 1.30 on the CPU, side by side in one run, for LLaVA folders
(config.json, onnx/{vision_encoder,embed_tokens,decoder_model_merged}.onnx,
reference/{generation.json,pixel_values.npy}).

Both run the same generation on the same ONNX graphs: vision encoder, splice of the image
features, prefill of the reference prompt, greedy decode of reference max_new_tokens
tokens (mmrun: the compiled plan, runtime KV cache; onnxruntime: bench/ort_llava.js,
present.* fed back as past_key_values.*). Rounds alternate between the two so machine
noise hits both alike; each round is a fresh process with W untimed warm-up generations.
Reports the median and the minimum over the rounds of: vision encoder ms, time to first
token ms (vision + embedding + prefill + argmax), decode tokens/s. Both must produce the
reference tokens (the script exits 1 otherwise).

Usage: llava_cpu.py MMC MMRUN MODEL_DIR... [--threads T] [--rounds R] [--warmup W]
Needs node and onnxruntime-node (npm install --ignore-scripts onnxruntime-node@1.30.0).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def mmrun_round(mmrun, plan, model, ref, warmup, env):
    cmd = [mmrun, plan, "--pixel-values", os.path.join(model, "reference", "pixel_values.npy"),
           "--input-ids", ",".join(map(str, ref["prompt_ids"])), "--max-new-tokens",
           str(ref["max_new_tokens"]), "--json", "--warmup", str(warmup)]
    out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout)
    t = out["timing"]
    return out["tokens"], t["vision_encoder_ms"], t["time_to_first_token_ms"], t["decode_tokens_per_s"]


def ort_round(model, threads, warmup):
    cmd = ["node", os.path.join(HERE, "ort_llava.js"), model, "--threads", str(threads),
           "--warmup", str(warmup), "--runs", "1"]
    out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    return out["tokens"], out["vision_ms"][0], out["ttft_ms"][0], out["decode_tokens_per_s"][0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mmc")
    ap.add_argument("mmrun")
    ap.add_argument("models", nargs="+")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=3)
    a = ap.parse_args()
    env = dict(os.environ, MM_NUM_THREADS=str(a.threads), OPENBLAS_NUM_THREADS=str(a.threads))
    ok = True
    print(f"| model | runtime | vision encoder ms | time to first token ms | decode tokens/s |")
    print(f"|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for model in a.models:
            name = os.path.basename(os.path.normpath(model))
            ref = json.load(open(os.path.join(model, "reference", "generation.json")))
            plan = os.path.join(tmp, name + ".plan")
            subprocess.run([a.mmc, "compile", model, "-o", plan], check=True)
            samples = {"mmrun": [], "onnxruntime": []}
            for _ in range(a.rounds):
                samples["mmrun"].append(mmrun_round(a.mmrun, plan, model, ref, a.warmup, env))
                samples["onnxruntime"].append(ort_round(model, a.threads, a.warmup))
            for runtime, rows in samples.items():
                if any(r[0] != ref["greedy_new_tokens"] for r in rows):
                    print(f"{name}: {runtime} tokens differ from the reference", file=sys.stderr)
                    ok = False
                cols = []
                for i, higher_is_better in ((1, False), (2, False), (3, True)):
                    values = [r[i] for r in rows]
                    best = max(values) if higher_is_better else min(values)
                    cols.append(f"{statistics.median(values):.2f} (best {best:.2f})")
                print(f"| {name} | {runtime} | " + " | ".join(cols) + " |")
    print(f"\n{a.rounds} rounds, {a.warmup} warm-up generations per round, {a.threads} thread(s); "
          "median (best).")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
