//===- DeviceWeights.h - a plan's weights on the device, uploaded once -------===//
//
// The device copies of the weights and constants of a loaded plan, owned by the
// CudaContext of a session and shared by every executor made on it: a weight that the
// vision encoder, the embedding and the decoder (or two variants of one function) read is
// uploaded once. A tensor is identified by its bytes in the loaded plan (weights are views
// into the mapped plan file; the plan writer gives a weight read by several functions one
// extent), so the Plan must outlive the copies.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CUDAEXEC_DEVICEWEIGHTS_H
#define MM_RUNTIME_CUDAEXEC_DEVICEWEIGHTS_H

#include "runtime/cudaexec/DeviceMemory.h"
#include "runtime/plan/Plan.h"

#include <cstddef>
#include <map>
#include <utility>
#include <vector>

namespace mm::rt::cudaexec {

class DeviceWeights {
public:
  /// The device copy of each weight and constant of `fn` (null for other tensors), indexed
  /// by tensor id. Uploads, in one allocation, those not on the device yet; throws Error
  /// (the memory needed and free) when they do not fit. Synchronous.
  std::vector<char *> upload(const FunctionInfo &fn);
  /// True when `p` points into an uploaded copy (never written by a launch).
  bool holds(const void *p) const;
  /// Bytes of the uploaded weights (constants not counted), each copy once.
  size_t weightBytes() const { return weightBytes_; }

private:
  std::vector<DeviceBuffer> blocks_;
  /// (host bytes, size) -> device copy
  std::map<std::pair<const void *, size_t>, char *> copies_;
  size_t weightBytes_ = 0;
};

} // namespace mm::rt::cudaexec

#endif // MM_RUNTIME_CUDAEXEC_DEVICEWEIGHTS_H
