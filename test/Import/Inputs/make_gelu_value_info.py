"""A Gelu (opset 20) over a [batch, 4] input whose output value_info pins batch to 1, as the
dynamo exporter writes for a vision encoder traced at batch 1."""
import sys

import onnx
from onnx import TensorProto, helper

x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])
g = helper.make_graph([helper.make_node("Gelu", ["x"], ["g"]), helper.make_node("Add", ["g", "x"], ["y"])],
                      "gelu_value_info", [x], [y],
                      value_info=[helper.make_tensor_value_info("g", TensorProto.FLOAT, [1, 4])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])
m.ir_version = 8
onnx.save(m, sys.argv[1])
