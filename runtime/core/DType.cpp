//===- DType.cpp - element types of runtime tensors -------------------------===//
#include "runtime/core/DType.h"

namespace mm::rt {
namespace {
struct DTypeInfo {
  DType type;
  std::string_view name;
  size_t size;
};
constexpr DTypeInfo kInfo[] = {
    {DType::f32, "f32", 4},  {DType::f16, "f16", 2},  {DType::bf16, "bf16", 2},
    {DType::f64, "f64", 8},  {DType::i8, "i8", 1},    {DType::i16, "i16", 2},
    {DType::i32, "i32", 4},  {DType::i64, "i64", 8},  {DType::u8, "u8", 1},
    {DType::u16, "u16", 2},  {DType::u32, "u32", 4},  {DType::u64, "u64", 8},
    {DType::boolean, "bool", 1}};
} // namespace

size_t dtypeSize(DType t) { return kInfo[static_cast<int>(t)].size; }
std::string_view dtypeName(DType t) { return kInfo[static_cast<int>(t)].name; }
bool isFloat(DType t) {
  return t == DType::f32 || t == DType::f16 || t == DType::bf16 || t == DType::f64;
}
bool parseDType(std::string_view name, DType &out) {
  for (const DTypeInfo &i : kInfo)
    if (i.name == name) {
      out = i.type;
      return true;
    }
  return false;
}

} // namespace mm::rt
