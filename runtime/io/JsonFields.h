//===- JsonFields.h - typed fields of the JSON files models ship --------------===//
//
// Reading a field of a parsed JSON object (tokenizer.json, tokenizer_config.json,
// preprocessor_config.json, generation_config.json, ...) with its type checked: every
// malformed field is an mm::rt::Error naming `what` (the file) and the field. "Optional"
// fields give the fallback when absent or null, as transformers reads them.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_IO_JSONFIELDS_H
#define MM_RUNTIME_IO_JSONFIELDS_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace mm::rt::io {

/// The object `text` holds; Error "<what>: not a JSON object" when it is not JSON or not an object.
nlohmann::json parseJsonObject(const std::string &text, const std::string &what);
/// `j[name]`, which must exist.
const nlohmann::json &requiredField(const nlohmann::json &j, const char *name, const std::string &what);
/// `j[name]`, which must be a string.
std::string requiredString(const nlohmann::json &j, const char *name, const std::string &what);
bool optionalBool(const nlohmann::json &j, const char *name, bool fallback, const std::string &what);
/// "" when absent or null.
std::string optionalString(const nlohmann::json &j, const char *name, const std::string &what);
/// A finite number.
double optionalNumber(const nlohmann::json &j, const char *name, double fallback, const std::string &what);
/// An integer (a float with an integral value is taken, as Python's int() of a JSON 2.0).
int64_t optionalInt(const nlohmann::json &j, const char *name, int64_t fallback, const std::string &what);

} // namespace mm::rt::io

#endif // MM_RUNTIME_IO_JSONFIELDS_H
