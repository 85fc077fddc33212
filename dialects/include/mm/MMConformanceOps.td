//===- MMConformanceOps.td - selection, gathers, scatters, pooling, resize -===//
//
// Ops added for ONNX conformance (issue 5): ArgMax / ArgMin, TopK, GatherElements and
// Mod; then pooling (AveragePool, MaxPool, LpPool), Resize, ScatterND, ScatterElements,
// NonZero and CumProd. Included from MMOps.td; semantics follow the ONNX operator of the
// same name (https://onnx.ai/onnx/operators/), section named in each description.
//
//===----------------------------------------------------------------------===//
#ifndef MM_CONFORMANCE_OPS_TD
#define MM_CONFORMANCE_OPS_TD

class MM_ArgReduceOp<string mnemonic, string doc> : MM_Op<mnemonic> {
  let summary = doc;
  let description = [{
    Index (i64) of the extreme element along `axis`; the first one on ties, the last one
    when `select_last_index`. NaN counts as larger than every number (argmax) and smaller
    than every number (argmin), so a NaN's index is chosen, as in numpy. The axis is kept
    as size 1 when `keepdims`.
  }];
  let arguments = (ins MM_Tensor:$input, DefaultValuedAttr<I64Attr, "0">:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                       DefaultValuedAttr<BoolAttr, "false">:$select_last_index);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def MM_ArgMaxOp : MM_ArgReduceOp<"argmax", "index of the maximum along an axis (ONNX ArgMax)">;
def MM_ArgMinOp : MM_ArgReduceOp<"argmin", "index of the minimum along an axis (ONNX ArgMin)">;

def MM_TopKOp : MM_Op<"topk", [AllElementTypesMatch<["input", "values"]>]> {
  let summary = "the k largest (or smallest) elements along an axis and their indices (ONNX TopK)";
  let description = [{
    `k` is a one-element i64 tensor (0-D or 1-D, as ONNX's K input; it may be computed at
    run time, then dim `axis` of the results is dynamic). `values` and `indices` (i64)
    have the input's shape with dim `axis` = k. With `sorted`, the elements come in
    descending order (`largest`) or ascending order; without it the order is unspecified
    (mmc always sorts). Equal values keep the lower index first. NaN is larger than
    every number.
  }];
  let arguments = (ins MM_Tensor:$input, RankedTensorOf<[I64]>:$k,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$largest,
                       DefaultValuedAttr<BoolAttr, "true">:$sorted);
  let results = (outs MM_Tensor:$values, RankedTensorOf<[I64]>:$indices);
  let assemblyFormat = [{
    $input `,` $k attr-dict `:` type($input) `,` type($k) `->` type($values) `,` type($indices)
  }];
  let hasVerifier = 1;
}

def MM_GatherElementsOp : MM_Op<"gather_elements",
    [AllElementTypesMatch<["data", "result"]>]> {
  let summary = "ONNX GatherElements: result[i][j] = data[indices[i][j]][j] along axis";
  let description = [{
    data and indices have the same rank; the result has the indices' shape. Negative
    indices count from the end of dim `axis`; an index out of range is a run-time error.
  }];
  let arguments = (ins MM_Tensor:$data, MM_IntTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = "$data `,` $indices attr-dict `:` type($data) `,` type($indices) `->` type($result)";
  let hasVerifier = 1;
}

def MM_ModOp : MM_Op<"mod", [ResultsBroadcastableShape,
                             AllElementTypesMatch<["lhs", "rhs", "result"]>]> {
  let summary = "elementwise remainder with broadcasting (ONNX Mod)";
  let description = [{
    Without `fmod` (integers only): the remainder takes the sign of the divisor, as
    Python's `%`. With `fmod`: the sign of the dividend, as C's fmod (required for
    floats). An integer division by zero is a run-time error.
  }];
  let arguments = (ins MM_Tensor:$lhs, MM_Tensor:$rhs,
                       DefaultValuedAttr<BoolAttr, "false">:$fmod);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
  let hasVerifier = 1;
}

def MM_CumProdOp : MM_Op<"cumprod", [SameOperandsAndResultType]> {
  let summary = "ONNX CumProd along a static axis";
  let description = [{
    The running product along `axis` (ONNX CumProd-26), like mm.cumsum: with `exclusive`
    element i holds the product of the elements before it (1 for the first), with
    `reverse` the products run from the end. Floats multiply in their compute type (f32
    for f16 / bf16), integers wrap. Not for i1.
  }];
  let arguments = (ins MM_Tensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                       DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pooling (ONNX AveragePool, MaxPool, LpPool)
//===----------------------------------------------------------------------===//

class MM_PoolOp<string mnemonic, string doc, Type elt, dag extraArgs>
    : MM_Op<mnemonic, [AllElementTypesMatch<["input", "result"]>]> {
  let summary = doc;
  let arguments = !con((ins elt:$input, DenseI64ArrayAttr:$kernel_shape,
                            DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                            DenseI64ArrayAttr:$dilations,
                            DefaultValuedAttr<BoolAttr, "false">:$ceil_mode),
                       extraArgs);
  let results = (outs elt:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

// What every pooling op shares, after ONNX AveragePool-22 / MaxPool-22 / LpPool-22.
defvar MM_PoolGeometry = [{
    input [N, C, D1, ..., Dk] (k >= 1 spatial dims) -> [N, C, O1, ..., Ok] with
    Oi = window::poolOutputSize(Di, kernel_shape[i], strides[i], dilations[i], pads[i],
    pads[k + i], ceil_mode) (runtime/cpu/WindowRules.h). `kernel_shape`, `strides` and
    `dilations` have k entries (>= 1), `pads` 2k: [begin_1, ..., begin_k, end_1, ...,
    end_k] (>= 0; the importer resolves auto_pad into them). Output position o along dim i
    reads the taps o * strides[i] - pads[i] + j * dilations[i], j in [0, kernel_shape[i]).
}];

def MM_AvgPoolOp : MM_PoolOp<"avg_pool", "average pooling (ONNX AveragePool)", MM_FloatTensor,
    (ins DefaultValuedAttr<BoolAttr, "false">:$count_include_pad)> {
  let description = MM_PoolGeometry # [{
    The mean of the taps inside the input. With `count_include_pad` the taps in the pads
    count as zeros; taps past the pads (the overhang of a ceil_mode window) never count.
  }];
}

def MM_LpPoolOp : MM_PoolOp<"lp_pool", "Lp-norm pooling (ONNX LpPool)", MM_FloatTensor,
    (ins DefaultValuedAttr<I64Attr, "2">:$p)> {
  let description = MM_PoolGeometry # [{
    (sum of |x|^p over the taps inside the input)^(1/p), p >= 1; pads add nothing.
  }];
}

def MM_MaxPoolOp : MM_PoolOp<"max_pool", "max pooling (ONNX MaxPool)", MM_Tensor, (ins)> {
  let description = MM_PoolGeometry # [{
    The largest tap inside the input (a window entirely in the pads gives the lowest
    value of the type). Any number type (ONNX takes floats, int8 and uint8), not i1.
  }];
}

