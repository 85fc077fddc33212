//===- JsonFields.cpp - typed fields of the JSON files models ship ------------===//
#include "runtime/io/JsonFields.h"

#include "runtime/core/Error.h"

#include <cmath>

namespace mm::rt::io {

using json = nlohmann::json;

json parseJsonObject(const std::string &text, const std::string &what) {
  // nlohmann's parser takes a NUL byte for the end of the input: refuse it instead.
  if (size_t nul = text.find('\0'); nul != std::string::npos)
    fail(what, ": not a JSON object (it holds a NUL byte at ", nul, ")");
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    fail(what, ": not a JSON object");
  return j;
}

const json &requiredField(const json &j, const char *name, const std::string &what) {
  if (!j.is_object() || !j.contains(name))
    fail(what, ": no '", name, "' field");
  return j.at(name);
}

std::string requiredString(const json &j, const char *name, const std::string &what) {
  const json &v = requiredField(j, name, what);
  if (!v.is_string())
    fail(what, ": '", name, "' is not a string");
  return v.get<std::string>();
}

/// The field, or nullptr when absent or null.
static const json *present(const json &j, const char *name) {
  if (!j.is_object() || !j.contains(name) || j.at(name).is_null())
    return nullptr;
  return &j.at(name);
}

bool optionalBool(const json &j, const char *name, bool fallback, const std::string &what) {
  const json *v = present(j, name);
  if (!v)
    return fallback;
  if (!v->is_boolean())
    fail(what, ": '", name, "' is not true or false");
  return v->get<bool>();
}

std::string optionalString(const json &j, const char *name, const std::string &what) {
  const json *v = present(j, name);
  if (!v)
    return {};
  if (!v->is_string())
    fail(what, ": '", name, "' is not a string");
  return v->get<std::string>();
}

double optionalNumber(const json &j, const char *name, double fallback, const std::string &what) {
  const json *v = present(j, name);
  if (!v)
    return fallback;
  if (!v->is_number() || !std::isfinite(v->get<double>()))
    fail(what, ": '", name, "' is not a finite number");
  return v->get<double>();
}

int64_t optionalInt(const json &j, const char *name, int64_t fallback, const std::string &what) {
  const json *v = present(j, name);
  if (!v)
    return fallback;
  if (v->is_number_integer())
    return v->get<int64_t>();
  if (v->is_number_float()) {
    double d = v->get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e18)
      return static_cast<int64_t>(d);
  }
  fail(what, ": '", name, "' is not an integer");
}

} // namespace mm::rt::io
