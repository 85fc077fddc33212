//===- Compare.cpp - compare a result tensor with a reference ---------------===//
#include "runtime/io/Compare.h"

#include "runtime/core/Half.h"

#include <cmath>
#include <cstring>
#include <sstream>

namespace mm::rt::io {
namespace {

/// Element i of `t` as double (float and integer dtypes).
double elementAsDouble(const Tensor &t, int64_t i) {
  switch (t.dtype) {
  case DType::f32: return t.as<float>()[i];
  case DType::f64: return t.as<double>()[i];
  case DType::f16:
  case DType::bf16: return floatElement(t, i);
  default: return 0;
  }
}

} // namespace

CompareResult compareTensors(const Tensor &got, const Tensor &want, double atol, double rtol) {
  CompareResult r;
  std::ostringstream os;
  if (got.dtype != want.dtype || got.shape != want.shape) {
    os << "got " << dtypeName(got.dtype) << " " << shapeString(got.shape) << ", expected "
       << dtypeName(want.dtype) << " " << shapeString(want.shape);
    r.message = os.str();
    return r;
  }
  const int64_t n = got.numel();
  if (isFloat(got.dtype)) {
    for (int64_t i = 0; i < n; ++i) {
      double g = elementAsDouble(got, i), w = elementAsDouble(want, i);
      // Equal values (an infinity included, where g - w is NaN) and two NaNs match.
      bool same = g == w || (std::isnan(g) && std::isnan(w));
      double err = same ? 0.0 : std::fabs(g - w);
      if (!std::isnan(err))
        r.maxAbsError = std::max(r.maxAbsError, err);
      bool infinite = std::isinf(g) || std::isinf(w); // unequal: no tolerance covers it
      if (!same && (infinite || !(err <= atol + rtol * std::fabs(w)))) {
        if (r.mismatches++ == 0)
          r.firstMismatch = i;
      }
    }
  } else {
    const size_t es = dtypeSize(got.dtype);
    for (int64_t i = 0; i < n; ++i)
      if (std::memcmp(static_cast<const uint8_t *>(got.data) + i * es,
                      static_cast<const uint8_t *>(want.data) + i * es, es) != 0) {
        r.maxAbsError = 1;
        if (r.mismatches++ == 0)
          r.firstMismatch = i;
      }
  }
  r.ok = r.mismatches == 0;
  os << "max abs error " << r.maxAbsError;
  if (!r.ok) {
    os << "; " << r.mismatches << " of " << n << " elements outside atol " << atol << ", rtol "
       << rtol << " (first at flat index " << r.firstMismatch;
    if (isFloat(got.dtype))
      os << ": got " << elementAsDouble(got, r.firstMismatch) << ", expected "
         << elementAsDouble(want, r.firstMismatch);
    os << ")";
  }
  r.message = os.str();
  return r;
}

} // namespace mm::rt::io
