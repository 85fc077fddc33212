//===- Compile.h - `mmc compile` ---------------------------------------------===//
#ifndef MM_TOOLS_MMC_COMPILE_H
#define MM_TOOLS_MMC_COMPILE_H

#include "compiler/import/onnx/OnnxImporter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

#include <map>
#include <string>
#include <vector>

namespace mm {

struct CompileRequest {
  std::string input;      ///< .onnx file, model folder, or .mlir file (textual mm IR)
  std::string output;     ///< plan file
  std::string target = "cpu";
  std::string dtype = "auto"; ///< f32, f16, bf16, or auto: the model's float type (modelFloatType)
  std::string config;     ///< explicit config.json ("" = next to the model)
  std::string from = "auto"; ///< importer: auto, onnx or hf (importModel)
  bool stats = false;     ///< print op counts and plan statistics to stderr
  bool fusion = true;
  /// --bind NAME=V[,V...]: graph inputs replaced by constants (ImportOptions::bindings).
  std::vector<std::string> bindings;
};

/// Parses --bind values "NAME=V[,V...]" (numbers, or true / false) into import bindings.
/// Returns an error message naming the bad one, or "" on success.
std::string parseBindings(const std::vector<std::string> &specs,
                          std::map<std::string, std::vector<double>> &out);

/// The module of `input`: a .mlir file parsed; else with `from` "onnx" the ONNX importer,
/// "hf" the Hugging Face importer (config.json + safetensors), "auto" the ONNX importer for
/// a .onnx file or a folder with ONNX graphs (in it or in onnx/) and the Hugging Face one
/// for a folder with config.json and safetensors but no ONNX graph. Prints diagnostics and
/// returns null on failure (also for an unknown `from`, or bindings with a non-ONNX model).
mlir::OwningOpRef<mlir::ModuleOp> importModel(const std::string &input, const std::string &from,
                                              const ImportOptions &options, mlir::MLIRContext &ctx,
                                              llvm::SourceMgr &sourceMgr);

/// Imports (or parses) the model, runs the compile pipeline, and writes the plan
/// atomically. On failure prints diagnostics, removes any file at `output` (like a C
/// compiler, a failed compile leaves no plan behind) and returns 1; else 0.
int runCompile(const CompileRequest &request);

} // namespace mm

#endif // MM_TOOLS_MMC_COMPILE_H
