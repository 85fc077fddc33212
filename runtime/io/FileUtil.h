//===- FileUtil.h - whole-file reads and atomic writes ----------------------===//
#ifndef MM_RUNTIME_IO_FILEUTIL_H
#define MM_RUNTIME_IO_FILEUTIL_H

#include <string>

namespace mm::rt::io {

/// The bytes of `path`; throws Error if it cannot be read.
std::string readFile(const std::string &path);

/// Writes `bytes` to a temporary file next to `path`, then renames it over `path`: a
/// failure leaves neither a partial nor a temporary file. Throws Error.
void writeFileAtomic(const std::string &path, const std::string &bytes);

} // namespace mm::rt::io

#endif // MM_RUNTIME_IO_FILEUTIL_H