def MM_MaxPoolWithIndicesOp : MM_PoolOp<"max_pool_with_indices",
    "max pooling and the position of each maximum (ONNX MaxPool with Indices)", MM_Tensor,
    (ins DefaultValuedAttr<I64Attr, "0">:$storage_order)> {
  let description = MM_PoolGeometry # [{
    As mm.max_pool; `indices` (i64, the result's shape) holds where each maximum is, the
    first one in the window in row-major order on ties: (n * C + c) * D1 * ... * Dk plus
    the offset of the tap in the spatial dims, row-major (`storage_order` 0) or
    column-major (1), as ONNX's Indices output (padding not counted).
  }];
  let results = (outs MM_Tensor:$result, RankedTensorOf<[I64]>:$indices);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result) `,` type($indices)";
}

//===----------------------------------------------------------------------===//
// Resize
//===----------------------------------------------------------------------===//

def MM_ResizeMode : I32EnumAttr<"ResizeMode", "ONNX Resize interpolation mode",
    [I32EnumAttrCase<"nearest", 0>, I32EnumAttrCase<"linear", 1>,
     I32EnumAttrCase<"cubic", 2>]> {
  let cppNamespace = "::mm";
  let genSpecializedAttr = 0;
}
def MM_ResizeModeAttr : EnumAttr<MM_Dialect, MM_ResizeMode, "resize_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

