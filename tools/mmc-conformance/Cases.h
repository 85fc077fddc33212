//===- Cases.h - the ONNX backend node test cases and their results ---------===//
//
// The cases are the folders test_* of an onnx-node folder (a copy of onnx's
// onnx/backend/test/data/node, see ../shared/conformance/onnx-node/SOURCE.md): each has
// model.onnx and test_data_set_0/{input,output}_<k>.pb. INDEX.tsv in that folder gives
// each case's tested op, opset and dtypes.
//
//===----------------------------------------------------------------------===//
#ifndef MM_TOOLS_MMC_CONFORMANCE_CASES_H
#define MM_TOOLS_MMC_CONFORMANCE_CASES_H

#include <string>
#include <vector>

namespace mmconf {

/// One case, with its INDEX.tsv row.
struct Case {
  std::string name;         ///< folder name, e.g. "test_add_bcast"
  std::string dir;          ///< absolute folder path
  std::string testedOp;     ///< op the case tests ("Add"; "ai.onnx.ml:Binarizer" outside ai.onnx)
  int opset = -1;           ///< default-domain opset import (-1 when the model has none)
  bool expanded = false;    ///< an *_expanded* case (the op's function body as plain nodes)
  std::string inputDtypes;  ///< "FLOAT,INT64" as in INDEX.tsv
  std::string outputDtypes;
};

enum class Status { passed, failed, unsupported };

/// "passed", "failed" or "unsupported".
const char *statusName(Status s);
/// Inverse of statusName; returns false for any other text.
bool parseStatus(const std::string &text, Status &out);

/// The outcome of running one case.
struct CaseResult {
  Status status = Status::failed;
  /// One line: for `unsupported` the compiler's own message; for `failed` the stage
  /// ("import", "compile", "emit", "load", "run", "compare", "crash", "timeout") and what
  /// went wrong; empty for `passed`.
  std::string message;
  /// "bound at compile time: <inputs>" when graph inputs were made constants
  /// (BindInputs.h); else empty.
  std::string note;
  /// The plan's function has no op: the compiler computed every output (constant
  /// folding), so the case checks the importer and the folder, not a runtime kernel.
  bool noRuntimeOps = false;
  double ms = 0;  ///< wall time of the case
};

/// Reads the cases of `root` (its test_* folders, sorted by name) with their INDEX.tsv
/// rows. Throws mm::rt::Error when INDEX.tsv is missing or malformed, or when a folder
/// has no row.
std::vector<Case> readCases(const std::string &root);

} // namespace mmconf

#endif // MM_TOOLS_MMC_CONFORMANCE_CASES_H
