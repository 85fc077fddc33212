//===- Passes.td - the mmc compiler passes --------------------------------===//
//
// One pass per file in compiler/transforms; each is declared here and registered with
// mmc-opt through registerMMPasses().
//
//===----------------------------------------------------------------------===//
#ifndef MM_TRANSFORMS_PASSES_TD
#define MM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def RaiseModelContract : Pass<"mm-raise-model-contract", "::mlir::ModuleOp"> {
  let summary = "Raise the exporters' tensor names into function and value roles and KV-cache pairs";
  let description = [{
    Runs first, right after import; after it nothing matches tensor names (the model
    contract: mm/ModelContract.h). Value roles come from the names the exporters use
    (input_ids, inputs_embeds, attention_mask, position_ids, pixel_values; logits,
    image_features), each only on a tensor of a fitting type. A past_key_values.<i>.<k>
    (or past.<i>.<k>) argument and the present.<i>.<k> (or present_key_values.<i>.<k>)
    result that is concat(past, new) along axis 1 or 2 of rank-4 tensors become a
    KV-cache pair: roles kv_past / kv_present and `mm.kv = {layer, kind}`; an unpaired
    past argument gets a warning saying why. Function roles come from the signatures
    (decoder: a KV pair, logits and inputs_embeds or input_ids; embedding: input_ids in,
    one float rank-3 result out; vision_encoder: pixel_values in, image features out);
    two functions that fit one role get neither. Example:
      func.func @decoder_model_merged(%e: tensor<1x?x8xf32> {mm.name = "inputs_embeds"},
          %p: tensor<1x2x?x4xf32> {mm.name = "past_key_values.0.key"})
          -> (tensor<1x?x16xf32> {mm.name = "logits"},
              tensor<1x2x?x4xf32> {mm.name = "present.0.key"})
    becomes
      func.func @decoder_model_merged(
          %e: tensor<1x?x8xf32> {mm.name = "inputs_embeds", mm.role = "inputs_embeds"},
          %p: tensor<1x2x?x4xf32> {mm.kv = {kind = "key", layer = 0 : i64},
                                   mm.name = "past_key_values.0.key", mm.role = "kv_past"})
          -> (tensor<1x?x16xf32> {mm.name = "logits", mm.role = "logits"},
              tensor<1x2x?x4xf32> {mm.kv = {kind = "key", layer = 0 : i64},
                                   mm.name = "present.0.key", mm.role = "kv_present"})
          attributes {mm.role = "decoder"}
    when the second result is `mm.concat %p, %new {axis = 2}`. See RaiseModelContract.cpp.
  }];
  let dependentDialects = ["::mm::MMDialect"];
}

def FoldShapes : Pass<"mm-fold-shapes", "::mlir::func::FuncOp"> {
  let summary = "Fold the shape computations of exported graphs; express dynamic ones by dims";
  let description = [{
    Exporters compute shapes at run time (Shape -> Gather -> Unsqueeze -> Concat ->
    Reshape / Expand, ConstantOfShape, Range, Equal/Where for torch's -1). This pass
    - infers every value's dims symbolically (static sizes, the ONNX dim names of the
      function arguments from `mm.dims`, sums, products and broadcasts of them) and
      refines result types that become static (never the function signature, nor values
      returned or used by ops of other dialects);
    - folds ops whose operands are constants into `mm.constant` (results of at most
      `max-elements` elements; transcendental float ops are not folded);
    - rewrites small integer tensors whose elements it can express from dims (shape
      vectors, scalars) as concatenations of constants and `mm.dim` ops, so no
      `mm.shape` remains; Equal/Where/Max/Min/comparisons on them fold when dims are
      known to be >= 0;
    - gives Reshape ONNX's 0 (copy a dim of the input) and -1 (infer) entries and Expand
      1 entries where a shape entry equals the input's dim, so they need no shape
      computation, and removes reshapes / expands / casts / concats that do nothing;
    - removes dead `mm` ops and common subexpressions.
    Errors (a reshape that changes the element count, an expand of 3 to 4, a static
    result type that contradicts its operands...) are reported at the op and fail the
    pass.
  }];
  let dependentDialects = ["::mm::MMDialect"];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", /*default=*/"1024",
           "Largest constant (in elements) the pass creates by folding">,
  ];
}

//===----------------------------------------------------------------------===//
// Fusion (raising exported subgraphs to transformer building blocks; docs/fusion.md)
//===----------------------------------------------------------------------===//

