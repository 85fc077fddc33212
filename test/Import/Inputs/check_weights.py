#!/usr/bin/python3
"""Checks every mm.weight of an imported module against the ONNX initializer it names.

Usage: mmc import MODEL | check_weights.py MODEL [MODEL...]
For each `mm.weight "name" from "file"[offset, length]` line on stdin, reads `length`
bytes of `file` at `offset` and compares them with the initializer `name` as the onnx
Python package loads it (external data resolved by onnx itself). Prints
"checked N weights" or exits 1 naming the first mismatch. An independent check of the
importer's raw_data offsets and external-data resolution.
"""
import os
import re
import sys

import numpy as np
import onnx
from onnx import numpy_helper

WEIGHT = re.compile(r'mm\.weight "([^"]*)" from "([^"]*)"\[(\d+), (\d+)\]')


def main():
    inits = {}  # (model path, initializer name) -> array
    for path in sys.argv[1:]:
        model = onnx.load(path, load_external_data=True)
        for t in model.graph.initializer:
            inits[(os.path.realpath(path), t.name)] = numpy_helper.to_array(t)
    count = 0
    for line in sys.stdin:
        m = WEIGHT.search(line)
        if not m:
            continue
        name, path, offset, length = m.group(1), m.group(2), int(m.group(3)), int(m.group(4))
        with open(path, "rb") as f:
            f.seek(offset)
            data = f.read(length)
        # Embedded data lives in the model file itself; external data next to its model.
        source = os.path.realpath(path)
        candidates = [k for k in inits if k[1] == name and k[0] == source]
        if not candidates:
            candidates = [k for k in inits if k[1] == name and
                          os.path.dirname(k[0]) == os.path.dirname(source)]
        if len(candidates) != 1:
            print(f"weight '{name}' from {path}: {len(candidates)} matching initializers")
            sys.exit(1)
        expected = np.ascontiguousarray(inits[candidates[0]]).tobytes()
        if data != expected:
            print(f"mismatch: weight '{name}' at {path}[{offset}, {length}] differs from the "
                  f"initializer ({len(expected)} bytes)")
            sys.exit(1)
        count += 1
    print(f"checked {count} weights")


if __name__ == "__main__":
    main()
