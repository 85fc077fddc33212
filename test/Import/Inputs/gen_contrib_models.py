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
