//===- CaseRunner.h - one conformance case through mmc and the CPU runtime --===//
//
// A case goes through the same code as `mmc compile` + `mmrun`, in-process:
//   importOnnx(model.onnx) -> verify -> runCompilePipeline -> emitPlan(<tmp>/case.plan)
//   -> Plan::load -> Executor("model").run(test_data_set_0/input_<k>.pb, by position)
//   -> compare output k with output_<k>.pb (by position).
//
// Tolerances per dtype of the reference output (see tolerance()): float within
// |got - want| <= atol + rtol * |want|, NaN only matching NaN and an infinity only the same
// infinity; integers and booleans exactly; dtype and shape always exactly.
//
// Status: a diagnostic or runtime error whose text contains "unsupported" or "not
// supported" makes the case `unsupported` (the message is kept as the tool printed it);
// anything else that goes wrong is `failed`, prefixed by the stage.
//
//===----------------------------------------------------------------------===//
#ifndef MM_TOOLS_MMC_CONFORMANCE_CASERUNNER_H
#define MM_TOOLS_MMC_CONFORMANCE_CASERUNNER_H

#include "tools/mmc-conformance/Cases.h"

#include "runtime/core/DType.h"

#include <memory>
#include <string>

namespace mmconf {

struct Tolerance {
  double atol = 0, rtol = 0;
};

/// The comparison tolerance for reference outputs of dtype `t`:
///  - f32, f64: atol 1e-5, rtol 1e-3 (issue 5);
///  - f16: atol 1e-3, rtol 4e-3: the reference was rounded once to f16 (unit roundoff
///    2^-11 ~ 4.9e-4) while mmc's kernels round their inputs and result separately, so a
///    few ulps (one f16 ulp is 2^-10 ~ 9.8e-4 relative) must pass; atol covers results
///    near zero, where f16 is subnormal below 6.1e-5;
///  - bf16: atol 1e-2, rtol 3e-2: same reasoning with bf16's 8-bit significand (one ulp
///    2^-7 ~ 7.8e-3 relative);
///  - integers and bool: exact (atol = rtol = 0).
Tolerance tolerance(mm::rt::DType t);

/// Runs cases one after the other in this process, reusing one MLIRContext. Plans are
/// written under `tmpDir` (created if needed) and removed after each case.
class CaseRunner {
public:
  /// `rootPrefix` is removed from messages (so they name "test_x/model.onnx", not an
  /// absolute path).
  CaseRunner(std::string tmpDir, std::string rootPrefix);
  ~CaseRunner();
  CaseRunner(const CaseRunner &) = delete;
  CaseRunner &operator=(const CaseRunner &) = delete;

  /// Runs `c`. Never throws: every error becomes a `failed` or `unsupported` result.
  CaseResult run(const Case &c);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace mmconf

#endif // MM_TOOLS_MMC_CONFORMANCE_CASERUNNER_H
