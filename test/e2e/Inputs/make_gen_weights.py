#!/usr/bin/env python3
"""Weights of Inputs/gen.mlir: embed [8, 4] (row t = one-hot(t mod 4)), then
lm_head [4, 8] (W[j][(j + 1) mod 8] = 1), f32 little-endian. usage: make_gen_weights.py OUT"""
import struct
import sys

embed = [1.0 if c == t % 4 else 0.0 for t in range(8) for c in range(4)]
head = [1.0 if c == (j + 1) % 8 else 0.0 for j in range(4) for c in range(8)]
open(sys.argv[1], "wb").write(struct.pack("<64f", *(embed + head)))
