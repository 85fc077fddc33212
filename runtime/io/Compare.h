//===- Compare.h - compare a result tensor with a reference -----------------===//
#ifndef MM_RUNTIME_IO_COMPARE_H
#define MM_RUNTIME_IO_COMPARE_H

#include "runtime/core/Tensor.h"

#include <string>

namespace mm::rt::io {

struct CompareResult {
  bool ok = false;
  double maxAbsError = 0;  ///< max |got - want| (float dtypes; 0/1 mismatch for others)
  int64_t mismatches = 0;  ///< elements outside the tolerance
  int64_t firstMismatch = -1;
  std::string message;     ///< one line: what differs, or the error summary
};

/// Compares `got` with `want`: same dtype and shape, then elementwise
/// |got - want| <= atol + rtol * |want| for float dtypes (numpy.allclose; NaN matches
/// only NaN, an infinity only the same infinity), exact equality for integers and bool.
CompareResult compareTensors(const Tensor &got, const Tensor &want, double atol, double rtol);

} // namespace mm::rt::io

#endif // MM_RUNTIME_IO_COMPARE_H
