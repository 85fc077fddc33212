//===- MMOpsExtra.td - selection, element gathers and modulo --------------===//
//
// Ops added for ONNX conformance (issue 5): ArgMax / ArgMin, TopK, GatherElements and
// Mod. Included from MMOps.td; semantics follow the ONNX operator of the same name.
//
//===----------------------------------------------------------------------===//
#ifndef MM_OPS_EXTRA_TD
#define MM_OPS_EXTRA_TD

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

#endif // MM_OPS_EXTRA_TD
