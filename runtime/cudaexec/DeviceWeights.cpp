//===- DeviceWeights.cpp - a plan's weights on the device, uploaded once -----===//
#include "runtime/cudaexec/DeviceWeights.h"

#include "runtime/cuda/CudaCommon.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>

namespace mm::rt::cudaexec {
namespace {

size_t alignUp(size_t n) { return (n + 255) / 256 * 256; }

bool isParameter(const TensorInfo &t) {
  return t.kind == TensorKind::weight || t.kind == TensorKind::constant;
}

std::pair<const void *, size_t> keyOf(const TensorInfo &t) { return {t.value.data, t.value.nbytes()}; }

} // namespace

std::vector<char *> DeviceWeights::upload(const FunctionInfo &fn) {
  std::vector<char *> dev(fn.tensors.size(), nullptr);
  std::map<std::pair<const void *, size_t>, size_t> fresh; // key -> offset in the new block
  size_t total = 0, freshWeightBytes = 0;
  for (const TensorInfo &t : fn.tensors) {
    if (!isParameter(t) || copies_.count(keyOf(t)) || fresh.count(keyOf(t)))
      continue;
    fresh.emplace(keyOf(t), total);
    total += alignUp(std::max<size_t>(t.value.nbytes(), 1)); // an empty tensor has an address too
    if (t.kind == TensorKind::weight)
      freshWeightBytes += t.value.nbytes();
  }
  if (total > 0) {
    const std::string what = "the weights of '" + fn.name + "'";
    requireFreeDeviceMemory(total, what.c_str());
    DeviceBuffer block(total, what.c_str(), DeviceShare::weights);
    char *base = static_cast<char *>(block.get());
    std::map<std::pair<const void *, size_t>, char *> uploaded; // kept only when all are
    for (const TensorInfo &t : fn.tensors) {
      auto it = isParameter(t) ? fresh.find(keyOf(t)) : fresh.end();
      if (it == fresh.end() || uploaded.count(it->first))
        continue;
      if (t.value.nbytes())
        cuda::checkCuda(cudaMemcpy(base + it->second, t.value.data, t.value.nbytes(),
                                   cudaMemcpyHostToDevice),
                        "uploading weights");
      uploaded.emplace(it->first, base + it->second);
    }
    blocks_.push_back(std::move(block));
    copies_.insert(uploaded.begin(), uploaded.end());
    weightBytes_ += freshWeightBytes;
  }
  for (size_t i = 0; i < fn.tensors.size(); ++i)
    if (isParameter(fn.tensors[i]))
      dev[i] = copies_.at(keyOf(fn.tensors[i]));
  return dev;
}

bool DeviceWeights::holds(const void *p) const {
  const char *c = static_cast<const char *>(p);
  for (const DeviceBuffer &b : blocks_) {
    const char *base = static_cast<const char *>(b.get());
    if (c >= base && c < base + b.bytes())
      return true;
  }
  return false;
}

} // namespace mm::rt::cudaexec
