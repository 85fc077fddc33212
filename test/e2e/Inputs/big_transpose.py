#!/usr/bin/env python3
"""A transposed weight large enough for many of the plan writer's 64 x 64 tiles on several
threads, with partial tiles at both edges (1000 = 15 x 64 + 40 rows, 5000 = 78 x 64 + 8
columns): W [1000, 5000] f32 (20 MB, seed 0) behind mm.transpose, returned, so mmrun writes the
plan's bytes back out (compiled as it is, and with --dtype bf16: written rounded to bf16,
widened back to f32 at run time for the f32 output).

usage: big_transpose.py DIR                  writes DIR/w.bin and DIR/big.mlir
       big_transpose.py DIR --check OUT      compares OUT/t.npy with numpy's W.T exactly
       big_transpose.py DIR --check-bf16 OUT ... with W.T rounded to bf16 (nearest even)
"""
import os
import sys

import numpy as np

N, K = 1000, 5000
d = sys.argv[1]
w = np.random.default_rng(0).standard_normal((N, K)).astype(np.float32)
if len(sys.argv) == 2:
    os.makedirs(d, exist_ok=True)
    w.tofile(os.path.join(d, "w.bin"))
    with open(os.path.join(d, "big.mlir"), "w") as f:
        f.write(f"""func.func @big() -> (tensor<{K}x{N}xf32> {{mm.name = "t"}}) {{
  %w = mm.weight "w" from "w.bin" [0, {N * K * 4}] : tensor<{N}x{K}xf32>
  %t = mm.transpose %w {{perm = array<i64: 1, 0>}} : tensor<{N}x{K}xf32> -> tensor<{K}x{N}xf32>
  return %t : tensor<{K}x{N}xf32>
}}
""")
    sys.exit(0)
t = np.load(os.path.join(sys.argv[3], "t.npy"))
want = np.ascontiguousarray(w.T)
if sys.argv[2] == "--check-bf16":
    u = want.view(np.uint32)
    want = (((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16).astype(np.uint32).view(np.float32)
ok = t.shape == (K, N) and np.array_equal(t, want)
print("transposed weight matches numpy" if ok else
      f"MISMATCH: {np.count_nonzero(t != want) if t.shape == (K, N) else t.shape}")
sys.exit(0 if ok else 1)
