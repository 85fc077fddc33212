#!/usr/bin/env python3
"""The table of bench/flavours_bench.sh: one row per export flavour, from WORK/NAME/
{compile.log, compile_seconds, fused.txt, gen_R.json}; medians over the runs.

usage: flavours_table.py --work DIR [--device cuda|cpu] NAME ...
Checks each flavour against the first (issue 13): the same fused-op lines per function,
decode tokens/s within 5 %, time to first token within 10 %; prints the verdicts under the
table and exits 1 when one fails or a flavour has no result.
"""
import argparse
import json
import os
import statistics
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--work", required=True)
ap.add_argument("--device", default="cuda")
ap.add_argument("names", nargs="+")
a = ap.parse_args()


def read(name):
    d = os.path.join(a.work, name)
    runs = []
    for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if f.startswith("gen_") and f.endswith(".json"):
            with open(os.path.join(d, f)) as fh:
                runs.append(json.load(fh))
    fused = open(os.path.join(d, "fused.txt")).read() if os.path.exists(os.path.join(d, "fused.txt")) else ""
    secs = os.path.join(d, "compile_seconds")
    return {"runs": runs, "fused": fused,
            "compile_s": float(open(secs).read()) if os.path.exists(secs) else None}


def median(runs, *path):
    vals = []
    for r in runs:
        v = r
        for p in path:
            v = v.get(p) if isinstance(v, dict) else None
        if isinstance(v, (int, float)):
            vals.append(v)
    return statistics.median(vals) if vals else None


def fmt(v, spec=".2f"):
    return "n/a" if v is None else format(v, spec)


rows = {n: read(n) for n in a.names}
cuda = a.device == "cuda"
head = ["flavour", "decode tokens/s", "TTFT ms", "vision ms", "compile s"]
if cuda:
    head += ["peak device MiB", "decoder graph launches"]
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
for n, r in rows.items():
    cells = [n, fmt(median(r["runs"], "timing", "decode_tokens_per_s"), ".1f"),
             fmt(median(r["runs"], "timing", "time_to_first_token_ms")),
             fmt(median(r["runs"], "timing", "vision_encoder_ms")), fmt(r["compile_s"])]
    if cuda:
        cells += [fmt(median(r["runs"], "memory", "peak_device_mib"), ".0f"),
                  fmt(median(r["runs"], "launches", "decoder", "graph_launches"), ".0f")]
    print("| " + " | ".join(cells) + " |")

ok = True
base_name = a.names[0]
base = rows[base_name]
b_dec = median(base["runs"], "timing", "decode_tokens_per_s")
b_ttft = median(base["runs"], "timing", "time_to_first_token_ms")
print()
for n, r in rows.items():
    dec = median(r["runs"], "timing", "decode_tokens_per_s")
    ttft = median(r["runs"], "timing", "time_to_first_token_ms")
    if dec is None or ttft is None or not r["fused"]:
        print(f"- {n}: FAIL no result (see {os.path.join(a.work, n)})")
        ok = False
        continue
    same = r["fused"] == base["fused"]
    d_rel = abs(dec - b_dec) / b_dec if b_dec else 0.0
    t_rel = abs(ttft - b_ttft) / b_ttft if b_ttft else 0.0
    good = same and d_rel <= 0.05 and t_rel <= 0.10
    ok &= good
    print(f"- {n}: {'PASS' if good else 'FAIL'} fused ops {'the same as' if same else 'DIFFER from'} "
          f"{base_name}'s; decode {100 * d_rel:.1f} % off (<= 5 %), TTFT {100 * t_rel:.1f} % off (<= 10 %)")
    if not same:
        for line in r["fused"].splitlines():
            if line not in base["fused"].splitlines():
                print(f"    {n}: {line}")
sys.exit(0 if ok else 1)
