//===- CpuKernels.cpp - the CPU kernel registry -----------------------------===//
#include "runtime/cpu/CpuKernels.h"

#include "runtime/cpu/Registration.h"

namespace mm::rt::cpu {

CpuKernel KernelRegistry::find(std::string_view opName) const {
  auto it = kernels_.find(opName);
  return it == kernels_.end() ? nullptr : it->second;
}

std::vector<std::string> KernelRegistry::names() const {
  std::vector<std::string> out;
  out.reserve(kernels_.size());
  for (const auto &entry : kernels_)
    out.push_back(entry.first);
  return out;
}

Tensor &allocateResult(KernelContext &ctx, std::vector<Tensor> &outputs, size_t i,
                       const Shape &shape) {
  if (outputs.size() <= i)
    outputs.resize(i + 1);
  outputs[i] = ctx.allocateOutput(i, shape);
  return outputs[i];
}

namespace {
KernelRegistry buildRegistry() {
  KernelRegistry r;
  registerUnaryKernels(r);
  registerBinaryKernels(r);
  registerCastKernels(r);
  registerActivationKernels(r);
  registerMatMulKernels(r);
  registerConvKernels(r);
  registerReduceKernels(r);
  registerSoftmaxKernels(r);
  registerNormKernels(r);
  registerAttentionKernels(r);
  registerRotaryKernels(r);
  registerShapeKernels(r);
  registerLayoutKernels(r);
  registerIndexingKernels(r);
  registerGeneratorKernels(r);
  registerQuantizeKernels(r);
  registerPadKernels(r);
  registerSelectionKernels(r);
  registerPoolKernels(r);
  registerResizeKernels(r);
  registerScatterKernels(r);
  return r;
}
} // namespace

const KernelRegistry &cpuKernels() {
  static const KernelRegistry registry = buildRegistry();
  return registry;
}

} // namespace mm::rt::cpu
