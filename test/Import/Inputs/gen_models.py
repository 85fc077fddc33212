#!/usr/bin/python3
"""Generates the small ONNX models that test/Import's lit tests import.

Usage: /usr/bin/python3 gen_models.py [OUT_DIR]          (default: this script's folder)
       /usr/bin/python3 gen_models.py --big DIR [MB]     (synthetic ~MB MiB external-data
                                                          model for timing, not committed)

Needs Debian's python3-onnx (1.12) and numpy. Models for opsets newer than 1.12 knows
(18..23) are built with onnx.helper but not run through onnx.checker. The outputs are
deterministic (fixed seeds), so regenerating gives the same files.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, opset, inits=(), value_info=(), name="g", ir=8):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits),
                              value_info=list(value_info))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="mmc-test")
    m.ir_version = ir
    return m


def const(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, name=outs[0] + "_node", **attrs)


def elementwise():
    ops_unary = ["Sqrt", "Reciprocal", "Neg", "Exp", "Log", "Erf", "Tanh", "Sigmoid", "Sin",
                 "Cos", "Relu", "Abs", "Floor", "Ceil", "Identity"]
    nodes = [node(op, ["a"], [op.lower()]) for op in ops_unary]
    outs = [vi(op.lower(), F, ["batch", 3]) for op in ops_unary]
    for op in ["Add", "Sub", "Mul", "Div", "Pow"]:
        nodes.append(node(op, ["a", "b"], [op.lower()]))
        outs.append(vi(op.lower(), F, None))
    nodes += [
        node("Max", ["a", "b", "c"], ["max3"]),
        node("Min", ["a", "b"], ["min2"]),
        node("Sum", ["a", "b", "c"], ["sum3"]),
        node("Mean", ["a", "b"], ["mean2"]),
        node("Pow", ["a", "two_i"], ["pow_int_exp"]),
        node("Equal", ["a", "b"], ["eq"]),
        node("Less", ["a", "b"], ["lt"]),
        node("LessOrEqual", ["a", "b"], ["le"]),
        node("Greater", ["a", "b"], ["gt"]),
        node("GreaterOrEqual", ["a", "b"], ["ge"]),
        node("And", ["eq", "lt"], ["and"]),
        node("Or", ["eq", "lt"], ["or"]),
        node("Not", ["and"], ["not"]),
        node("Where", ["lt", "a", "b"], ["where"]),
        node("IsNaN", ["a"], ["isnan"]),
        node("Cast", ["a"], ["cast_i64"], to=I64),
        node("Cast", ["a"], ["cast_same"], to=F),
        node("CastLike", ["cast_i64", "a"], ["castlike"]),
        node("Clip", ["a", "lo", "hi"], ["clip"]),
        node("Clip", ["a", "", "hi"], ["clip_max_only"]),
        node("Dropout", ["a"], ["dropout"]),
        node("Dropout", ["a", "", "no_training"], ["dropout2", "dropout_mask"]),
    ]
    for n in ["max3", "min2", "sum3", "mean2", "pow_int_exp", "eq", "lt", "le", "gt", "ge",
              "and", "or", "not", "where", "isnan", "cast_i64", "cast_same", "castlike", "clip",
              "clip_max_only", "dropout", "dropout2", "dropout_mask"]:
        outs.append(vi(n, TensorProto.UNDEFINED, None))
    inits = [const("two_i", 2), const("lo", -1.0, np.float32), const("hi", 1.0, np.float32),
             const("no_training", False, np.bool_)]
    return model(nodes, [vi("a", F, ["batch", 3]), vi("b", F, [3]), vi("c", F, [1, 1])],
                 outs, 17, inits)


def shape_ops():
    """Shape chains as exporters write them, with a dynamic batch and static tails."""
    nodes = [
        node("Shape", ["x"], ["shape"]),
        node("Shape", ["x"], ["shape_tail"], start=1),
        node("Gather", ["shape", "idx0"], ["dim0"], axis=0),
        node("Gather", ["shape", "idx1"], ["dim1"], axis=0),
        node("Unsqueeze", ["dim0", "axes0"], ["dim0_1d"]),
        node("Unsqueeze", ["dim1", "axes0"], ["dim1_1d"]),
        node("Concat", ["dim0_1d", "dim1_1d", "minus1"], ["new_shape"], axis=0),
        node("Reshape", ["x", "new_shape"], ["reshaped"]),        # [batch, 4, 6] -> [?, 4, 6]
        node("Reshape", ["x", "shape_0_m1"], ["reshaped2"]),      # [0, -1] -> [batch, 24]
        node("Flatten", ["x"], ["flat"], axis=1),
        node("Transpose", ["x"], ["transposed"], perm=[0, 2, 1]),
        node("Transpose", ["x"], ["reversed"]),
        node("Squeeze", ["y", "axes0"], ["squeezed"]),
        node("Squeeze", ["y"], ["squeezed_all"]),
        node("Unsqueeze", ["y", "axes_neg"], ["unsqueezed"]),
        node("Expand", ["y", "expand_shape"], ["expanded"]),
        node("Tile", ["y", "repeats"], ["tiled"]),
        node("ConstantOfShape", ["shape_tail"], ["zeros"]),
        node("ConstantOfShape", ["shape_tail"], ["ones_i64"],
             value=helper.make_tensor("v", I64, [1], [1])),
        node("Range", ["start", "limit", "delta"], ["range"]),
        node("Range", ["start", "dim0", "delta"], ["range_dyn"]),
        node("Slice", ["x", "starts", "ends"], ["sliced"]),
        node("Slice", ["x", "starts", "ends", "slice_axes", "steps"], ["sliced_steps"]),
        node("Split", ["x", "split_sizes"], ["part0", "part1"], axis=2),
        node("Split", ["x"], ["half0", "half1"], axis=1),
        node("Constant", [], ["c_tensor"], value=helper.make_tensor("t", F, [2], [0.5, 1.5])),
        node("Constant", [], ["c_ints"], value_ints=[1, 2, 3]),
        node("Constant", [], ["c_float"], value_float=2.5),
        node("Gather", ["table", "ids"], ["gathered"], axis=0),
        node("GatherND", ["x", "nd_idx"], ["gathered_nd"], batch_dims=0),
        node("Trilu", ["sq", "k1"], ["upper"]),
        node("Trilu", ["sq"], ["lower"], upper=0),
        node("CumSum", ["sq", "axis1"], ["cumsum"], exclusive=1),
        node("Pad", ["sq", "pads", "pad_value"], ["padded"]),
        node("Pad", ["sq", "pads"], ["padded_edge"], mode="edge"),
    ]
    names = ["shape", "shape_tail", "dim0", "new_shape", "reshaped", "reshaped2", "flat",
             "transposed", "reversed", "squeezed", "squeezed_all", "unsqueezed", "expanded",
             "tiled", "zeros", "ones_i64", "range", "range_dyn", "sliced", "sliced_steps",
             "part0", "part1", "half0", "half1", "c_tensor", "c_ints", "c_float", "gathered",
             "gathered_nd", "upper", "lower", "cumsum", "padded", "padded_edge"]
    inits = [
        const("idx0", 0), const("idx1", 1), const("axes0", [0]), const("axes_neg", [-1]),
        const("minus1", [-1]), const("shape_0_m1", [0, -1]), const("expand_shape", [2, 1, 5]),
        const("repeats", [2, 3]), const("start", 0), const("limit", 10), const("delta", 3),
        const("starts", [1]), const("ends", [100]), const("slice_axes", [-1]),
        const("steps", [2]), const("split_sizes", [2, 4]), const("k1", 1), const("axis1", 1),
        const("pads", [0, 1, 2, 0]), const("pad_value", 7.0, np.float32),
        numpy_helper.from_array(np.arange(40, dtype=np.float32).reshape(10, 4), "table"),
        const("ids", [[1, 2], [3, 4]]), const("nd_idx", [[0, 1], [1, 2]]),
    ]
    return model(nodes, [vi("x", F, ["batch", 4, 6]), vi("y", F, [1, 5]), vi("sq", F, [3, 3])],
                 [vi(n, TensorProto.UNDEFINED, None) for n in names], 17, inits)


def old_opset():
    """Attribute forms of opset 11: Squeeze/Unsqueeze/ReduceSum axes, Split sizes."""
    nodes = [
        node("Squeeze", ["x"], ["squeezed"], axes=[1]),
        node("Unsqueeze", ["x"], ["unsqueezed"], axes=[0, 3]),
        node("Split", ["x"], ["s0", "s1"], axis=2, split=[1, 3]),
        node("ReduceSum", ["x"], ["rsum"], axes=[2], keepdims=0),
        node("ReduceMean", ["x"], ["rmean"], axes=[-1]),
        node("Softmax", ["x"], ["softmax"], axis=2),
        node("Clip", ["x", "lo", "hi"], ["clip"]),
    ]
    names = ["squeezed", "unsqueezed", "s0", "s1", "rsum", "rmean", "softmax", "clip"]
    return model(nodes, [vi("x", F, ["n", 1, 4])], [vi(n, F, None) for n in names], 11,
                 [const("lo", 0.0, np.float32), const("hi", 6.0, np.float32)], ir=6)


def opset18():
    """Reduce* axes as inputs, noop_with_empty_axes, Split num_outputs, Pad axes."""
    nodes = [
        node("ReduceMean", ["x", "axes_last"], ["rmean"]),
        node("ReduceMax", ["x", "axes_last"], ["rmax"], keepdims=0),
        node("ReduceMin", ["x"], ["rmin_all"], keepdims=0),
        node("ReduceSum", ["x"], ["rsum_noop"], noop_with_empty_axes=1),
        node("ReduceL2", ["x", "axes_last"], ["rl2"]),
        node("ReduceSumSquare", ["x", "axes_last"], ["rss"]),
        node("Split", ["x"], ["p0", "p1", "p2"], axis=1, num_outputs=3),
        node("Pad", ["x", "pads", "", "pad_axes"], ["padded"], mode="reflect"),
    ]
    names = ["rmean", "rmax", "rmin_all", "rsum_noop", "rl2", "rss", "p0", "p1", "p2", "padded"]
    return model(nodes, [vi("x", F, [2, 7, 5])], [vi(n, F, None) for n in names], 18,
                 [const("axes_last", [-1]), const("pads", [1, 2]), const("pad_axes", [2])])


def nn_ops():
    nodes = [
        node("MatMul", ["x", "w"], ["matmul"]),
        node("MatMul", ["vec", "w"], ["matvec"]),
        node("Gemm", ["a", "bt", "bias"], ["gemm"], transB=1, alpha=0.5, beta=2.0),
        node("Gemm", ["a", "b"], ["gemm_plain"]),
        node("Conv", ["img", "k", "kb"], ["conv"], strides=[2, 2], pads=[1, 1, 1, 1]),
        node("Conv", ["img", "kg"], ["conv_group"], group=3, auto_pad="SAME_UPPER"),
        node("Conv", ["seq1d", "k1d"], ["conv1d"], pads=[1, 1]),
        node("Softmax", ["x"], ["softmax"]),
        node("LayerNormalization", ["x", "ln_scale", "ln_bias"], ["ln"], epsilon=1e-6),
        node("LayerNormalization", ["x", "ln_scale"], ["ln2", "ln_mean", "ln_invstd"]),
        node("Einsum", ["q", "kk"], ["scores"], equation="bhqd,bhkd->bhqk"),
        node("Einsum", ["a", "b"], ["ein_mm"], equation="ij,jk->ik"),
        node("Einsum", ["a"], ["ein_t"], equation="ij->ji"),
        node("Einsum", ["x", "w"], ["ein_batched"], equation="bsd,de->bse"),
    ]
    names = ["matmul", "matvec", "gemm", "gemm_plain", "conv", "conv_group", "conv1d", "softmax",
             "ln", "ln2", "ln_mean", "ln_invstd", "scores", "ein_mm", "ein_t", "ein_batched"]
    rng = np.random.default_rng(0)

    def w(name, *shape):
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

    inits = [w("w", 8, 16), w("bt", 5, 4), w("b", 4, 5), w("bias", 5), w("k", 6, 3, 3, 3),
             w("kb", 6), w("kg", 6, 1, 3, 3), w("k1d", 4, 2, 3), w("ln_scale", 8),
             w("ln_bias", 8)]
    inputs = [vi("x", F, ["batch", "seq", 8]), vi("vec", F, [8]), vi("a", F, [3, 4]),
              vi("img", F, [1, 3, 9, 9]), vi("seq1d", F, [1, 2, "len"]),
              vi("q", F, [1, 2, 5, 4]), vi("kk", F, [1, 2, 7, 4])]
    return model(nodes, inputs, [vi(n, F, None) for n in names], 17, inits)


def gelu20():
    nodes = [node("Gelu", ["x"], ["gelu"]), node("Gelu", ["x"], ["gelu_tanh"], approximate="tanh")]
    return model(nodes, [vi("x", F, ["n", 8])], [vi("gelu", F, None), vi("gelu_tanh", F, None)], 20)


def transformer23():
    """Attention (4-D with KV cache and causal; 3-D GQA; softcap; causal with the query and
    key lengths named alike), RotaryEmbedding, RMSNormalization."""
    nodes = [
        node("Attention", ["q", "k", "v", "", "past_k", "past_v"], ["attn", "present_k", "present_v"],
             is_causal=1),
        node("Attention", ["q3", "k3", "v3", "mask3"], ["attn3"], q_num_heads=4, kv_num_heads=2,
             scale=0.25),
        node("Attention", ["qs", "ks", "vs"], ["attn_softcap"], softcap=30.0, is_causal=1),
        node("Attention", ["q", "k_same", "v_same"], ["attn_self"], is_causal=1),
        node("RotaryEmbedding", ["q", "cos_cache", "sin_cache", "pos"], ["rot"]),
        node("RotaryEmbedding", ["q3", "cos_cache", "sin_cache", "pos3"], ["rot3"], num_heads=4,
             interleaved=1),
        node("RMSNormalization", ["h", "rms_scale"], ["rms"], epsilon=1e-6),
        node("RMSNormalization", ["h", "rms_scale2"], ["rms_2axes"], axis=-2),
    ]
    inputs = [vi("q", F, ["batch", 4, "seq", 8]), vi("k", F, ["batch", 4, "kv_seq", 8]),
              vi("v", F, ["batch", 4, "kv_seq", 8]), vi("past_k", F, ["batch", 4, "past", 8]),
              vi("past_v", F, ["batch", 4, "past", 8]), vi("q3", F, [2, 6, 32]),
              vi("k3", F, [2, 6, 16]), vi("v3", F, [2, 6, 16]), vi("mask3", B, [6, 6]),
              vi("pos", I64, ["batch", "seq"]), vi("pos3", I64, [2, 6]), vi("h", F, ["n", 3, 8]),
              vi("qs", F, [1, 4, 5, 8]), vi("ks", F, [1, 2, 5, 8]), vi("vs", F, [1, 2, 5, 8]),
              vi("k_same", F, ["batch", 4, "seq", 8]), vi("v_same", F, ["batch", 4, "seq", 8])]
    inits = [numpy_helper.from_array(np.cos(np.arange(64, dtype=np.float32)).reshape(16, 4), "cos_cache"),
             numpy_helper.from_array(np.sin(np.arange(64, dtype=np.float32)).reshape(16, 4), "sin_cache"),
             numpy_helper.from_array(np.linspace(0.5, 1.5, 8, dtype=np.float32), "rms_scale"),
             numpy_helper.from_array(np.ones((3, 8), dtype=np.float32), "rms_scale2")]
    names = ["attn", "present_k", "present_v", "attn3", "attn_softcap", "attn_self", "rot", "rot3",
             "rms", "rms_2axes"]
    return model(nodes, inputs, [vi(n, F, None) for n in names], 23, inits, ir=10)


def quant21():
    nodes = [
        node("DequantizeLinear", ["wq", "scale_t", "zp_t"], ["deq_tensor"]),
        node("DequantizeLinear", ["wq", "scale_axis", "zp_axis"], ["deq_axis"], axis=0),
        node("DequantizeLinear", ["wq", "scale_blk"], ["deq_block"], axis=1, block_size=4),
        node("QuantizeLinear", ["x", "scale_t", "zp_t"], ["q_u8"]),
        node("QuantizeLinear", ["x", "scale_t1"], ["q_default"]),
    ]
    rng = np.random.default_rng(1)
    inits = [
        numpy_helper.from_array(rng.integers(0, 255, (4, 8)).astype(np.uint8), "wq"),
        numpy_helper.from_array(np.array(0.1, np.float32), "scale_t"),
        numpy_helper.from_array(np.array([0.05], np.float32), "scale_t1"),
        numpy_helper.from_array(np.array(128, np.uint8), "zp_t"),
        numpy_helper.from_array(np.full(4, 0.02, np.float32), "scale_axis"),
        numpy_helper.from_array(np.full(4, 3, np.uint8), "zp_axis"),
        numpy_helper.from_array(np.full((4, 2), 0.03, np.float32), "scale_blk"),
    ]
    names = ["deq_tensor", "deq_axis", "deq_block", "q_u8", "q_default"]
    return model(nodes, [vi("x", F, [4, 8])], [vi(n, TensorProto.UNDEFINED, None) for n in names],
                 21, inits)


def weights_embedded():
    """Embedded raw_data (big -> mm.weight at its file offset; small -> mm.constant) and
    typed-field initializers."""
    big = numpy_helper.from_array(np.arange(64 * 32, dtype=np.float32).reshape(64, 32), "big_w")
    big16 = numpy_helper.from_array(np.arange(40, dtype=np.float16).reshape(5, 8), "half_w")
    small = numpy_helper.from_array(np.array([1.0, 2.0, 3.0], np.float32), "small_w")
    typed = helper.make_tensor("typed_w", F, [1, 32], [float(i) for i in range(32)])  # float_data
    ints = numpy_helper.from_array(np.arange(300, dtype=np.int64), "int_table")
    bools = numpy_helper.from_array(np.array([True, False, True]), "bool_mask")
    unused = numpy_helper.from_array(np.zeros((8, 8), np.float32), "unused_w")
    nodes = [node("MatMul", ["x", "big_w"], ["y"]), node("Add", ["y", "typed_w"], ["z"]),
             node("Mul", ["small_w", "small_w"], ["s"]), node("Gather", ["int_table", "i"], ["t"]),
             node("Not", ["bool_mask"], ["nb"]), node("Cast", ["half_w"], ["h"], to=F)]
    return model(nodes, [vi("x", F, [2, 64]), vi("i", I64, [2])],
                 [vi("z", F, [2, 32]), vi("s", F, [3]), vi("t", I64, [2]), vi("nb", B, [3]),
                  vi("h", F, [5, 8])],
                 17, [big, big16, small, typed, ints, bools, unused])


def set_external(t, location, offset, length):
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    del t.external_data[:]
    for k, v in (("location", location), ("offset", str(offset)), ("length", str(length))):
        e = t.external_data.add()
        e.key, e.value = k, v


def weights_external(out):
    """One shared data file with offsets (aligned to 64) and one file per tensor."""
    a = np.arange(32 * 16, dtype=np.float32).reshape(32, 16) / 7
    b = np.arange(16 * 8, dtype=np.float32).reshape(16, 8) / 3
    c = np.arange(24, dtype=np.float32).reshape(3, 8)          # per-tensor file, 24 > 16 elems
    small = np.array([0.5, 0.25], np.float32)                  # small external -> mm.constant
    blob = bytearray()
    offsets = {}
    for name, arr in (("w_a", a), ("w_b", b), ("w_small", small)):
        blob += b"\0" * (-len(blob) % 64)
        offsets[name] = (len(blob), arr.nbytes)
        blob += arr.tobytes()
    with open(os.path.join(out, "ext_shared.bin"), "wb") as f:
        f.write(blob)
    with open(os.path.join(out, "ext_c.bin"), "wb") as f:
        f.write(c.tobytes())
    inits = []
    for name, arr in (("w_a", a), ("w_b", b), ("w_small", small)):
        t = numpy_helper.from_array(arr, name)
        set_external(t, "ext_shared.bin", *offsets[name])
        inits.append(t)
    t = numpy_helper.from_array(c, "w_c")
    set_external(t, "ext_c.bin", 0, c.nbytes)
    inits.append(t)
    nodes = [node("MatMul", ["x", "w_a"], ["h"]), node("MatMul", ["h", "w_b"], ["y"]),
             node("Add", ["y", "w_c"], ["z"]), node("Mul", ["w_small", "w_small"], ["s"])]
    return model(nodes, [vi("x", F, [3, 32])], [vi("z", F, [3, 8]), vi("s", F, [2])], 17, inits)


def external_error_models():
    """Models whose external data is wrong: missing file, range past the end, escape."""
    arr = np.zeros((8, 8), np.float32)
    out = {}
    for name, loc, offset in (("err_missing_data", "no_such_file.bin", 0),
                              ("err_offset_past_end", "ext_c.bin", 64),
                              ("err_escaping_location", "../ext_c.bin", 0)):
        t = numpy_helper.from_array(arr, "w")
        set_external(t, loc, offset, arr.nbytes)
        out[name] = model([node("MatMul", ["x", "w"], ["y"])], [vi("x", F, [1, 8])],
                          [vi("y", F, [1, 8])], 17, [t])
    return out


def error_models():
    out = external_error_models()
    out["err_unsupported_op"] = model([node("Det", ["x"], ["y"])], [vi("x", F, [3, 3])],
                                      [vi("y", F, [])], 17)
    # A contrib op mmc does not import, and an op of a domain it does not know.
    contrib = model([helper.make_node("BiasSoftmax", ["x", "x"], ["y"], name="bs", domain="com.microsoft")],
                    [vi("x", F, [3])], [vi("y", F, [3])], 17)
    contrib.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    out["err_contrib_op"] = contrib
    custom = model([helper.make_node("FastGelu", ["x"], ["y"], name="fg", domain="com.example")],
                   [vi("x", F, [3])], [vi("y", F, [3])], 17)
    custom.opset_import.append(helper.make_opsetid("com.example", 1))
    out["err_custom_domain"] = custom
    # Contrib attention features mmc refuses by name.
    gqa = model([helper.make_node("GroupQueryAttention", ["q", "k", "v", "", "", "sl", "tot"], ["y"],
                                  name="gqa", domain="com.microsoft", num_heads=2, kv_num_heads=1,
                                  local_window_size=4)],
                [vi("q", F, [1, 3, 32]), vi("k", F, [1, 3, 16]), vi("v", F, [1, 3, 16]),
                 vi("sl", TensorProto.INT32, [1]), vi("tot", TensorProto.INT32, [])], [vi("y", F, [1, 3, 32])], 17)
    gqa.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    out["err_gqa_local_window"] = gqa
    mha = model([helper.make_node("MultiHeadAttention", ["q"], ["y"], name="mha", domain="com.microsoft",
                                  num_heads=2)],
                [vi("q", F, [1, 3, 2, 3, 16])], [vi("y", F, [1, 3, 32])], 17)
    mha.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    out["err_mha_packed_qkv"] = mha
    # An If on a graph input: a run-time condition (mmc compile --bind flag=1 takes a branch).
    then_g = helper.make_graph([node("Neg", ["x"], ["t"])], "then", [], [vi("t", F, [3])])
    else_g = helper.make_graph([node("Abs", ["x"], ["e"])], "else", [], [vi("e", F, [3])])
    # Two Ifs on a constant condition whose branches all name their local value "tmp"
    # (a branch's names are its own): y = Neg(x) + Relu(x).
    def local(op, out_name):
        return helper.make_graph([node(op, ["x"], ["tmp"]), node("Identity", ["tmp"], [out_name])],
                                 op, [], [vi(out_name, F, [3])])
    out["if_reused_names"] = model(
        [helper.make_node("Constant", [], ["yes"], value=helper.make_tensor("yes", TensorProto.BOOL, [], [True])),
         helper.make_node("If", ["yes"], ["a"], then_branch=local("Neg", "a_then"), else_branch=local("Abs", "a_else")),
         helper.make_node("If", ["yes"], ["b"], then_branch=local("Relu", "b_then"), else_branch=local("Sigmoid", "b_else")),
         node("Add", ["a", "b"], ["y"])],
        [vi("x", F, [3])], [vi("y", F, [3])], 17)
    # A branch initializer shadowing an outer one ("w": 2 inside, 1 outside): y = x * 2 + 1.
    scaled = helper.make_graph([node("Mul", ["x", "w"], ["xs"])], "scaled", [], [vi("xs", F, [3])],
                               [const("w", [2.0], np.float32)])
    out["if_shadowing"] = model(
        [helper.make_node("Constant", [], ["yes"], value=helper.make_tensor("yes", TensorProto.BOOL, [], [True])),
         helper.make_node("If", ["yes"], ["a"], then_branch=scaled, else_branch=local("Abs", "a_else")),
         node("Add", ["a", "w"], ["y"])],
        [vi("x", F, [3])], [vi("y", F, [3])], 17, [const("w", [1.0], np.float32)])
    out["if_on_input"] = model([helper.make_node("If", ["flag"], ["y"], name="branch",
                                                 then_branch=then_g, else_branch=else_g)],
                               [vi("flag", TensorProto.BOOL, []), vi("x", F, [3])], [vi("y", F, [3])], 17)
    out["err_dynamic_axes"] = model(
        [node("Shape", ["x"], ["s"]), node("Slice", ["s", "zero", "one"], ["ax"]),
         node("Squeeze", ["x", "ax"], ["y"])],
        [vi("x", F, ["a", 4])], [vi("y", F, None)], 17, [const("zero", [0]), const("one", [1])])
    out["err_value_info_mismatch"] = model(
        [node("Relu", ["x"], ["r"]), node("Neg", ["r"], ["y"])], [vi("x", F, [2, 3])],
        [vi("y", F, [2, 3])], 17, value_info=[vi("r", F, [2, 4])])
    out["err_undefined_input"] = model([node("Relu", ["nope"], ["y"])], [vi("x", F, [2])],
                                       [vi("y", F, [2])], 17)
    out["err_no_shape_input"] = model([node("Relu", ["x"], ["y"])], [vi("x", F, None)],
                                      [vi("y", F, None)], 17)
    return out


def folder_models(out):
    """A model folder in the shared-models layout: onnx/{vision_encoder,embed_tokens,
    decoder_model_merged}.onnx."""
    d = os.path.join(out, "llava_folder", "onnx")
    os.makedirs(d, exist_ok=True)
    table = numpy_helper.from_array(np.arange(80, dtype=np.float32).reshape(10, 8), "embed")
    save(model([node("Gather", ["embed", "input_ids"], ["inputs_embeds"])],
               [vi("input_ids", I64, ["batch", "seq"])],
               [vi("inputs_embeds", F, ["batch", "seq", 8])], 17, [table]),
         os.path.join(d, "embed_tokens.onnx"))
    save(model([node("Relu", ["pixel_values"], ["image_features"])],
               [vi("pixel_values", F, ["batch", 3, 4, 4])],
               [vi("image_features", F, ["batch", 3, 4, 4])], 17),
         os.path.join(d, "vision_encoder.onnx"))
    save(model([node("Concat", ["past", "inputs_embeds"], ["present"], axis=1)],
               [vi("inputs_embeds", F, ["batch", "seq", 8]), vi("past", F, ["batch", "past_len", 8])],
               [vi("present", F, ["batch", "past_len + seq", 8])], 17),
         os.path.join(d, "decoder_model_merged.onnx"))


def save(m, path):
    with open(path, "wb") as f:
        f.write(m.SerializeToString())


def corrupt_models(out):
    """A truncated and a bit-flipped copy of a valid model."""
    data = elementwise().SerializeToString()
    with open(os.path.join(out, "err_truncated.onnx"), "wb") as f:
        f.write(data[: len(data) * 2 // 3])
    flipped = bytearray(data)
    assert flipped[0] == 0x08  # tag of ModelProto.ir_version (field 1, varint)
    flipped[0] ^= 0x07         # wire type 7 does not exist
    with open(os.path.join(out, "err_bitflip.onnx"), "wb") as f:
        f.write(bytes(flipped))


def big_model(out, megabytes):
    """~megabytes MiB of f32 weights in one external file: a stack of [1024, 1024] MatMuls
    (4 MiB each) plus one file per tensor for every 8th layer."""
    os.makedirs(out, exist_ok=True)
    layers = max(1, megabytes // 4)
    nodes, inits = [], []
    h = "x"
    offset = 0
    with open(os.path.join(out, "big.bin"), "wb") as f:
        chunk = np.zeros((1024, 1024), np.float32).tobytes()
        for i in range(layers):
            t = numpy_helper.from_array(np.zeros((1, 1), np.float32), f"w{i}")
            t.dims[:] = [1024, 1024]
            if i % 8 == 7:
                name = f"w{i}.bin"
                with open(os.path.join(out, name), "wb") as g:
                    g.write(chunk)
                set_external(t, name, 0, len(chunk))
            else:
                f.write(chunk)
                set_external(t, "big.bin", offset, len(chunk))
                offset += len(chunk)
            inits.append(t)
            nodes.append(node("MatMul", [h, f"w{i}"], [f"h{i}"]))
            h = f"h{i}"
    save(model(nodes, [vi("x", F, ["batch", 1024])], [vi(h, F, ["batch", 1024])], 17, inits),
         os.path.join(out, "big.onnx"))
    print(f"{out}/big.onnx: {layers} layers, {layers * 4} MiB of weights")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--big":
        big_model(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 200)
        return
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    models = {
        "elementwise": elementwise(), "shape_ops": shape_ops(), "opset11": old_opset(),
        "opset18": opset18(), "nn_ops": nn_ops(), "gelu20": gelu20(),
        "transformer23": transformer23(), "quant21": quant21(),
        "weights_embedded": weights_embedded(), "weights_external": weights_external(out),
    }
    models.update(error_models())
    for name, m in models.items():
        save(m, os.path.join(out, name + ".onnx"))
    corrupt_models(out)
    folder_models(out)


if __name__ == "__main__":
    main()
