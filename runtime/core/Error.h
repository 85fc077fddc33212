//===- Error.h - runtime errors ---------------------------------------------===//
//
// The runtime reports every failure (bad plan, wrong input, unsupported case) by throwing
// mm::rt::Error with a message that names what and where. Tools catch it, print it and
// exit with status 1.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_CORE_ERROR_H
#define MM_RUNTIME_CORE_ERROR_H

#include <sstream>
#include <stdexcept>
#include <string>

namespace mm::rt {

class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message) : std::runtime_error(message) {}
};

/// Throws Error with the streamed parts concatenated: fail("op ", name, ": bad rank ", r).
template <typename... Parts>
[[noreturn]] void fail(const Parts &...parts) {
  std::ostringstream os;
  (os << ... << parts);
  throw Error(os.str());
}

} // namespace mm::rt

#endif // MM_RUNTIME_CORE_ERROR_H
