//===- MMOps.td - operations of the `mm` dialect --------------------------===//
//
// Semantics follow the ONNX operator of the same name unless stated otherwise
// (https://onnx.ai/onnx/operators/). Broadcasting is ONNX multidirectional (numpy)
// broadcasting. Axes attributes may be negative (counted from the back).
//
//===----------------------------------------------------------------------===//
#ifndef MM_OPS_TD
#define MM_OPS_TD

include "mm/MMBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class MM_UnaryOp<string mnemonic, Type type, string doc>
    : MM_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = doc;
  let arguments = (ins type:$input);
  let results = (outs type:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def MM_SqrtOp : MM_UnaryOp<"sqrt", MM_FloatTensor, "elementwise square root">;
def MM_ReciprocalOp : MM_UnaryOp<"reciprocal", MM_FloatTensor, "elementwise 1 / x">;
def MM_NegOp : MM_UnaryOp<"neg", MM_Tensor, "elementwise negation">;
def MM_AbsOp : MM_UnaryOp<"abs", MM_Tensor, "elementwise absolute value">;
def MM_ExpOp : MM_UnaryOp<"exp", MM_FloatTensor, "elementwise e^x">;
def MM_LogOp : MM_UnaryOp<"log", MM_FloatTensor, "elementwise natural logarithm">;
def MM_ErfOp : MM_UnaryOp<"erf", MM_FloatTensor, "elementwise Gauss error function">;
def MM_TanhOp : MM_UnaryOp<"tanh", MM_FloatTensor, "elementwise hyperbolic tangent">;
def MM_SigmoidOp : MM_UnaryOp<"sigmoid", MM_FloatTensor, "elementwise 1 / (1 + e^-x)">;
def MM_SinOp : MM_UnaryOp<"sin", MM_FloatTensor, "elementwise sine">;
def MM_CosOp : MM_UnaryOp<"cos", MM_FloatTensor, "elementwise cosine">;
def MM_FloorOp : MM_UnaryOp<"floor", MM_FloatTensor, "elementwise floor">;
def MM_CeilOp : MM_UnaryOp<"ceil", MM_FloatTensor, "elementwise ceiling">;
def MM_ReluOp : MM_UnaryOp<"relu", MM_Tensor, "elementwise max(x, 0)">;
def MM_NotOp : MM_UnaryOp<"not", MM_BoolTensor, "elementwise logical not">;

class MM_BinaryOp<string mnemonic, Type type, string doc>
    : MM_Op<mnemonic, [ResultsBroadcastableShape,
                       AllElementTypesMatch<["lhs", "rhs", "result"]>]> {
  let summary = doc;
  let description = "Elementwise with ONNX multidirectional broadcasting.";
  let arguments = (ins type:$lhs, type:$rhs);
  let results = (outs type:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
}

def MM_AddOp : MM_BinaryOp<"add", MM_Tensor, "elementwise addition">;
def MM_SubOp : MM_BinaryOp<"sub", MM_Tensor, "elementwise subtraction">;
def MM_MulOp : MM_BinaryOp<"mul", MM_Tensor, "elementwise multiplication">;
def MM_DivOp : MM_BinaryOp<"div", MM_Tensor,
    "elementwise division (integers truncate toward zero)">;
def MM_PowOp : MM_BinaryOp<"pow", MM_FloatTensor, "elementwise lhs^rhs">;
def MM_MaxOp : MM_BinaryOp<"max", MM_Tensor, "elementwise maximum">;
def MM_MinOp : MM_BinaryOp<"min", MM_Tensor, "elementwise minimum">;
def MM_AndOp : MM_BinaryOp<"and", MM_BoolTensor, "elementwise logical and">;
def MM_OrOp : MM_BinaryOp<"or", MM_BoolTensor, "elementwise logical or">;

class MM_CompareOp<string mnemonic, string doc>
    : MM_Op<mnemonic, [ResultsBroadcastableShape,
                       AllElementTypesMatch<["lhs", "rhs"]>]> {
  let summary = doc;
  let description = "Elementwise comparison with broadcasting; the result is i1.";
  let arguments = (ins MM_Tensor:$lhs, MM_Tensor:$rhs);
  let results = (outs MM_BoolTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
}

def MM_EqualOp : MM_CompareOp<"equal", "elementwise lhs == rhs">;
def MM_LessOp : MM_CompareOp<"less", "elementwise lhs < rhs">;
def MM_LessOrEqualOp : MM_CompareOp<"less_or_equal", "elementwise lhs <= rhs">;
def MM_GreaterOp : MM_CompareOp<"greater", "elementwise lhs > rhs">;
def MM_GreaterOrEqualOp : MM_CompareOp<"greater_or_equal", "elementwise lhs >= rhs">;

def MM_IsNanOp : MM_Op<"is_nan", [SameOperandsAndResultShape]> {
  let summary = "elementwise x != x";
  let arguments = (ins MM_FloatTensor:$input);
  let results = (outs MM_BoolTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def MM_WhereOp : MM_Op<"where", [ResultsBroadcastableShape,
                                 AllElementTypesMatch<["x", "y", "result"]>]> {
  let summary = "elementwise condition ? x : y, with broadcasting";
  let arguments = (ins MM_BoolTensor:$condition, MM_Tensor:$x, MM_Tensor:$y);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $x `,` $y attr-dict `:` type($condition) `,` type($x) `,` type($y)
    `->` type($result)
  }];
}

def MM_CastOp : MM_Op<"cast", [SameOperandsAndResultShape]> {
  let summary = "elementwise element-type conversion (ONNX Cast semantics)";
  let description = [{
    Float to integer truncates toward zero; any value to i1 is `x != 0`; i1 to number is
    0 or 1. The target type is the result's element type.

    Folds: a cast to its own type is its input; a cast of a float cast that only widened
    (f16 or bf16 to f32 or f64, f32 to f64: every value kept exactly) casts the original
    value directly, or is that value when the types meet again (f16 -> f32 -> f16).
  }];
  let arguments = (ins MM_Tensor:$input);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Contraction and structure
//===----------------------------------------------------------------------===//

def MM_MatMulOp : MM_Op<"matmul", [AllElementTypesMatch<["lhs", "rhs", "result"]>]> {
  let summary = "batched matrix product with numpy matmul semantics";
  let description = [{
    lhs [..., M, K] x rhs [..., K, N] -> [..., M, N]; batch dims broadcast; a rank-1
    operand is promoted (and the added dim removed from the result) as in numpy.matmul.
  }];
  let arguments = (ins MM_Tensor:$lhs, MM_Tensor:$rhs);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
  let hasVerifier = 1;
}

def MM_ConvOp : MM_Op<"conv", [AllElementTypesMatch<["input", "weight", "result"]>]> {
  let summary = "2-D convolution, NCHW (ONNX Conv), e.g. ViT patch embedding";
  let description = [{
    input [N, C, H, W], weight [M, C / group, kH, kW], optional bias [M] ->
    [N, M, (H + pad_top + pad_bottom - dil_h * (kH - 1) - 1) / stride_h + 1, ...].
    `pads` is [top, left, bottom, right].
  }];
  let arguments = (ins MM_FloatTensor:$input, MM_FloatTensor:$weight,
                       Optional<MM_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group);
  let results = (outs MM_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` type($input) `,` type($weight)
    (`,` type($bias)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

class MM_ReduceOp<string mnemonic, string doc> : MM_Op<mnemonic,
    [AllElementTypesMatch<["input", "result"]>]> {
  let summary = doc;
  let description = "Reduces over `axes` (all axes when empty); keeps them as size 1 when `keepdims`.";
  let arguments = (ins MM_Tensor:$input, DenseI64ArrayAttr:$axes,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def MM_ReduceMeanOp : MM_ReduceOp<"reduce_mean", "mean over axes">;
def MM_ReduceSumOp : MM_ReduceOp<"reduce_sum", "sum over axes">;
def MM_ReduceMaxOp : MM_ReduceOp<"reduce_max", "maximum over axes">;

def MM_SoftmaxOp : MM_Op<"softmax", [SameOperandsAndResultType]> {
  let summary = "softmax along one axis (ONNX opset 13 semantics)";
  let arguments = (ins MM_FloatTensor:$input, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs MM_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def MM_GatherOp : MM_Op<"gather", [AllElementTypesMatch<["data", "result"]>]> {
  let summary = "ONNX Gather: take slices of data along axis at indices (negative wraps)";
  let description = "data rank r, indices rank q -> rank q + r - 1.";
  let arguments = (ins MM_Tensor:$data, MM_IntTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = "$data `,` $indices attr-dict `:` type($data) `,` type($indices) `->` type($result)";
  let hasVerifier = 1;
}

def MM_GatherNDOp : MM_Op<"gather_nd", [AllElementTypesMatch<["data", "result"]>]> {
  let summary = "ONNX GatherND";
  let arguments = (ins MM_Tensor:$data, MM_IntTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = "$data `,` $indices attr-dict `:` type($data) `,` type($indices) `->` type($result)";
  let hasVerifier = 1;
}

def MM_ConcatOp : MM_Op<"concat", [SameOperandsAndResultElementType]> {
  let summary = "concatenate along axis";
  let arguments = (ins Variadic<MM_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs) `->` type($result)";
  let hasVerifier = 1;
}

def MM_SliceOp : MM_Op<"slice", [AllElementTypesMatch<["data", "result"]>]> {
  let summary = "ONNX Slice: starts, ends, axes and steps are 1-D integer tensors";
  let description = [{
    Clamped as in ONNX: negative starts/ends count from the end; ends past the dim are
    clamped; negative steps walk backwards. Operands may be constants or computed values.
  }];
  let arguments = (ins MM_Tensor:$data, MM_IntTensor:$starts, MM_IntTensor:$ends,
                       MM_IntTensor:$axes, MM_IntTensor:$steps);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = [{
    $data `,` $starts `,` $ends `,` $axes `,` $steps attr-dict `:` type($data) `,`
    type($starts) `,` type($ends) `,` type($axes) `,` type($steps) `->` type($result)
  }];
  let hasVerifier = 1;
}

def MM_SplitOp : MM_Op<"split", [SameOperandsAndResultElementType]> {
  let summary = "split along axis into pieces of the given static sizes";
  let arguments = (ins MM_Tensor:$input, I64Attr:$axis, DenseI64ArrayAttr:$sizes);
  let results = (outs Variadic<MM_Tensor>:$results);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($results)";
  let hasVerifier = 1;
}

def MM_ReshapeOp : MM_Op<"reshape", [AllElementTypesMatch<["data", "result"]>]> {
  let summary = "ONNX Reshape: shape is a 1-D i64 tensor (0 copies a dim unless allow_zero, -1 infers)";
  let arguments = (ins MM_Tensor:$data, RankedTensorOf<[I64]>:$shape,
                       DefaultValuedAttr<BoolAttr, "false">:$allow_zero);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = "$data `,` $shape attr-dict `:` type($data) `,` type($shape) `->` type($result)";
  let hasVerifier = 1;
}

def MM_TransposeOp : MM_Op<"transpose", [AllElementTypesMatch<["input", "result"]>]> {
  let summary = "permute dims: result dim i = input dim perm[i]";
  let arguments = (ins MM_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def MM_ExpandOp : MM_Op<"expand", [AllElementTypesMatch<["input", "result"]>]> {
  let summary = "ONNX Expand: broadcast input to a shape given as a 1-D i64 tensor";
  let arguments = (ins MM_Tensor:$input, RankedTensorOf<[I64]>:$shape);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = "$input `,` $shape attr-dict `:` type($input) `,` type($shape) `->` type($result)";
  let hasVerifier = 1;
}

def MM_SqueezeOp : MM_Op<"squeeze", [AllElementTypesMatch<["input", "result"]>]> {
  let summary = "remove size-1 dims listed in axes";
  let arguments = (ins MM_Tensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def MM_UnsqueezeOp : MM_Op<"unsqueeze", [AllElementTypesMatch<["input", "result"]>]> {
  let summary = "insert size-1 dims at axes (axes index the result)";
  let arguments = (ins MM_Tensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def MM_FlattenOp : MM_Op<"flatten", [AllElementTypesMatch<["input", "result"]>]> {
  let summary = "reshape to 2-D: [prod(dims[:axis]), prod(dims[axis:])]";
  let arguments = (ins MM_Tensor:$input, DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def MM_TileOp : MM_Op<"tile", [AllElementTypesMatch<["input", "result"]>]> {
  let summary = "ONNX Tile: repeat input repeats[i] times along dim i";
  let arguments = (ins MM_Tensor:$input, RankedTensorOf<[I64]>:$repeats);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = "$input `,` $repeats attr-dict `:` type($input) `,` type($repeats) `->` type($result)";
  let hasVerifier = 1;
}

def MM_PadMode : I32EnumAttr<"PadMode", "ONNX Pad mode",
    [I32EnumAttrCase<"constant", 0>, I32EnumAttrCase<"reflect", 1>,
     I32EnumAttrCase<"edge", 2>, I32EnumAttrCase<"wrap", 3>]> {
  let cppNamespace = "::mm";
  let genSpecializedAttr = 0;
}
def MM_PadModeAttr : EnumAttr<MM_Dialect, MM_PadMode, "pad_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

def MM_PadOp : MM_Op<"pad", [AllElementTypesMatch<["input", "result"]>]> {
  let summary = "ONNX Pad with static pads [begin_0, ..., begin_{r-1}, end_0, ..., end_{r-1}]";
  let description = [{
    Result dim i = input dim i + pads[i] + pads[rank + i]; negative pads crop. Modes:
    `constant` fills with `value` (a one-element tensor of the input's element type, zero
    when absent), `reflect` mirrors without repeating the edge element, `edge` repeats the
    edge element, `wrap` continues cyclically.
  }];
  let arguments = (ins MM_Tensor:$input, Optional<MM_Tensor>:$value, DenseI64ArrayAttr:$pads,
                       DefaultValuedAttr<MM_PadModeAttr, "::mm::PadMode::constant">:$mode);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = [{
    $input (`,` $value^)? attr-dict `:` type($input) (`,` type($value)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def MM_TriluOp : MM_Op<"trilu", [AllElementTypesMatch<["input", "result"]>]> {
  let summary = "ONNX Trilu: keep the upper or lower triangle of the last two dims";
  let arguments = (ins MM_Tensor:$input, DefaultValuedAttr<I64Attr, "0">:$k,
                       DefaultValuedAttr<BoolAttr, "true">:$upper);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def MM_CumSumOp : MM_Op<"cumsum", [SameOperandsAndResultType]> {
  let summary = "ONNX CumSum along a static axis";
  let arguments = (ins MM_Tensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                       DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def MM_RangeOp : MM_Op<"range", [AllElementTypesMatch<["start", "limit", "delta", "result"]>]> {
  let summary = "ONNX Range: [start, start + delta, ...) up to limit; scalar (0-D) operands";
  let arguments = (ins MM_Tensor:$start, MM_Tensor:$limit, MM_Tensor:$delta);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = [{
    $start `,` $limit `,` $delta attr-dict `:` type($start) `,` type($limit) `,` type($delta)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def MM_ConstantOfShapeOp : MM_Op<"constant_of_shape"> {
  let summary = "tensor of a shape given as a 1-D i64 tensor, filled with value";
  let arguments = (ins RankedTensorOf<[I64]>:$shape, TypedAttrInterface:$value);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = "$shape attr-dict `:` type($shape) `->` type($result)";
  let hasVerifier = 1;
}

def MM_ShapeOp : MM_Op<"shape"> {
  let summary = "the shape of input as a 1-D i64 tensor, dims [start, end) (ONNX Shape-15)";
  let arguments = (ins MM_Tensor:$input, DefaultValuedAttr<I64Attr, "0">:$start,
                       OptionalAttr<I64Attr>:$end);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def MM_DimOp : MM_Op<"dim"> {
  let summary = "one dim of input's shape as a tensor<1xi64> (shape[index:index+1])";
  let description = [{
    Produced by shape folding (-mm-fold-shapes) where a shape computation needs the size
    of one dynamic dim, so the graph no longer needs `mm.shape`. `index` is in
    [0, rank). Same value as `mm.shape %input {start = index, end = index + 1}`.
  }];
  let arguments = (ins MM_Tensor:$input, I64Attr:$index);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let assemblyFormat = "$input `[` $index `]` attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

def MM_DequantizeLinearOp : MM_Op<"dequantize_linear"> {
  let summary = "ONNX DequantizeLinear: (x - zero_point) * scale";
  let description = [{
    Per-tensor (scalar scale), per-axis (1-D scale along axis) or blocked (scale has the
    input's rank, block_size elements per scale along axis; group-wise INT4/INT8).
  }];
  let arguments = (ins MM_Tensor:$input, MM_FloatTensor:$scale,
                       Optional<MM_Tensor>:$zero_point,
                       DefaultValuedAttr<I64Attr, "1">:$axis,
                       DefaultValuedAttr<I64Attr, "0">:$block_size);
  let results = (outs MM_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale (`,` $zero_point^)? attr-dict `:` type($input) `,` type($scale)
    (`,` type($zero_point)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def MM_QuantizeLinearOp : MM_Op<"quantize_linear"> {
  let summary = "ONNX QuantizeLinear: saturate(round_half_even(x / scale) + zero_point)";
  let arguments = (ins MM_FloatTensor:$input, MM_FloatTensor:$scale,
                       Optional<MM_Tensor>:$zero_point,
                       DefaultValuedAttr<I64Attr, "1">:$axis,
                       DefaultValuedAttr<I64Attr, "0">:$block_size);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $scale (`,` $zero_point^)? attr-dict `:` type($input) `,` type($scale)
    (`,` type($zero_point)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// High-level transformer ops (produced by fusion)
//===----------------------------------------------------------------------===//

def MM_LayerNormOp : MM_Op<"layer_norm", [AllElementTypesMatch<["input", "scale", "result"]>]> {
  let summary = "layer normalization over dims [axis, rank) (Ba et al. 2016; ONNX LayerNormalization)";
  let description = "y = (x - mean) / sqrt(var + epsilon) * scale + bias; scale/bias shaped like the normalized dims.";
  let arguments = (ins MM_FloatTensor:$input, MM_FloatTensor:$scale,
                       Optional<MM_FloatTensor>:$bias,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs MM_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale (`,` $bias^)? attr-dict `:` type($input) `,` type($scale)
    (`,` type($bias)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def MM_RMSNormOp : MM_Op<"rms_norm", [AllElementTypesMatch<["input", "result"]>]> {
  let summary = "RMS normalization over the last dim (Zhang & Sennrich 2019)";
  let description = [{
    y = x / sqrt(mean(x^2) + epsilon) * (scale_offset + scale), computed in f32.
    scale_offset is 0 for Llama/Qwen2 and 1 for Gemma's (1 + weight) form.
    scale is 1-D, the size of the last dim.
  }];
  let arguments = (ins MM_FloatTensor:$input, MM_FloatTensor:$scale,
                       DefaultValuedAttr<F32Attr, "1.0e-6">:$epsilon,
                       DefaultValuedAttr<F32Attr, "0.0">:$scale_offset);
  let results = (outs MM_FloatTensor:$result);
  let assemblyFormat = "$input `,` $scale attr-dict `:` type($input) `,` type($scale) `->` type($result)";
  let hasVerifier = 1;
}

def MM_AddRMSNormOp : MM_Op<"add_rms_norm",
    [AllElementTypesMatch<["lhs", "rhs", "result", "sum"]>]> {
  let summary = "residual add followed by RMS normalization (produced by -mm-fuse-residual-norm)";
  let description = [{
    sum = lhs + rhs (same shapes, rounded to the element type), then
    result = rms_norm(sum, scale, epsilon, scale_offset) as mm.rms_norm. Both results are
    produced: the normalized value feeds the next block, the sum is the residual stream.
  }];
  let arguments = (ins MM_FloatTensor:$lhs, MM_FloatTensor:$rhs, MM_FloatTensor:$scale,
                       DefaultValuedAttr<F32Attr, "1.0e-6">:$epsilon,
                       DefaultValuedAttr<F32Attr, "0.0">:$scale_offset);
  let results = (outs MM_FloatTensor:$result, MM_FloatTensor:$sum);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $scale attr-dict `:` type($lhs) `,` type($rhs) `,` type($scale) `->`
    type($result) `,` type($sum)
  }];
  let hasVerifier = 1;
}

def MM_AddLayerNormOp : MM_Op<"add_layer_norm",
    [AllElementTypesMatch<["lhs", "rhs", "scale", "result", "sum"]>]> {
  let summary = "residual add followed by layer normalization (produced by -mm-fuse-residual-norm)";
  let description = [{
    sum = lhs + rhs (same shapes, rounded to the element type), then
    result = layer_norm(sum, scale, bias, axis, epsilon) as mm.layer_norm. Both results
    are produced: the normalized value feeds the next block, the sum is the residual stream.
  }];
  let arguments = (ins MM_FloatTensor:$lhs, MM_FloatTensor:$rhs, MM_FloatTensor:$scale,
                       Optional<MM_FloatTensor>:$bias,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs MM_FloatTensor:$result, MM_FloatTensor:$sum);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $scale (`,` $bias^)? attr-dict `:` type($lhs) `,` type($rhs) `,`
    type($scale) (`,` type($bias)^)? `->` type($result) `,` type($sum)
  }];
  let hasVerifier = 1;
}

def MM_GeluOp : MM_Op<"gelu", [SameOperandsAndResultType]> {
  let summary = "GELU (Hendrycks & Gimpel 2016): x * Phi(x), exact (erf) or tanh approximation";
  let arguments = (ins MM_FloatTensor:$input,
                       DefaultValuedAttr<MM_GeluApproxAttr, "::mm::GeluApproximation::none">:$approximate);
  let results = (outs MM_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def MM_QuickGeluOp : MM_UnaryOp<"quick_gelu", MM_FloatTensor,
    "QuickGELU, CLIP's activation: x * sigmoid(1.702 x)">;
def MM_SiluOp : MM_UnaryOp<"silu", MM_FloatTensor, "SiLU / swish: x * sigmoid(x)">;

def MM_SwiGLUOp : MM_Op<"swiglu", [SameOperandsAndResultType]> {
  let summary = "SwiGLU gating (Shazeer 2020): silu(gate) * up";
  let arguments = (ins MM_FloatTensor:$gate, MM_FloatTensor:$up);
  let results = (outs MM_FloatTensor:$result);
  let assemblyFormat = "$gate `,` $up attr-dict `:` type($result)";
}

def MM_GeGLUOp : MM_Op<"geglu", [SameOperandsAndResultType]> {
  let summary = "GeGLU gating (Shazeer 2020): gelu(gate) * up, GELU exact (erf) or tanh-approximated";
  let description = [{
    Gemma's and PaliGemma's MLP (`hidden_act` gelu_pytorch_tanh: `approximate = tanh`).
    Elementwise over same-shape operands; f16/bf16 computed in f32 and rounded once, as
    mm.swiglu.
  }];
  let arguments = (ins MM_FloatTensor:$gate, MM_FloatTensor:$up,
                       DefaultValuedAttr<MM_GeluApproxAttr, "::mm::GeluApproximation::none">:$approximate);
  let results = (outs MM_FloatTensor:$result);
  let assemblyFormat = "$gate `,` $up attr-dict `:` type($result)";
}

def MM_AttentionOp : MM_Op<"attention", [AllElementTypesMatch<["query", "key", "value", "result"]>]> {
  let summary = "scaled dot-product attention (Vaswani et al. 2017), GQA by head-count ratio";
  let description = [{
    query [B, Hq, S, D], key [B, Hkv, T, D], value [B, Hkv, T, Dv] -> [B, Hq, S, Dv].
    Hq must be a multiple of Hkv; query head h reads KV head h / (Hq / Hkv) (GQA, Ainslie
    et al. 2023; MQA when Hkv = 1). softmax(scale * Q K^T + mask) V. `mask` is additive
    (float, same element type) or boolean (true = attend), broadcastable to [B, Hq, S, T].
    `causal` masks key positions t > s + (T - S) (the query block is the last S
    positions of the T keys, as in decode with a KV cache).
  }];
  let arguments = (ins MM_FloatTensor:$query, MM_FloatTensor:$key, MM_FloatTensor:$value,
                       Optional<MM_Tensor>:$mask, F32Attr:$scale,
                       DefaultValuedAttr<BoolAttr, "false">:$causal);
  let results = (outs MM_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`,` $mask^)? attr-dict `:` type($query) `,` type($key) `,`
    type($value) (`,` type($mask)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def MM_RotaryOp : MM_Op<"rotary", [AllElementTypesMatch<["input", "cos", "sin", "result"]>]> {
  let summary = "rotary position embedding (Su et al. 2021, RoFormer)";
  let description = [{
    input [B, H, S, D]; cos and sin [B or 1, S, R] or [S, R] with R <= D, R even (the
    full-width form HF builds: halves duplicated). The first R channels are rotated, the
    rest pass through. Rotate-half (GPT-NeoX/Llama): out = x*cos + rotate_half(x)*sin with
    rotate_half(x) = concat(-x[R/2:], x[:R/2]). Interleaved (GPT-J): pairs (2i, 2i+1).
  }];
  let arguments = (ins MM_FloatTensor:$input, MM_FloatTensor:$cos, MM_FloatTensor:$sin,
                       DefaultValuedAttr<BoolAttr, "false">:$interleaved);
  let results = (outs MM_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $cos `,` $sin attr-dict `:` type($input) `,` type($cos) `,` type($sin)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def MM_LinearOp : MM_Op<"linear", [AllElementTypesMatch<["input", "weight", "result"]>]> {
  let summary = "x W (+ bias), then an optional activation epilogue";
  let description = [{
    input [..., K], weight [K, N] (ONNX MatMul layout), bias [N] -> [..., N].
  }];
  let arguments = (ins MM_FloatTensor:$input, MM_FloatTensor:$weight,
                       Optional<MM_FloatTensor>:$bias,
                       DefaultValuedAttr<MM_ActivationAttr, "::mm::Activation::none">:$activation);
  let results = (outs MM_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` type($input) `,` type($weight)
    (`,` type($bias)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Weights and constants
//===----------------------------------------------------------------------===//

def MM_WeightOp : MM_Op<"weight"> {
  let summary = "a named weight stored outside the IR";
  let description = [{
    `source` is the file holding the raw little-endian bytes (an ONNX external-data file,
    the ONNX model itself for embedded initializers, or a safetensors file); `offset` and
    `length` are in bytes. dtype and shape are the result type. The bytes are read only
    by the plan emitter, which streams them into the plan.
  }];
  let arguments = (ins StrAttr:$name, StrAttr:$source, I64Attr:$offset, I64Attr:$length);
  let results = (outs MM_Tensor:$result);
  let assemblyFormat = "$name `from` $source `[` $offset `,` $length `]` attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def MM_ConstantOp : MM_Op<"constant", [ConstantLike]> {
  let summary = "a small inline constant (shape vectors, scalars, masks)";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs MM_Tensor:$result);
  let hasCustomAssemblyFormat = 1;  // mm.constant dense<...> : tensor<...>
  let hasFolder = 1;
  let hasVerifier = 1;
}

include "mm/MMConformanceOps.td"

#endif // MM_OPS_TD
