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
    Runs right after import and -mm-fold-shapes (which removes the ops that pass a value
    on unchanged between a KV-cache input and its concat); after it nothing matches
    tensor names (the model contract: mm/ModelContract.h). Value roles come from the names the exporters use
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
    pass. Example (%x: tensor<?x?x64xf32> with `mm.dims = ["batch", "seq", ""]`):
      %s = mm.shape %x : tensor<?x?x64xf32> -> tensor<3xi64>
      %i = mm.constant dense<0> : tensor<i64>
      %b = mm.gather %s, %i {axis = 0 : i64} : tensor<3xi64>, tensor<i64> -> tensor<i64>
      %u = mm.unsqueeze %b {axes = array<i64: 0>} : tensor<i64> -> tensor<1xi64>
      %t = mm.constant dense<[-1, 4, 16]> : tensor<3xi64>
      %sh = mm.concat %u, %t {axis = 0 : i64} : tensor<1xi64>, tensor<3xi64> -> tensor<4xi64>
      %r = mm.reshape %x, %sh : tensor<?x?x64xf32>, tensor<4xi64> -> tensor<?x?x?x?xf32>
    becomes
      %sh = mm.constant dense<[0, -1, 4, 16]> : tensor<4xi64>
      %r = mm.reshape %x, %sh : tensor<?x?x64xf32>, tensor<4xi64> -> tensor<?x?x4x16xf32>
    when %r is not returned (a transpose reads it).
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
    Mul, optional scale and bias, optional casts around it. Example (epsilon 1e-5,
    mm.layer_norm's default, so not printed):
      %m = mm.reduce_mean %x {axes = array<i64: -1>} : tensor<4x8xf32> -> tensor<4x1xf32>
      %d = mm.sub %x, %m : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
      %sq = mm.mul %d, %d : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
      %v = mm.reduce_mean %sq {axes = array<i64: -1>} : tensor<4x8xf32> -> tensor<4x1xf32>
      %eps = mm.constant dense<1.0e-5> : tensor<f32>
      %ve = mm.add %v, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
      %s = mm.sqrt %ve : tensor<4x1xf32>
      %n = mm.div %d, %s : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
      %y = mm.mul %n, %g : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
      %z = mm.add %y, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
    becomes
      %z = mm.layer_norm %x, %g, %b : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
          -> tensor<4x8xf32>
    See FuseLayerNorm.cpp.
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
    Example (x * x and Div; epsilon 1e-6, mm.rms_norm's default, so not printed):
      %p = mm.mul %x, %x : tensor<4x32xf32>, tensor<4x32xf32> -> tensor<4x32xf32>
      %ms = mm.reduce_mean %p {axes = array<i64: -1>} : tensor<4x32xf32> -> tensor<4x1xf32>
      %eps = mm.constant dense<1.0e-6> : tensor<f32>
      %a = mm.add %ms, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
      %s = mm.sqrt %a : tensor<4x1xf32>
      %n = mm.div %x, %s : tensor<4x32xf32>, tensor<4x1xf32> -> tensor<4x32xf32>
      %y = mm.mul %w, %n : tensor<32xf32>, tensor<4x32xf32> -> tensor<4x32xf32>
    becomes
      %y = mm.rms_norm %x, %w : tensor<4x32xf32>, tensor<32xf32> -> tensor<4x32xf32>
    See FuseRMSNorm.cpp.
  }];
  let dependentDialects = ["::mm::MMDialect"];
  let options = [
    Option<"reportNearMisses", "report-near-misses", "bool", /*default=*/"false",
           "Emit a remark for each block that starts like this pattern but is not raised">,
  ];
}

def FuseActivations : Pass<"mm-fuse-activations", "::mlir::func::FuncOp"> {
  let summary = "Raise GELU (erf, tanh), QuickGELU, SiLU, SwiGLU and GeGLU decompositions";
  let description = [{
    0.5 x (1 + erf(x / sqrt 2)) -> mm.gelu; the tanh form -> mm.gelu<tanh>;
    x sigmoid(1.702 x) -> mm.quick_gelu; x sigmoid(x) -> mm.silu;
    silu(gate) * up -> mm.swiglu; gelu(gate) * up -> mm.geglu. Example (the erf form):
      %c = mm.constant dense<1.41421354> : tensor<f32>
      %d = mm.div %x, %c : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
      %e = mm.erf %d : tensor<4x8xf32>
      %one = mm.constant dense<1.0> : tensor<f32>
      %a = mm.add %e, %one : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
      %m = mm.mul %x, %a : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
      %half = mm.constant dense<0.5> : tensor<f32>
      %y = mm.mul %m, %half : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
    becomes
      %y = mm.gelu %x : tensor<4x8xf32>
    See FuseActivations.cpp.
  }];
  let dependentDialects = ["::mm::MMDialect"];
}

