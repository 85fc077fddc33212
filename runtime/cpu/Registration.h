//===- Registration.h - per-file kernel registration hooks ------------------===//
//
// Each kernel file registers its kernels explicitly (static initialisers would be dropped
// when the library is linked statically); cpuKernels() calls every function here.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CPU_REGISTRATION_H
#define MM_RUNTIME_CPU_REGISTRATION_H

#include "runtime/cpu/CpuKernels.h"

namespace mm::rt::cpu {

void registerUnaryKernels(KernelRegistry &r);      // ElementwiseUnary.cpp
void registerBinaryKernels(KernelRegistry &r);     // ElementwiseBinary.cpp
void registerCastKernels(KernelRegistry &r);       // Cast.cpp
void registerActivationKernels(KernelRegistry &r); // Activations.cpp
void registerMatMulKernels(KernelRegistry &r);     // MatMul.cpp
void registerConvKernels(KernelRegistry &r);       // Conv.cpp
void registerReduceKernels(KernelRegistry &r);     // Reduce.cpp
void registerSoftmaxKernels(KernelRegistry &r);    // Softmax.cpp
void registerNormKernels(KernelRegistry &r);       // Norms.cpp
void registerAttentionKernels(KernelRegistry &r);  // Attention.cpp
void registerRotaryKernels(KernelRegistry &r);     // Rotary.cpp
void registerShapeKernels(KernelRegistry &r);      // ShapeOps.cpp
void registerLayoutKernels(KernelRegistry &r);     // Layout.cpp
void registerIndexingKernels(KernelRegistry &r);   // Indexing.cpp
void registerGeneratorKernels(KernelRegistry &r);  // Generators.cpp
void registerQuantizeKernels(KernelRegistry &r);   // Quantize.cpp
void registerPadKernels(KernelRegistry &r);        // Pad.cpp
void registerSelectionKernels(KernelRegistry &r);  // Selection.cpp
void registerPoolKernels(KernelRegistry &r);       // Pool.cpp
void registerResizeKernels(KernelRegistry &r);     // Resize.cpp
void registerScatterKernels(KernelRegistry &r);    // Scatter.cpp

/// Allocates result `i` through the context and stores it in outputs[i] (growing
/// `outputs` as needed); returns it.
Tensor &allocateResult(KernelContext &ctx, std::vector<Tensor> &outputs, size_t i,
                       const Shape &shape);

} // namespace mm::rt::cpu

#endif // MM_RUNTIME_CPU_REGISTRATION_H
