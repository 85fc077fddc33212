//===- TestUtil.h - small helpers of the runtime unit tests ------------------===//
#ifndef MM_TEST_UNIT_TESTUTIL_H
#define MM_TEST_UNIT_TESTUTIL_H

#include "runtime/core/Error.h"
#include "runtime/core/Tensor.h"

#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace mm::test {

/// An f32 host tensor of `shape` holding `values`.
inline rt::Tensor f32(rt::Shape shape, const std::vector<float> &values) {
  rt::Tensor t = rt::Tensor::host(rt::DType::f32, std::move(shape));
  std::memcpy(t.data, values.data(), values.size() * sizeof(float));
  return t;
}

/// The message of the rt::Error `fn` throws, or "" when it throws none.
inline std::string runError(const std::function<void()> &fn) {
  try {
    fn();
  } catch (const rt::Error &e) {
    return e.what();
  }
  return "";
}

} // namespace mm::test

#endif // MM_TEST_UNIT_TESTUTIL_H
