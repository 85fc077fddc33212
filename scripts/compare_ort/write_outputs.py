#!/usr/bin/env python3
"""onnxruntime's outputs (run_ort.js: outputs.json + <name>.out.bin) as output_<i>.pb
TensorProtos, what `mmrun --compare-dir` reads. Usage: write_outputs.py dir"""
import sys, json, numpy as np
from onnx import numpy_helper
d = sys.argv[1]
for i, o in enumerate(json.load(open(f"{d}/outputs.json"))):
    dt = {"float32": np.float32, "int64": np.int64}[o["type"]]
    a = np.fromfile(f"{d}/{o['name']}.out.bin", dtype=dt).reshape(o["dims"])
    open(f"{d}/output_{i}.pb", "wb").write(numpy_helper.from_array(a, o["name"]).SerializeToString())
