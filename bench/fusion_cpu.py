#!/usr/bin/env python3
"""CPU time per token of a model compiled with and without fusion, side by side.

Usage: fusion_cpu.py <mmc> <mmrun> <model dir> [--runs N] [--threads T] [--markdown]

Compiles <model dir> twice (`mmc compile` and `mmc compile --no-fusion`), then, N times
per plan and alternating the two plans so that machine noise hits both alike:
  - runs each graph on its ONNX test data set with `mmrun --repeat 200` (mean of the
    repeats after a first, warm-up run: vision encoder, decoder prefill as exported);
  - runs the reference generation (reference/generation.json: prompt ids, pixel values,
    16 new tokens) and takes decode time / (new tokens - 1).
It reports the minimum over the N samples, in milliseconds: on a shared machine the
least disturbed sample is the best estimate of the cost (sub-millisecond graphs). Both plans must produce the
same tokens; the script exits 1 otherwise.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def run_json(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mmc")
    ap.add_argument("mmrun")
    ap.add_argument("model")
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()

    ref = json.load(open(os.path.join(a.model, "reference", "generation.json")))
    ids = ",".join(map(str, ref["prompt_ids"]))
    pixels = os.path.join(a.model, "reference", "pixel_values.npy")
    new = ref.get("max_new_tokens", 16)
    with tempfile.TemporaryDirectory() as tmp:
        plans = {}
        for name, extra in (("fusion", []), ("no fusion", ["--no-fusion"])):
            plans[name] = os.path.join(tmp, name.replace(" ", "_") + ".fb")
            subprocess.run([a.mmc, "compile", a.model, "-o", plans[name]] + extra, check=True)
        samples = {name: [] for name in plans}
        tokens = {}
        graphs = [(g, os.path.join(a.model, "onnx", g + "_test_data_set_0"))
                  for g in ("vision_encoder", "decoder_model_merged")]
        for _ in range(a.runs):
            for name, plan in plans.items():
                sample = {}
                for g, data in graphs:
                    r = run_json([a.mmrun, plan, "--function", g, "--input-dir", data,
                                  "--repeat", "200", "--threads", str(a.threads), "--json"])
                    sample[g.split("_")[0] + " (test data)"] = r["mean_run_ms"]
                r = run_json([a.mmrun, plan, "--pixel-values", pixels, "--input-ids", ids,
                              "--max-new-tokens", str(new), "--threads", str(a.threads), "--json"])
                sample["decode / token"] = r["timing"]["decode_ms"] / max(len(r["tokens"]) - 1, 1)
                samples[name].append(sample)
                tokens[name] = r["tokens"]
    if tokens["fusion"] != tokens["no fusion"]:
        print("tokens differ:", tokens, file=sys.stderr)
        return 1
    keys = list(samples["fusion"][0])
    med = {n: {k: min(s[k] for s in samples[n]) for k in keys} for n in samples}
    if a.markdown:
        print(f"| {os.path.basename(os.path.normpath(a.model))} (min of {a.runs}, "
              f"{a.threads} thread(s), ms) | fusion | no fusion | speed-up |")
        print("|---|---|---|---|")
        for k in keys:
            f, u = med["fusion"][k], med["no fusion"][k]
            print(f"| {k} | {f:.3f} | {u:.3f} | {u / f:.2f}x |")
    else:
        print(json.dumps({"runs": a.runs, "threads": a.threads, "min_ms": med,
                          "tokens": tokens["fusion"]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
