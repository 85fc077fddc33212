//===- ConformanceToolTest.cpp - parts of mmc-conformance -------------------===//
//
// The worker pool's isolation (a crash, an exit or a timeout fails only its case and the
// run goes on), the expected-status list and its gate, and the binding of graph inputs
// the importer asks to be constants.
//
//===----------------------------------------------------------------------===//
#include "tools/mmc-conformance/BindInputs.h"
#include "tools/mmc-conformance/CaseRunner.h"
#include "tools/mmc-conformance/Expected.h"
#include "tools/mmc-conformance/SupportDoc.h"
#include "tools/mmc-conformance/WorkerPool.h"

#include "runtime/core/Error.h"
#include "runtime/io/FileUtil.h"

#include "onnx.pb.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <thread>
#include <unistd.h>

using namespace mmconf;
namespace fs = std::filesystem;

namespace {

std::vector<Case> namedCases(const std::vector<std::string> &names) {
  std::vector<Case> out;
  for (const std::string &n : names) {
    Case c;
    c.name = n;
    out.push_back(c);
  }
  return out;
}

/// A case function that does what the case name says.
CaseFn scripted() {
  return [](const Case &c) {
    if (c.name == "segv")
      std::raise(SIGSEGV);
    if (c.name == "exit3")
      _exit(3);
    if (c.name == "slow")
      std::this_thread::sleep_for(std::chrono::seconds(30));
    CaseResult r;
    r.status = c.name.rfind("bad", 0) == 0 ? Status::failed : Status::passed;
    r.message = r.status == Status::failed ? "compare: " + c.name : "";
    r.note = c.name == "bound" ? "bound at compile time: axes" : "";
    return r;
  };
}

TEST(WorkerPool, CrashesExitsAndTimeoutsFailOnlyTheirCase) {
  std::vector<Case> cases =
      namedCases({"a", "segv", "b", "exit3", "bad1", "slow", "bound", "c", "d", "e"});
  PoolOptions options;
  options.jobs = 2;
  options.timeoutSeconds = 2;
  size_t reported = 0;
  std::vector<CaseResult> r =
      runInWorkers(cases, options, [] { return scripted(); },
                   [&](size_t, const CaseResult &) { ++reported; });
  ASSERT_EQ(r.size(), cases.size());
  EXPECT_EQ(reported, cases.size());
  for (size_t i : {0, 2, 6, 7, 8, 9})
    EXPECT_EQ(r[i].status, Status::passed) << cases[i].name << ": " << r[i].message;
  EXPECT_EQ(r[1].status, Status::failed);
  EXPECT_NE(r[1].message.find("crash: the worker was killed by SIGSEGV"), std::string::npos)
      << r[1].message;
  EXPECT_EQ(r[3].status, Status::failed);
  EXPECT_EQ(r[3].message, "crash: the worker exited with status 3");
  EXPECT_EQ(r[4].status, Status::failed);
  EXPECT_EQ(r[4].message, "compare: bad1");
  EXPECT_EQ(r[5].status, Status::failed);
  EXPECT_NE(r[5].message.find("timeout: no result after 2 s"), std::string::npos) << r[5].message;
  EXPECT_EQ(r[6].note, "bound at compile time: axes");
}

TEST(WorkerPool, OneWorkerAndNoCases) {
  PoolOptions options;
  options.jobs = 1;
  EXPECT_TRUE(runInWorkers({}, options, [] { return scripted(); }, nullptr).empty());
  std::vector<CaseResult> r = runInWorkers(namedCases({"segv", "a"}), options,
                                           [] { return scripted(); }, nullptr);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].status, Status::failed);
  EXPECT_EQ(r[1].status, Status::passed);
}

std::string tempPath(const std::string &name) {
  return (fs::temp_directory_path() / ("mmc-conformance-test-" + std::to_string(getpid()) + "-" + name))
      .string();
}

template <typename Fn> std::string errorOf(Fn &&fn) {
  try {
    fn();
  } catch (const mm::rt::Error &e) {
    return e.what();
  }
  return "";
}

TEST(Expected, ReadWriteAndMalformedLists) {
  std::string path = tempPath("expected.tsv");
  ExpectedList list;
  list["test_b"] = {Status::unsupported, "unsupported: op 'B'"};
  list["test_a"] = {Status::failed, "compare: output 0 differs"};
  writeExpected(path, list);
  ExpectedList back = readExpected(path);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back["test_a"].status, Status::failed);
  EXPECT_EQ(back["test_b"].reason, "unsupported: op 'B'");

  mm::rt::io::writeFileAtomic(path, "# comment\ntest_x\tpassed\twhy\n");
  EXPECT_NE(errorOf([&] { readExpected(path); }).find(":2: status 'passed' of 'test_x'"),
            std::string::npos);
  mm::rt::io::writeFileAtomic(path, "test_x\tfailed\ta\ntest_x\tfailed\tb\n");
  EXPECT_NE(errorOf([&] { readExpected(path); }).find("'test_x' is listed twice"), std::string::npos);
  mm::rt::io::writeFileAtomic(path, "test_x failed\n");
  EXPECT_NE(errorOf([&] { readExpected(path); }).find(":1: expected"), std::string::npos);
  fs::remove(path);
  EXPECT_NE(errorOf([&] { readExpected(path); }).find("cannot read"), std::string::npos);
}

