#!/usr/bin/python3
"""Generates the models of test/Import/extra-ops.test (the handlers of OpsExtra.cpp).

Usage: /usr/bin/python3 gen_extra_models.py [OUT_DIR]   (default: this script's folder)

Needs Debian's python3-onnx (1.12) and numpy; deterministic output.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F, I64, I32 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, name=outs[0] + "_node", **attrs)


def extra_ops():
    nodes = [
        node("ArgMax", ["x"], ["argmax"], axis=1, select_last_index=1),
        node("ArgMin", ["x"], ["argmin"], keepdims=0),
        node("TopK", ["x", "k"], ["top_values", "top_indices"], axis=-1, largest=0),
        node("GatherElements", ["x", "idx"], ["gathered"], axis=1),
        node("Mod", ["ia", "ib"], ["imod"]),
        node("Mod", ["x", "y"], ["fmod"], fmod=1),
        node("Size", ["x"], ["size"]),
        node("LogSoftmax", ["x"], ["log_softmax"]),
    ]
    inputs = [vi("x", F, [2, 5]), vi("idx", I64, [2, 3]), vi("ia", I32, [4]),
              vi("ib", I32, [1]), vi("y", F, [5])]
    outputs = [vi("argmax", I64, [2, 1]), vi("argmin", I64, [5]), vi("top_values", F, [2, 3]),
               vi("top_indices", I64, [2, 3]), vi("gathered", F, [2, 3]), vi("imod", I32, [4]),
               vi("fmod", F, [2, 5]), vi("size", I64, []), vi("log_softmax", F, [2, 5])]
    inits = [numpy_helper.from_array(np.array([3], dtype=np.int64), "k")]
    graph = helper.make_graph(nodes, "extra_ops", inputs, outputs, initializer=inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                          producer_name="mmc-test")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def one_node(name, n, inputs, outputs):
    m = helper.make_model(helper.make_graph([n], name, inputs, outputs),
                          opset_imports=[helper.make_opsetid("", 17)], producer_name="mmc-test")
    m.ir_version = 8
    return m


def error_models():
    """Near misses: float Mod without fmod (an error), Size of a dynamic shape and TopK
    with K computed at run time (unsupported / dynamic result dim)."""
    return {
        "err_mod_float": one_node("err_mod_float", node("Mod", ["a", "b"], ["r"]),
                                  [vi("a", F, [3]), vi("b", F, [3])], [vi("r", F, [3])]),
        "err_size_dynamic": one_node("err_size_dynamic", node("Size", ["a"], ["n"]),
                                     [vi("a", F, ["batch", 3])], [vi("n", I64, [])]),
        "topk_runtime_k": one_node("topk_runtime_k", node("TopK", ["a", "k"], ["v", "i"]),
                                   [vi("a", F, [2, 6]), vi("k", I64, [1])],
                                   [vi("v", F, [2, None]), vi("i", I64, [2, None])]),
    }


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    onnx.save(extra_ops(), os.path.join(out, "extra_ops.onnx"))
    for name, m in error_models().items():
        onnx.save(m, os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()
