#!/usr/bin/env python3
"""Reads `mmc compile --stats` from stdin and prints, per function of the compiled module,
one line of fused-op counts and one of the primitives that a missed pattern leaves behind:

  decoder_model_merged: fused add_rms_norm=4 attention=2 ...
  decoder_model_merged: unfused softmax=0 reduce_mean=0 ...

so that a test can require the same lines from every export flavour of a model. Exits 1
when the input holds no "after passes:" section.
"""
import re
import sys

FUSED = ["add_layer_norm", "add_rms_norm", "attention", "gelu", "geglu", "layer_norm", "linear",
         "quick_gelu", "rms_norm", "rotary", "silu", "swiglu"]
# What an unmatched norm (reduce_mean, sqrt, reciprocal), softmax, GELU (erf, tanh),
# sigmoid activation or rotate-half (neg) leaves in the graph.
UNFUSED = ["erf", "is_nan", "neg", "reciprocal", "reduce_mean", "sigmoid", "softmax", "sqrt",
           "tanh"]

text = sys.stdin.read()
if "after passes:" not in text:
    print("no 'after passes:' section in the input")
    sys.exit(1)
after = text.split("after passes:", 1)[1].split("\nplan:", 1)[0]
counts = {}
fn = None
for line in after.splitlines():
    m = re.match(r"function @(\S+): \d+ ops", line)
    if m:
        fn = m.group(1)
        counts[fn] = {}
        continue
    m = re.match(r"\s+(\d+)\s+mm\.(\S+)$", line)
    if m and fn:
        counts[fn][m.group(2)] = int(m.group(1))
for fn, c in counts.items():
    print(f"{fn}: fused " + " ".join(f"{k}={c.get(k, 0)}" for k in FUSED))
    print(f"{fn}: unfused " + " ".join(f"{k}={c.get(k, 0)}" for k in UNFUSED))
