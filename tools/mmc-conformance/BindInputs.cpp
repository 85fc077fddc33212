//===- BindInputs.cpp - compile-time values for shape-parameter graph inputs ===//
#include "tools/mmc-conformance/BindInputs.h"

#include "runtime/core/Error.h"
#include "runtime/io/FileUtil.h"

#include "onnx.pb.h"

#include <regex>
#include <set>

using mm::rt::fail;

namespace mmconf {

onnx::ModelProto readModel(const std::string &path) {
  onnx::ModelProto model;
  if (!model.ParseFromString(mm::rt::io::readFile(path)))
    fail("'", path, "' is not an ONNX ModelProto");
  return model;
}

std::vector<std::string> graphInputs(const onnx::ModelProto &model) {
  std::set<std::string> inits;
  for (const auto &t : model.graph().initializer())
    inits.insert(t.name());
  std::vector<std::string> out;
  for (const auto &in : model.graph().input())
    if (!inits.count(in.name()))
      out.push_back(in.name());
  return out;
}

std::string inputToBind(const onnx::ModelProto &model, const std::string &diagnostic) {
  static const std::regex re(
      R"(node '([^']*)' \([^)]*\): unsupported: .*\(input ([0-9]+)\) must be a constant, but it is computed at run time)");
  std::smatch m;
  if (!std::regex_search(diagnostic, m, re))
    return "";
  std::string nodeName = m[1].str();
  int operand = std::stoi(m[2].str());
  const auto &nodes = model.graph().node();
  for (int i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto &n = nodes[i];
    // The importer names an unnamed node "<op_type>_<index>".
    std::string name = n.name().empty() ? n.op_type() + "_" + std::to_string(i) : n.name();
    if (name != nodeName || operand >= n.input_size())
      continue;
    std::vector<std::string> inputs = graphInputs(model);
    const std::string &value = n.input(operand);
    for (const std::string &in : inputs)
      if (in == value)
        return value;
    return "";
  }
  return "";
}

void writeBoundModel(const onnx::ModelProto &model, const std::map<std::string, std::string> &values,
                     const std::string &path) {
  onnx::ModelProto out = model;
  onnx::GraphProto *g = out.mutable_graph();
  auto *inputs = g->mutable_input();
  for (int i = inputs->size() - 1; i >= 0; --i)
    if (values.count(inputs->Get(i).name()))
      inputs->DeleteSubrange(i, 1);
  for (const auto &[name, file] : values) {
    onnx::TensorProto *t = g->add_initializer();
    if (!t->ParseFromString(mm::rt::io::readFile(file)))
      fail("'", file, "' is not a TensorProto");
    t->set_name(name);
  }
  std::string bytes;
  if (!out.SerializeToString(&bytes))
    fail("cannot serialize the model for '", path, "'");
  mm::rt::io::writeFileAtomic(path, bytes);
}

} // namespace mmconf
