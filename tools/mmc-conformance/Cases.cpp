//===- Cases.cpp - the ONNX backend node test cases -------------------------===//
#include "tools/mmc-conformance/Cases.h"

#include "runtime/core/Error.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace fs = std::filesystem;
using mm::rt::fail;

namespace mmconf {

const char *statusName(Status s) {
  switch (s) {
  case Status::passed: return "passed";
  case Status::failed: return "failed";
  case Status::unsupported: return "unsupported";
  }
  return "?";
}

bool parseStatus(const std::string &text, Status &out) {
  for (Status s : {Status::passed, Status::failed, Status::unsupported})
    if (text == statusName(s)) {
      out = s;
      return true;
    }
  return false;
}

namespace {

std::vector<std::string> splitTabs(const std::string &line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string field;
  while (std::getline(ss, field, '\t'))
    out.push_back(field);
  return out;
}

/// INDEX.tsv rows by test name.
std::map<std::string, std::vector<std::string>> readIndex(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    fail("cannot read '", path, "'");
  std::string line;
  if (!std::getline(in, line))
    fail("'", path, "' is empty");
  std::vector<std::string> header = splitTabs(line);
  const std::vector<std::string> want = {"test_name", "op_type", "opset", "n_inputs",
                                         "n_outputs", "input_dtypes", "output_dtypes",
                                         "tested_op", "expanded"};
  if (header.size() < want.size() || !std::equal(want.begin(), want.end(), header.begin()))
    fail("'", path, "': unexpected header (want columns ", want.size(), ": test_name, op_type, ",
         "opset, n_inputs, n_outputs, input_dtypes, output_dtypes, tested_op, expanded, ...)");
  std::map<std::string, std::vector<std::string>> rows;
  int lineNo = 1;
  while (std::getline(in, line)) {
    ++lineNo;
    if (line.empty())
      continue;
    std::vector<std::string> row = splitTabs(line);
    if (row.size() < want.size())
      fail("'", path, "' line ", lineNo, ": ", row.size(), " columns, want at least ", want.size());
    rows[row[0]] = std::move(row);
  }
  return rows;
}

} // namespace

std::vector<Case> readCases(const std::string &root) {
  auto index = readIndex((fs::path(root) / "INDEX.tsv").string());
  std::vector<Case> cases;
  for (const fs::directory_entry &e : fs::directory_iterator(root)) {
    std::string name = e.path().filename().string();
    if (!e.is_directory() || name.rfind("test_", 0) != 0)
      continue;
    auto it = index.find(name);
    if (it == index.end())
      fail("case folder '", name, "' has no row in ", root, "/INDEX.tsv");
    const std::vector<std::string> &row = it->second;
    Case c;
    c.name = name;
    c.dir = fs::absolute(e.path()).string();
    c.opset = row[2] == "-" ? -1 : std::stoi(row[2]);
    c.inputDtypes = row[5];
    c.outputDtypes = row[6];
    c.testedOp = row[7];
    c.expanded = row[8] == "1";
    cases.push_back(std::move(c));
  }
  std::sort(cases.begin(), cases.end(),
            [](const Case &a, const Case &b) { return a.name < b.name; });
  return cases;
}

} // namespace mmconf
