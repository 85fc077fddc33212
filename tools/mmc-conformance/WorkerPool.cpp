//===- WorkerPool.cpp - run cases in forked worker processes ----------------===//
#include "tools/mmc-conformance/WorkerPool.h"

#include "runtime/core/Error.h"

#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>

using mm::rt::fail;
using Clock = std::chrono::steady_clock;

namespace mmconf {
namespace {

/// Writes all of `text` to `fd`; false when the reader is gone.
bool writeAll(int fd, const std::string &text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

/// "index\tstatus\tms\tnoRuntimeOps\tnote\tmessage\n" (note and message have no tabs
/// or newlines: CaseRunner flattens them).
std::string encodeResult(size_t index, const CaseResult &r) {
  std::ostringstream os;
  os << index << '\t' << statusName(r.status) << '\t' << r.ms << '\t' << (r.noRuntimeOps ? 1 : 0)
     << '\t' << r.note << '\t' << r.message << '\n';
  return os.str();
}

bool decodeResult(const std::string &line, size_t &index, CaseResult &r) {
  size_t t[5];
  size_t from = 0;
  for (size_t &pos : t) {
    pos = line.find('\t', from);
    if (pos == std::string::npos)
      return false;
    from = pos + 1;
  }
  index = std::stoul(line.substr(0, t[0]));
  r.ms = std::stod(line.substr(t[1] + 1, t[2] - t[1] - 1));
  r.noRuntimeOps = line.substr(t[2] + 1, t[3] - t[2] - 1) == "1";
  r.note = line.substr(t[3] + 1, t[4] - t[3] - 1);
  r.message = line.substr(t[4] + 1);
  return parseStatus(line.substr(t[0] + 1, t[1] - t[0] - 1), r.status);
}

/// The worker's loop: read a case index per line from `in`, run it, write the result
/// line to `out`; exits when `in` closes.
[[noreturn]] void workerMain(int in, int out, const std::vector<Case> &cases,
                             const WorkerFactory &factory) {
  CaseFn runCase = factory();
  std::string buffer;
  char chunk[256];
  while (true) {
    size_t nl;
    while ((nl = buffer.find('\n')) == std::string::npos) {
      ssize_t n = ::read(in, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        _exit(0);
      buffer.append(chunk, static_cast<size_t>(n));
    }
    size_t index = std::stoul(buffer.substr(0, nl));
    buffer.erase(0, nl + 1);
    CaseResult r = runCase(cases[index]);
    if (!writeAll(out, encodeResult(index, r)))
      _exit(1);
  }
}

std::string signalText(int sig) {
  static const std::pair<int, const char *> names[] = {
      {SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"}, {SIGFPE, "SIGFPE"}, {SIGBUS, "SIGBUS"},
      {SIGILL, "SIGILL"},   {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGTRAP, "SIGTRAP"}};
  std::string name = "signal " + std::to_string(sig);
  for (const auto &[number, text] : names)
    if (number == sig)
      name = text;
  const char *description = strsignal(sig);
  return description ? name + " (" + description + ")" : name;
}

struct Worker {
  pid_t pid = -1;
  int cmdFd = -1;   ///< driver -> worker: case indices
  int resFd = -1;   ///< worker -> driver: result lines
  long current = -1; ///< case running, or -1
  Clock::time_point started;
  std::string buffer;
};

class Pool {
public:
  Pool(const std::vector<Case> &cases, const PoolOptions &options, const WorkerFactory &factory,
       const std::function<void(size_t, const CaseResult &)> &onResult)
      : cases_(cases), options_(options), factory_(factory), onResult_(onResult),
        results_(cases.size()), done_(cases.size(), false) {}

  std::vector<CaseResult> run() {
    size_t jobs = std::max<size_t>(1, std::min<size_t>(options_.jobs, cases_.size()));
    workers_.resize(jobs);
    for (Worker &w : workers_)
      start(w);
    while (finished_ < cases_.size()) {
      for (Worker &w : workers_)
        if (w.pid > 0 && w.current < 0)
          dispatch(w);
      waitForResults();
    }
    for (Worker &w : workers_)
      stop(w);
    return results_;
  }

private:
  void start(Worker &w) {
    int cmd[2], res[2];
    if (::pipe(cmd) != 0 || ::pipe(res) != 0)
      fail("cannot create a pipe: ", std::strerror(errno));
    std::fflush(stdout);
    std::fflush(stderr);
    pid_t pid = ::fork();
    if (pid < 0)
      fail("cannot fork a worker: ", std::strerror(errno));
    if (pid == 0) {
      ::close(cmd[1]);
      ::close(res[0]);
      for (const Worker &other : workers_) { // the siblings' pipe ends are not ours
        if (other.cmdFd >= 0)
          ::close(other.cmdFd);
        if (other.resFd >= 0)
          ::close(other.resFd);
      }
      workerMain(cmd[0], res[1], cases_, factory_);
    }
    ::close(cmd[0]);
    ::close(res[1]);
    w = Worker();
    w.pid = pid;
    w.cmdFd = cmd[1];
    w.resFd = res[0];
  }

  void stop(Worker &w) {
    if (w.pid <= 0)
      return;
    ::close(w.cmdFd);
    ::close(w.resFd);
    int status;
    ::waitpid(w.pid, &status, 0);
    w.pid = -1;
  }

  void dispatch(Worker &w) {
    if (next_ >= cases_.size())
      return;
    size_t index = next_++;
    w.current = static_cast<long>(index);
    w.started = Clock::now();
    if (!writeAll(w.cmdFd, std::to_string(index) + "\n"))
      workerDied(w); // reported as a crash of this case
  }

  void record(size_t index, CaseResult r) {
    if (done_[index])
      return;
    done_[index] = true;
    ++finished_;
    results_[index] = std::move(r);
    if (onResult_)
      onResult_(index, results_[index]);
  }

  /// The worker is gone (EOF on its result pipe): reap it, fail its case, replace it.
  void workerDied(Worker &w) {
    ::close(w.cmdFd);
    ::close(w.resFd);
    int status = 0;
    ::waitpid(w.pid, &status, 0);
    if (w.current >= 0) {
      CaseResult r;
      r.status = Status::failed;
      r.ms = std::chrono::duration<double, std::milli>(Clock::now() - w.started).count();
      if (WIFSIGNALED(status))
        r.message = "crash: the worker was killed by " + signalText(WTERMSIG(status));
      else
        r.message = "crash: the worker exited with status " +
                    std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
      record(static_cast<size_t>(w.current), std::move(r));
    }
    w = Worker();
    if (next_ < cases_.size())
      start(w);
  }

  void timedOut(Worker &w) {
    ::kill(w.pid, SIGKILL);
    ::close(w.cmdFd);
    ::close(w.resFd);
    int status;
    ::waitpid(w.pid, &status, 0);
    CaseResult r;
    r.status = Status::failed;
    r.ms = options_.timeoutSeconds * 1000;
    r.message = "timeout: no result after " + std::to_string(int(options_.timeoutSeconds)) +
                " s (the worker was killed)";
    record(static_cast<size_t>(w.current), std::move(r));
    w = Worker();
    if (next_ < cases_.size())
      start(w);
  }

  void readFrom(Worker &w) {
    char chunk[4096];
    ssize_t n = ::read(w.resFd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      return;
    if (n <= 0) {
      workerDied(w);
      return;
    }
    w.buffer.append(chunk, static_cast<size_t>(n));
    size_t nl;
    while ((nl = w.buffer.find('\n')) != std::string::npos) {
      std::string line = w.buffer.substr(0, nl);
      w.buffer.erase(0, nl + 1);
      size_t index;
      CaseResult r;
      if (!decodeResult(line, index, r) || index >= cases_.size())
        fail("a worker sent a malformed result line: '", line, "'");
      record(index, std::move(r));
      w.current = -1;
    }
  }

  void waitForResults() {
    std::vector<pollfd> fds;
    std::vector<Worker *> owners;
    auto now = Clock::now();
    int waitMs = 1000;
    for (Worker &w : workers_) {
      if (w.pid <= 0)
        continue;
      fds.push_back({w.resFd, POLLIN, 0});
      owners.push_back(&w);
      if (w.current >= 0) {
        auto deadline = w.started + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(options_.timeoutSeconds));
        if (deadline <= now) {
          timedOut(w);
          return;
        }
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
        waitMs = std::min<int>(waitMs, static_cast<int>(left) + 1);
      }
    }
    if (fds.empty())
      fail("no worker is running but ", cases_.size() - finished_, " cases are unfinished");
    int n = ::poll(fds.data(), fds.size(), waitMs);
    if (n < 0 && errno != EINTR)
      fail("poll failed: ", std::strerror(errno));
    for (size_t i = 0; n > 0 && i < fds.size(); ++i)
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR))
        readFrom(*owners[i]);
  }

  const std::vector<Case> &cases_;
  const PoolOptions &options_;
  const WorkerFactory &factory_;
  const std::function<void(size_t, const CaseResult &)> &onResult_;
  std::vector<Worker> workers_;
  std::vector<CaseResult> results_;
  std::vector<bool> done_;
  size_t next_ = 0, finished_ = 0;
};

} // namespace

std::vector<CaseResult> runInWorkers(const std::vector<Case> &cases, const PoolOptions &options,
                                     const WorkerFactory &factory,
                                     const std::function<void(size_t, const CaseResult &)> &onResult) {
  ::signal(SIGPIPE, SIG_IGN); // a worker that died must not take the driver with it
  if (cases.empty())
    return {};
  return Pool(cases, options, factory, onResult).run();
}

} // namespace mmconf
