#!/usr/bin/python3
"""Rewrites a LLaVA ONNX folder into the flavour torch.onnx's TorchScript exporter writes with
`do_constant_folding=False` (as for models over 2 GB): every MatMul weight initializer W [K, N]
is stored as nn.Linear holds it, W^T [N, K], behind a Transpose node (perm [1, 0]). The values
are the same, so the source folder's references (tokens, logits, test data) hold unchanged.

usage: /usr/bin/python3 transpose_weights.py SRC_DIR OUT_DIR
(needs Debian's python3-onnx and numpy)
"""
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

GRAPHS = ("vision_encoder", "embed_tokens", "decoder_model_merged")


def transpose_matmul_weights(model):
    """Replaces each 2-D initializer read as MatMul's B by Transpose(W^T); returns the count."""
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    done, nodes = {}, []
    for node in g.node:
        if node.op_type == "MatMul" and node.input[1] in inits and len(inits[node.input[1]].dims) == 2:
            name = node.input[1]
            if name not in done:
                w = numpy_helper.to_array(inits[name])
                stored = numpy_helper.from_array(np.ascontiguousarray(w.T), name + ".nk")
                g.initializer.append(stored)
                out = name + ".transposed"
                nodes.append(helper.make_node("Transpose", [stored.name], [out], perm=[1, 0],
                                              name=name + "/Transpose"))
                done[name] = out
            node.input[1] = done[name]
        nodes.append(node)
    del g.node[:]
    g.node.extend(nodes)
    used = {i for n in g.node for i in n.input}
    kept = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(kept)
    return len(done)


def main():
    src, out = sys.argv[1:3]
    shutil.copytree(src, out)
    for gname in GRAPHS:
        path = os.path.join(out, "onnx", gname + ".onnx")
        m = onnx.load(path)
        n = transpose_matmul_weights(m)
        onnx.checker.check_model(m)
        onnx.save(m, path)
        print(f"{gname}: {n} MatMul weights stored [N, K] behind a Transpose")


if __name__ == "__main__":
    main()
