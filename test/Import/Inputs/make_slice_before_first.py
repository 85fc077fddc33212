#!/usr/bin/python3
"""Writes slice_before_first.onnx and a test data set into DIR: y = Slice(x[5], starts=[-10],
ends=[-20], axes=[0], steps=[-1]). The start lies before the first element; with a
negative step the ONNX spec clamps it to 0 (Slice-13: "clamped into [0, dims-1] for
negative stepping"), so y is [x[0]] (numpy's x[-10:-20:-1] would be empty; onnxruntime
follows the spec). Usage: make_slice_before_first.py DIR"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(os.path.join(out, "test_data_set_0"), exist_ok=True)
consts = [numpy_helper.from_array(np.array([v], np.int64), name) for name, v in
          (("starts", -10), ("ends", -20), ("axes", 0), ("steps", -1))]
graph = helper.make_graph(
    [helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"])], "slice_before_first",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [5])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], consts)
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
          os.path.join(out, "slice_before_first.onnx"))
x = np.arange(1, 6, dtype=np.float32)
for name, array in (("input_0.pb", x), ("output_0.pb", x[:1])):
    with open(os.path.join(out, "test_data_set_0", name), "wb") as f:
        f.write(numpy_helper.from_array(array).SerializeToString())
