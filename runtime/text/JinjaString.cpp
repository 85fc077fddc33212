//===- JinjaString.cpp - Python str semantics over UTF-8 -------------------===//
//
// The str operations chat templates reach (through filters, methods and the lexer):
// UTF-8 coding, Python's whitespace and character classes, case mapping, strip, split,
// replace, find. Strings are UTF-8 std::strings; indices are code points, as in Python.
// Case mapping is utf8proc's simple mapping plus the special cases Python applies that
// matter in practice (German sharp s, Latin ligatures, dotted capital I, final sigma).
//
//===----------------------------------------------------------------------===//
#include "runtime/text/Jinja.h"

#include <utf8proc.h>

#include <algorithm>

namespace mm::rt::jinja {

// ---- UTF-8 ------------------------------------------------------------------------------

namespace {

/// Decodes the code point at `pos` (valid UTF-8 assumed) and advances `pos`.
char32_t nextCodePoint(std::string_view s, size_t &pos) {
  const auto c = static_cast<unsigned char>(s[pos]);
  if (c < 0x80) {
    ++pos;
    return c;
  }
  const int n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
  char32_t cp = c & (0x7F >> n);
  for (int k = 1; k < n; ++k)
    cp = (cp << 6) | (static_cast<unsigned char>(s[pos + size_t(k)]) & 0x3F);
  pos += size_t(n);
  return cp;
}

} // namespace

size_t findInvalidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int n = 0;
    char32_t min = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 2;
      min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 3;
      min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 4;
      min = 0x10000;
    } else {
      return i;
    }
    if (i + size_t(n) > s.size())
      return i;
    char32_t cp = c & (0x7F >> n);
    for (int k = 1; k < n; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + size_t(k)]);
      if ((cc & 0xC0) != 0x80)
        return i;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return i;
    i += size_t(n);
  }
  return std::string_view::npos;
}

std::u32string decodeUtf8(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t pos = 0; pos < s.size();)
    out.push_back(nextCodePoint(s, pos));
  return out;
}

