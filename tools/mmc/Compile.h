//===- Compile.h - `mmc compile` ---------------------------------------------===//
#ifndef MM_TOOLS_MMC_COMPILE_H
#define MM_TOOLS_MMC_COMPILE_H

#include <map>
#include <string>
#include <vector>

namespace mm {

struct CompileRequest {
  std::string input;      ///< .onnx file, model folder, or .mlir file (textual mm IR)
  std::string output;     ///< plan file
  std::string target = "cpu";
  std::string dtype = "auto"; ///< f32, f16, bf16, or auto: the weights' float type (modelFloatType)
  std::string config;     ///< explicit config.json ("" = next to the model)
  bool stats = false;     ///< print op counts and plan statistics to stderr
  bool fusion = true;
  /// --bind NAME=V[,V...]: graph inputs replaced by constants (ImportOptions::bindings).
  std::vector<std::string> bindings;
};

/// Parses --bind values "NAME=V[,V...]" (numbers, or true / false) into import bindings.
/// Returns an error message naming the bad one, or "" on success.
std::string parseBindings(const std::vector<std::string> &specs,
                          std::map<std::string, std::vector<double>> &out);

/// Imports (or parses) the model, runs the compile pipeline, and writes the plan
/// atomically. On failure prints diagnostics, removes any file at `output` (like a C
/// compiler, a failed compile leaves no plan behind) and returns 1; else 0.
int runCompile(const CompileRequest &request);

} // namespace mm

#endif // MM_TOOLS_MMC_COMPILE_H
