#!/usr/bin/python3
"""Makes a LLaVA ONNX folder's biases and norm parameters visible to the tests: every 1-D
float initializer named *bias becomes N(0, 0.05) and every norm weight (*norm*.weight,
*layer_norm*.weight) N(1, 0.1), each its own tensor (the exporter shares one all-zeros and
one all-ones initializer through Identity nodes; those become separate initializers). A
dropped or reordered bias, or an ignored norm scale, then changes the outputs. The
references are onnxruntime's on the new graphs (the PyTorch model behind them no longer
matches):

  reference/generation.json       the greedy tokens of bench/ort_llava.js (the same prompt
                                  and image as the source folder's)
  reference/image_features.npy    the vision encoder on reference/pixel_values.npy
  reference/prefill_last_logits.npy  the prefill's last-position logits
  reference/teacher_logits.npy    [16, vocab] f32, the logits of each greedy step (row k: argmax
                                  tokens[k]): f32, so the teacher-forced logits of these tokens
  onnx/<graph>_test_data_set_0/   the source's inputs with onnxruntime's outputs

usage: /usr/bin/python3 randomize_params.py SRC_DIR OUT_DIR ORT_NODE_MODULES [SEED]
(needs Debian's python3-onnx and numpy, node, and onnxruntime-node 1.30 installed with
`npm install --ignore-scripts onnxruntime-node@1.30.0`)
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "test", "Import", "Inputs"))
from gen_contrib_models import run_ort  # noqa: E402  (onnxruntime-node runner)

GRAPHS = ("vision_encoder", "embed_tokens", "decoder_model_merged")


def is_norm_weight(name):
    n = name.lower()
    return n.endswith("weight") and ("norm" in n or "layrnorm" in n)


def randomize(model, rng):
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    # Identity(shared initializer) -> an initializer of its own, named as the output.
    keep = []
    for n in g.node:
        if n.op_type == "Identity" and n.input[0] in inits:
            t = onnx.TensorProto()
            t.CopyFrom(inits[n.input[0]])
            t.name = n.output[0]
            g.initializer.append(t)
        else:
            keep.append(n)
    del g.node[:]
    g.node.extend(keep)
    changed = []
    for t in g.initializer:
        a = numpy_helper.to_array(t)
        if a.ndim != 1 or a.dtype.kind != "f":
            continue
        if t.name.endswith("bias"):
            new = rng.normal(0.0, 0.05, a.shape)
        elif is_norm_weight(t.name):
            new = rng.normal(1.0, 0.1, a.shape)
        else:
            continue
        t.CopyFrom(numpy_helper.from_array(new.astype(a.dtype), t.name))
        changed.append(t.name)
    return changed


def main():
    src, out, ort_modules = sys.argv[1:4]
    rng = np.random.default_rng(int(sys.argv[4]) if len(sys.argv) > 4 else 11)
    if os.path.exists(out):
        shutil.rmtree(out)
    shutil.copytree(src, out, ignore=shutil.ignore_patterns("*_test_data_set_*", "model.safetensors"))
    for gname in GRAPHS:
        path = os.path.join(out, "onnx", gname + ".onnx")
        m = onnx.load(path)
        changed = randomize(m, rng)
        onnx.save(m, path)
        print(gname, "randomized", len(changed), "tensors")
        sets = os.path.join(src, "onnx", gname + "_test_data_set_0")
        if not os.path.isdir(sets):
            continue
        inputs = []
        for f in sorted(glob.glob(os.path.join(sets, "input_*.pb")), key=lambda p: int(p.split("_")[-1][:-3])):
            t = onnx.load_tensor(f)
            inputs.append((t.name, numpy_helper.to_array(t)))
        with tempfile.TemporaryDirectory() as work:
            results = run_ort(ort_modules, path, inputs, work)
        d = os.path.join(out, "onnx", gname + "_test_data_set_0")
        os.makedirs(d, exist_ok=True)
        for i, (n, a) in enumerate(inputs):
            shutil.copy(os.path.join(sets, f"input_{i}.pb"), d)
        for i, o in enumerate(m.graph.output):
            with open(os.path.join(d, f"output_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(results[o.name], o.name).SerializeToString())

    ref = json.load(open(os.path.join(src, "reference", "generation.json")))
    env = dict(os.environ, NODE_PATH=ort_modules)
    run = subprocess.run(["node", os.path.join(REPO, "bench", "ort_llava.js"), out, "--warmup", "0", "--runs", "1",
                          "--logits-out", os.path.join(out, "reference", "teacher_logits.npy")],
                         capture_output=True, text=True, env=env, check=True)
    tokens = json.loads(run.stdout)["tokens"]
    ref["greedy_new_tokens"] = tokens
    ref["note"] = ("onnxruntime 1.30 CPU (bench/ort_llava.js) on graphs whose biases and norm weights "
                   "models/recipes/randomize_params.py randomized; not PyTorch's")
    with open(os.path.join(out, "reference", "generation.json"), "w") as f:
        json.dump(ref, f, indent=1)

    # Intermediates: image features, and the prefill's last logits with them spliced in.
    pix = np.load(os.path.join(src, "reference", "pixel_values.npy")).astype(np.float32)
    with tempfile.TemporaryDirectory() as work:
        feats = run_ort(ort_modules, os.path.join(out, "onnx", "vision_encoder.onnx"),
                        [("pixel_values", pix)], work)["image_features"]
    prompt = np.array([ref["prompt_ids"]], np.int64)
    with tempfile.TemporaryDirectory() as work:
        embeds = run_ort(ort_modules, os.path.join(out, "onnx", "embed_tokens.onnx"),
                         [("input_ids", prompt)], work)["inputs_embeds"].copy()
    pos = [i for i, t in enumerate(ref["prompt_ids"]) if t == ref["image_token_index"]]
    embeds[0, pos] = feats[0]
    cfg = json.load(open(os.path.join(out, "config.json")))
    text = cfg.get("text_config", cfg)
    kv, hd = text["num_key_value_heads"], text["hidden_size"] // text["num_attention_heads"]
    dec = onnx.load(os.path.join(out, "onnx", "decoder_model_merged.onnx"), load_external_data=False)
    s = prompt.shape[1]
    feeds = [("inputs_embeds", embeds), ("attention_mask", np.ones([1, s], np.int64)),
             ("position_ids", np.arange(s, dtype=np.int64)[None])]
    feeds += [(i.name, np.zeros([1, kv, 0, hd], np.float32)) for i in dec.graph.input
              if i.name.startswith("past_key_values.")]
    with tempfile.TemporaryDirectory() as work:
        logits = run_ort(ort_modules, os.path.join(out, "onnx", "decoder_model_merged.onnx"), feeds, work)["logits"]
    np.save(os.path.join(out, "reference", "image_features.npy"), feats)
    np.save(os.path.join(out, "reference", "prefill_last_logits.npy"), logits[0, -1])
    print("tokens", tokens)


if __name__ == "__main__":
    main()
