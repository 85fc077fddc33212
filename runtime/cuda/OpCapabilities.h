//===- OpCapabilities.h - the mm ops the CUDA backend runs on the device -----===//
//
// One table for both sides of the CUDA placement contract: the compiler's placement pass
// (-mm-plan-cuda-graphs puts an op on the device only when this table has it, for the
// element types it names) and the CUDA executor, whose launch table
// (runtime/cudaexec/CudaOps.cpp) must hold exactly these op names (OpCapabilitiesTest
// checks it; the element types are the launches' own checks) and refuses a plan naming
// another device op at load. Free of LLVM and CUDA, so the
// compiler includes it in builds without the CUDA backend.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CUDA_OPCAPABILITIES_H
#define MM_RUNTIME_CUDA_OPCAPABILITIES_H

#include <cstdint>
#include <string_view>

namespace mm::rt::cuda {

/// The element types for which the CUDA backend runs an op on the device.
enum class DeviceTypes : uint8_t {
  any,            ///< moves elements of 1, 2, 4 or 8 bytes: every element type
  floatResult,    ///< computes in f32, f16 or bf16: when its result is one of them
  floatCast,      ///< mm.cast: from and to f32, f16 or bf16
};

struct DeviceOpCapability {
  std::string_view name;
  DeviceTypes types;
};

inline constexpr DeviceOpCapability kDeviceOps[] = {
    {"mm.reshape", DeviceTypes::any},          {"mm.flatten", DeviceTypes::any},
    {"mm.squeeze", DeviceTypes::any},          {"mm.unsqueeze", DeviceTypes::any},
    {"mm.transpose", DeviceTypes::any},        {"mm.concat", DeviceTypes::any},
    {"mm.split", DeviceTypes::any},            {"mm.slice", DeviceTypes::any},
    {"mm.expand", DeviceTypes::any},           {"mm.gather", DeviceTypes::any},
    {"mm.linear", DeviceTypes::floatResult},   {"mm.matmul", DeviceTypes::floatResult},
    {"mm.attention", DeviceTypes::floatResult}, {"mm.layer_norm", DeviceTypes::floatResult},
    {"mm.add_layer_norm", DeviceTypes::floatResult}, {"mm.rms_norm", DeviceTypes::floatResult},
    {"mm.add_rms_norm", DeviceTypes::floatResult}, {"mm.rotary", DeviceTypes::floatResult},
    {"mm.swiglu", DeviceTypes::floatResult},   {"mm.geglu", DeviceTypes::floatResult},
    {"mm.gelu", DeviceTypes::floatResult},
    {"mm.quick_gelu", DeviceTypes::floatResult}, {"mm.silu", DeviceTypes::floatResult},
    {"mm.relu", DeviceTypes::floatResult},     {"mm.add", DeviceTypes::floatResult},
    {"mm.sub", DeviceTypes::floatResult},      {"mm.mul", DeviceTypes::floatResult},
    {"mm.div", DeviceTypes::floatResult},      {"mm.pow", DeviceTypes::floatResult},
    {"mm.max", DeviceTypes::floatResult},      {"mm.min", DeviceTypes::floatResult},
    {"mm.cast", DeviceTypes::floatCast},
};

/// The fused launches of a decode step that -mm-plan-cuda-fusion decides at compile time
/// and the CUDA executor carries out (the plan's Op.fusion bits; docs/cuda-runtime.md):
enum class CudaFusion : uint8_t {
  /// the op's result feeds only the next op, a device mm.linear, as its input: an RMSNorm
  /// or SwiGLU may run inside that linear's GEMV
  feedsNextLinear = 1,
  /// an mm.rotary followed by another with the same cos/sin (a layer's query and key):
  /// one launch rotates both
  rotaryPairWithNext = 2,
  /// such a pair whose query feeds only a device mm.attention that reads the key appended
  /// to the KV cache: the decode-attention launch rotates both itself
  rotaryIntoAttention = 4,
  /// a KV-cache append whose result and its partner's (the layer's key and value) feed
  /// only one device mm.attention, as its key and value: that launch writes the new rows
  appendIntoAttention = 8,
};

struct CudaFusionName {
  CudaFusion fusion;
  std::string_view name;
};

inline constexpr CudaFusionName kCudaFusions[] = {
    {CudaFusion::feedsNextLinear, "feeds_next_linear"},
    {CudaFusion::rotaryPairWithNext, "rotary_pair_with_next"},
    {CudaFusion::rotaryIntoAttention, "rotary_into_attention"},
    {CudaFusion::appendIntoAttention, "append_into_attention"},
};

} // namespace mm::rt::cuda

#endif // MM_RUNTIME_CUDA_OPCAPABILITIES_H