def MM_ResizeCoordinateMode : I32EnumAttr<"ResizeCoordinateMode",
    "ONNX Resize coordinate_transformation_mode",
    [I32EnumAttrCase<"half_pixel", 0>, I32EnumAttrCase<"half_pixel_symmetric", 1>,
     I32EnumAttrCase<"pytorch_half_pixel", 2>, I32EnumAttrCase<"align_corners", 3>,
     I32EnumAttrCase<"asymmetric", 4>, I32EnumAttrCase<"tf_crop_and_resize", 5>,
     I32EnumAttrCase<"tf_half_pixel_for_nn", 6>]> {
  let cppNamespace = "::mm";
  let genSpecializedAttr = 0;
}
def MM_ResizeCoordinateModeAttr
    : EnumAttr<MM_Dialect, MM_ResizeCoordinateMode, "coordinate_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

def MM_NearestMode : I32EnumAttr<"NearestMode", "ONNX Resize nearest_mode",
    [I32EnumAttrCase<"round_prefer_floor", 0>, I32EnumAttrCase<"round_prefer_ceil", 1>,
     I32EnumAttrCase<"floor", 2>, I32EnumAttrCase<"ceil", 3>]> {
  let cppNamespace = "::mm";
  let genSpecializedAttr = 0;
}
def MM_NearestModeAttr : EnumAttr<MM_Dialect, MM_NearestMode, "nearest_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

