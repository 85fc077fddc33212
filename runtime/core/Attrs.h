//===- Attrs.h - op attributes as the runtime sees them ---------------------===//
//
// The plan stores every op attribute generically (name -> int, float, string, list or
// small tensor); kernels read them by name. Missing required attributes and type
// mismatches throw Error naming the op and the attribute.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CORE_ATTRS_H
#define MM_RUNTIME_CORE_ATTRS_H

#include "runtime/core/Tensor.h"

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace mm::rt {

using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>,
                               std::vector<double>, Tensor>;

class Attrs {
public:
  Attrs() = default;
  explicit Attrs(std::string opName) : opName_(std::move(opName)) {}

  void set(const std::string &name, AttrValue value) { values_[name] = std::move(value); }
  bool has(const std::string &name) const { return values_.count(name) != 0; }

  /// Integer (bools and enums are stored as integers).
  int64_t getInt(const std::string &name) const;
  int64_t getInt(const std::string &name, int64_t dflt) const;
  double getFloat(const std::string &name) const;
  double getFloat(const std::string &name, double dflt) const;
  const std::string &getString(const std::string &name) const;
  const std::vector<int64_t> &getInts(const std::string &name) const;
  std::optional<std::vector<int64_t>> getOptionalInts(const std::string &name) const;
  const std::vector<double> &getFloats(const std::string &name) const;
  const Tensor &getTensor(const std::string &name) const;
  const std::string &opName() const { return opName_; }

private:
  template <typename T> const T &get(const std::string &name, const char *kind) const;
  std::string opName_;
  std::map<std::string, AttrValue> values_;
};

} // namespace mm::rt

#endif // MM_RUNTIME_CORE_ATTRS_H
