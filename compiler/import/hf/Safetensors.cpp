//===- Safetensors.cpp - the headers of safetensors checkpoints --------------===//
#include "compiler/import/hf/Safetensors.h"

#include "compiler/support/JsonFile.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <fstream>
#include <set>

using json = nlohmann::json;

namespace mm::hf {
namespace {

/// The largest header read (the safetensors reference implementation's limit).
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

mlir::LogicalResult fail(std::string &error, const std::string &message) {
  error = message;
  return mlir::failure();
}

/// A JSON value in an error message: a number, string or flat list as written, anything
/// else by its type (nlohmann's dump recurses: a header nested 200k deep would overflow the
/// stack).
std::string describe(const json &v) {
  if (v.is_primitive())
    return v.dump();
  if (v.is_array() && v.size() <= 8 &&
      std::all_of(v.begin(), v.end(), [](const json &e) { return e.is_number(); }))
    return v.dump();
  return std::string("a JSON ") + v.type_name();
}

/// A non-negative integer of a JSON value, or -1.
int64_t nonNegative(const json &v) {
  if (v.is_number_unsigned())
    return v.get<uint64_t>() <= uint64_t(INT64_MAX) ? static_cast<int64_t>(v.get<uint64_t>()) : -1;
  if (v.is_number_integer())
    return v.get<int64_t>() >= 0 ? v.get<int64_t>() : -1;
  return -1;
}

/// Parses one header entry `name` into `t` (offsets still relative to the data section of
/// `dataBytes` bytes).
mlir::LogicalResult parseEntry(const std::string &where, const std::string &name, const json &e,
                               int64_t dataBytes, SafetensorsTensor &t, std::string &error) {
  const std::string what = where + ": tensor '" + name + "'";
  if (!e.is_object() || !e.contains("dtype") || !e.contains("shape") || !e.contains("data_offsets"))
    return fail(error, what + " is not an object with dtype, shape and data_offsets");
  const json &dtype = e["dtype"], &shape = e["shape"], &offsets = e["data_offsets"];
  if (!dtype.is_string() || safetensorsDTypeBytes(dtype.get<std::string>()) == 0)
    return fail(error, what + " has an unknown dtype " + describe(dtype));
  t.dtype = dtype.get<std::string>();
  if (!shape.is_array())
    return fail(error, what + ": shape is not a list");
  int64_t elements = 1;
  for (const json &d : shape) {
    int64_t n = nonNegative(d);
    if (n < 0)
      return fail(error, what + ": shape " + describe(shape) + " holds a value that is no dim");
    if (__builtin_mul_overflow(elements, n, &elements))
      return fail(error, what + ": shape " + describe(shape) + " has more than 2^63 elements");
    t.shape.push_back(n);
  }
  int64_t bytes = 0;
  if (__builtin_mul_overflow(elements, safetensorsDTypeBytes(t.dtype), &bytes))
    return fail(error, what + ": shape " + describe(shape) + " is larger than 2^63 bytes");
  if (!offsets.is_array() || offsets.size() != 2 || nonNegative(offsets[0]) < 0 ||
      nonNegative(offsets[1]) < 0)
    return fail(error, what + ": data_offsets " + describe(offsets) + " is not [begin, end]");
  const int64_t begin = nonNegative(offsets[0]), end = nonNegative(offsets[1]);
  if (begin > end || end > dataBytes)
    return fail(error, what + ": data_offsets " + describe(offsets) + " are not inside the " +
                           std::to_string(dataBytes) + " data bytes of the file");
  if (end - begin != bytes)
    return fail(error, what + ": data_offsets " + describe(offsets) + " hold " +
                           std::to_string(end - begin) + " bytes, but " + t.dtype + " " +
                           describe(shape) + " is " + std::to_string(bytes) + " bytes");
  t.offset = begin;
  t.length = bytes;
  return mlir::success();
}

/// Fails when two tensors of one file overlap (tensors of no bytes overlap nothing).
mlir::LogicalResult checkNoOverlap(const std::string &path,
                                   std::vector<std::pair<std::string, SafetensorsTensor>> &tensors,
                                   std::string &error) {
  std::sort(tensors.begin(), tensors.end(), [](const auto &a, const auto &b) {
    return a.second.offset < b.second.offset;
  });
  const std::pair<std::string, SafetensorsTensor> *reach = nullptr; // the furthest-reaching so far
  for (const auto &cur : tensors) {
    if (cur.second.length == 0)
      continue;
    if (reach && cur.second.offset < reach->second.offset + reach->second.length)
      return fail(error, path + ": tensors '" + reach->first + "' and '" + cur.first +
                             "' share bytes (their data_offsets overlap)");
    if (!reach || cur.second.offset + cur.second.length > reach->second.offset + reach->second.length)
      reach = &cur;
  }
  return mlir::success();
}

std::string join(const std::string &folder, llvm::StringRef name) {
  llvm::SmallString<256> p(folder);
  llvm::sys::path::append(p, name);
  return std::string(p);
}

/// The .safetensors files directly in `folder`, sorted.
std::vector<std::string> safetensorsFiles(const std::string &folder) {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(folder, ec), end; it != end && !ec; it.increment(ec))
    if (llvm::StringRef(it->path()).ends_with(".safetensors") &&
        llvm::sys::fs::is_regular_file(it->path()))
      files.push_back(it->path());
  std::sort(files.begin(), files.end());
  return files;
}

mlir::LogicalResult readIndexed(const std::string &folder, const std::string &indexPath,
                                TensorMap &out, std::string &error) {
  json index;
  if (mlir::failed(readJsonObject(indexPath, index, error)))
    return mlir::failure();
  if (!index.contains("weight_map") || !index["weight_map"].is_object() ||
      index["weight_map"].empty())
    return fail(error, indexPath + ": no weight_map object of tensor names to files");
  std::map<std::string, std::string> wanted; // tensor -> shard file name
  std::set<std::string> shards;
  for (auto it = index["weight_map"].begin(); it != index["weight_map"].end(); ++it) {
    if (!it.value().is_string())
      return fail(error, indexPath + ": weight_map['" + it.key() + "'] is not a file name");
    std::string shard = it.value().get<std::string>();
    if (shard.empty() || llvm::StringRef(shard).contains('/') || llvm::StringRef(shard).contains('\0') ||
        shard == "." || shard == "..")
      return fail(error, indexPath + ": weight_map['" + it.key() + "'] = '" + shard +
                             "' is not a file name in the folder");
    wanted[it.key()] = shard;
    shards.insert(shard);
  }
  TensorMap all;
  for (const std::string &shard : shards)
    if (mlir::failed(readSafetensorsHeader(join(folder, shard), all, error)))
      return mlir::failure();
  for (const auto &[name, shard] : wanted) {
    auto it = all.find(name);
    if (it == all.end() || llvm::sys::path::filename(it->second.file) != shard)
      return fail(error, indexPath + ": tensor '" + name + "' is not in '" + shard +
                             "', the shard its weight_map names");
  }
  for (const auto &[name, t] : all)
    if (!wanted.count(name))
      return fail(error, t.file + ": tensor '" + name + "' is not in the weight_map of " +
                             indexPath);
  out.insert(all.begin(), all.end());
  return mlir::success();
}

} // namespace

