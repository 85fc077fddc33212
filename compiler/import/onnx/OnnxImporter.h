//===- OnnxImporter.h - ONNX models into the `mm` dialect -----------------===//
//
// The ONNX importer (ONNX IR spec: https://onnx.ai/onnx/repo-docs/IR.html; operators:
// https://onnx.ai/onnx/operators/). Supported: ai.onnx opsets 13..21 for the ops that
// ViT / LLM exports use, Attention / RotaryEmbedding / RMSNormalization from opset 23,
// weights embedded or in external data (one file with offsets, or one file per tensor).
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_IMPORT_ONNX_ONNXIMPORTER_H
#define MM_COMPILER_IMPORT_ONNX_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>
#include <vector>

namespace mm {

/// What the importer is told besides the model.
struct ImportOptions {
  /// Graph inputs replaced by constants (`mmc compile --bind NAME=V,V,...`): name -> the
  /// values in row-major order, for the input's declared shape (one value fills it; a
  /// rank-1 input of unknown size takes as many as given). Each name must be an input of
  /// one of the graphs imported.
  std::map<std::string, std::vector<double>> bindings;
};

/// Whether folder `folder` (or its onnx/ subfolder) holds an .onnx file (the folders
/// importOnnx takes).
bool holdsOnnxGraphs(llvm::StringRef folder);

/// Imports an ONNX model into a new module of `mm` ops.
///
/// `path` is one `.onnx` file (one func.func named after the file stem, e.g. `model`) or a
/// folder holding vision_encoder.onnx / embed_tokens.onnx / decoder_model_merged.onnx
/// directly or in an `onnx/` subfolder (one func.func per graph present, in that order).
///
/// IR produced:
///  - func arguments and results carry `mm.name` (the ONNX value name) and `mm.dims` (one
///    StringAttr per dim: the ONNX dim_param, "" for a fixed or unnamed dim);
///  - every value has a ranked tensor type, static dims where known, `?` otherwise;
///  - initializers become `mm.weight` (file, byte offset, byte length; the bytes are never
///    read) except small ones (<= 16 elements, integer tensors <= 1024 elements, or stored
///    in typed fields), which become `mm.constant`, like ONNX Constant nodes;
///  - op locations are NameLoc(node name) around FileLineColLoc(model file).
///
///  - a bound input (options.bindings) is an `mm.constant`, not an argument. Optimum's
///    merged decoders take a bool `use_cache_branch` that selects, in an If, the graph
///    with past key/values or the one without: unless bound otherwise it is bound to true
///    (a remark says so), since mmrun keeps a KV cache and feeds an empty past to the
///    prefill, which the with-past graph takes; an If whose condition is then known
///    imports its taken branch only.
///
/// Errors (unsupported op, malformed or truncated file, missing external data, data past
/// the end of a file, inconsistent shapes, a binding of an unknown input or of the wrong
/// number of values) are reported as MLIR diagnostics located at the file / node, and the
/// call returns failure. The caller's context must allow loading dialects (the mm and func
/// dialects are loaded here).
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
importOnnx(llvm::StringRef path, mlir::MLIRContext &ctx, const ImportOptions &options = {});

} // namespace mm

#endif // MM_COMPILER_IMPORT_ONNX_ONNXIMPORTER_H
