//===- MMBase.td - the `mm` dialect, its enums and base classes ----------===//
#ifndef MM_BASE_TD
#define MM_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def MM_Dialect : Dialect {
  let name = "mm";
  let cppNamespace = "::mm";
  let summary = "Tensor-level ops for multimodal transformer inference";
  let description = [{
    Ops on builtin ranked tensors (dynamic dims allowed). Elementwise ops follow ONNX
    (numpy) multidirectional broadcasting. Weights are referenced with `mm.weight`, never
    stored as dense attributes; `mm.constant` holds small inline values (shapes, scalars).

    The model contract (mm/ModelContract.h, set by -mm-raise-model-contract): `mm.role` on
    a func.func (vision_encoder, embedding, decoder) and on its arguments and results
    (input_ids, inputs_embeds, attention_mask, position_ids, pixel_values, image_features,
    logits, kv_past, kv_present, image_grid_thw), and `mm.kv = {layer, kind}` on KV-cache tensors. The
    dialect verifies them.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
}

class MM_Op<string mnemonic, list<Trait> traits = []>
    : Op<MM_Dialect, mnemonic, !listconcat([Pure], traits)>;

// Activation applied by high-level ops (gelu approximations, linear epilogues).
def MM_GeluApprox : I32EnumAttr<"GeluApproximation", "GELU approximation",
    [I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"tanh", 1>]> {
  let cppNamespace = "::mm";
  let genSpecializedAttr = 0;
}
def MM_GeluApproxAttr : EnumAttr<MM_Dialect, MM_GeluApprox, "gelu_approx"> {
  let assemblyFormat = "`<` $value `>`";
}

def MM_Activation : I32EnumAttr<"Activation", "linear epilogue activation",
    [I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"gelu", 1>,
     I32EnumAttrCase<"gelu_tanh", 2>, I32EnumAttrCase<"quick_gelu", 3>,
     I32EnumAttrCase<"silu", 4>, I32EnumAttrCase<"relu", 5>]> {
  let cppNamespace = "::mm";
  let genSpecializedAttr = 0;
}
def MM_ActivationAttr : EnumAttr<MM_Dialect, MM_Activation, "activation"> {
  let assemblyFormat = "`<` $value `>`";
}

def MM_Tensor : RankedTensorOf<[AnyType]>;
def MM_FloatTensor : RankedTensorOf<[AnyFloat]>;
def MM_IntTensor : RankedTensorOf<[AnySignlessInteger]>;
def MM_BoolTensor : RankedTensorOf<[I1]>;

#endif // MM_BASE_TD
