#!/usr/bin/python3
"""Builds one small model per onnxruntime contrib op that mmc imports (OpsContrib.cpp), with
random inputs and the outputs onnxruntime computes for them, in the ONNX backend test layout:

  contrib/<case>/model.onnx
  contrib/<case>/test_data_set_0/{input,output}_N.pb

Usage: /usr/bin/python3 gen_contrib_models.py ORT_NODE_MODULES [OUT_DIR]
  ORT_NODE_MODULES: a node_modules folder holding onnxruntime-node (the reference; it runs
  the contrib kernels): `npm install --ignore-scripts onnxruntime-node@1.30.0` (see
  ../shared/docs/TOOLCHAIN.md). OUT_DIR defaults to this script's folder.
Needs Debian's python3-onnx and numpy. Norm scales and biases are random (not 1 and 0),
so a dropped or misplaced parameter changes the outputs.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

MS = "com.microsoft"
F = TensorProto.FLOAT
rng = np.random.default_rng(7)


def normal(shape, mean=0.0, std=1.0):
    return rng.normal(mean, std, shape).astype(np.float32)


def case(nodes, inputs, outputs, inits=()):
    """inputs: [(name, array)] fed at run time; outputs: [(name, shape)]; inits: arrays."""
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info(n, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype], a.shape)
                     for n, a in inputs],
        [helper.make_tensor_value_info(n, F, s) for n, s in outputs],
        [numpy_helper.from_array(a, n) for n, a in inits])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    model.ir_version = 8
    return model, inputs


def cases():
    x, skip = normal([2, 3, 16]), normal([2, 3, 16])
    gamma, beta, bias = normal([16], 1.0, 0.1), normal([16], 0.0, 0.05), normal([16], 0.0, 0.05)
    out = {}
    out["simplified_layer_norm"] = case(
        [helper.make_node("SimplifiedLayerNormalization", ["x", "gamma"], ["y"], epsilon=1e-5)],
        [("x", x)], [("y", [2, 3, 16])], [("gamma", gamma)])
    out["skip_simplified_layer_norm"] = case(
        [helper.make_node("SkipSimplifiedLayerNormalization", ["x", "skip", "gamma", "bias"],
                          ["y", "", "", "sum"], domain=MS, epsilon=1e-5)],
        [("x", x), ("skip", skip)], [("y", [2, 3, 16]), ("sum", [2, 3, 16])],
        [("gamma", gamma), ("bias", bias)])
    out["skip_layer_norm"] = case(
        [helper.make_node("SkipLayerNormalization", ["x", "skip", "gamma", "beta", "bias"],
                          ["y", "", "", "sum"], domain=MS, epsilon=1e-5)],
        [("x", x), ("skip", skip)], [("y", [2, 3, 16]), ("sum", [2, 3, 16])],
        [("gamma", gamma), ("beta", beta), ("bias", bias)])
    out["skip_layer_norm_no_bias"] = case(
        [helper.make_node("SkipLayerNormalization", ["x", "skip", "gamma", "beta"], ["y"],
                          domain=MS, epsilon=1e-6)],
        [("x", x), ("skip", skip)], [("y", [2, 3, 16])], [("gamma", gamma), ("beta", beta)])
    out["fast_gelu_bias"] = case(
        [helper.make_node("FastGelu", ["x", "bias"], ["y"], domain=MS)],
        [("x", x)], [("y", [2, 3, 16])], [("bias", bias)])
    out["bias_gelu"] = case(
        [helper.make_node("BiasGelu", ["x", "bias"], ["y"], domain=MS)],
        [("x", x)], [("y", [2, 3, 16])], [("bias", bias)])
    out["gelu"] = case([helper.make_node("Gelu", ["x"], ["y"], domain=MS)], [("x", x)], [("y", [2, 3, 16])])
    out["quick_gelu"] = case([helper.make_node("QuickGelu", ["x"], ["y"], domain=MS)],
                             [("x", x)], [("y", [2, 3, 16])])
    out["quick_gelu_alpha"] = case([helper.make_node("QuickGelu", ["x"], ["y"], domain=MS, alpha=1.5)],
                                   [("x", x)], [("y", [2, 3, 16])])
    out.update(rotary_cases())
    out.update(attention_cases())
    out.update(padded_gqa_cases())
    # Without an epsilon attribute: onnxruntime's default for the Skip norms is 1e-12.
    out["skip_simplified_layer_norm_default_eps"] = case(
        [helper.make_node("SkipSimplifiedLayerNormalization", ["x", "skip", "gamma"], ["y"], domain=MS)],
        [("x", x * 1e-3), ("skip", skip * 1e-3)], [("y", [2, 3, 16])], [("gamma", gamma)])
    # MultiHeadAttention's key_padding_mask keeps a key where it is > 0 (so -1 masks), and a
    # mask_filter_value that does not hide keys (-1) is added as it is.
    b, s, n, d = 2, 3, 2, 32
    keep = np.array([[1, -1, 1], [1, 1, 0]], np.int32)
    for name, attrs in (("mha_mask_values", {}), ("mha_mask_filter", {"mask_filter_value": -1.0})):
        out[name] = case(
            [helper.make_node("MultiHeadAttention", ["q", "k", "v", "", "keep"], ["y"], domain=MS, num_heads=n, **attrs)],
            [("q", normal([b, s, d])), ("k", normal([b, s, d])), ("v", normal([b, s, d])), ("keep", keep)],
            [("y", [b, s, d])])
    return out


def rotary_caches(max_pos, half):
    inv = 1.0 / (10000 ** (np.arange(half, dtype=np.float64) / half))
    ang = np.arange(max_pos)[:, None] * inv[None, :]
    return np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)


def rotary_cases():
    cos8, sin8 = rotary_caches(16, 8)
    cos4, sin4 = rotary_caches(16, 4)
    pos = rng.integers(0, 12, [2, 3]).astype(np.int64)
    out = {}
    out["rotary_3d"] = case(
        [helper.make_node("RotaryEmbedding", ["x", "pos", "cos", "sin"], ["y"], domain=MS, num_heads=2)],
        [("x", normal([2, 3, 32])), ("pos", pos)], [("y", [2, 3, 32])], [("cos", cos8), ("sin", sin8)])
    out["rotary_4d_offset_interleaved"] = case(
        [helper.make_node("RotaryEmbedding", ["x", "pos", "cos", "sin"], ["y"], domain=MS, interleaved=1)],
        [("x", normal([2, 2, 3, 16])), ("pos", np.array([2], np.int64))], [("y", [2, 2, 3, 16])],
        [("cos", cos8), ("sin", sin8)])
    out["rotary_partial"] = case(
        [helper.make_node("RotaryEmbedding", ["x", "pos", "cos", "sin"], ["y"], domain=MS, num_heads=2,
                          rotary_embedding_dim=8)],
        [("x", normal([2, 3, 32])), ("pos", pos)], [("y", [2, 3, 32])], [("cos", cos4), ("sin", sin4)])
    return out


def attention_cases():
    out = {}
    b, s, n, h, p = 2, 3, 2, 16, 4
    d = n * h
    out["mha_self_past_bias_causal"] = case(
        [helper.make_node("MultiHeadAttention", ["q", "k", "v", "bias", "", "", "pk", "pv"], ["y", "pk_out", "pv_out"],
                          domain=MS, num_heads=n, unidirectional=1)],
        [("q", normal([b, s, d])), ("k", normal([b, s, d])), ("v", normal([b, s, d])),
         ("pk", normal([b, n, p, h])), ("pv", normal([b, n, p, h]))],
        [("y", [b, s, d]), ("pk_out", [b, n, p + s, h]), ("pv_out", [b, n, p + s, h])],
        [("bias", normal([3 * d], 0, 0.1))])
    out["mha_cross_projected_kv"] = case(
        [helper.make_node("MultiHeadAttention", ["q", "k", "v", "bias"], ["y"], domain=MS, num_heads=n,
                          scale=0.3)],
        [("q", normal([b, s, d])), ("k", normal([b, n, 5, h])), ("v", normal([b, n, 5, h]))],
        [("y", [b, s, d])], [("bias", normal([3 * d], 0, 0.1))])
    keep = np.ones([b, s], np.int32)
    keep[1, 2] = 0
    out["mha_padding_mask_bias"] = case(
        [helper.make_node("MultiHeadAttention", ["q", "k", "v", "", "keep", "ab"], ["y"], domain=MS, num_heads=n)],
        [("q", normal([b, s, d])), ("k", normal([b, s, d])), ("v", normal([b, s, d])), ("keep", keep)],
        [("y", [b, s, d])], [("ab", normal([1, n, s, s], 0, 0.5))])
    # GroupQueryAttention: 4 query heads over 2 KV heads, head size 16, rotary over it all.
    nq, nkv, ms = 4, 2, 16
    cos, sin = rotary_caches(ms, h // 2)
    def gqa(name, seq, past, batch=1, rotary=1, packed=False, **attrs):
        ins = ["q"] if packed else ["q", "k", "v"]
        ins += ["", ""] if packed else []
        ins += ["pk", "pv"] if past else ["", ""]
        ins += ["seqlens", "total"] + (["cos", "sin"] if rotary else [])
        feeds = [("q", normal([batch, seq, (nq + 2 * nkv) * h] if packed else [batch, seq, nq * h]))]
        if not packed:
            feeds += [("k", normal([batch, seq, nkv * h])), ("v", normal([batch, seq, nkv * h]))]
        if past:
            feeds += [("pk", normal([batch, nkv, past, h])), ("pv", normal([batch, nkv, past, h]))]
        feeds += [("seqlens", np.full([batch], past + seq - 1, np.int32)),
                  ("total", np.array(past + seq, np.int32))]
        outs = [("y", [batch, seq, nq * h]), ("k_out", [batch, nkv, past + seq, h]), ("v_out", [batch, nkv, past + seq, h])]
        out[name] = case([helper.make_node("GroupQueryAttention", ins, [o for o, _ in outs], domain=MS,
                                           num_heads=nq, kv_num_heads=nkv, do_rotary=rotary, **attrs)],
                         feeds, outs, [("cos", cos), ("sin", sin)] if rotary else [])
    gqa("gqa_prompt_rotary", seq=4, past=0)
    gqa("gqa_decode_rotary", seq=1, past=5)
    gqa("gqa_batch2_prompt", seq=4, past=0, batch=2)
    gqa("gqa_packed_no_rotary", seq=4, past=0, rotary=0, packed=True)
    gqa("gqa_softcap_interleaved", seq=3, past=2, softcap=2.0, rotary_interleaved=1)
    return out


RUNNER = """
const ort = require(process.argv[2]);
const fs = require('fs');
(async () => {
  const spec = JSON.parse(fs.readFileSync(process.argv[3]));
  const s = await ort.InferenceSession.create(spec.model);
  const feeds = {};
  for (const i of spec.inputs) {
    const buf = fs.readFileSync(i.file);
    const data = i.dtype === 'float32' ? new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4)
               : i.dtype === 'int64' ? new BigInt64Array(buf.buffer, buf.byteOffset, buf.length / 8)
               : new Int32Array(buf.buffer, buf.byteOffset, buf.length / 4);
    feeds[i.name] = new ort.Tensor(i.dtype, data, i.shape);
  }
  const r = await s.run(feeds);
  const out = {};
  for (const [name, t] of Object.entries(r)) {
    fs.writeFileSync(spec.dir + '/' + name + '.bin', Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    out[name] = {dims: t.dims, type: t.type};
  }
  fs.writeFileSync(spec.dir + '/outputs.json', JSON.stringify(out));
})().catch(e => { console.error(e); process.exit(1); });
"""


def run_ort(ort_modules, model_path, inputs, work):
    spec = {"model": model_path, "dir": work, "inputs": []}
    for name, a in inputs:
        f = os.path.join(work, name + ".in")
        a.tofile(f)
        spec["inputs"].append({"name": name, "file": f, "shape": list(a.shape), "dtype": str(a.dtype)})
    with open(os.path.join(work, "spec.json"), "w") as f:
        json.dump(spec, f)
    runner = os.path.join(work, "run.js")
    with open(runner, "w") as f:
        f.write(RUNNER)
    subprocess.run(["node", runner, os.path.join(ort_modules, "onnxruntime-node"),
                    os.path.join(work, "spec.json")], check=True)
    meta = json.load(open(os.path.join(work, "outputs.json")))
    dtypes = {"float32": np.float32, "int64": np.int64, "int32": np.int32}
    return {n: np.fromfile(os.path.join(work, n + ".bin"), dtypes[m["type"]]).reshape(m["dims"])
            for n, m in meta.items()}


def padded_gqa_cases():
    """GroupQueryAttention over a right-padded batch: row 1's valid past is 3 of the buffer's
    5 positions (decode), or its prompt is 2 of 4 tokens (prefill). onnxruntime writes row
    1's new keys inside the buffer, mmc after it: only the attention output is compared."""
    nq, nkv, h = 4, 2, 16
    cos, sin = rotary_caches(16, h // 2)
    out = {}
    for name, seq, past, lens in (("gqa_padded_decode", 1, 5, [5, 3]), ("gqa_padded_prompt", 4, 0, [4, 2])):
        b = len(lens)
        ins = ["q", "k", "v"] + (["pk", "pv"] if past else ["", ""]) + ["seqlens", "total", "cos", "sin"]
        feeds = [("q", normal([b, seq, nq * h])), ("k", normal([b, seq, nkv * h])), ("v", normal([b, seq, nkv * h]))]
        if past:
            feeds += [("pk", normal([b, nkv, past, h])), ("pv", normal([b, nkv, past, h]))]
        feeds += [("seqlens", np.array([n + (past and seq) - 1 for n in lens], np.int32)),
                  ("total", np.array(max(lens) + (past and seq), np.int32))]
        out[name] = case([helper.make_node("GroupQueryAttention", ins, ["y", "k_out", "v_out"], domain=MS,
                                           num_heads=nq, kv_num_heads=nkv, do_rotary=1)],
                         feeds, [("y", [b, seq, nq * h])], [("cos", cos), ("sin", sin)])
    return out


def main():
    ort_modules = sys.argv[1]
    out_dir = os.path.join(sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(__file__)),
                           "contrib")
    for name, (model, inputs) in cases().items():
        d = os.path.join(out_dir, name)
        os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
        path = os.path.join(d, "model.onnx")
        onnx.save(model, path)
        with tempfile.TemporaryDirectory() as work:
            results = run_ort(ort_modules, path, inputs, work)
        for i, (n, a) in enumerate(inputs):
            with open(os.path.join(d, "test_data_set_0", f"input_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a, n).SerializeToString())
        for i, o in enumerate(model.graph.output):
            with open(os.path.join(d, "test_data_set_0", f"output_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(results[o.name], o.name).SerializeToString())
        print("wrote", d)


if __name__ == "__main__":
    main()