def MM_ResizeOp : MM_Op<"resize", [AllElementTypesMatch<["input", "result"]>]> {
  let summary = "ONNX Resize: nearest, (bi/tri)linear or cubic interpolation per dim";
  let description = [{
    ONNX Resize-19 with every dim listed: `scales` (> 0) and `sizes` have one entry per
    dim of the input. Result dim d is sizes[d], or window::resizedSize(in_d, scales[d]) =
    floor(in_d * scales[d]) where sizes[d] is -1 (a dim that is dynamic in the IR). The
    importer resolves ONNX's scales / sizes / axes / keep_aspect_ratio_policy into these:
    `scales` are the scale factors of the coordinate transform, as the onnx reference
    computes them (sizes / in for sizes, the common factor under keep_aspect_ratio_policy).

    Output coordinate x along a dim maps to x_original by
    `coordinate_transformation_mode` (ONNX's formulas, with length_resized = scale * in as
    in the reference); `roi` ([start_0, ..., start_0..start_(r-1), end_0..end_(r-1)], as
    fractions of the input) is present exactly for tf_crop_and_resize, where an
    x_original outside [0, in - 1] gives `extrapolation_value`. The interpolation is
    separable: `nearest` takes the input element nearest_mode picks (clamped to the
    dim), `linear` and `cubic` (coefficient `cubic_coeff_a`) weigh the neighbours of
    x_original, the indices past the edges reading the edge element, or, with
    `exclude_outside`, weighted 0 and the weights renormalized. With `antialias` (linear
    and cubic; ignored for nearest), a downscaling dim's filter is stretched by 1 / scale
    and normalized (ONNX Resize-18). nearest takes any element type; linear and cubic
    need a float type and compute in f64.
  }];
  let arguments = (ins MM_Tensor:$input, DenseI64ArrayAttr:$sizes, DenseF64ArrayAttr:$scales,
                       OptionalAttr<DenseF64ArrayAttr>:$roi,
                       DefaultValuedAttr<MM_ResizeModeAttr, "::mm::ResizeMode::nearest">:$mode,
                       DefaultValuedAttr<MM_ResizeCoordinateModeAttr,
                           "::mm::ResizeCoordinateMode::half_pixel">:$coordinate_transformation_mode,
                       DefaultValuedAttr<MM_NearestModeAttr,
                           "::mm::NearestMode::round_prefer_floor">:$nearest_mode,
                       DefaultValuedAttr<F64Attr, "-0.75">:$cubic_coeff_a,
                       DefaultValuedAttr<BoolAttr, "false">:$exclude_outside,
                       DefaultValuedAttr<F64Attr, "0.0">:$extrapolation_value,
                       DefaultValuedAttr<BoolAttr, "false">:$antialias);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Scatters and NonZero
//===----------------------------------------------------------------------===//

def MM_ScatterReduction : I32EnumAttr<"ScatterReduction", "ONNX scatter reduction",
    [I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"add", 1>, I32EnumAttrCase<"mul", 2>,
     I32EnumAttrCase<"max", 3>, I32EnumAttrCase<"min", 4>]> {
  let cppNamespace = "::mm";
  let genSpecializedAttr = 0;
}
def MM_ScatterReductionAttr : EnumAttr<MM_Dialect, MM_ScatterReduction, "reduction"> {
  let assemblyFormat = "`<` $value `>`";
}

def MM_ScatterNDOp : MM_Op<"scatter_nd",
    [AllElementTypesMatch<["data", "updates", "result"]>]> {
  let summary = "ONNX ScatterND: a copy of data with slices at indices updated";
  let description = [{
    ONNX ScatterND-18. data rank r, indices rank q >= 1 with last dim k in [1, r],
    updates of shape indices.shape[:-1] + data.shape[k:]; the result has data's type.
    Each index tuple indices[i..., :] (negative entries count from the end of their dim;
    out of range is a run-time error) selects a slice of the copy that updates[i...]
    replaces (`reduction` none) or is combined into (add, mul, max, min), in row-major
    order of the tuples (a repeated tuple with none: the last one wins). The reductions
    need a number type.
  }];
  let arguments = (ins MM_Tensor:$data, MM_IntTensor:$indices, MM_Tensor:$updates,
                       DefaultValuedAttr<MM_ScatterReductionAttr,
                           "::mm::ScatterReduction::none">:$reduction);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = [{
    $data `,` $indices `,` $updates attr-dict `:` type($data) `,` type($indices) `,`
    type($updates) `->` type($result)
  }];
  let hasVerifier = 1;
}

def MM_ScatterElementsOp : MM_Op<"scatter_elements",
    [AllElementTypesMatch<["data", "updates", "result"]>]> {
  let summary = "ONNX ScatterElements: result[..., indices[i], ...] = updates[i] along axis";
  let description = [{
    ONNX ScatterElements-18 (and the deprecated Scatter). data, indices and updates have
    the same rank; indices and updates the same shape, no dim larger than data's except
    along `axis`. A copy of data whose element at updates' position i with dim `axis`
    replaced by indices[i] (negative counts from the end; out of range is a run-time
    error) is set to updates[i] or combined with it by `reduction` (add, mul, max, min;
    numbers only), in row-major order of i.
  }];
  let arguments = (ins MM_Tensor:$data, MM_IntTensor:$indices, MM_Tensor:$updates,
                       DefaultValuedAttr<I64Attr, "0">:$axis,
                       DefaultValuedAttr<MM_ScatterReductionAttr,
                           "::mm::ScatterReduction::none">:$reduction);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = [{
    $data `,` $indices `,` $updates attr-dict `:` type($data) `,` type($indices) `,`
    type($updates) `->` type($result)
  }];
  let hasVerifier = 1;
}

def MM_NonZeroOp : MM_Op<"nonzero"> {
  let summary = "indices of the non-zero elements (ONNX NonZero)";
  let description = [{
    ONNX NonZero-13: result [max(rank, 1), n] (i64) with column j the index of the j-th
    non-zero element in row-major order (numpy.nonzero stacked; a 0-D input reads as
    1-D). n depends on the values: the kernel counts before it allocates the result, and
    the IR usually has `?` there. On the CUDA target it runs on the host (it is not in
    the CUDA executor's op list, compiler/transforms/PlanCudaGraphs.cpp).
  }];
  let arguments = (ins MM_Tensor:$input);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

#endif // MM_CONFORMANCE_OPS_TD
