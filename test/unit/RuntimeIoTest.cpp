//===- RuntimeIoTest.cpp - .npy and TensorProto readers/writers -------------===//
#include "runtime/core/Error.h"
#include "runtime/io/Compare.h"
#include "runtime/io/Npy.h"
#include "runtime/io/TensorProto.h"

#include "onnx.pb.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <cstring>
#include <fstream>

using namespace mm::rt;

namespace {

Tensor ramp(DType t, Shape shape) {
  Tensor x = Tensor::host(t, std::move(shape));
  auto *b = static_cast<uint8_t *>(x.data);
  for (size_t i = 0; i < x.nbytes(); ++i)
    b[i] = static_cast<uint8_t>(i * 7 + 3);
  if (t == DType::boolean)
    for (size_t i = 0; i < x.nbytes(); ++i)
      b[i] &= 1;
  return x;
}

bool sameTensor(const Tensor &a, const Tensor &b) {
  return a.dtype == b.dtype && a.shape == b.shape && std::memcmp(a.data, b.data, a.nbytes()) == 0;
}

std::string expectError(const std::function<void()> &fn) {
  try {
    fn();
  } catch (const Error &e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an error";
  return "";
}

TEST(Npy, RoundTripsEveryNumpyDType) {
  for (DType t : {DType::f32, DType::f16, DType::f64, DType::i8, DType::i16, DType::i32, DType::i64,
                  DType::u8, DType::u16, DType::u32, DType::u64, DType::boolean})
    for (Shape s : {Shape{}, Shape{0}, Shape{5}, Shape{2, 3, 4}}) {
      Tensor x = ramp(t, s);
      Tensor y = io::parseNpy(io::serializeNpy(x), "mem");
      EXPECT_TRUE(sameTensor(x, y)) << dtypeName(t) << " " << shapeString(s);
    }
}

TEST(Npy, HeaderIsPaddedTo64Bytes) {
  std::string bytes = io::serializeNpy(ramp(DType::f32, {3}));
  size_t headerLen = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
  EXPECT_EQ((10 + headerLen) % 64, 0u);
  EXPECT_EQ(bytes.substr(10, 40), "{'descr': '<f4', 'fortran_order': False,");
}

TEST(Npy, ReadsNumpyWrittenHeadersV1AndV2) {
  // As numpy 1.x writes them: "(3,)" shape, trailing ", }" and space padding.
  std::string header = "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }";
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header += '\n';
  std::string v1 = std::string("\x93NUMPY\x01\x00", 8) + char(header.size()) + char(0) + header;
  int64_t values[3] = {7, -1, 1LL << 40};
  v1.append(reinterpret_cast<const char *>(values), sizeof(values));
  Tensor t = io::parseNpy(v1, "v1");
  EXPECT_EQ(t.dtype, DType::i64);
  EXPECT_EQ(t.shape, Shape{3});
  EXPECT_EQ(t.as<int64_t>()[2], 1LL << 40);

  std::string v2 = std::string("\x93NUMPY\x02\x00", 8) + char(header.size()) + std::string(3, '\0') + header;
  v2.append(reinterpret_cast<const char *>(values), sizeof(values));
  EXPECT_EQ(io::parseNpy(v2, "v2").as<int64_t>()[1], -1);
}

TEST(Npy, RejectsBadFilesWithAClearMessage) {
  EXPECT_NE(expectError([] { io::parseNpy("hello", "x.npy"); }).find("x.npy: not a .npy file"),
            std::string::npos);
  std::string good = io::serializeNpy(ramp(DType::f32, {4}));
  EXPECT_NE(expectError([&] { io::parseNpy(good.substr(0, good.size() - 1), "x.npy"); })
                .find("holds 15 bytes but f32 [4] needs 16"),
            std::string::npos);
  std::string bigEndian = good;
  bigEndian.replace(bigEndian.find("<f4"), 3, ">f4");
  EXPECT_NE(expectError([&] { io::parseNpy(bigEndian, "x.npy"); }).find("unsupported .npy dtype '>f4'"),
            std::string::npos);
  std::string fortran = good;
  fortran.replace(fortran.find("False"), 5, "True ");
  EXPECT_NE(expectError([&] { io::parseNpy(fortran, "x.npy"); }).find("Fortran-order"),
            std::string::npos);
  EXPECT_NE(expectError([] { io::readNpy("/nonexistent/x.npy"); }).find("cannot open '/nonexistent/x.npy'"),
            std::string::npos);
  EXPECT_NE(expectError([] { io::serializeNpy(ramp(DType::bf16, {2})); }).find("bf16"),
            std::string::npos);
}

TEST(Npy, WriteIsAtomicAndReadable) {
  std::string path = ::testing::TempDir() + "/io-test.npy";
  Tensor x = ramp(DType::f32, {2, 2});
  io::writeNpy(path, x);
  EXPECT_TRUE(sameTensor(x, io::readNpy(path)));
  std::remove(path.c_str());
  EXPECT_THROW(io::writeNpy("/nonexistent-dir/x.npy", x), Error);
}

TEST(TensorProto, RoundTripsEveryDType) {
  for (DType t : {DType::f32, DType::f16, DType::bf16, DType::f64, DType::i8, DType::i16,
                  DType::i32, DType::i64, DType::u8, DType::u16, DType::u32, DType::u64,
                  DType::boolean}) {
    Tensor x = ramp(t, {2, 3});
    io::NamedTensor y = io::parseTensorProto(io::serializeTensorProto("name.0", x), "mem");
    EXPECT_EQ(y.name, "name.0");
    EXPECT_TRUE(sameTensor(x, y.tensor)) << dtypeName(t);
  }
}

TEST(TensorProto, ReadsTypedFields) {
  onnx::TensorProto p;
  p.set_name("f");
  p.set_data_type(onnx::TensorProto::FLOAT);
  p.add_dims(2);
  p.add_float_data(1.5f);
  p.add_float_data(-2.0f);
  Tensor f = io::parseTensorProto(p.SerializeAsString(), "f.pb").tensor;
  EXPECT_EQ(f.as<float>()[1], -2.0f);

  onnx::TensorProto q;
  q.set_data_type(onnx::TensorProto::INT8);
  q.add_dims(3);
  for (int v : {-3, 0, 127})
    q.add_int32_data(v);
  Tensor i8 = io::parseTensorProto(q.SerializeAsString(), "q.pb").tensor;
  EXPECT_EQ(i8.as<int8_t>()[0], -3);
  EXPECT_EQ(i8.as<int8_t>()[2], 127);

  onnx::TensorProto r;
  r.set_data_type(onnx::TensorProto::INT64);
  r.add_dims(1);
  r.add_dims(2);
  r.add_int64_data(5);
  r.add_int64_data(1LL << 50);
  Tensor i64 = io::parseTensorProto(r.SerializeAsString(), "r.pb").tensor;
  EXPECT_EQ(i64.shape, (Shape{1, 2}));
  EXPECT_EQ(i64.as<int64_t>()[1], 1LL << 50);

  onnx::TensorProto bad = q;
  bad.add_int32_data(1);
  EXPECT_NE(expectError([&] { io::parseTensorProto(bad.SerializeAsString(), "bad.pb"); })
                .find("has 4 values in int32_data but dims [3] need 3"),
            std::string::npos);
}

TEST(TensorProto, RejectsBadFiles) {
  EXPECT_NE(expectError([] { io::parseTensorProto("\xff\xff\xff", "x.pb"); }).find("not a valid ONNX TensorProto"),
            std::string::npos);
  onnx::TensorProto ext;
  ext.set_name("e");
  ext.set_data_type(onnx::TensorProto::FLOAT);
  ext.set_data_location(onnx::TensorProto::EXTERNAL);
  EXPECT_NE(expectError([&] { io::parseTensorProto(ext.SerializeAsString(), "e.pb"); }).find("external data"),
            std::string::npos);
  onnx::TensorProto raw;
  raw.set_data_type(onnx::TensorProto::FLOAT);
  raw.add_dims(2);
  raw.set_raw_data(std::string(7, '\0'));
  EXPECT_NE(expectError([&] { io::parseTensorProto(raw.SerializeAsString(), "r.pb"); })
                .find("has 7 raw bytes but f32 [2] needs 8"),
            std::string::npos);
  onnx::TensorProto complex;
  complex.set_data_type(onnx::TensorProto::COMPLEX64);
  EXPECT_NE(expectError([&] { io::parseTensorProto(complex.SerializeAsString(), "c.pb"); })
                .find("unsupported TensorProto data_type 14"),
            std::string::npos);
}

TEST(Compare, AllcloseSemantics) {
  Tensor a = Tensor::host(DType::f32, {3}), b = Tensor::host(DType::f32, {3});
  float av[] = {1.0f, 100.0f, NAN}, bv[] = {1.00005f, 100.09f, NAN};
  std::memcpy(a.data, av, 12);
  std::memcpy(b.data, bv, 12);
  EXPECT_TRUE(io::compareTensors(a, b, 1e-4, 1e-3).ok); // 0.09 <= 1e-4 + 1e-3 * 100.09
  io::CompareResult r = io::compareTensors(a, b, 1e-4, 0);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.mismatches, 1);
  EXPECT_EQ(r.firstMismatch, 1);
  EXPECT_FALSE(io::compareTensors(a, ramp(DType::f32, {4}), 1, 1).ok);
  Tensor i = ramp(DType::i64, {4}), j = ramp(DType::i64, {4});
  EXPECT_TRUE(io::compareTensors(i, j, 0, 0).ok);
  j.as<int64_t>()[2] += 1;
  EXPECT_FALSE(io::compareTensors(i, j, 10, 10).ok); // integers compare exactly
}

TEST(Compare, InfinityMatchesOnlyItself) {
  Tensor a = Tensor::host(DType::f32, {3}), b = Tensor::host(DType::f32, {3});
  float av[] = {INFINITY, -INFINITY, 2.0f}, bv[] = {INFINITY, -INFINITY, 2.0f};
  std::memcpy(a.data, av, 12);
  std::memcpy(b.data, bv, 12);
  io::CompareResult r = io::compareTensors(a, b, 1e-5, 1e-3);
  EXPECT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.maxAbsError, 0.0);
  b.as<float>()[0] = -INFINITY;
  EXPECT_FALSE(io::compareTensors(a, b, 1e-5, 1e-3).ok);
  b.as<float>()[0] = 3e38f;
  EXPECT_FALSE(io::compareTensors(a, b, 1e-5, 1e-3).ok);
}

} // namespace
