#!/usr/bin/env python3
"""Random inputs for one graph of ../shared/models, for compare.sh.

Usage: make_inputs.py model.onnx out_dir '{"batch": 2, "seq": 7, "past": 2}'
Writes out_dir/input_<i>.pb (TensorProto, what `mmrun --input-dir` reads) and
out_dir/<name>.bin + inputs.json (raw data for run_ort.js). pixel_values [batch, 3, 64, 64]
and inputs_embeds [batch, seq, 64] are N(0, 1); attention_mask [batch, past + seq] is ones
with the first position of row 0 masked when batch > 1; position_ids run past .. past+seq-1;
past_key_values.* are [batch, 2, past, 16] (the tiny models' sizes)."""
import sys, json, os, numpy as np, onnx
from onnx import numpy_helper
model, out, spec = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
m = onnx.load(model, load_external_data=False)
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)
meta = []
b, s, p = spec.get("batch", 1), spec.get("seq", 1), spec.get("past", 0)
for i, inp in enumerate(m.graph.input):
    n = inp.name
    if n == "pixel_values": a = rng.standard_normal((b, 3, 64, 64)).astype(np.float32)
    elif n == "inputs_embeds": a = rng.standard_normal((b, s, 64)).astype(np.float32)
    elif n == "input_ids": a = rng.integers(0, 320, (b, s)).astype(np.int64)
    elif n == "attention_mask":
        a = np.ones((b, p + s), np.int64)
        if b > 1 and p + s > 1: a[0, 0] = 0   # some padding on the first row
    elif n == "position_ids": a = np.tile(np.arange(p, p + s, dtype=np.int64), (b, 1))
    elif n.startswith("past_key_values"): a = rng.standard_normal((b, 2, p, 16)).astype(np.float32)
    else: raise SystemExit("unknown input " + n)
    t = numpy_helper.from_array(a, n)
    open(f"{out}/input_{i}.pb", "wb").write(t.SerializeToString())
    a.tofile(f"{out}/{n}.bin")
    meta.append({"name": n, "dtype": str(a.dtype), "shape": list(a.shape)})
json.dump(meta, open(f"{out}/inputs.json", "w"))
