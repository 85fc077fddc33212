//===- FileUtil.cpp - whole-file reads and atomic writes --------------------===//
#include "runtime/io/FileUtil.h"

#include "runtime/core/Error.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sys/stat.h>
#include <sstream>
#include <unistd.h>

namespace mm::rt::io {

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail("cannot open '", path, "': ", std::strerror(errno));
  std::ostringstream os;
  os << in.rdbuf();
  if (in.bad())
    fail("cannot read '", path, "'");
  return os.str();
}

void writeFileAtomic(const std::string &path, const std::string &bytes) {
  std::string tmp = path + ".tmp.XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0)
    fail("cannot create '", path, "': ", std::strerror(errno));
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail("cannot write '", path, "': ", std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    fail("cannot write '", path, "': ", std::strerror(err));
  }
}

} // namespace mm::rt::io
