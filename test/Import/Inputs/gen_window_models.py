#!/usr/bin/python3
"""Generates the models of test/Import/window-ops.test: pooling and Resize/Upsample
(OpsPool.cpp, OpsResize.cpp), the scatters, NonZero (OpsScatter.cpp) and CumProd; and
softmax11_coerced.onnx of test/Import/opsets.test (Softmax / Hardmax before opset 13
over a non-last axis: ONNX's 2-D coercion).

Usage: /usr/bin/python3 gen_window_models.py [OUT_DIR]   (default: this script's folder)

Needs Debian's python3-onnx (1.12) and numpy; deterministic output. Models of opsets
above 17 are not run through onnx.checker (1.12 does not know them).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F, I64, I32, U8, B = (TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32,
                      TensorProto.UINT8, TensorProto.BOOL)


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, name=outs[0] + "_node", **attrs)


def model(name, nodes, inputs, outputs, opset, inits=()):
    m = helper.make_model(helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits)),
                          opset_imports=[helper.make_opsetid("", opset)], producer_name="mmc-test")
    m.ir_version = 8
    return m


def const(name, values, dtype):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def pool_ops():
    """Every pool, 1-D to 3-D, with explicit pads, auto_pad, ceil_mode, dilations and
    MaxPool's Indices output."""
    nodes = [
        node("AveragePool", ["x"], ["avg"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2],
             count_include_pad=1, ceil_mode=1),
        node("AveragePool", ["x"], ["avg_same"], kernel_shape=[2, 2], auto_pad="SAME_UPPER"),
        node("MaxPool", ["x"], ["max", "argmax"], kernel_shape=[2, 2], strides=[2, 2],
             storage_order=1),
        node("MaxPool", ["bytes"], ["max_u8"], kernel_shape=[2], dilations=[2]),
        node("LpPool", ["vol"], ["lp"], kernel_shape=[2, 2, 2], p=3),
    ]
    return model(
        "pool_ops", nodes,
        [vi("x", F, ["batch", 3, 5, 6]), vi("bytes", U8, [1, 2, 7]), vi("vol", F, [1, 1, 3, 4, 5])],
        [vi("avg", F, ["batch", 3, 3, 4]), vi("avg_same", F, ["batch", 3, 5, 6]),
         vi("max", F, ["batch", 3, 2, 3]), vi("argmax", I64, ["batch", 3, 2, 3]),
         vi("max_u8", U8, [1, 2, 5]), vi("lp", F, [1, 1, 2, 3, 4])], 22)


def resize_ops():
    """Resize by scales, by sizes with axes and keep_aspect_ratio_policy, by sizes that
    keep the dynamic batch and channel dims (Shape -> Slice -> Concat, as exporters write
    F.interpolate(size=...)), tf_crop_and_resize over axes with roi and extrapolation_value."""
    nodes = [
        node("Resize", ["x", "", "scales"], ["up"], mode="linear"),
        node("Resize", ["x", "", "", "hw"], ["fit"], axes=[3, 2], mode="nearest",
             keep_aspect_ratio_policy="not_larger", nearest_mode="ceil"),
        node("Shape", ["x"], ["x_shape"]),
        node("Slice", ["x_shape", "zero", "two"], ["nc"]),
        node("Concat", ["nc", "target"], ["full_sizes"], axis=0),
        node("Resize", ["x", "", "", "full_sizes"], ["cubic"], mode="cubic", cubic_coeff_a=-0.5,
             exclude_outside=1, antialias=1, coordinate_transformation_mode="pytorch_half_pixel"),
        node("Resize", ["x", "roi", "", "target"], ["crop"], mode="linear", axes=[2, 3],
             coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=-1.0),
    ]
    inits = [const("scales", [1, 1, 2, 1.5], np.float32), const("hw", [4, 8], np.int64),
             const("zero", [0], np.int64), const("two", [2], np.int64),
             const("target", [3, 3], np.int64),
             const("roi", [0.25, 0.1, 0.75, 1.2], np.float32)]
    return model(
        "resize_ops", nodes, [vi("x", F, ["batch", 3, 4, 6])],
        [vi("up", F, ["batch", 3, 8, 9]), vi("fit", F, ["batch", 3, 3, 4]),
         vi("cubic", F, ["batch", 3, 3, 3]), vi("crop", F, ["batch", 3, 3, 3])], 19, inits)


def upsample():
    """Deprecated Upsample (opset 9, scales input) and Resize-10 (asymmetric, floor)."""
    return {
        "upsample9": model("upsample9", [node("Upsample", ["x", "s"], ["y"], mode="nearest")],
                           [vi("x", F, [1, 1, 2, 2])], [vi("y", F, [1, 1, 4, 6])], 9,
                           [const("s", [1, 1, 2, 3], np.float32)]),
        "resize10": model("resize10", [node("Resize", ["x", "s"], ["y"], mode="linear")],
                          [vi("x", F, [1, 1, 2, 2])], [vi("y", F, [1, 1, 3, 3])], 10,
                          [const("s", [1, 1, 1.5, 1.5], np.float32)]),
    }


