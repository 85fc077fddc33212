//===- BindInputs.h - compile-time values for shape-parameter graph inputs --===//
//
// mmc compiles ahead of time with ranked tensor types, so operands that decide a
// result's shape or rank (Squeeze/Unsqueeze/Reduce* axes, Pad pads, Split sizes, Trilu's
// k, CumSum's and CumProd's axis, Resize's scales, sizes and roi) must be compile-time
// constants; the importer reports one that is not
// with "node 'N' (Op, opset V): unsupported: <what> (input K) must be a constant, but it
// is computed at run time". Many ONNX node tests feed exactly such operands as graph
// inputs. For those, and only those, the runner does what a user of mmc does with such a
// model: it specializes the model on the value, turning the graph input into an
// initializer holding the test's input tensor, and compiles again. Every case compiled
// this way is reported (CaseResult::note) and listed in docs/onnx-support.md.
//
//===----------------------------------------------------------------------===//
#ifndef MM_TOOLS_MMC_CONFORMANCE_BINDINPUTS_H
#define MM_TOOLS_MMC_CONFORMANCE_BINDINPUTS_H

#include <map>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
}

namespace mmconf {

/// The graph inputs of `model` that are not initializers, in order (the order of the
/// test's input_<k>.pb files).
std::vector<std::string> graphInputs(const onnx::ModelProto &model);

/// The graph input that an importer diagnostic asks to be a constant ("node 'N' ...
/// (input K) must be a constant, but it is computed at run time", where input K of node
/// N is a graph input), or "" when the diagnostic is not such a request or the operand
/// is computed by another node.
std::string inputToBind(const onnx::ModelProto &model, const std::string &diagnostic);

/// Writes `model` to `path` with each graph input named in `values` (name -> .pb file)
/// removed from the inputs and added as an initializer holding the file's tensor.
/// Throws mm::rt::Error when a file is not a readable TensorProto or `path` cannot be
/// written.
void writeBoundModel(const onnx::ModelProto &model, const std::map<std::string, std::string> &values,
                     const std::string &path);

/// Reads a ModelProto; throws mm::rt::Error.
onnx::ModelProto readModel(const std::string &path);

} // namespace mmconf

#endif // MM_TOOLS_MMC_CONFORMANCE_BINDINPUTS_H