def FuseLayerNorm : Pass<"mm-fuse-layer-norm", "::mlir::func::FuncOp"> {
  let summary = "Raise decomposed LayerNorm (ReduceMean, Sub, Pow, Sqrt, Div, Mul, Add) to mm.layer_norm";
  let description = [{
    mean / variance over trailing axes, epsilon from the graph, Sqrt + Div or Reciprocal +
    Mul, optional scale and bias, optional casts around it. See FuseLayerNorm.cpp.
  }];
  let dependentDialects = ["::mm::MMDialect"];
  let options = [
    Option<"reportNearMisses", "report-near-misses", "bool", /*default=*/"false",
           "Emit a remark for each block that starts like this pattern but is not raised">,
  ];
}

def FuseRMSNorm : Pass<"mm-fuse-rms-norm", "::mlir::func::FuncOp"> {
  let summary = "Raise the Llama/Qwen2/Gemma RMSNorm decompositions to mm.rms_norm";
  let description = [{
    Cast to f32, Pow 2 (or x*x), ReduceMean over the last axis, Add eps, Sqrt with Div
    or Reciprocal, Mul, Cast back, Mul by the weight (or by 1 + weight: scale_offset 1).
    See FuseRMSNorm.cpp.
  }];
  let dependentDialects = ["::mm::MMDialect"];
  let options = [
    Option<"reportNearMisses", "report-near-misses", "bool", /*default=*/"false",
           "Emit a remark for each block that starts like this pattern but is not raised">,
  ];
}

def FuseActivations : Pass<"mm-fuse-activations", "::mlir::func::FuncOp"> {
  let summary = "Raise GELU (erf, tanh), QuickGELU, SiLU and SwiGLU decompositions";
  let description = [{
    0.5 x (1 + erf(x / sqrt 2)) -> mm.gelu; the tanh form -> mm.gelu<tanh>;
    x sigmoid(1.702 x) -> mm.quick_gelu; x sigmoid(x) -> mm.silu;
    silu(gate) * up -> mm.swiglu. See FuseActivations.cpp.
  }];
  let dependentDialects = ["::mm::MMDialect"];
}

def FuseRotary : Pass<"mm-fuse-rotary", "::mlir::func::FuncOp"> {
  let summary = "Raise rotate-half rotary embeddings (Slice, Neg, Concat, Mul, Add) to mm.rotary";
  let description = [{
    x * cos + concat(-x[D/2:], x[:D/2]) * sin -> mm.rotary(x, cos, sin), and the partial
    form concat(rotary(x[:R]), x[R:]) -> mm.rotary(x). See FuseRotary.cpp.
  }];
  let dependentDialects = ["::mm::MMDialect"];
}

def FuseAttention : Pass<"mm-fuse-attention", "::mlir::func::FuncOp"> {
  let summary = "Raise scaled dot-product attention (MatMul, scale, mask, Softmax, MatMul) to mm.attention";
  let description = [{
    Q K^T in the TorchScript (Transpose) and dynamo (Reshape, Transpose, Reshape) forms,
    scalar scales on Q, K or the scores (Mul or Div), an additive or boolean mask,
    Softmax over the last axis, torch's Where(IsNaN) guard, and GQA's repeat_kv
    (Unsqueeze, Expand, Reshape) folded into the head ratio. See FuseAttention.cpp.
  }];
  let dependentDialects = ["::mm::MMDialect"];
  let options = [
    Option<"reportNearMisses", "report-near-misses", "bool", /*default=*/"false",
           "Emit a remark for each block that starts like this pattern but is not raised">,
  ];
}

def FuseLinear : Pass<"mm-fuse-linear", "::mlir::func::FuncOp"> {
  let summary = "Raise MatMul by a weight (+ bias) to mm.linear, absorb activations, merge projections";
  let description = [{
    MatMul(x, W) [+ b] -> mm.linear; a following gelu / quick_gelu / silu / relu becomes
    its epilogue; linears reading one input (Q/K/V, gate/up) merge into one linear over
    an mm.concat of their weights, split after. See FuseLinear.cpp and docs/fusion.md.
  }];
  let dependentDialects = ["::mm::MMDialect"];
  let options = [
    Option<"mergeProjections", "merge-projections", "bool", /*default=*/"true",
           "Merge linears that read the same input into one linear + split">,
  ];
}

def FuseResidualNorm : Pass<"mm-fuse-residual-norm", "::mlir::func::FuncOp"> {
  let summary = "Fuse a residual add and the norm of its sum into mm.add_rms_norm / mm.add_layer_norm";
  let description = [{
    add(a, b) of one type feeding mm.rms_norm or mm.layer_norm -> one op with two results
    (the normalized value and the sum). See FuseResidualNorm.cpp.
  }];
  let dependentDialects = ["::mm::MMDialect"];
}

