//===- Passes.td - the mmc compiler passes --------------------------------===//
//
// One pass per file in compiler/transforms; each is declared here and registered with
// mmc-opt through registerMMPasses().
//
//===----------------------------------------------------------------------===//
#ifndef MM_TRANSFORMS_PASSES_TD
#define MM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

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

#endif // MM_TRANSFORMS_PASSES_TD
