//===- Npy.cpp - NumPy .npy files -------------------------------------------===//
#include "runtime/io/Npy.h"

#include "runtime/core/Error.h"
#include "runtime/io/FileUtil.h"

#include <cctype>
#include <cstring>
#include <limits>

namespace mm::rt::io {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

struct DescrEntry {
  const char *code; // without the byte-order character
  DType dtype;
};
constexpr DescrEntry kDescrs[] = {
    {"f4", DType::f32}, {"f2", DType::f16}, {"f8", DType::f64}, {"i1", DType::i8},
    {"i2", DType::i16}, {"i4", DType::i32}, {"i8", DType::i64}, {"u1", DType::u8},
    {"u2", DType::u16}, {"u4", DType::u32}, {"u8", DType::u64}, {"b1", DType::boolean}};

/// Finds the value text after `'key':` in the header dict.
std::string dictValue(const std::string &header, const std::string &key,
                      const std::string &origin) {
  std::string pattern = "'" + key + "'";
  size_t k = header.find(pattern);
  if (k == std::string::npos)
    fail(origin, ": .npy header has no '", key, "' entry");
  size_t colon = header.find(':', k + pattern.size());
  if (colon == std::string::npos)
    fail(origin, ": malformed .npy header near '", key, "'");
  size_t b = colon + 1;
  while (b < header.size() && std::isspace(static_cast<unsigned char>(header[b])))
    ++b;
  size_t e = b;
  if (b < header.size() && (header[b] == '\'' || header[b] == '"')) {
    e = header.find(header[b], b + 1);
    if (e == std::string::npos)
      fail(origin, ": malformed .npy header near '", key, "'");
    return header.substr(b + 1, e - b - 1);
  }
  if (b < header.size() && header[b] == '(') {
    e = header.find(')', b);
    if (e == std::string::npos)
      fail(origin, ": malformed .npy header near '", key, "'");
    return header.substr(b, e - b + 1);
  }
  while (e < header.size() && header[e] != ',' && header[e] != '}')
    ++e;
  return header.substr(b, e - b);
}

DType parseDescr(const std::string &descr, const std::string &origin) {
  if (descr.size() == 3 && (descr[0] == '<' || descr[0] == '|' || descr[0] == '=')) {
    for (const DescrEntry &d : kDescrs)
      if (descr.compare(1, 2, d.code) == 0) {
        bool multiByte = dtypeSize(d.dtype) > 1;
        if (descr[0] == '|' && multiByte)
          break;
        return d.dtype;
      }
  }
  fail(origin, ": unsupported .npy dtype '", descr,
       "' (supported: little-endian f2/f4/f8, i1-i8, u1-u8, b1)");
}

Shape parseShape(const std::string &text, const std::string &origin) {
  // "(1, 3, 64, 64)", "(5,)", "()"
  Shape shape;
  size_t i = 1;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ','))
      ++i;
    if (i >= text.size() || text[i] == ')')
      break;
    if (!std::isdigit(static_cast<unsigned char>(text[i])))
      fail(origin, ": malformed .npy shape ", text);
    int64_t d = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      d = d * 10 + (text[i] - '0');
      if (d > (int64_t(1) << 48))
        fail(origin, ": .npy shape ", text, " is too large");
      ++i;
    }
    if (i < text.size() && text[i] == 'L')
      ++i;
    shape.push_back(d);
  }
  return shape;
}

std::string descrOf(DType t) {
  for (const DescrEntry &d : kDescrs)
    if (d.dtype == t)
      return std::string(dtypeSize(t) == 1 ? "|" : "<") + d.code;
  fail("cannot write ", dtypeName(t), " as .npy (numpy has no such dtype)");
}

} // namespace

Tensor parseNpy(const std::string &bytes, const std::string &origin) {
  if (bytes.size() < 10 || bytes.compare(0, kMagicLen, kMagic, kMagicLen) != 0)
    fail(origin, ": not a .npy file (bad magic)");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      fail(origin, ": truncated .npy header");
    headerLen = 0;
    for (int i = 3; i >= 0; --i)
      headerLen = headerLen << 8 | static_cast<unsigned char>(bytes[8 + i]);
    headerStart = 12;
  } else {
    fail(origin, ": unsupported .npy version ", major);
  }
  if (headerLen > bytes.size() - headerStart)
    fail(origin, ": truncated .npy header");
  std::string header = bytes.substr(headerStart, headerLen);
  DType dtype = parseDescr(dictValue(header, "descr", origin), origin);
  std::string fortran = dictValue(header, "fortran_order", origin);
  if (fortran.find("True") != std::string::npos)
    fail(origin, ": Fortran-order .npy arrays are not supported (save with C order)");
  Shape shape = parseShape(dictValue(header, "shape", origin), origin);

  size_t dataStart = headerStart + headerLen;
  uint64_t need = dtypeSize(dtype);
  for (int64_t d : shape) {
    if (d != 0 && need > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(d))
      fail(origin, ": .npy shape ", shapeString(shape), " is too large");
    need *= static_cast<uint64_t>(d);
  }
  if (bytes.size() - dataStart != need)
    fail(origin, ": .npy data holds ", bytes.size() - dataStart, " bytes but ",
         dtypeName(dtype), " ", shapeString(shape), " needs ", need);
  Tensor t = Tensor::host(dtype, shape);
  if (need)
    std::memcpy(t.data, bytes.data() + dataStart, need);
  return t;
}

Tensor readNpy(const std::string &path) { return parseNpy(readFile(path), path); }

std::string serializeNpy(const Tensor &t) {
  std::string shape = "(";
  for (size_t i = 0; i < t.shape.size(); ++i)
    shape += std::to_string(t.shape[i]) + (t.shape.size() == 1 ? "," : (i + 1 < t.shape.size() ? ", " : ""));
  shape += ")";
  std::string header =
      "{'descr': '" + descrOf(t.dtype) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so that magic + version + length + header + '\n' is a multiple of 64.
  size_t total = kMagicLen + 2 + 2 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  if (header.size() > 65535)
    fail("cannot write .npy: shape ", shapeString(t.shape), " makes the header too long");
  std::string out(kMagic, kMagicLen);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  if (t.nbytes())
    out.append(static_cast<const char *>(t.data), t.nbytes());
  return out;
}

void writeNpy(const std::string &path, const Tensor &t) { writeFileAtomic(path, serializeNpy(t)); }

} // namespace mm::rt::io
