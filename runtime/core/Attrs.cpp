//===- Attrs.cpp - op attributes as the runtime sees them -------------------===//
#include "runtime/core/Attrs.h"

#include "runtime/core/Error.h"

namespace mm::rt {

template <typename T>
const T &Attrs::get(const std::string &name, const char *kind) const {
  auto it = values_.find(name);
  if (it == values_.end())
    fail("op ", opName_, ": missing attribute '", name, "'");
  const T *v = std::get_if<T>(&it->second);
  if (!v)
    fail("op ", opName_, ": attribute '", name, "' is not ", kind);
  return *v;
}

int64_t Attrs::getInt(const std::string &name) const { return get<int64_t>(name, "an integer"); }
int64_t Attrs::getInt(const std::string &name, int64_t dflt) const {
  return has(name) ? getInt(name) : dflt;
}
double Attrs::getFloat(const std::string &name) const {
  auto it = values_.find(name);
  if (it != values_.end())
    if (const int64_t *i = std::get_if<int64_t>(&it->second))
      return static_cast<double>(*i);
  return get<double>(name, "a float");
}
double Attrs::getFloat(const std::string &name, double dflt) const {
  return has(name) ? getFloat(name) : dflt;
}
const std::string &Attrs::getString(const std::string &name) const {
  return get<std::string>(name, "a string");
}
const std::vector<int64_t> &Attrs::getInts(const std::string &name) const {
  return get<std::vector<int64_t>>(name, "an integer list");
}
std::optional<std::vector<int64_t>> Attrs::getOptionalInts(const std::string &name) const {
  if (!has(name))
    return std::nullopt;
  return getInts(name);
}
const std::vector<double> &Attrs::getFloats(const std::string &name) const {
  return get<std::vector<double>>(name, "a float list");
}
const Tensor &Attrs::getTensor(const std::string &name) const {
  return get<Tensor>(name, "a tensor");
}

} // namespace mm::rt
