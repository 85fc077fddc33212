//===- Expected.h - the expected-status list and the CI gate ----------------===//
//
// test/conformance/expected.tsv records every case that does not pass, one per line:
//   <case> TAB <failed|unsupported> TAB <reason>
// ('#' lines are comments). A case not listed is expected to pass. The gate compares a
// run with the list: it fails on any regression (a case expected to pass that does not),
// on any case that now passes but is still listed (the list must be kept exact), and on
// any case whose status changed between failed and unsupported. Reasons are informative
// and are not compared.
//
//===----------------------------------------------------------------------===//
#ifndef MM_TOOLS_MMC_CONFORMANCE_EXPECTED_H
#define MM_TOOLS_MMC_CONFORMANCE_EXPECTED_H

#include "tools/mmc-conformance/Cases.h"

#include <map>
#include <string>
#include <vector>

namespace mmconf {

struct ExpectedEntry {
  Status status = Status::failed;
  std::string reason;
};

using ExpectedList = std::map<std::string, ExpectedEntry>;

/// Reads `path`; throws mm::rt::Error naming the file and line of a malformed entry, a
/// `passed` entry (passing cases are not listed) or a repeated case.
ExpectedList readExpected(const std::string &path);

/// `list` with the entries of the cases that ran replaced by their results (passing
/// cases removed, others recorded with their message); other entries are kept.
ExpectedList updateExpected(ExpectedList list, const std::vector<Case> &cases,
                            const std::vector<CaseResult> &results);

/// Writes `list` as `path` (sorted by case, with a header comment), atomically. Throws
/// mm::rt::Error.
void writeExpected(const std::string &path, const ExpectedList &list);

/// Differences between a run and the list.
struct GateReport {
  struct Item {
    std::string name;
    Status expected, got;
    std::string message;  ///< the run's message
  };
  std::vector<Item> regressions;   ///< expected passed, got failed/unsupported
  std::vector<Item> newlyPassing;  ///< listed, but passed
  std::vector<Item> changed;       ///< failed <-> unsupported
  std::vector<std::string> unknown; ///< listed cases that are not in the suite
  bool ok() const {
    return regressions.empty() && newlyPassing.empty() && changed.empty() && unknown.empty();
  }
};

/// Compares `results` (of `cases`) with `expected`. `fullRun` = every case of the suite
/// ran, so list entries naming no case are reported as unknown.
GateReport checkGate(const std::vector<Case> &cases, const std::vector<CaseResult> &results,
                     const ExpectedList &expected, bool fullRun);

} // namespace mmconf

#endif // MM_TOOLS_MMC_CONFORMANCE_EXPECTED_H
