#!/usr/bin/python3
"""Writes prelu_two_way.onnx (PRelu with slope [2,1,1,1] on x [2,3,4]) and gemm_two_way.onnx
(Gemm of [2,3] x [3,4] with C [1,2,4]) into DIR. ONNX broadcasts PRelu's slope and Gemm's C
one way only (to x's shape, to [M, N]); these two broadcast only both ways, so each must be
refused. Usage: make_one_way_broadcast.py DIR"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def save(name, node, inputs, initializers):
    graph = helper.make_graph([node], name, inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              initializers)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), os.path.join(out, name + ".onnx"))


save("prelu_two_way", helper.make_node("PRelu", ["x", "slope"], ["y"]),
     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
     [numpy_helper.from_array(np.full([2, 1, 1, 1], 0.1, np.float32), "slope")])
save("gemm_two_way", helper.make_node("Gemm", ["a", "b", "c"], ["y"]),
     [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3])],
     [numpy_helper.from_array(np.ones([3, 4], np.float32), "b"),
      numpy_helper.from_array(np.ones([1, 2, 4], np.float32), "c")])
