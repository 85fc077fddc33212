//===- TensorProto.cpp - ONNX TensorProto (.pb) files -----------------------===//
#include "runtime/io/TensorProto.h"

#include "runtime/core/Error.h"
#include "runtime/io/FileUtil.h"

#include "onnx.pb.h"

#include <cstring>
#include <limits>

namespace mm::rt::io {
namespace {

struct TypeEntry {
  int onnx;
  DType dtype;
};
constexpr TypeEntry kTypes[] = {
    {onnx::TensorProto::FLOAT, DType::f32},    {onnx::TensorProto::UINT8, DType::u8},
    {onnx::TensorProto::INT8, DType::i8},      {onnx::TensorProto::UINT16, DType::u16},
    {onnx::TensorProto::INT16, DType::i16},    {onnx::TensorProto::INT32, DType::i32},
    {onnx::TensorProto::INT64, DType::i64},    {onnx::TensorProto::BOOL, DType::boolean},
    {onnx::TensorProto::FLOAT16, DType::f16},  {onnx::TensorProto::DOUBLE, DType::f64},
    {onnx::TensorProto::UINT32, DType::u32},   {onnx::TensorProto::UINT64, DType::u64},
    {onnx::TensorProto::BFLOAT16, DType::bf16}};

DType fromOnnx(int code, const std::string &origin) {
  for (const TypeEntry &e : kTypes)
    if (e.onnx == code)
      return e.dtype;
  fail(origin, ": unsupported TensorProto data_type ", code);
}

/// Copies `n` typed-field values into `dst` as elements of dtype `t` (narrowing as ONNX
/// specifies: int32_data holds 8/16-bit ints, bool, and the raw bits of f16/bf16).
template <typename Field>
void copyTyped(const Field &field, DType t, void *dst, int64_t n) {
  auto *out = static_cast<uint8_t *>(dst);
  for (int64_t i = 0; i < n; ++i) {
    auto v = field.Get(static_cast<int>(i));
    switch (t) {
    case DType::f32: { float f = static_cast<float>(v); std::memcpy(out + 4 * i, &f, 4); break; }
    case DType::f64: { double d = static_cast<double>(v); std::memcpy(out + 8 * i, &d, 8); break; }
    case DType::i8: case DType::u8: case DType::boolean: out[i] = static_cast<uint8_t>(v); break;
    case DType::i16: case DType::u16: case DType::f16: case DType::bf16: {
      uint16_t h = static_cast<uint16_t>(v); std::memcpy(out + 2 * i, &h, 2); break; }
    case DType::i32: case DType::u32: { uint32_t w = static_cast<uint32_t>(v); std::memcpy(out + 4 * i, &w, 4); break; }
    case DType::i64: case DType::u64: { uint64_t w = static_cast<uint64_t>(v); std::memcpy(out + 8 * i, &w, 8); break; }
    }
  }
}

} // namespace

int onnxDataType(DType t) {
  for (const TypeEntry &e : kTypes)
    if (e.dtype == t)
      return e.onnx;
  fail("no ONNX data type for ", dtypeName(t));
}

NamedTensor parseTensorProto(const std::string &bytes, const std::string &origin) {
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes))
    fail(origin, ": not a valid ONNX TensorProto (protobuf parse failed)");
  if (proto.data_location() == onnx::TensorProto::EXTERNAL || proto.external_data_size() > 0)
    fail(origin, ": TensorProto '", proto.name(), "' uses external data, which is not supported here");
  if (proto.data_type() == onnx::TensorProto::STRING)
    fail(origin, ": TensorProto '", proto.name(), "' holds strings, which are not supported");
  DType dtype = fromOnnx(proto.data_type(), origin);
  Shape shape;
  uint64_t n = 1;
  for (int64_t d : proto.dims()) {
    if (d < 0 || d > (int64_t(1) << 48) ||
        (d != 0 && n > std::numeric_limits<uint64_t>::max() / 16 / static_cast<uint64_t>(d)))
      fail(origin, ": invalid TensorProto dims");
    shape.push_back(d);
    n *= static_cast<uint64_t>(d);
  }
  NamedTensor out{proto.name(), Tensor::host(dtype, shape)};
  const int64_t count = static_cast<int64_t>(n);
  const uint64_t bytesNeeded = n * dtypeSize(dtype);
  auto checkCount = [&](int have, const char *field) {
    if (static_cast<int64_t>(have) != count)
      fail(origin, ": TensorProto '", proto.name(), "' has ", have, " values in ", field,
           " but dims ", shapeString(shape), " need ", count);
  };
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != bytesNeeded)
      fail(origin, ": TensorProto '", proto.name(), "' has ", proto.raw_data().size(),
           " raw bytes but ", dtypeName(dtype), " ", shapeString(shape), " needs ", bytesNeeded);
    if (bytesNeeded)
      std::memcpy(out.tensor.data, proto.raw_data().data(), bytesNeeded);
    return out;
  }
  switch (dtype) {
  case DType::f32:
    checkCount(proto.float_data_size(), "float_data");
    copyTyped(proto.float_data(), dtype, out.tensor.data, count);
    break;
  case DType::f64:
    checkCount(proto.double_data_size(), "double_data");
    copyTyped(proto.double_data(), dtype, out.tensor.data, count);
    break;
  case DType::i64:
    checkCount(proto.int64_data_size(), "int64_data");
    copyTyped(proto.int64_data(), dtype, out.tensor.data, count);
    break;
  case DType::u32:
  case DType::u64:
    checkCount(proto.uint64_data_size(), "uint64_data");
    copyTyped(proto.uint64_data(), dtype, out.tensor.data, count);
    break;
  default:
    checkCount(proto.int32_data_size(), "int32_data");
    copyTyped(proto.int32_data(), dtype, out.tensor.data, count);
    break;
  }
  return out;
}

NamedTensor readTensorProto(const std::string &path) {
  return parseTensorProto(readFile(path), path);
}

std::string serializeTensorProto(const std::string &name, const Tensor &t) {
  onnx::TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(onnxDataType(t.dtype));
  for (int64_t d : t.shape)
    proto.add_dims(d);
  if (t.nbytes())
    proto.set_raw_data(std::string(static_cast<const char *>(t.data), t.nbytes()));
  else
    proto.set_raw_data(std::string());
  std::string bytes;
  if (!proto.SerializeToString(&bytes))
    fail("cannot serialize tensor '", name, "' as a TensorProto");
  return bytes;
}

void writeTensorProto(const std::string &path, const std::string &name, const Tensor &t) {
  writeFileAtomic(path, serializeTensorProto(name, t));
}

} // namespace mm::rt::io
