//===- CpuKernels.h - the CPU backend's kernel interface and registry -------===//
//
// Every `mm` op has a reference CPU kernel, looked up by the op's full name ("mm.add").
// A kernel reads its inputs, computes the output shapes at run time (dims may be dynamic
// in the IR), allocates each output through the context (from the function's activation
// arena) and writes it. Optional trailing operands that are absent are simply not in
// `inputs`. Failures throw mm::rt::Error naming the op and the problem.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CPU_CPUKERNELS_H
#define MM_RUNTIME_CPU_CPUKERNELS_H

#include "runtime/core/Attrs.h"
#include "runtime/core/Tensor.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace mm::rt::cpu {

/// What the executor gives a kernel.
class KernelContext {
public:
  virtual ~KernelContext() = default;
  /// The op's attributes (names as in the `mm` dialect's ODS).
  virtual const Attrs &attrs() const = 0;
  /// The element type the IR declares for result `i`.
  virtual DType outputDType(size_t i) const = 0;
  /// Allocates result `i` with `shape` and the declared dtype.
  virtual Tensor allocateOutput(size_t i, const Shape &shape) = 0;
};

using CpuKernel = void (*)(KernelContext &ctx, const std::vector<const Tensor *> &inputs,
                           std::vector<Tensor> &outputs);

class KernelRegistry {
public:
  void add(const std::string &opName, CpuKernel kernel) { kernels_[opName] = kernel; }
  /// nullptr when no kernel is registered for `opName`.
  CpuKernel find(std::string_view opName) const;
  std::vector<std::string> names() const;

private:
  std::map<std::string, CpuKernel, std::less<>> kernels_;
};

/// The registry with every CPU kernel (built once, on first use).
const KernelRegistry &cpuKernels();

} // namespace mm::rt::cpu

#endif // MM_RUNTIME_CPU_CPUKERNELS_H
