#!/usr/bin/python3
"""Generates the models of test/Import/extra-ops.test (the handlers of OpsSelection.cpp).

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
    """Near misses: float Mod without fmod (an error), Size of a dynamic shape
    (unsupported), TopK with K computed at run time (dynamic result dim), and Pow with an
    integer base (computed in f64; OpsElementwise.cpp)."""
    return {
        "err_mod_float": one_node("err_mod_float", node("Mod", ["a", "b"], ["r"]),
                                  [vi("a", F, [3]), vi("b", F, [3])], [vi("r", F, [3])]),
        "err_size_dynamic": one_node("err_size_dynamic", node("Size", ["a"], ["n"]),
                                     [vi("a", F, ["batch", 3])], [vi("n", I64, [])]),
        "err_int2": one_node("err_int2", node("Identity", ["a"], ["b"]),
                             [vi("a", 26, [3])], [vi("b", 26, [3])]),
        "pow_int": one_node("pow_int", node("Pow", ["a", "b"], ["p"]),
                            [vi("a", I32, [3]), vi("b", F, [3])], [vi("p", I32, [3])]),
        "topk_runtime_k": one_node("topk_runtime_k", node("TopK", ["a", "k"], ["v", "i"]),
                                   [vi("a", F, [2, 6]), vi("k", I64, [1])],
                                   [vi("v", F, [2, None]), vi("i", I64, [2, None])]),
    }


def opset_model(name, nodes, inputs, outputs, opset, inits=(), domain=""):
    m = helper.make_model(helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits)),
                          opset_imports=[helper.make_opsetid(domain, opset)],
                          producer_name="mmc-test")
    m.ir_version = 8
    return m


def importer_fix_models():
    """Cases the conformance run found (fixes in other importer files): Einsum diagonals,
    ReduceMax over bool, an empty constant `axes`, Attention's qk_matmul_output, and a
    model that imports only another domain."""
    B = TensorProto.BOOL
    empty_axes = numpy_helper.from_array(np.array([], dtype=np.int64), "axes")
    return {
        "einsum_diagonal": opset_model(
            "einsum_diagonal",
            [node("Einsum", ["x"], ["diag"], equation="...ii->...i"),
             node("Einsum", ["y"], ["trace"], equation="ii")],
            [vi("x", F, [3, 4, 4]), vi("y", F, [3, 3])],
            [vi("diag", F, [3, 4]), vi("trace", F, [])], 12),
        "reduce_bool_empty_axes": opset_model(
            "reduce_bool_empty_axes",
            [node("ReduceMax", ["b", "one"], ["any"], keepdims=0),
             node("ReduceSum", ["x", "axes"], ["same"], noop_with_empty_axes=1),
             node("ReduceSum", ["x", "axes"], ["total"], keepdims=0)],
            [vi("b", B, [2, 3]), vi("x", F, [2, 3])],
            [vi("any", B, [2]), vi("same", F, [2, 3]), vi("total", F, [])], 20,
            inits=[numpy_helper.from_array(np.array([1], dtype=np.int64), "one"), empty_axes]),
        "attention_qk": opset_model(
            "attention_qk",
            [node("Attention", ["q", "k", "v", "mask"], ["y", "", "", "qk"],
                  qk_matmul_output_mode=3)],
            [vi("q", F, [1, 2, 3, 4]), vi("k", F, [1, 2, 5, 4]), vi("v", F, [1, 2, 5, 4]),
             vi("mask", B, [3, 5])],
            [vi("y", F, [1, 2, 3, 4]), vi("qk", F, [1, 2, 3, 5])], 23),
        "ml_only": opset_model(
            "ml_only", [helper.make_node("Binarizer", ["x"], ["y"], name="bin",
                                         domain="ai.onnx.ml")],
            [vi("x", F, [3])], [vi("y", F, [3])], 1, domain="ai.onnx.ml"),
    }


def loop_models():
    """Loop as in ONNX's Range function body (supported), and the same loop multiplying
    instead of adding (a near miss: unsupported)."""
    B = TensorProto.BOOL

    def loop(name, step_op):
        body = helper.make_graph(
            [helper.make_node("Identity", ["cond"], ["cond_out"]),
             helper.make_node(step_op, ["prev", "delta"], ["current"]),
             helper.make_node("Identity", ["prev"], ["range"])],
            "body", [vi("i", I64, []), vi("cond", B, []), vi("prev", F, [])],
            [vi("cond_out", B, []), vi("current", F, []), vi("range", F, [])])
        return opset_model(
            name, [helper.make_node("Loop", ["n", "go", "start"], ["last", "out"], name="loop",
                                    body=body)],
            [vi("n", I64, []), vi("go", B, []), vi("start", F, []), vi("delta", F, [])],
            [vi("last", F, []), vi("out", F, [None])], 17)

    return {"loop_range": loop("loop_range", "Add"), "loop_mul": loop("loop_mul", "Mul")}


def decomposed_models():
    """One model per file of spelled-out ops: OpsLoss.cpp, OpsActivationsComposed.cpp,
    OpsNormComposed.cpp and the compositions of OpsSelection.cpp (plus ReduceLogSumExp)."""
    x4 = [2, 3, 4, 4]
    loss = opset_model(
        "loss_ops",
        [node("NegativeLogLikelihoodLoss", ["logp", "target", "weight"], ["nll"], ignore_index=1),
         node("SoftmaxCrossEntropyLoss", ["scores", "target"], ["sce", "logprob"],
              reduction="none")],
        [vi("logp", F, [2, 3, 5]), vi("target", I64, [2, 5]), vi("weight", F, [3]),
         vi("scores", F, [2, 3, 5])],
        [vi("nll", F, []), vi("sce", F, [2, 5]), vi("logprob", F, [2, 3, 5])], 13)
    acts = ["Elu", "Selu", "Celu", "LeakyRelu", "ThresholdedRelu", "HardSigmoid", "HardSwish",
            "Softplus", "Softsign", "Mish", "Swish", "Shrink", "Tan", "Sign"]
    act_nodes = [node(a, ["x"], [a.lower()]) for a in acts]
    act_nodes += [node("PRelu", ["x", "slope"], ["prelu"]), node("Xor", ["p", "q"], ["xor"])]
    activations = opset_model(
        "activation_ops", act_nodes,
        [vi("x", F, [2, 3]), vi("slope", F, [3]), vi("p", TensorProto.BOOL, [2, 3]),
         vi("q", TensorProto.BOOL, [3])],
        [vi(a.lower(), F, [2, 3]) for a in acts] +
        [vi("prelu", F, [2, 3]), vi("xor", TensorProto.BOOL, [2, 3])], 24)
    norms = opset_model(
        "norm_ops",
        [node("BatchNormalization", ["x", "s", "b", "m", "v"], ["bn"], epsilon=1e-3),
         node("InstanceNormalization", ["x", "s", "b"], ["inorm"]),
         node("LpNormalization", ["x"], ["lp"], axis=1, p=2),
         node("MeanVarianceNormalization", ["x"], ["mvn"]),
         node("GlobalAveragePool", ["x"], ["gap"]),
         node("GlobalMaxPool", ["x"], ["gmp"])],
        [vi("x", F, x4)] + [vi(n, F, [3]) for n in ["s", "b", "m", "v"]],
        [vi("bn", F, x4), vi("inorm", F, x4), vi("lp", F, x4), vi("mvn", F, x4),
         vi("gap", F, [2, 3, 1, 1]), vi("gmp", F, [2, 3, 1, 1])], 15)
    misc = opset_model(
        "misc_ops",
        [node("Hardmax", ["x"], ["hardmax"]),
         node("IsInf", ["x"], ["isinf"], detect_negative=0),
         node("EyeLike", ["x"], ["eye"], k=1, dtype=TensorProto.INT32),
         node("OneHot", ["ids", "depth", "vals"], ["onehot"], axis=0),
         node("DepthToSpace", ["img"], ["d2s"], blocksize=2, mode="CRD"),
         node("SpaceToDepth", ["img"], ["s2d"], blocksize=2),
         node("ReduceLogSumExp", ["x", "axis1"], ["lse"], keepdims=0)],
        [vi("x", F, [3, 4]), vi("ids", I64, [5]), vi("img", F, [1, 4, 2, 2])],
        [vi("hardmax", F, [3, 4]), vi("isinf", TensorProto.BOOL, [3, 4]),
         vi("eye", TensorProto.INT32, [3, 4]), vi("onehot", F, [6, 5]),
         vi("d2s", F, [1, 1, 4, 4]), vi("s2d", F, [1, 16, 1, 1]), vi("lse", F, [3])], 18,
        inits=[numpy_helper.from_array(np.array(6, dtype=np.int64), "depth"),
               numpy_helper.from_array(np.array([0.0, 2.0], dtype=np.float32), "vals"),
               numpy_helper.from_array(np.array([1], dtype=np.int64), "axis1")])
    return {"loss_ops": loss, "activation_ops": activations, "norm_ops": norms,
            "misc_ops": misc}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    onnx.save(extra_ops(), os.path.join(out, "extra_ops.onnx"))
    models = {**error_models(), **importer_fix_models(), **loop_models(), **decomposed_models()}
    for name, m in models.items():
        onnx.save(m, os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()
