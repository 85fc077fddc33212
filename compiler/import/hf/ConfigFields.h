//===- ConfigFields.h - typed reads of config.json objects -------------------===//
//
// Internal to the Hugging Face importer: the reads HfConfig.cpp and FamilyConfigs.cpp
// make of config.json, each field checked for its JSON type and range, the first bad one
// recorded as "field 'text_config.rope_theta' is not a number".
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_IMPORT_HF_CONFIGFIELDS_H
#define MM_COMPILER_IMPORT_HF_CONFIGFIELDS_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace mm::hf {

/// The largest size field read (a dim of 2^24 is past any model's) and the largest
/// head_dim and layer count: bounds that keep the graph built from a config small.
constexpr int64_t kMaxSize = int64_t(1) << 24, kMaxHeadDim = 65536, kMaxLayers = 1024;

/// `value` quoted for an error message: at most 64 characters (then "..."), control
/// characters shown as '?', so that a hostile config.json cannot flood or garble the
/// terminal with a field's value.
inline std::string shownValue(const std::string &value) {
  constexpr size_t kShown = 64;
  std::string out = "'";
  for (size_t i = 0; i < value.size() && i < kShown; ++i)
    out += static_cast<unsigned char>(value[i]) < 0x20 || value[i] == 0x7f ? '?' : value[i];
  return out + (value.size() > kShown ? "...'" : "'");
}

/// Typed reads of one JSON object of config.json; the first bad field sets `error`
/// ("<file>: field 'text_config.rope_theta' is not a number") and later reads do nothing.
class Fields {
public:
  Fields(const nlohmann::json &obj, std::string where, std::string &error)
      : obj_(obj), where_(std::move(where)), error_(error) {}

  bool has(const char *key) const { return obj_.contains(key) && !obj_[key].is_null(); }
  bool isObject(const char *key) const { return has(key) && obj_[key].is_object(); }
  /// Whether `key` is given as null (which means "none", not "the default").
  bool isNull(const char *key) const { return obj_.contains(key) && obj_[key].is_null(); }

  int64_t integer(const char *key, int64_t fallback) {
    if (!has(key) || !error_.empty())
      return fallback;
    if (!obj_[key].is_number_integer())
      return bad(key, "is not an integer"), fallback;
    return obj_[key].get<int64_t>();
  }
  /// A positive integer (a size or count) of at most `max`.
  int64_t size(const char *key, int64_t fallback, int64_t max = kMaxSize) {
    int64_t v = integer(key, fallback);
    if ((v <= 0 || v > max) && error_.empty())
      bad(key, "must be a positive integer of at most " + std::to_string(max));
    return v;
  }
  double number(const char *key, double fallback) {
    if (!has(key) || !error_.empty())
      return fallback;
    if (!obj_[key].is_number())
      return bad(key, "is not a number"), fallback;
    return obj_[key].get<double>();
  }
  bool boolean(const char *key, bool fallback) {
    if (!has(key) || !error_.empty())
      return fallback;
    if (!obj_[key].is_boolean())
      return bad(key, "is not true or false"), fallback;
    return obj_[key].get<bool>();
  }
  std::string string(const char *key, const std::string &fallback) {
    if (!has(key) || !error_.empty())
      return fallback;
    if (!obj_[key].is_string())
      return bad(key, "is not a string"), fallback;
    return obj_[key].get<std::string>();
  }
  /// The nested object `key`, or an empty one when absent.
  Fields object(const char *key) {
    static const nlohmann::json empty = nlohmann::json::object();
    if (!has(key))
      return Fields(empty, where_ + key + ".", error_);
    if (!obj_[key].is_object() && error_.empty())
      bad(key, "is not an object");
    return Fields(obj_[key].is_object() ? obj_[key] : empty, where_ + key + ".", error_);
  }
  const nlohmann::json &raw(const char *key) const { return obj_[key]; }
  void bad(const char *key, const std::string &why) {
    if (error_.empty())
      error_ = "field '" + where_ + key + "' " + why;
  }
  bool ok() const { return error_.empty(); }

private:
  const nlohmann::json &obj_;
  std::string where_; ///< "text_config." etc.
  std::string &error_;
};

} // namespace mm::hf

#endif // MM_COMPILER_IMPORT_HF_CONFIGFIELDS_H