TEST(Expected, GateFindsRegressionsNewPassesChangesAndUnknownCases) {
  std::vector<Case> cases = namedCases({"p", "regress", "newpass", "changed", "same"});
  auto result = [](Status s) {
    CaseResult r;
    r.status = s;
    return r;
  };
  std::vector<CaseResult> results = {result(Status::passed), result(Status::failed),
                                     result(Status::passed), result(Status::failed),
                                     result(Status::unsupported)};
  ExpectedList expected;
  expected["newpass"] = {Status::unsupported, ""};
  expected["changed"] = {Status::unsupported, ""};
  expected["same"] = {Status::unsupported, ""};
  expected["gone"] = {Status::failed, ""};
  GateReport g = checkGate(cases, results, expected, /*fullRun=*/true);
  EXPECT_FALSE(g.ok());
  ASSERT_EQ(g.regressions.size(), 1u);
  EXPECT_EQ(g.regressions[0].name, "regress");
  ASSERT_EQ(g.newlyPassing.size(), 1u);
  EXPECT_EQ(g.newlyPassing[0].name, "newpass");
  ASSERT_EQ(g.changed.size(), 1u);
  EXPECT_EQ(g.changed[0].name, "changed");
  EXPECT_EQ(g.unknown, std::vector<std::string>{"gone"});
  // A partial run does not report list entries for cases it did not run.
  EXPECT_TRUE(checkGate(cases, results, expected, false).unknown.empty());

  ExpectedList updated = updateExpected(expected, cases, results);
  EXPECT_FALSE(updated.count("newpass"));
  EXPECT_EQ(updated["regress"].status, Status::failed);
  EXPECT_EQ(updated["changed"].status, Status::failed);
  EXPECT_TRUE(updated.count("gone")); // not run: kept
  EXPECT_TRUE(checkGate(cases, results, updated, false).ok());
  EXPECT_EQ(summaryLine(summarize(results)), "2 passed, 2 failed, 1 unsupported");
}

onnx::ModelProto squeezeModel(const std::string &nodeName, const std::string &axesSource) {
  onnx::ModelProto m;
  onnx::GraphProto *g = m.mutable_graph();
  for (const char *name : {"x", "axes"})
    g->add_input()->set_name(name);
  onnx::TensorProto *w = g->add_initializer(); // an initializer is not a graph input to feed
  w->set_name("w");
  g->add_input()->set_name("w");
  onnx::NodeProto *n = g->add_node();
  n->set_op_type("Squeeze");
  n->set_name(nodeName);
  n->add_input("x");
  n->add_input(axesSource);
  n->add_output("y");
  return m;
}

TEST(BindInputs, FindsTheGraphInputTheImporterAsksFor) {
  const std::string diag = "node 'sq' (Squeeze, opset 25): unsupported: axes (input 1) must be "
                           "a constant, but it is computed at run time";
  onnx::ModelProto m = squeezeModel("sq", "axes");
  EXPECT_EQ(graphInputs(m), (std::vector<std::string>{"x", "axes"}));
  EXPECT_EQ(inputToBind(m, diag), "axes");
  // Unnamed nodes are named "<op>_<index>" by the importer.
  onnx::ModelProto unnamed = squeezeModel("", "axes");
  EXPECT_EQ(inputToBind(unnamed, "node 'Squeeze_0' (Squeeze, opset 25): unsupported: axes "
                                 "(input 1) must be a constant, but it is computed at run time"),
            "axes");
  // Not a graph input (computed by a node), another node, or another message: nothing.
  EXPECT_EQ(inputToBind(squeezeModel("sq", "computed"), diag), "");
  EXPECT_EQ(inputToBind(squeezeModel("other", "axes"), diag), "");
  EXPECT_EQ(inputToBind(m, "node 'sq' (Squeeze, opset 25): unsupported: something else"), "");
}

TEST(BindInputs, WritesTheInputAsAnInitializer) {
  onnx::TensorProto axes;
  axes.set_data_type(onnx::TensorProto::INT64);
  axes.add_dims(1);
  axes.add_int64_data(0);
  std::string axesFile = tempPath("axes.pb"), modelFile = tempPath("model.onnx");
  mm::rt::io::writeFileAtomic(axesFile, axes.SerializeAsString());
  writeBoundModel(squeezeModel("sq", "axes"), {{"axes", axesFile}}, modelFile);
  onnx::ModelProto back = readModel(modelFile);
  EXPECT_EQ(graphInputs(back), std::vector<std::string>{"x"});
  ASSERT_EQ(back.graph().initializer_size(), 2);
  const onnx::TensorProto &bound = back.graph().initializer(1);
  EXPECT_EQ(bound.name(), "axes");
  ASSERT_EQ(bound.int64_data_size(), 1);
  EXPECT_EQ(bound.int64_data(0), 0);
  EXPECT_NE(errorOf([&] { writeBoundModel(back, {{"x", tempPath("missing.pb")}}, modelFile); }),
            "");
  fs::remove(axesFile);
  fs::remove(modelFile);
}

TEST(Tolerance, PerDtype) {
  EXPECT_EQ(tolerance(mm::rt::DType::f32).rtol, 1e-3);
  EXPECT_EQ(tolerance(mm::rt::DType::f32).atol, 1e-5);
  EXPECT_EQ(tolerance(mm::rt::DType::f64).rtol, 1e-3);
  EXPECT_GT(tolerance(mm::rt::DType::f16).rtol, tolerance(mm::rt::DType::f32).rtol);
  EXPECT_GT(tolerance(mm::rt::DType::bf16).rtol, tolerance(mm::rt::DType::f16).rtol);
  EXPECT_EQ(tolerance(mm::rt::DType::i64).atol, 0);
  EXPECT_EQ(tolerance(mm::rt::DType::boolean).rtol, 0);
}

} // namespace
