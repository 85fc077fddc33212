#!/usr/bin/env python3
"""The table of bench/import_paths_bench.sh: import_paths_table.py WORK PATH... (onnx, hf).

Per path: compile wall seconds and peak RSS (from /usr/bin/time -v in
WORK/results/compile_PATH.log), plan size, and the medians over WORK/results/gen_PATH_*.json
(mmrun --json) of time to first token and decode tokens/s; then whether every path generated
the same tokens, and hf / onnx ratios. Exit status 1 when a path has no result or the tokens
differ."""
import glob
import json
import os
import re
import statistics
import sys

work, paths = sys.argv[1], sys.argv[2:]
res = os.path.join(work, "results")
rows, tokens, status = {}, {}, 0
for p in paths:
    row = {}
    try:
        log = open(os.path.join(res, f"compile_{p}.log")).read()
        wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", log)
        if wall:
            row["compile_s"] = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
        rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", log)
        if rss:
            row["rss_mib"] = int(rss.group(1)) / 1024
    except OSError:
        pass
    plan = os.path.join(work, f"{p}.plan")
    if os.path.exists(plan):
        row["plan_mib"] = os.path.getsize(plan) / 2**20
    runs = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(res, f"gen_{p}_*.json")))]
    if runs:
        row["ttft_ms"] = statistics.median(r["timing"]["time_to_first_token_ms"] for r in runs)
        row["decode_tok_s"] = statistics.median(r["timing"]["decode_tokens_per_s"] for r in runs)
        row["runs"] = len(runs)
        tokens[p] = runs[0]["tokens"]
    else:
        status = 1
    rows[p] = row


def cell(row, key, fmt):
    return fmt.format(row[key]) if key in row else "n/a"


print("| import | compile s | peak RSS MiB | plan MiB | TTFT ms | decode tok/s | runs |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for p in paths:
    r = rows[p]
    print(f"| {p} | {cell(r, 'compile_s', '{:.2f}')} | {cell(r, 'rss_mib', '{:.0f}')} | "
          f"{cell(r, 'plan_mib', '{:.0f}')} | {cell(r, 'ttft_ms', '{:.2f}')} | "
          f"{cell(r, 'decode_tok_s', '{:.1f}')} | {r.get('runs', 0)} |")
if len(tokens) > 1:
    same = len({json.dumps(t) for t in tokens.values()}) == 1
    print(f"\ntokens identical across {', '.join(tokens)}: {'yes' if same else 'NO'}")
    status |= 0 if same else 1
if "onnx" in rows and "hf" in rows:
    for key in ("ttft_ms", "decode_tok_s"):
        if key in rows["onnx"] and key in rows["hf"]:
            print(f"hf / onnx {key}: {rows['hf'][key] / rows['onnx'][key]:.3f}")
sys.exit(status)
