//===- mmc-conformance.cpp - the ONNX backend node tests through mmc -------===//
//
// Runs the ONNX backend node test cases through the importer, the compile pipeline, the
// plan emitter and the CPU runtime (CaseRunner.h) in a few worker processes
// (WorkerPool.h), prints `N passed, N failed, N unsupported` on a line of its own and
// checks every case's status against the expected-status list (Expected.h).
// --update-expected rewrites that list and docs/onnx-support.md instead.
//
// Exit status: 0 when the gate passes (or after --update-expected), 1 when it fails or
// on a usage/IO error, 77 when the case folder does not exist (ctest SKIP_RETURN_CODE; 1
// when the environment has CI=true, where the shared folder must be present).
//
//===----------------------------------------------------------------------===//
#include "tools/mmc-conformance/CaseRunner.h"
#include "tools/mmc-conformance/Cases.h"
#include "tools/mmc-conformance/Expected.h"
#include "tools/mmc-conformance/SupportDoc.h"
#include "tools/mmc-conformance/WorkerPool.h"

#include "runtime/core/Error.h"
#include "runtime/io/FileUtil.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <regex>
#include <thread>

namespace fs = std::filesystem;
using namespace mmconf;

namespace {

constexpr int kSkipStatus = 77;

struct Options {
  std::string root = MM_SOURCE_DIR "/../shared/conformance/onnx-node";
  std::string expected = MM_SOURCE_DIR "/test/conformance/expected.tsv";
  std::string docs = MM_SOURCE_DIR "/docs/onnx-support.md";
  std::string filter;               ///< regex on case names ("" = all)
  std::vector<std::string> names;   ///< explicit cases ("" = all)
  int jobs = 0;                     ///< 0 = hardware threads
  double timeout = 60;
  bool update = false, verbose = false;
};

void usage(std::ostream &os) {
  os << "usage: mmc-conformance [options] [test_name...]\n"
        "Runs the ONNX backend node tests through mmc (import, pipeline, plan) and the CPU\n"
        "runtime, prints 'N passed, N failed, N unsupported' and checks every case against\n"
        "the expected-status list.\n"
        "  --root DIR          case folder (default ../shared/conformance/onnx-node)\n"
        "  --expected FILE     expected-status list (default test/conformance/expected.tsv)\n"
        "  --docs FILE         support page written by --update-expected\n"
        "                      (default docs/onnx-support.md)\n"
        "  --update-expected   rewrite the list (and, on a full run, the support page)\n"
        "  --filter REGEX      run only the cases whose name matches REGEX\n"
        "  -j, --jobs N        worker processes (default: hardware threads)\n"
        "  --timeout SECONDS   per case (default 60)\n"
        "  -v, --verbose       print every case's result\n"
        "Exit status: 0 gate passed, 1 gate failed or error, 77 case folder absent.\n";
}

bool parseArgs(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *name) -> std::string {
      if (i + 1 >= argc)
        mm::rt::fail(name, " needs a value");
      return argv[++i];
    };
    if (a == "--root")
      o.root = value("--root");
    else if (a == "--expected")
      o.expected = value("--expected");
    else if (a == "--docs")
      o.docs = value("--docs");
    else if (a == "--filter")
      o.filter = value("--filter");
    else if (a == "-j" || a == "--jobs")
      o.jobs = std::stoi(value("--jobs"));
    else if (a == "--timeout")
      o.timeout = std::stod(value("--timeout"));
    else if (a == "--update-expected")
      o.update = true;
    else if (a == "-v" || a == "--verbose")
      o.verbose = true;
    else if (a == "-h" || a == "--help") {
      usage(std::cout);
      return false;
    } else if (!a.empty() && a[0] == '-')
      mm::rt::fail("unknown option '", a, "' (see --help)");
    else
      o.names.push_back(a);
  }
  if (o.jobs < 0 || o.timeout <= 0)
    mm::rt::fail("--jobs must be >= 0 and --timeout > 0");
  return true;
}

std::vector<Case> selectCases(const std::vector<Case> &all, const Options &o) {
  std::vector<Case> out;
  std::regex re(o.filter.empty() ? ".*" : o.filter);
  for (const Case &c : all) {
    bool named = o.names.empty() ||
                 std::find(o.names.begin(), o.names.end(), c.name) != o.names.end();
    if (named && std::regex_search(c.name, re))
      out.push_back(c);
  }
  for (const std::string &n : o.names)
    if (std::none_of(all.begin(), all.end(), [&](const Case &c) { return c.name == n; }))
      mm::rt::fail("no case named '", n, "' in ", o.root);
  return out;
}