void appendUtf8(std::string &out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(char(cp));
  } else if (cp < 0x800) {
    out.push_back(char(0xC0 | (cp >> 6)));
    out.push_back(char(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(char(0xE0 | (cp >> 12)));
    out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(char(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(char(0xF0 | (cp >> 18)));
    out.push_back(char(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(char(0x80 | (cp & 0x3F)));
  }
}

std::string encodeUtf8(std::u32string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t cp : s)
    appendUtf8(out, cp);
  return out;
}

size_t codePointCount(std::string_view s) {
  size_t n = 0;
  for (char c : s)
    n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// ---- character classes ------------------------------------------------------------------

bool isPySpace(char32_t cp) {
  if (cp < 0x80)
    return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20);
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

namespace {

utf8proc_category_t category(char32_t cp) { return utf8proc_category(utf8proc_int32_t(cp)); }

bool isPyUpper(char32_t cp) {
  return category(cp) == UTF8PROC_CATEGORY_LU ||
         (isPyCased(cp) && char32_t(utf8proc_tolower(utf8proc_int32_t(cp))) != cp);
}

bool isPyLower(char32_t cp) { return category(cp) == UTF8PROC_CATEGORY_LL; }

/// Python's case-ignorable characters (approximately: marks, format characters,
/// modifiers and the word-internal punctuation of Unicode's Word_Break=MidLetter).
bool isCaseIgnorable(char32_t cp) {
  const auto c = category(cp);
  return c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_ME || c == UTF8PROC_CATEGORY_CF ||
         c == UTF8PROC_CATEGORY_LM || c == UTF8PROC_CATEGORY_SK || cp == '\'' || cp == '.' ||
         cp == ':' || cp == 0xB7 || cp == 0x2019;
}

/// Full upper / title case mapping of one code point (SpecialCasing's unconditional
/// entries that occur in text; the rest is utf8proc's simple mapping).
void appendUpper(std::u32string &out, char32_t cp, bool title) {
  switch (cp) {
  case 0xDF: // sharp s
    out += title ? U"Ss" : U"SS";
    return;
  case 0xFB00:
    out += title ? U"Ff" : U"FF";
    return;
  case 0xFB01:
    out += title ? U"Fi" : U"FI";
    return;
  case 0xFB02:
    out += title ? U"Fl" : U"FL";
    return;
  case 0xFB03:
    out += title ? U"Ffi" : U"FFI";
    return;
  case 0xFB04:
    out += title ? U"Ffl" : U"FFL";
    return;
  case 0xFB05:
  case 0xFB06:
    out += title ? U"St" : U"ST";
    return;
  case 0x149: // n preceded by apostrophe
    out += U"\u02BCN";
    return;
  default:
    out.push_back(char32_t(title ? utf8proc_totitle(utf8proc_int32_t(cp))
                                 : utf8proc_toupper(utf8proc_int32_t(cp))));
  }
}

/// Full lower case mapping of s[i] (final sigma needs the neighbours).
void appendLower(std::u32string &out, const std::u32string &s, size_t i) {
  const char32_t cp = s[i];
  if (cp == 0x130) { // capital I with dot above
    out += U"i\u0307";
    return;
  }
  if (cp == 0x3A3) {
    size_t j = i;
    bool casedBefore = false;
    while (j > 0) {
      --j;
      if (!isCaseIgnorable(s[j])) {
        casedBefore = isPyCased(s[j]);
        break;
      }
    }
    bool casedAfter = false;
    for (size_t k = i + 1; k < s.size(); ++k) {
      if (!isCaseIgnorable(s[k])) {
        casedAfter = isPyCased(s[k]);
        break;
      }
    }
    out.push_back(casedBefore && !casedAfter ? 0x3C2 : 0x3C3);
    return;
  }
  out.push_back(char32_t(utf8proc_tolower(utf8proc_int32_t(cp))));
}

} // namespace

bool isPyAlpha(char32_t cp) {
  const auto c = category(cp);
  return c == UTF8PROC_CATEGORY_LU || c == UTF8PROC_CATEGORY_LL || c == UTF8PROC_CATEGORY_LT ||
         c == UTF8PROC_CATEGORY_LM || c == UTF8PROC_CATEGORY_LO;
}

bool isPyDecimal(char32_t cp) { return category(cp) == UTF8PROC_CATEGORY_ND; }

bool isPyNumeric(char32_t cp) {
  const auto c = category(cp);
  return c == UTF8PROC_CATEGORY_ND || c == UTF8PROC_CATEGORY_NL || c == UTF8PROC_CATEGORY_NO;
}

bool isPyAlnum(char32_t cp) { return isPyAlpha(cp) || isPyNumeric(cp); }

bool pyIsUpper(std::string_view s) {
  bool cased = false;
  for (char32_t cp : decodeUtf8(s)) {
    if (isPyLower(cp) || category(cp) == UTF8PROC_CATEGORY_LT)
      return false;
    cased |= isPyUpper(cp);
  }
  return cased;
}

bool pyIsLower(std::string_view s) {
  bool cased = false;
  for (char32_t cp : decodeUtf8(s)) {
    if (isPyUpper(cp) || category(cp) == UTF8PROC_CATEGORY_LT)
      return false;
    cased |= isPyLower(cp);
  }
  return cased;
}

bool isPyCased(char32_t cp) {
  const auto c = category(cp);
  return c == UTF8PROC_CATEGORY_LU || c == UTF8PROC_CATEGORY_LL || c == UTF8PROC_CATEGORY_LT;
}

bool isPyPrintable(char32_t cp) {
  if (cp == ' ')
    return true;
  switch (category(cp)) {
  case UTF8PROC_CATEGORY_CC:
  case UTF8PROC_CATEGORY_CF:
  case UTF8PROC_CATEGORY_CS:
  case UTF8PROC_CATEGORY_CO:
  case UTF8PROC_CATEGORY_CN:
  case UTF8PROC_CATEGORY_ZL:
  case UTF8PROC_CATEGORY_ZP:
  case UTF8PROC_CATEGORY_ZS:
    return false;
  default:
    return true;
  }
}

// ---- case mapping -----------------------------------------------------------------------

std::string pyUpper(std::string_view s) {
  std::u32string out;
  for (char32_t cp : decodeUtf8(s))
    appendUpper(out, cp, false);
  return encodeUtf8(out);
}

std::string pyLower(std::string_view s) {
  const std::u32string in = decodeUtf8(s);
  std::u32string out;
  for (size_t i = 0; i < in.size(); ++i)
    appendLower(out, in, i);
  return encodeUtf8(out);
}

std::string pyTitle(std::string_view s) {
  const std::u32string in = decodeUtf8(s);
  std::u32string out;
  bool previousCased = false;
  for (size_t i = 0; i < in.size(); ++i) {
    if (previousCased)
      appendLower(out, in, i);
    else
      appendUpper(out, in[i], true);
    previousCased = isPyCased(in[i]);
  }
  return encodeUtf8(out);
}

std::string pyCapitalize(std::string_view s) {
  const std::u32string in = decodeUtf8(s);
  std::u32string out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (i == 0)
      appendUpper(out, in[i], true);
    else
      appendLower(out, in, i);
  }
  return encodeUtf8(out);
}

std::string pySwapcase(std::string_view s) {
  const std::u32string in = decodeUtf8(s);
  std::u32string out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (isPyUpper(in[i]))
      appendLower(out, in, i);
    else if (isPyLower(in[i]))
      appendUpper(out, in[i], false);
    else
      out.push_back(in[i]);
  }
  return encodeUtf8(out);
}

// ---- strip / split / replace / find -----------------------------------------------------

std::string pyStrip(std::string_view s, const std::optional<std::string> &chars, bool left,
                    bool right) {
  const std::u32string in = decodeUtf8(s);
  const std::u32string set = chars ? decodeUtf8(*chars) : std::u32string();
  auto strip = [&](char32_t cp) {
    return chars ? set.find(cp) != std::u32string::npos : isPySpace(cp);
  };
  size_t begin = 0, end = in.size();
  if (left)
    while (begin < end && strip(in[begin]))
      ++begin;
  if (right)
    while (end > begin && strip(in[end - 1]))
      --end;
  return encodeUtf8(std::u32string_view(in).substr(begin, end - begin));
}

namespace {

std::vector<std::string> splitWhitespace(const std::u32string &in, int64_t maxSplit,
                                         bool fromRight) {
  std::vector<std::string> parts;
  if (!fromRight) {
    size_t i = 0;
    while (true) {
      while (i < in.size() && isPySpace(in[i]))
        ++i;
      if (i == in.size())
        break;
      if (maxSplit >= 0 && int64_t(parts.size()) == maxSplit) {
        parts.push_back(encodeUtf8(std::u32string_view(in).substr(i)));
        break;
      }
      size_t j = i;
      while (j < in.size() && !isPySpace(in[j]))
        ++j;
      parts.push_back(encodeUtf8(std::u32string_view(in).substr(i, j - i)));
      i = j;
    }
    return parts;
  }
  size_t end = in.size();
  while (true) {
    while (end > 0 && isPySpace(in[end - 1]))
      --end;
    if (end == 0)
      break;
    if (maxSplit >= 0 && int64_t(parts.size()) == maxSplit) {
      parts.push_back(encodeUtf8(std::u32string_view(in).substr(0, end)));
      break;
    }
    size_t begin = end;
    while (begin > 0 && !isPySpace(in[begin - 1]))
      --begin;
    parts.push_back(encodeUtf8(std::u32string_view(in).substr(begin, end - begin)));
    end = begin;
  }
  std::reverse(parts.begin(), parts.end());
  return parts;
}

} // namespace

std::vector<std::string> pySplit(std::string_view s, const std::optional<std::string> &sep,
                                 int64_t maxSplit, bool fromRight) {
  if (!sep)
    return splitWhitespace(decodeUtf8(s), maxSplit, fromRight);
  if (sep->empty())
    raise("ValueError", "empty separator");
  // Byte-wise search is code-point exact on valid UTF-8.
  std::vector<std::string> parts;
  if (!fromRight) {
    size_t pos = 0;
    while (maxSplit < 0 || int64_t(parts.size()) < maxSplit) {
      const size_t hit = s.find(*sep, pos);
      if (hit == std::string_view::npos)
        break;
      parts.emplace_back(s.substr(pos, hit - pos));
      pos = hit + sep->size();
    }
    parts.emplace_back(s.substr(pos));
    return parts;
  }
  size_t end = s.size();
  while (maxSplit < 0 || int64_t(parts.size()) < maxSplit) {
    if (end < sep->size())
      break;
    const size_t hit = s.rfind(*sep, end - sep->size());
    if (hit == std::string_view::npos)
      break;
    parts.emplace_back(s.substr(hit + sep->size(), end - hit - sep->size()));
    end = hit;
  }
  parts.emplace_back(s.substr(0, end));
  std::reverse(parts.begin(), parts.end());
  return parts;
}

std::vector<std::string> pySplitLines(std::string_view s, bool keepEnds) {
  const std::u32string in = decodeUtf8(s);
  std::vector<std::string> lines;
  size_t begin = 0, i = 0;
  while (i < in.size()) {
    const char32_t cp = in[i];
    const bool brk = cp == '\n' || cp == '\r' || cp == 0x0B || cp == 0x0C || cp == 0x1C ||
                     cp == 0x1D || cp == 0x1E || cp == 0x85 || cp == 0x2028 || cp == 0x2029;
    if (!brk) {
      ++i;
      continue;
    }
    size_t next = i + 1;
    if (cp == '\r' && next < in.size() && in[next] == '\n')
      ++next;
    lines.push_back(
        encodeUtf8(std::u32string_view(in).substr(begin, (keepEnds ? next : i) - begin)));
    begin = i = next;
  }
  if (begin < in.size())
    lines.push_back(encodeUtf8(std::u32string_view(in).substr(begin)));
  return lines;
}

std::string pyReplace(std::string_view s, std::string_view old, std::string_view rep, int64_t count,
                      size_t maxBytes) {
  std::string out;
  auto append = [&](std::string_view part) {
    if (out.size() + part.size() > maxBytes)
      raise("MemoryError", "string result over ", std::to_string(maxBytes), " bytes");
    out.append(part);
  };
  int64_t done = 0;
  if (old.empty()) {
    size_t pos = 0;
    while (pos < s.size()) {
      if (count < 0 || done < count) {
        append(rep);
        ++done;
      }
      const size_t start = pos;
      nextCodePoint(s, pos);
      append(s.substr(start, pos - start));
    }
    if (count < 0 || done < count)
      append(rep);
    return out;
  }
  size_t pos = 0;
  while (count < 0 || done < count) {
    const size_t hit = s.find(old, pos);
    if (hit == std::string_view::npos)
      break;
    append(s.substr(pos, hit - pos));
    append(rep);
    pos = hit + old.size();
    ++done;
  }
  append(s.substr(pos));
  return out;
}

int64_t pyFind(std::string_view s, std::string_view sub, bool fromRight) {
  const size_t hit = fromRight ? s.rfind(sub) : s.find(sub);
  if (hit == std::string_view::npos)
    return -1;
  return int64_t(codePointCount(s.substr(0, hit)));
}

int64_t pyCount(std::string_view s, std::string_view sub) {
  if (sub.empty())
    return int64_t(codePointCount(s)) + 1;
  int64_t n = 0;
  for (size_t pos = s.find(sub); pos != std::string_view::npos; pos = s.find(sub, pos + sub.size()))
    ++n;
  return n;
}

// ---- jinja2's title and wordcount -------------------------------------------------------

std::string jinjaTitle(std::string_view s) {
  // "".join(item[0].upper() + item[1:].lower() for item in re.split(r"([-\s({\[<]+)", s))
  const std::u32string in = decodeUtf8(s);
  auto isBreak = [](char32_t cp) {
    return cp == '-' || cp == '(' || cp == '{' || cp == '[' || cp == '<' || isPySpace(cp);
  };
  std::u32string out;
  size_t i = 0;
  while (i < in.size()) {
    const bool brk = isBreak(in[i]);
    size_t j = i;
    while (j < in.size() && isBreak(in[j]) == brk)
      ++j;
    appendUpper(out, in[i], false);
    const std::u32string rest = in.substr(i + 1, j - i - 1);
    for (size_t k = 0; k < rest.size(); ++k)
      appendLower(out, rest, k);
    i = j;
  }
  return encodeUtf8(out);
}

int64_t wordCount(std::string_view s) {
  int64_t n = 0;
  bool inWord = false;
  for (char32_t cp : decodeUtf8(s)) {
    const bool word = cp == '_' || isPyAlnum(cp);
    n += word && !inWord;
    inWord = word;
  }
  return n;
}

} // namespace mm::rt::jinja