def FuseRotary : Pass<"mm-fuse-rotary", "::mlir::func::FuncOp"> {
  let summary = "Raise rotate-half rotary embeddings (Slice, Neg, Concat, Mul, Add) to mm.rotary";
  let description = [{
    x * cos + concat(-x[D/2:], x[:D/2]) * sin -> mm.rotary(x, cos, sin), and the partial
    form concat(rotary(x[:R]), x[R:]) -> mm.rotary(x). Example (D = 8, cos and sin
    tensor<5x8xf32> [S, D] tables):
      %c0 = mm.constant dense<0> : tensor<1xi64>
      %c4 = mm.constant dense<4> : tensor<1xi64>
      %c8 = mm.constant dense<8> : tensor<1xi64>
      %ax = mm.constant dense<-1> : tensor<1xi64>
      %st = mm.constant dense<1> : tensor<1xi64>
      %lo = mm.slice %x, %c0, %c4, %ax, %st : tensor<1x2x5x8xf32>, tensor<1xi64>, tensor<1xi64>,
          tensor<1xi64>, tensor<1xi64> -> tensor<1x2x5x4xf32>
      %hi = mm.slice %x, %c4, %c8, %ax, %st : tensor<1x2x5x8xf32>, tensor<1xi64>, tensor<1xi64>,
          tensor<1xi64>, tensor<1xi64> -> tensor<1x2x5x4xf32>
      %n = mm.neg %hi : tensor<1x2x5x4xf32>
      %r = mm.concat %n, %lo {axis = -1 : i64} : tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>
          -> tensor<1x2x5x8xf32>
      %xc = mm.mul %x, %cos : tensor<1x2x5x8xf32>, tensor<5x8xf32> -> tensor<1x2x5x8xf32>
      %rs = mm.mul %r, %sin : tensor<1x2x5x8xf32>, tensor<5x8xf32> -> tensor<1x2x5x8xf32>
      %y = mm.add %xc, %rs : tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x5x8xf32>
    becomes
      %y = mm.rotary %x, %cos, %sin : tensor<1x2x5x8xf32>, tensor<5x8xf32>, tensor<5x8xf32>
          -> tensor<1x2x5x8xf32>
    See FuseRotary.cpp.
  }];
  let dependentDialects = ["::mm::MMDialect"];
}

