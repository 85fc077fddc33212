#!/usr/bin/python3
"""Writes a left-padded batch-2 test data set for a LLaVA folder's decoder, with onnxruntime's
outputs (issue 19: end-to-end tests with batch > 1 and left-padded attention masks):

  onnx/decoder_model_merged_test_data_set_1/{input,output}_N.pb

Row 0 is left-padded (its first PAD past positions are padding: attention_mask 0), row 1 is
not. Position ids follow Hugging Face's rule for left padding (attention_mask.cumsum - 1 at
the real positions). inputs_embeds and the past keys and values are N(0, 1) (seed 3); the
padded past entries hold values too, so attending to them would show.

usage: /usr/bin/python3 padded_batch_set.py MODEL_DIR ORT_NODE_MODULES
(needs Debian's python3-onnx and numpy, node, and onnxruntime-node 1.30 installed with
`npm install --ignore-scripts onnxruntime-node@1.30.0`)
"""
import json
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "..", "test", "Import", "Inputs"))
from gen_contrib_models import run_ort  # noqa: E402  (onnxruntime-node runner)

BATCH, PAST, SEQ, PAD = 2, 5, 3, 2


def main():
    model, ort_modules = sys.argv[1:3]
    path = os.path.join(model, "onnx", "decoder_model_merged.onnx")
    graph = onnx.load(path, load_external_data=False).graph
    text = json.load(open(os.path.join(model, "config.json")))
    text = text.get("text_config", text)
    hidden, kv_heads = text["hidden_size"], text["num_key_value_heads"]
    head_dim = text.get("head_dim") or hidden // text["num_attention_heads"]
    rng = np.random.default_rng(3)
    mask = np.ones((BATCH, PAST + SEQ), np.int64)
    mask[0, :PAD] = 0
    positions = np.maximum(np.cumsum(mask, axis=1) - 1, 0)[:, PAST:]
    inputs = []
    for i in graph.input:
        if i.name == "inputs_embeds":
            a = rng.standard_normal((BATCH, SEQ, hidden)).astype(np.float32)
        elif i.name == "attention_mask":
            a = mask
        elif i.name == "position_ids":
            a = positions.astype(np.int64)
        elif i.name.startswith("past_key_values."):
            a = rng.standard_normal((BATCH, kv_heads, PAST, head_dim)).astype(np.float32)
        else:
            sys.exit(f"{path}: unexpected decoder input '{i.name}'")
        inputs.append((i.name, a))
    with tempfile.TemporaryDirectory() as work:
        results = run_ort(ort_modules, path, inputs, work)
    out = os.path.join(model, "onnx", "decoder_model_merged_test_data_set_1")
    os.makedirs(out, exist_ok=True)
    for k, (name, a) in enumerate(inputs):
        with open(os.path.join(out, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, name).SerializeToString())
    for k, o in enumerate(graph.output):
        with open(os.path.join(out, f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(results[o.name], o.name).SerializeToString())
    print(f"wrote {out}: batch {BATCH}, past {PAST}, seq {SEQ}, row 0 left-padded by {PAD}")


if __name__ == "__main__":
    main()
