//===- Parallel.h - a small thread pool for CPU kernels ---------------------===//
//
// One process-wide pool of worker threads. The thread count is MM_NUM_THREADS when set
// (a positive integer), else std::thread::hardware_concurrency(). The calling thread
// takes part in the work, so a pool of N threads starts N - 1 workers.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CORE_PARALLEL_H
#define MM_RUNTIME_CORE_PARALLEL_H

#include <cstdint>
#include <functional>

namespace mm::rt {

/// Threads used by parallelFor (>= 1), read once from MM_NUM_THREADS or the hardware.
int numThreads();

/// Runs fn(begin, end) on disjoint chunks covering [0, n), in parallel when that pays.
///
/// Each chunk holds at least `grain` items (except possibly the last), so `grain` is the
/// smallest amount of work worth a thread hand-off. Runs serially (one call fn(0, n)) when
/// n <= grain, when the pool has one thread, or when called from inside another
/// parallelFor (no nested parallelism). Returns when every chunk is done. If chunks throw,
/// the first exception is rethrown in the caller after the others finish.
void parallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)> &fn);

} // namespace mm::rt

#endif // MM_RUNTIME_CORE_PARALLEL_H