def scatter_ops():
    nodes = [
        node("ScatterND", ["data", "nd_idx", "nd_upd"], ["nd"], reduction="add"),
        node("ScatterElements", ["data", "el_idx", "el_upd"], ["el"], axis=1, reduction="max"),
        node("NonZero", ["mask"], ["nz"]),
        node("CumProd", ["data", "axis"], ["cp"], exclusive=1, reverse=1),
    ]
    return model(
        "scatter_ops", nodes,
        [vi("data", F, [4, 3]), vi("nd_idx", I64, [2, 1]), vi("nd_upd", F, [2, 3]),
         vi("el_idx", I32, [2, 2]), vi("el_upd", F, [2, 2]), vi("mask", B, [2, 3])],
        [vi("nd", F, [4, 3]), vi("el", F, [4, 3]), vi("nz", I64, [2, None]), vi("cp", F, [4, 3])],
        26, [const("axis", 0, np.int64)])


def scatter9():
    return model("scatter9", [node("Scatter", ["d", "i", "u"], ["y"], axis=0)],
                 [vi("d", F, [3, 3]), vi("i", I64, [1, 3]), vi("u", F, [1, 3])],
                 [vi("y", F, [3, 3])], 9)


def softmax11_coerced():
    return model("softmax11_coerced",
                 [node("Softmax", ["x"], ["sm"]), node("Hardmax", ["s"], ["hm"], axis=0)],
                 [vi("x", F, ["batch", 3, 4]), vi("s", F, [2, 3])],
                 [vi("sm", F, ["batch", 3, 4]), vi("hm", F, [2, 3])], 11)


def error_models():
    """Near misses, one per op at least: scales computed at run time (unsupported: must be
    a constant), a window larger than its padded input, an unknown Resize mode, an
    unknown scatter reduction, a sizes entry for a dynamic input dim, an integer
    AveragePool, LpPool with p = 0, ScatterElements indices of another rank, CumProd of
    bool, NonZero without its input, Upsample scales for the wrong rank."""
    return {
        "err_resize_scales_input": model(
            "err_resize_scales_input", [node("Resize", ["x", "", "s"], ["y"])],
            [vi("x", F, [1, 1, 2, 2]), vi("s", F, [4])], [vi("y", F, [1, 1, None, None])], 19),
        "err_pool_window": model(
            "err_pool_window", [node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3])],
            [vi("x", F, [1, 1, 2, 2])], [vi("y", F, [1, 1, None, None])], 22),
        "err_resize_mode": model(
            "err_resize_mode", [node("Resize", ["x", "", "s"], ["y"], mode="area")],
            [vi("x", F, [1, 1, 2, 2])], [vi("y", F, [1, 1, 4, 4])], 19,
            [const("s", [1, 1, 2, 2], np.float32)]),
        "err_scatter_reduction": model(
            "err_scatter_reduction", [node("ScatterND", ["d", "i", "u"], ["y"], reduction="avg")],
            [vi("d", F, [4]), vi("i", I64, [1, 1]), vi("u", F, [1])], [vi("y", F, [4])], 18),
        "err_resize_dynamic_size": model(
            "err_resize_dynamic_size", [node("Resize", ["x", "", "", "s"], ["y"])],
            [vi("x", F, [1, 1, "h", 2])], [vi("y", F, [1, 1, 4, 4])], 19,
            [const("s", [1, 1, 4, 4], np.int64)]),
        "err_avgpool_int": model(
            "err_avgpool_int", [node("AveragePool", ["x"], ["y"], kernel_shape=[2])],
            [vi("x", I32, [1, 1, 4])], [vi("y", I32, [1, 1, 3])], 22),
        "err_lppool_p": model(
            "err_lppool_p", [node("LpPool", ["x"], ["y"], kernel_shape=[2], p=0)],
            [vi("x", F, [1, 1, 4])], [vi("y", F, [1, 1, 3])], 22),
        "err_scatter_elements_rank": model(
            "err_scatter_elements_rank", [node("ScatterElements", ["d", "i", "u"], ["y"])],
            [vi("d", F, [3, 3]), vi("i", I64, [3]), vi("u", F, [3])], [vi("y", F, [3, 3])], 18),
        "err_cumprod_bool": model(
            "err_cumprod_bool", [node("CumProd", ["x", "axis"], ["y"])],
            [vi("x", B, [3])], [vi("y", B, [3])], 26, [const("axis", 0, np.int64)]),
        "err_nonzero_no_input": model(
            "err_nonzero_no_input", [node("NonZero", [""], ["y"])], [], [vi("y", I64, [1, None])],
            13),
        "err_upsample_scales": model(
            "err_upsample_scales", [node("Upsample", ["x", "s"], ["y"])],
            [vi("x", F, [1, 1, 2, 2])], [vi("y", F, [1, 1, 4, 4])], 9,
            [const("s", [2, 2], np.float32)]),
    }


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    models = {"pool_ops": pool_ops(), "resize_ops": resize_ops(), "scatter_ops": scatter_ops(),
              "scatter9": scatter9(), "softmax11_coerced": softmax11_coerced(), **upsample(),
              **error_models()}
    for name, m in models.items():
        onnx.save(m, os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()