void printItems(const char *title, const std::vector<GateReport::Item> &items) {
  if (items.empty())
    return;
  std::cout << "  " << items.size() << " " << title << ":\n";
  for (const GateReport::Item &it : items)
    std::cout << "    " << it.name << ": expected " << statusName(it.expected) << ", got "
              << statusName(it.got) << (it.message.empty() ? "" : ": " + it.message) << "\n";
}

int run(const Options &o) {
  if (!fs::is_directory(o.root)) {
    // In CI the shared folder must be there: a missing one fails rather than skips.
    const char *ci = std::getenv("CI");
    bool inCi = ci && std::string(ci) == "true";
    std::cout << "mmc-conformance: " << (inCi ? "error" : "skipped") << ": no ONNX node test cases at '"
              << o.root << "' (the shared data folder ../shared is absent"
              << (inCi ? ", and CI=true requires it" : "") << ")\n";
    return inCi ? 1 : kSkipStatus;
  }
  std::vector<Case> all = readCases(o.root);
  std::vector<Case> cases = selectCases(all, o);
  bool fullRun = cases.size() == all.size();
  ExpectedList expected;
  if (fs::exists(o.expected) || !o.update)
    expected = readExpected(o.expected);

  char tmpl[] = "/tmp/mmc-conformance-XXXXXX";
  if (!::mkdtemp(tmpl))
    mm::rt::fail("cannot create a temporary folder under /tmp");
  PoolOptions pool;
  pool.jobs = o.jobs > 0 ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  pool.timeoutSeconds = o.timeout;
  std::string tmpDir = tmpl;
  std::string rootPrefix = fs::absolute(o.root).lexically_normal().string() + "/";
  WorkerFactory factory = [&]() -> CaseFn {
    auto runner = std::make_shared<CaseRunner>(tmpDir, rootPrefix);
    return [runner](const Case &c) { return runner->run(c); };
  };

  auto start = std::chrono::steady_clock::now();
  std::vector<CaseResult> results =
      runInWorkers(cases, pool, factory, [&](size_t i, const CaseResult &r) {
        if (o.verbose)
          std::cout << cases[i].name << ": " << statusName(r.status) << " (" << int(r.ms)
                    << " ms" << (r.note.empty() ? "" : ", " + r.note) << ")"
                    << (r.message.empty() ? "" : ": " + r.message) << std::endl;
      });
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::error_code ec;
  fs::remove_all(tmpl, ec);

  Summary sum = summarize(results);
  std::cout << summaryLine(sum) << "\n";
  size_t bound = std::count_if(results.begin(), results.end(), [](const CaseResult &r) {
    return r.status == Status::passed && !r.note.empty();
  });
  size_t folded = std::count_if(results.begin(), results.end(), [](const CaseResult &r) {
    return r.status == Status::passed && r.noRuntimeOps;
  });
  std::cout << "(" << cases.size() << " of " << all.size() << " cases, " << pool.jobs
            << " workers, " << static_cast<int>(seconds + 0.5) << " s; " << bound
            << " passed with shape-parameter inputs bound at compile time, " << folded
            << " passed folded to no runtime op)\n";

  if (o.update) {
    writeExpected(o.expected, updateExpected(expected, cases, results));
    std::cout << "wrote " << o.expected << "\n";
    if (fullRun) {
      mm::rt::io::writeFileAtomic(o.docs, supportMarkdown(cases, results));
      std::cout << "wrote " << o.docs << "\n";
    } else {
      std::cout << "not a full run: " << o.docs << " left as it is\n";
    }
    return 0;
  }

  GateReport gate = checkGate(cases, results, expected, fullRun);
  if (gate.ok()) {
    std::cout << "gate: OK: every case has the status " << o.expected << " gives it\n";
    return 0;
  }
  std::cout << "gate: FAILED against " << o.expected << "\n";
  printItems("regressions (expected to pass)", gate.regressions);
  printItems("newly passing cases still listed (run --update-expected)", gate.newlyPassing);
  printItems("cases whose status changed", gate.changed);
  if (!gate.unknown.empty()) {
    std::cout << "  " << gate.unknown.size() << " listed cases that do not exist:";
    for (const std::string &n : gate.unknown)
      std::cout << " " << n;
    std::cout << "\n";
  }
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  // One worker per core: kernels run single-threaded inside a worker.
  ::setenv("MM_NUM_THREADS", "1", /*overwrite=*/0);
  try {
    Options o;
    if (!parseArgs(argc, argv, o))
      return 0;
    return run(o);
  } catch (const std::exception &e) {
    std::cerr << "mmc-conformance: error: " << e.what() << "\n";
    return 1;
  }
}
