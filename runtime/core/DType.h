//===- DType.h - element types of runtime tensors ---------------------------===//
#ifndef MM_RUNTIME_CORE_DTYPE_H
#define MM_RUNTIME_CORE_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mm::rt {

/// Element type. `boolean` is stored as one byte (0 or 1), like ONNX and numpy.
enum class DType : uint8_t { f32, f16, bf16, f64, i8, i16, i32, i64, u8, u16, u32, u64, boolean };

/// Bytes per element.
size_t dtypeSize(DType t);
/// Short name as used in the IR and in messages: "f32", "bf16", "i64", "bool", ...
std::string_view dtypeName(DType t);
/// Inverse of dtypeName; returns false for an unknown name.
bool parseDType(std::string_view name, DType &out);
bool isFloat(DType t);

} // namespace mm::rt

#endif // MM_RUNTIME_CORE_DTYPE_H
