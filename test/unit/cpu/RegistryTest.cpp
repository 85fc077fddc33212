//===- RegistryTest.cpp - every mm op has a CPU kernel; the thread pool -----===//
#include "KernelTestUtil.h"

#include "runtime/core/Parallel.h"

#include <atomic>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

using namespace mm::rt;
using namespace mm::rt::cpu;
using namespace mm::rt::cpu::test;

namespace {

/// Op mnemonics (`def MM_XxxOp : MM_Base<"name", ...`) declared in `path` and in the
/// files it includes from the same folder (`include "mm/Other.td"`).
void collectOps(const std::string &path, std::set<std::string> &ops) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  std::regex def(R"(def\s+MM_\w+Op\s*:\s*MM_\w+<\s*"(\w+)\")");
  for (std::sregex_iterator it(s.begin(), s.end(), def), end; it != end; ++it)
    ops.insert((*it)[1]);
  std::regex inc(R"(include\s+"mm/(\w+\.td)\")");
  std::string dir = path.substr(0, path.rfind('/') + 1);
  for (std::sregex_iterator it(s.begin(), s.end(), inc), end; it != end; ++it)
    collectOps(dir + std::string((*it)[1]), ops);
}

std::set<std::string> declaredOps() {
  std::set<std::string> ops;
  collectOps(MM_OPS_TD, ops);
  return ops;
}

TEST(Registry, EveryDialectOpHasAKernel) {
  std::set<std::string> ops = declaredOps();
  ASSERT_GT(ops.size(), 60u) << "could not read the op list from " << MM_OPS_TD;
  // mm.weight is not executed: the plan stores weights as tensors the executor binds.
  ops.erase("weight");
  for (const std::string &op : ops)
    EXPECT_NE(cpuKernels().find("mm." + op), nullptr) << "no CPU kernel for mm." << op;
  for (const std::string &name : cpuKernels().names())
    EXPECT_TRUE(ops.count(name.substr(3))) << name << " is registered but not declared in MMOps.td";
  EXPECT_EQ(cpuKernels().find("mm.no_such_op"), nullptr);
}

TEST(Registry, MissingInputsAndAttributesAreErrors) {
  Tensor x = makeF32({2}, {1, 2});
  expectError([&] { OpRun("mm.add").in(x).out(DType::f32).run1(); },
              "mm.add: expects 2 inputs, got 1");
  expectError([&] { OpRun("mm.transpose").in(x).out(DType::f32).run1(); },
              "missing attribute 'perm'");
  expectError(
      [&] { OpRun("mm.softmax").in(x).attr("axis", std::string("last")).out(DType::f32).run1(); },
      "attribute 'axis' is not an integer");
}

TEST(Parallel, CoversTheRangeOnceAndPropagatesErrors) {
  EXPECT_GE(numThreads(), 1);
  for (int64_t n : {0, 1, 7, 1000, 100003}) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    parallelFor(n, 10, [&](int64_t b, int64_t e) {
      EXPECT_LE(0, b);
      EXPECT_LE(e, n);
      for (int64_t i = b; i < e; ++i)
        hits[i]++;
    });
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(hits[i].load(), 1) << "n " << n << " index " << i;
  }
  // Nested calls run serially inside the outer chunk.
  std::atomic<int64_t> total{0};
  parallelFor(64, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      parallelFor(100, 1, [&](int64_t b2, int64_t e2) { total += e2 - b2; });
  });
  EXPECT_EQ(total.load(), 6400);
  // An exception in any chunk reaches the caller after the others finish; the pool stays usable.
  expectError(
      [] {
        parallelFor(1000, 1, [](int64_t b, int64_t e) {
          if (e > 500) // the chunk holding index 500 (the only one with 1 thread)
            fail("chunk at ", b);
        });
      },
      "chunk at");
  std::atomic<int64_t> after{0};
  parallelFor(1000, 1, [&](int64_t b, int64_t e) { after += e - b; });
  EXPECT_EQ(after.load(), 1000);
}

} // namespace
