//===- SupportDoc.h - docs/onnx-support.md from a conformance run ----------===//
#ifndef MM_TOOLS_MMC_CONFORMANCE_SUPPORTDOC_H
#define MM_TOOLS_MMC_CONFORMANCE_SUPPORTDOC_H

#include "tools/mmc-conformance/Cases.h"

#include <string>
#include <vector>

namespace mmconf {

/// Counts of a run.
struct Summary {
  size_t passed = 0, failed = 0, unsupported = 0;
};

Summary summarize(const std::vector<CaseResult> &results);

/// "N passed, N failed, N unsupported"
std::string summaryLine(const Summary &s);

/// The markdown of docs/onnx-support.md for a full run: the summary, the comparison
/// tolerances, one table row per tested op (opsets of its passing and of all its cases,
/// passed/total for plain and _expanded cases, gaps) and every non-passing case with its
/// status and reason, grouped by op.
std::string supportMarkdown(const std::vector<Case> &cases, const std::vector<CaseResult> &results);

} // namespace mmconf

#endif // MM_TOOLS_MMC_CONFORMANCE_SUPPORTDOC_H
