//===- Expected.cpp - the expected-status list and the CI gate --------------===//
#include "tools/mmc-conformance/Expected.h"

#include "runtime/core/Error.h"
#include "runtime/io/FileUtil.h"

#include <fstream>
#include <set>
#include <sstream>

using mm::rt::fail;

namespace mmconf {

ExpectedList readExpected(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    fail("cannot read the expected-status list '", path, "'");
  ExpectedList list;
  std::string line;
  for (int lineNo = 1; std::getline(in, line); ++lineNo) {
    if (line.empty() || line[0] == '#')
      continue;
    size_t t1 = line.find('\t');
    size_t t2 = t1 == std::string::npos ? t1 : line.find('\t', t1 + 1);
    if (t2 == std::string::npos)
      fail(path, ":", lineNo, ": expected '<case>\\t<failed|unsupported>\\t<reason>'");
    std::string name = line.substr(0, t1), status = line.substr(t1 + 1, t2 - t1 - 1);
    ExpectedEntry e;
    if (!parseStatus(status, e.status) || e.status == Status::passed)
      fail(path, ":", lineNo, ": status '", status, "' of '", name,
           "' must be failed or unsupported (passing cases are not listed)");
    e.reason = line.substr(t2 + 1);
    if (!list.emplace(name, std::move(e)).second)
      fail(path, ":", lineNo, ": '", name, "' is listed twice");
  }
  return list;
}

ExpectedList updateExpected(ExpectedList list, const std::vector<Case> &cases,
                            const std::vector<CaseResult> &results) {
  for (size_t i = 0; i < cases.size(); ++i) {
    list.erase(cases[i].name);
    if (results[i].status != Status::passed)
      list[cases[i].name] = {results[i].status,
                             results[i].message +
                                 (results[i].note.empty() ? "" : " [" + results[i].note + "]")};
  }
  return list;
}

void writeExpected(const std::string &path, const ExpectedList &list) {
  std::ostringstream os;
  os << "# Expected status of the ONNX backend node test cases that do not pass through mmc\n"
     << "# (../shared/conformance/onnx-node). Every case not listed must pass. Written by\n"
     << "# `mmc-conformance --update-expected`; the ctest `conformance` fails on any\n"
     << "# difference. Columns: case, status (failed | unsupported), reason.\n";
  for (const auto &[name, e] : list)
    os << name << '\t' << statusName(e.status) << '\t' << e.reason << '\n';
  mm::rt::io::writeFileAtomic(path, os.str());
}

GateReport checkGate(const std::vector<Case> &cases, const std::vector<CaseResult> &results,
                     const ExpectedList &expected, bool fullRun) {
  GateReport g;
  std::set<std::string> seen;
  for (size_t i = 0; i < cases.size(); ++i) {
    seen.insert(cases[i].name);
    auto it = expected.find(cases[i].name);
    Status want = it == expected.end() ? Status::passed : it->second.status;
    Status got = results[i].status;
    if (want == got)
      continue;
    GateReport::Item item{cases[i].name, want, got, results[i].message};
    if (want == Status::passed)
      g.regressions.push_back(std::move(item));
    else if (got == Status::passed)
      g.newlyPassing.push_back(std::move(item));
    else
      g.changed.push_back(std::move(item));
  }
  if (fullRun)
    for (const auto &entry : expected)
      if (!seen.count(entry.first))
        g.unknown.push_back(entry.first);
  return g;
}

} // namespace mmconf
