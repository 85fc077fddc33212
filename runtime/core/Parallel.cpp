//===- Parallel.cpp - a small thread pool for CPU kernels -------------------===//
#include "runtime/core/Parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace mm::rt {
namespace {

thread_local bool tInsideParallel = false;

int readThreadCount() {
  unsigned hw = std::thread::hardware_concurrency();
  const int fallback = hw ? static_cast<int>(std::min(hw, 256u)) : 1;
  if (const char *env = std::getenv("MM_NUM_THREADS")) {
    char *end = nullptr;
    long v = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && v > 0)
      return static_cast<int>(std::min<long>(v, 256));
    std::fprintf(stderr, "warning: MM_NUM_THREADS='%s' is not a positive integer; using %d threads\n",
                 env, fallback);
  }
  return fallback;
}

/// Workers sleep on a condition variable; a job is a number of chunks that the caller and
/// the workers claim through an atomic counter. One job at a time.
class ThreadPool {
public:
  explicit ThreadPool(int threads) {
    for (int i = 1; i < threads; ++i)
      workers_.emplace_back([this] { workerLoop(); });
  }

  /// False when another thread is running a job (the caller then runs serially).
  bool tryRun(int64_t n, int64_t chunk, int64_t chunks,
              const std::function<void(int64_t, int64_t)> &fn) {
    std::unique_lock<std::mutex> submit(submitMutex_, std::try_to_lock);
    if (!submit.owns_lock())
      return false;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      idle_.wait(lock, [&] { return active_ == 0; });
      fn_ = &fn;
      n_ = n;
      chunk_ = chunk;
      chunks_ = chunks;
      next_.store(0);
      done_ = 0;
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    tInsideParallel = true;
    int64_t mine = workChunks();
    tInsideParallel = false;
    std::unique_lock<std::mutex> lock(mutex_);
    done_ += mine;
    idle_.wait(lock, [&] { return done_ == chunks_ && active_ == 0; });
    fn_ = nullptr;
    if (error_)
      std::rethrow_exception(error_);
    return true;
  }

private:
  /// Claims and runs chunks until none are left; returns how many it ran.
  int64_t workChunks() {
    int64_t ran = 0;
    for (int64_t c; (c = next_.fetch_add(1)) < chunks_; ++ran) {
      int64_t begin = c * chunk_, end = std::min(n_, begin + chunk_);
      try {
        (*fn_)(begin, end);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_)
          error_ = std::current_exception();
      }
    }
    return ran;
  }

  void workerLoop() {
    tInsideParallel = true;
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
      ++active_;
      lock.unlock();
      int64_t ran = workChunks();
      lock.lock();
      done_ += ran;
      --active_;
      idle_.notify_all();
    }
  }

  std::mutex submitMutex_;
  std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::vector<std::thread> workers_;
  uint64_t generation_ = 0;
  int active_ = 0;
  // The current job (written under mutex_ while no worker is active).
  const std::function<void(int64_t, int64_t)> *fn_ = nullptr;
  int64_t n_ = 0, chunk_ = 1, chunks_ = 0, done_ = 0;
  std::atomic<int64_t> next_{0};
  std::exception_ptr error_;
};

ThreadPool &pool() {
  // Deliberately leaked: worker threads sleep until process exit.
  static ThreadPool *p = new ThreadPool(numThreads());
  return *p;
}

} // namespace

int numThreads() {
  static const int n = readThreadCount();
  return n;
}

void parallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)> &fn) {
  if (n <= 0)
    return;
  grain = std::max<int64_t>(grain, 1);
  int threads = numThreads();
  if (n <= grain || threads == 1 || tInsideParallel) {
    fn(0, n);
    return;
  }
  int64_t chunks = std::min<int64_t>((n + grain - 1) / grain, int64_t(threads) * 4);
  int64_t chunk = (n + chunks - 1) / chunks;
  chunks = (n + chunk - 1) / chunk;
  if (!pool().tryRun(n, chunk, chunks, fn))
    fn(0, n);
}

} // namespace mm::rt
