#!/usr/bin/python3
"""Writes MODEL_DIR's LLaVA folder to OUT_DIR with its decoder in the form Optimum's
merge_decoders gives: a bool input `use_cache_branch` and one If node whose then_branch is
the decoder with past key/values and whose else_branch is a second copy (Optimum's decoder
without past). The initializers stay in the main graph, shared by both branches, as
Optimum leaves them. So that a test sees which branch ran, the with-past branch also
multiplies the logits by an initializer of its own (1.0: the model's logits) and the other
branch negates them (its greedy tokens differ).

usage: make_optimum_merged.py MODEL_DIR OUT_DIR      (needs Debian's python3-onnx)
"""
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

src, out = sys.argv[1], sys.argv[2]
os.makedirs(os.path.join(out, "onnx"), exist_ok=True)
for f in ("config.json", "generation_config.json"):
    if os.path.exists(os.path.join(src, f)):
        shutil.copy(os.path.join(src, f), out)
shutil.copytree(os.path.join(src, "reference"), os.path.join(out, "reference"), dirs_exist_ok=True)
for g in ("vision_encoder", "embed_tokens"):
    shutil.copy(os.path.join(src, "onnx", g + ".onnx"), os.path.join(out, "onnx"))

m = onnx.load(os.path.join(src, "onnx", "decoder_model_merged.onnx"))
g = m.graph
outer = {i.name for i in g.input} | {i.name for i in g.initializer}


def branch(prefix, logits_tail):
    """The graph's nodes with every node-produced name prefixed (outer names kept), then
    logits_tail(logits_name, out_name) -> (nodes, initializers) applied to the logits."""
    produced = {o for n in g.node for o in n.output if o}
    rename = lambda x: prefix + x if x in produced else x
    nodes = []
    for n in g.node:
        c = onnx.NodeProto()
        c.CopyFrom(n)
        c.name = prefix + (n.name or n.op_type)
        c.input[:] = [rename(x) for x in n.input]
        c.output[:] = [rename(x) for x in n.output]
        nodes.append(c)
    outs, inits = [], []
    for o in g.output:
        v = onnx.ValueInfoProto()
        v.CopyFrom(o)
        v.name = rename(o.name)
        if o.name == "logits":
            v.name = prefix + "logits_out"
            tail, inits = logits_tail(rename(o.name), v.name)
            nodes += tail
        outs.append(v)
    return helper.make_graph(nodes, prefix.strip("/"), [], outs, inits)


def times_one(x, y):
    one = numpy_helper.from_array(np.array(1.0, np.float32), "with_past/one")
    return [helper.make_node("Mul", [x, "with_past/one"], [y], name="with_past/times_one")], [one]


def negated(x, y):
    return [helper.make_node("Neg", [x], [y], name="no_past/negate")], []


if_node = helper.make_node("If", ["use_cache_branch"], [o.name for o in g.output], name="optimum::if",
                           then_branch=branch("with_past/", times_one), else_branch=branch("no_past/", negated))
inputs = list(g.input) + [helper.make_tensor_value_info("use_cache_branch", TensorProto.BOOL, [1])]
merged = helper.make_graph([if_node], g.name, inputs, list(g.output), list(g.initializer))
model = helper.make_model(merged, opset_imports=list(m.opset_import))
model.ir_version = m.ir_version
onnx.save(model, os.path.join(out, "onnx", "decoder_model_merged.onnx"))
print("wrote", out)
