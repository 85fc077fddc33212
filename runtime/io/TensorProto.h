//===- TensorProto.h - ONNX TensorProto (.pb) files -------------------------===//
//
// Serialized onnx.TensorProto messages, as in ONNX test data sets
// (<graph>_test_data_set_N/input_K.pb, output_K.pb; onnx.proto from ONNX 1.12). Reads
// raw_data and the typed fields (float_data, int32_data, int64_data, double_data,
// uint64_data) for float, f16, bf16, double, (u)int8..64 and bool; writes raw_data.
// External data and string tensors are rejected.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_IO_TENSORPROTO_H
#define MM_RUNTIME_IO_TENSORPROTO_H

#include "runtime/core/Tensor.h"

#include <string>

namespace mm::rt::io {

/// A tensor with the name stored in the TensorProto (may be empty).
struct NamedTensor {
  std::string name;
  Tensor tensor;
};

/// Reads a .pb file holding one TensorProto. Throws Error naming the file and the problem.
NamedTensor readTensorProto(const std::string &path);

/// Parses TensorProto bytes; `origin` names them in messages.
NamedTensor parseTensorProto(const std::string &bytes, const std::string &origin);

/// Writes `t` (named `name`) as a TensorProto with raw_data, atomically. Throws Error.
void writeTensorProto(const std::string &path, const std::string &name, const Tensor &t);

/// Serializes `t` to TensorProto bytes.
std::string serializeTensorProto(const std::string &name, const Tensor &t);

/// The ONNX TensorProto.DataType number of `t`.
int onnxDataType(DType t);

} // namespace mm::rt::io

#endif // MM_RUNTIME_IO_TENSORPROTO_H