int64_t safetensorsDTypeBytes(llvm::StringRef dtype) {
  return llvm::StringSwitch<int64_t>(dtype)
      .Cases("F64", "I64", "U64", 8)
      .Cases("F32", "I32", "U32", 4)
      .Cases("F16", "BF16", "I16", "U16", 2)
      .Cases("I8", "U8", "BOOL", "F8_E4M3", "F8_E5M2", 1)
      .Default(0);
}

mlir::LogicalResult readSafetensorsHeader(const std::string &path, TensorMap &out,
                                          std::string &error) {
  uint64_t fileBytes = 0;
  if (!llvm::sys::fs::is_regular_file(path) || llvm::sys::fs::file_size(path, fileBytes))
    return fail(error, "cannot read '" + path + "': not a regular file");
  std::ifstream in(path, std::ios::binary);
  unsigned char lenBytes[8] = {};
  if (fileBytes < 8 || !in.read(reinterpret_cast<char *>(lenBytes), 8))
    return fail(error, path + ": not a safetensors file (shorter than its 8-byte header length)");
  uint64_t headerBytes = 0;
  for (int i = 7; i >= 0; --i)
    headerBytes = headerBytes << 8 | lenBytes[i];
  if (headerBytes > kMaxHeaderBytes || headerBytes > fileBytes - 8)
    return fail(error, path + ": header length " + std::to_string(headerBytes) +
                           " is past the end of the " + std::to_string(fileBytes) +
                           "-byte file (or over 100 MB): not a safetensors file, or truncated");
  std::string text(headerBytes, '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(headerBytes)))
    return fail(error, "cannot read the header of '" + path + "'");
  json header;
  if (mlir::failed(parseJsonObject(text, path + " (header)", header, error)))
    return mlir::failure();
  const int64_t dataStart = static_cast<int64_t>(8 + headerBytes);
  const int64_t dataBytes = static_cast<int64_t>(fileBytes) - dataStart;
  std::vector<std::pair<std::string, SafetensorsTensor>> tensors;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (!it.value().is_object())
        return fail(error, path + ": __metadata__ is not an object");
      continue;
    }
    SafetensorsTensor t;
    if (mlir::failed(parseEntry(path, it.key(), it.value(), dataBytes, t, error)))
      return mlir::failure();
    if (out.count(it.key()))
      return fail(error, path + ": tensor '" + it.key() + "' is also in '" + out[it.key()].file + "'");
    t.file = path;
    tensors.emplace_back(it.key(), std::move(t));
  }
  if (mlir::failed(checkNoOverlap(path, tensors, error)))
    return mlir::failure();
  for (auto &[name, t] : tensors) {
    t.offset += dataStart;
    out.emplace(name, std::move(t));
  }
  return mlir::success();
}

bool hasCheckpoint(const std::string &folder) {
  return llvm::sys::fs::exists(join(folder, "model.safetensors.index.json")) ||
         !safetensorsFiles(folder).empty();
}

mlir::LogicalResult readCheckpoint(const std::string &folder, TensorMap &out, std::string &error) {
  // transformers' order: model.safetensors before the index of shards.
  std::string single = join(folder, "model.safetensors");
  if (llvm::sys::fs::exists(single))
    return readSafetensorsHeader(single, out, error);
  std::string indexPath = join(folder, "model.safetensors.index.json");
  if (llvm::sys::fs::exists(indexPath))
    return readIndexed(folder, indexPath, out, error);
  std::vector<std::string> files = safetensorsFiles(folder);
  if (files.empty())
    return fail(error, "folder '" + folder + "' holds no safetensors checkpoint "
                       "(model.safetensors, or shards with model.safetensors.index.json)");
  if (files.size() > 1)
    return fail(error, "folder '" + folder + "' holds " + std::to_string(files.size()) +
                           " .safetensors files but no model.safetensors.index.json that "
                           "says which tensor is where");
  return readSafetensorsHeader(files[0], out, error);
}

} // namespace mm::hf