def FuseAttention : Pass<"mm-fuse-attention", "::mlir::func::FuncOp"> {
  let summary = "Raise scaled dot-product attention (MatMul, scale, mask, Softmax, MatMul) to mm.attention";
  let description = [{
    Q K^T in the TorchScript (Transpose) and dynamo (Reshape, Transpose, Reshape) forms,
    scalar scales on Q, K or the scores (Mul or Div), an additive or boolean mask,
    Softmax over the last axis, torch's Where(IsNaN) guard, and GQA's repeat_kv
    (Unsqueeze, Expand, Reshape) folded into the head ratio. Example (the scale 0.5 on
    the scores, an additive mask %m):
      %kt = mm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x4xf32>
          -> tensor<1x2x4x5xf32>
      %s = mm.matmul %q, %kt : tensor<1x2x5x4xf32>, tensor<1x2x4x5xf32> -> tensor<1x2x5x5xf32>
      %c = mm.constant dense<0.5> : tensor<f32>
      %ss = mm.mul %s, %c : tensor<1x2x5x5xf32>, tensor<f32> -> tensor<1x2x5x5xf32>
      %sm = mm.add %ss, %m : tensor<1x2x5x5xf32>, tensor<1x1x5x5xf32> -> tensor<1x2x5x5xf32>
      %p = mm.softmax %sm {axis = -1 : i64} : tensor<1x2x5x5xf32>
      %o = mm.matmul %p, %v : tensor<1x2x5x5xf32>, tensor<1x2x5x4xf32> -> tensor<1x2x5x4xf32>
    becomes
      %o = mm.attention %q, %k, %v, %m {scale = 5.000000e-01 : f32} : tensor<1x2x5x4xf32>,
          tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>, tensor<1x1x5x5xf32> -> tensor<1x2x5x4xf32>
    See FuseAttention.cpp.
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
    an mm.concat of their weights, split after. Example (Q and K projections of one input):
      %wq = mm.weight "q" from "m.onnx" [0, 16384] : tensor<64x64xf32>
      %wk = mm.weight "k" from "m.onnx" [16384, 8192] : tensor<64x32xf32>
      %q = mm.matmul %x, %wq : tensor<?x64xf32>, tensor<64x64xf32> -> tensor<?x64xf32>
      %k = mm.matmul %x, %wk : tensor<?x64xf32>, tensor<64x32xf32> -> tensor<?x32xf32>
    becomes (the weights kept; %s#0 and %s#1 replace %q and %k)
      %w = mm.concat %wq, %wk {axis = 1 : i64} : tensor<64x64xf32>, tensor<64x32xf32>
          -> tensor<64x96xf32>
      %l = mm.linear %x, %w : tensor<?x64xf32>, tensor<64x96xf32> -> tensor<?x96xf32>
      %s:2 = mm.split %l {axis = 1 : i64, sizes = array<i64: 64, 32>} : tensor<?x96xf32>
          -> tensor<?x64xf32>, tensor<?x32xf32>
    See FuseLinear.cpp and docs/fusion.md.
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
    (the normalized value and the sum). Example:
      %sum = mm.add %h, %o : tensor<4x64xf32>, tensor<4x64xf32> -> tensor<4x64xf32>
      %y = mm.rms_norm %sum, %w : tensor<4x64xf32>, tensor<64xf32> -> tensor<4x64xf32>
      %next = mm.add %sum, %y : tensor<4x64xf32>, tensor<4x64xf32> -> tensor<4x64xf32>
    becomes
      %y, %sum = mm.add_rms_norm %h, %o, %w : tensor<4x64xf32>, tensor<4x64xf32>,
          tensor<64xf32> -> tensor<4x64xf32>, tensor<4x64xf32>
      %next = mm.add %sum, %y : tensor<4x64xf32>, tensor<4x64xf32> -> tensor<4x64xf32>
    See FuseResidualNorm.cpp.
  }];
  let dependentDialects = ["::mm::MMDialect"];
}

def FuseAll : Pass<"mm-fuse-all", "::mlir::func::FuncOp"> {
  let summary = "Run every fusion pass in order (the compile pipeline's fusion step)";
  let description = [{
    attention, layer-norm, rms-norm, activations, rotary, linear, residual-norm: the
    passes addFusionPasses() adds (see Passes.h and docs/fusion.md). Example (a Llama MLP's
    gate and up: -mm-fuse-activations raises silu(gate) * up to mm.swiglu first, so the gate
    projection gets no silu epilogue and merges with the up projection):
      %wg = mm.weight "gate" from "m.onnx" [0, 45056] : tensor<64x176xf32>
      %wu = mm.weight "up" from "m.onnx" [45056, 45056] : tensor<64x176xf32>
      %g = mm.matmul %x, %wg : tensor<?x64xf32>, tensor<64x176xf32> -> tensor<?x176xf32>
      %sg = mm.sigmoid %g : tensor<?x176xf32>
      %silu = mm.mul %g, %sg : tensor<?x176xf32>, tensor<?x176xf32> -> tensor<?x176xf32>
      %u = mm.matmul %x, %wu : tensor<?x64xf32>, tensor<64x176xf32> -> tensor<?x176xf32>
      %y = mm.mul %silu, %u : tensor<?x176xf32>, tensor<?x176xf32> -> tensor<?x176xf32>
    becomes (the weights kept)
      %w = mm.concat %wg, %wu {axis = 1 : i64} : tensor<64x176xf32>, tensor<64x176xf32>
          -> tensor<64x352xf32>
      %l = mm.linear %x, %w : tensor<?x64xf32>, tensor<64x352xf32> -> tensor<?x352xf32>
      %gu:2 = mm.split %l {axis = 1 : i64, sizes = array<i64: 176, 176>} : tensor<?x352xf32>
          -> tensor<?x176xf32>, tensor<?x176xf32>
      %y = mm.swiglu %gu#0, %gu#1 : tensor<?x176xf32>
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

def LowerPatchEmbedding : Pass<"mm-lower-patch-embedding", "::mlir::func::FuncOp"> {
  let summary = "Write a ViT patch-embedding convolution as im2col + mm.linear over a plan-held [K, O] weight";
  let description = [{
    For `mmc compile --target cuda`, before -mm-plan-cuda-graphs. A 2-D mm.conv whose
    strides are its kernel (no padding, dilation 1, one group), whose input has static
    channels, height and width that the kernel tiles, whose weight the plan holds
    (mm/WeightExpr.h) and whose result type is the static [B, O, H / kh, W / kw] becomes
    reshape + transpose of the input into patches [B, Hp*Wp, C*kh*kw], mm.linear with the
    weight reshaped to [O, C*kh*kw] and transposed to [C*kh*kw, O] (both folded into the
    plan's weight blob), and reshape + transpose of the result back to [B, O, Hp, Wp]. The
    weight's layout is so decided at compile time, not at the runtime's load. Other
    convolutions are left alone; `report-near-misses` adds a remark saying why. Example
    (a 4x4-patch embedding of an 8x8 RGB image):
      %w = mm.weight "patch" from "m.bin"[0, 1536] : tensor<8x3x4x4xf32>
      %y = mm.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
                           strides = array<i64: 4, 4>}
          : tensor<1x3x8x8xf32>, tensor<8x3x4x4xf32> -> tensor<1x8x2x2xf32>
    becomes
      %p = mm.reshape %x, %s0 : ... -> tensor<1x3x2x4x2x4xf32>
      %q = mm.transpose %p {perm = array<i64: 0, 2, 4, 1, 3, 5>} : ... -> tensor<1x2x2x3x4x4xf32>
      %c = mm.reshape %q, %s1 : ... -> tensor<1x4x48xf32>
      %r = mm.reshape %w, %s2 : ... -> tensor<8x48xf32>
      %t = mm.transpose %r {perm = array<i64: 1, 0>} : ... -> tensor<48x8xf32>
      %l = mm.linear %c, %t : tensor<1x4x48xf32>, tensor<48x8xf32> -> tensor<1x4x8xf32>
      %o = mm.reshape %l, %s3 : ... -> tensor<1x2x2x8xf32>
      %y = mm.transpose %o {perm = array<i64: 0, 3, 1, 2>} : ... -> tensor<1x8x2x2xf32>
  }];
  let dependentDialects = ["::mm::MMDialect"];
  let options = [
    Option<"reportNearMisses", "report-near-misses", "bool", /*default=*/"false",
           "Emit a remark for each convolution that is not lowered, saying why">,
  ];
}

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
    or operands that are not ranked tensors. Example (a host op reading a device value
    ends segment 0):
      %w = mm.weight "w" from "m.bin" [0, 256] : tensor<8x8xf32>
      %l = mm.linear %x, %w : tensor<2x8xf32>, tensor<8x8xf32> -> tensor<2x8xf32>
      %i = mm.argmax %l {axis = 1 : i64} : tensor<2x8xf32> -> tensor<2x1xi64>
      %r = mm.relu %l : tensor<2x8xf32>
    becomes (mm.weight unchanged, the function given
      attributes {mm.segments = [
          {end = "host op mm.argmax reads a device value", first = 0 : i64, last = 0 : i64},
          {end = "end of function", first = 2 : i64, last = 2 : i64}
      ]}
    )
      %l = mm.linear %x, %w {mm.placement = "device", mm.segment = 0 : i64}
          : tensor<2x8xf32>, tensor<8x8xf32> -> tensor<2x8xf32>
      %i = mm.argmax %l {axis = 1 : i64, mm.placement = "host"} : tensor<2x8xf32>
          -> tensor<2x1xi64>
      %r = mm.relu %l {mm.placement = "device", mm.segment = 1 : i64} : tensor<2x8xf32>
  }];
  let dependentDialects = ["::mm::MMDialect"];
}

def PlanCudaFusion : Pass<"mm-plan-cuda-fusion", "::mlir::func::FuncOp"> {
  let summary = "Decide the fused launches of the CUDA decode step (mm.fusion on ops)";
  let description = [{
    Runs after -mm-plan-cuda-graphs in `mmc compile --target cuda`, over the ops the plan
    holds (those with mm.placement), in order, and sets `mm.fusion = [names]`, written
    into the plan as Op.fusion (runtime/cuda/OpCapabilities.h, CudaFusion; see
    PlanCudaFusion.cpp): feeds_next_linear (a device op whose first result only the next
    op, a device mm.linear, reads, as its input), rotary_pair_with_next (two device
    mm.rotary in a row with the same cos/sin), append_into_attention (a KV-cache append
    whose result and its partner's only one device mm.attention reads, as key and value),
    rotary_into_attention (a pair whose query only that attention reads and whose key
    only the attention's key append reads). Functions without mm.segments are left as
    they are. Example (placements and segments elided):
      %n = mm.rms_norm %x, %w : ...
      %y = mm.linear %n, %wq : ...
    becomes
      %n = mm.rms_norm %x, %w {mm.fusion = ["feeds_next_linear"]} : ...
      %y = mm.linear %n, %wq : ...
  }];
  let dependentDialects = ["::mm::MMDialect"];
}

#endif // MM_TRANSFORMS_PASSES_TD