def FuseAll : Pass<"mm-fuse-all", "::mlir::func::FuncOp"> {
  let summary = "Run every fusion pass in order (the compile pipeline's fusion step)";
  let description = [{
    attention, layer-norm, rms-norm, activations, rotary, linear, residual-norm: the
    passes addFusionPasses() adds (see Passes.h and docs/fusion.md).
  }];
  let dependentDialects = ["::mm::MMDialect"];
  let options = [
    Option<"reportNearMisses", "report-near-misses", "bool", /*default=*/"false",
           "Emit a remark for each block that starts like this pattern but is not raised">,
  ];
}

//===----------------------------------------------------------------------===//
// Compute type
//===----------------------------------------------------------------------===//

def ConvertFloatType : Pass<"mm-convert-float-type", "::mlir::func::FuncOp"> {
  let summary = "Compute in one float type (f32, f16 or bf16): every other float type converted, signature kept";
  let description = [{
    Arguments of another float type (f32, f16 or bf16; f64 stays) are cast to `to` on
    entry and results cast back to their type before the return (except the KV cache:
    arguments and results with roles kv_past / kv_present take `to` themselves); every mm.weight
    of another float type gets a cast (folded into a converted weight by the plan emitter);
    an op with an activation operand (computed from a float argument or a weight) is
    converted (its other float operands cast, its float results retyped). Values computed
    only from integer arguments and constants (position ids -> rotary cos/sin, attention
    masks) keep their type until they meet activations, where they are cast (from their
    f32 source when the graph rounded it first). Runs after fusion, so an fp16 export's f32
    islands, already inside fused ops, and its f32 residual stream end in the one type.
    Example (to=bf16), an f16 argument meeting an f32 weight through the graph's cast:
      %xf = mm.cast %x : tensor<2x4xf16> -> tensor<2x4xf32>
      %y = mm.matmul %xf, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
    becomes
      %xc = mm.cast %x : tensor<2x4xf16> -> tensor<2x4xbf16>
      %wc = mm.cast %w : tensor<4x4xf32> -> tensor<4x4xbf16>
      %xf = mm.cast %xc : tensor<2x4xbf16> -> tensor<2x4xbf16>   (folded by canonicalize)
      %y = mm.matmul %xf, %wc : tensor<2x4xbf16>, tensor<4x4xbf16> -> tensor<2x4xbf16>
      %r = mm.cast %y : tensor<2x4xbf16> -> tensor<2x4xf32>      (the f32 result returned)
    See ConvertFloatType.cpp.
  }];
  let dependentDialects = ["::mm::MMDialect"];
  let options = [
    Option<"to", "to", "std::string", /*default=*/"\"bf16\"", "Target type: f32, f16 or bf16">,
  ];
}

//===----------------------------------------------------------------------===//
// CUDA target
//===----------------------------------------------------------------------===//

def PlanCudaGraphs : Pass<"mm-plan-cuda-graphs", "::mlir::func::FuncOp"> {
  let summary = "Place each op on the host or the GPU and split the launches into CUDA-graph segments";
  let description = [{
    Runs last in `mmc compile --target cuda` (docs/cuda-graphs.md). Residency: integer
    and i1 arguments and mm.constant results live on the host, other arguments and
    mm.weight results on the device (weights keep their host copy in the mapped plan, so
    a host op may read them without a sync). An op runs on the device when the CUDA
    executor implements it (the table kDeviceOps of runtime/cuda/OpCapabilities.h,
    whose names the executor's launch table holds) and one of its data operands is on the device; otherwise on the
    host (mm.dim and mm.shape, which read only shapes, always on the host); a cheap
    device op (layout, elementwise, cast) reading only weights and host values whose
    results only host ops read moves to the host (no download needed). A host op that
    reads a device value, or a device op whose shape operand (reshape / expand shape,
    slice starts / ends / axes / steps) is on the device, forces a download: it ends the
    current segment. Segments are the maximal runs of device ops between such points.
    Sets `mm.placement` ("host" / "device") on every op the plan holds, `mm.segment`
    (i64) on device ops, and on the function `mm.segments`: one dictionary
    {first, last, end} per segment, first / last counting the ops the plan emitter
    writes (not mm.weight, mm.constant, nor the weight concats and casts it folds) and
    end the reason the segment ends ("end of function", "host op <name> reads a device
    value", "data-dependent shape"). Fails on ops of other dialects and on arguments
    or operands that are not ranked tensors.
  }];
  let dependentDialects = ["::mm::MMDialect"];
}

#endif // MM_TRANSFORMS_PASSES_TD
