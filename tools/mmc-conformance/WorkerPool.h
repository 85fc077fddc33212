//===- WorkerPool.h - run cases in forked worker processes ------------------===//
//
// Isolation for the conformance run: `jobs` worker processes, each forked from the
// driver and running cases one at a time with the case function its factory made after
// the fork (mmc-conformance: a CaseRunner, so one MLIRContext per worker, reused across
// its cases). The driver hands out case indices through a pipe
// per worker and reads one result line back per case. A worker that dies (signal or
// exit) fails its current case with the signal named ("crash: killed by SIGSEGV
// (Segmentation fault)"); a case that runs past the timeout fails with "timeout" and
// its worker is killed. Either way a fresh worker takes over the remaining cases.
//
//===----------------------------------------------------------------------===//
#ifndef MM_TOOLS_MMC_CONFORMANCE_WORKERPOOL_H
#define MM_TOOLS_MMC_CONFORMANCE_WORKERPOOL_H

#include "tools/mmc-conformance/Cases.h"

#include <functional>
#include <string>
#include <vector>

namespace mmconf {

struct PoolOptions {
  int jobs = 2;               ///< worker processes (>= 1)
  double timeoutSeconds = 60; ///< per case
};

/// Runs one case in a worker; must not throw (a throw ends the worker: a crash).
using CaseFn = std::function<CaseResult(const Case &)>;
/// Called once in each worker, after the fork, to make its CaseFn.
using WorkerFactory = std::function<CaseFn()>;

/// Runs every case of `cases` and returns their results in the same order. `onResult`
/// (may be empty) is called in the driver as each result arrives. Throws mm::rt::Error
/// when the pipes or processes cannot be created.
std::vector<CaseResult> runInWorkers(const std::vector<Case> &cases, const PoolOptions &options,
                                     const WorkerFactory &factory,
                                     const std::function<void(size_t, const CaseResult &)> &onResult);

} // namespace mmconf

#endif // MM_TOOLS_MMC_CONFORMANCE_WORKERPOOL_H
