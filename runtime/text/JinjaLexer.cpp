//===- JinjaLexer.cpp - template text to tokens ----------------------------===//
//
// jinja2's lexer (jinja2/lexer.py) for the default delimiters with trim_blocks and
// lstrip_blocks on: newlines are normalised to \n and one trailing newline dropped
// (keep_trailing_newline=False); `{%-`/`-%}` (and the variable and comment forms) strip
// all whitespace on that side; `+` turns lstrip/trim off for that tag; lstrip_blocks
// removes spaces before a block or comment tag that starts its line; trim_blocks removes
// the newline after a block or comment tag. Inside tags, delimiters only end the tag at
// bracket depth 0, as in jinja2. String literals are decoded with Python's
// unicode-escape rules.
//
//===----------------------------------------------------------------------===//
#include "runtime/text/Jinja.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace mm::rt::jinja {
namespace {

constexpr size_t npos = std::string::npos;

/// Normalises \r\n and \r to \n and drops one trailing newline (jinja2's tokeniter).
std::string normalizeNewlines(const std::string &source) {
  std::string out;
  out.reserve(source.size());
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\r') {
      out += '\n';
      if (i + 1 < source.size() && source[i + 1] == '\n')
        ++i;
    } else {
      out += source[i];
    }
  }
  if (!out.empty() && out.back() == '\n')
    out.pop_back();
  return out;
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

class Lexer {
public:
  explicit Lexer(std::string source) : src_(normalizeNewlines(source)) {
    lineStarts_.push_back(0);
    for (size_t i = 0; i < src_.size(); ++i)
      if (src_[i] == '\n')
        lineStarts_.push_back(i + 1);
    if (const size_t bad = findInvalidUtf8(src_); bad != npos)
      fail(bad, "template is not valid UTF-8");
  }

  std::vector<Token> run() {
    while (pos_ < src_.size())
      if (!lexRoot())
        break;
    Token end;
    end.type = Tok::End;
    setWhere(end, src_.size());
    out_.push_back(std::move(end));
    return std::move(out_);
  }

private:
  [[noreturn]] void fail(size_t at, const std::string &message) const {
    Failure f{"TemplateSyntaxError", message};
    where(at, f.line, f.column);
    throw f;
  }

  /// Line and column (in code points) of byte `at`; positions come in increasing order
  /// mostly, so the last answer is the starting point.
  void where(size_t at, int &line, int &column) const {
    size_t lo = 0, hi = lineStarts_.size();
    while (hi - lo > 1) {
      const size_t mid = (lo + hi) / 2;
      (lineStarts_[mid] <= at ? lo : hi) = mid;
    }
    line = int(lo + 1);
    size_t from = lineStarts_[lo];
    size_t col = 0;
    if (cacheLine_ == lo && cachePos_ <= at) {
      from = cachePos_;
      col = cacheColumn_;
    }
    col += codePointCount(std::string_view(src_).substr(from, at - from));
    cacheLine_ = lo;
    cachePos_ = at;
    cacheColumn_ = col;
    column = int(col) + 1;
  }

  void setWhere(Token &t, size_t at) const { where(at, t.line, t.column); }

  void emit(Tok type, size_t at, std::string text = {}) {
    Token t;
    t.type = type;
    t.text = std::move(text);
    setWhere(t, at);
    out_.push_back(std::move(t));
  }

  bool startsWith(size_t at, const char *s) const {
    return src_.compare(at, std::strlen(s), s) == 0;
  }

  /// Length of the Python whitespace code point at `at`, or 0.
  size_t spaceAt(size_t at) const {
    if (at >= src_.size())
      return 0;
    const auto c = static_cast<unsigned char>(src_[at]);
    if (c < 0x80)
      return isPySpace(c) ? 1 : 0;
    const size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    const std::u32string cp = decodeUtf8(std::string_view(src_).substr(at, n));
    return isPySpace(cp[0]) ? n : 0;
  }

  size_t skipSpace(size_t at) const {
    while (size_t n = spaceAt(at))
      at += n;
    return at;
  }

  /// Python str.rstrip() of text.
  static std::string rstripText(const std::string &text) {
    return pyStrip(text, std::nullopt, false, true);
  }

  /// The lstrip_blocks rule: drops spaces between the last newline of `text` (or its
  /// start, at the beginning of a line) and the tag.
  std::string lstripText(const std::string &text) const {
    const size_t nl = text.rfind('\n');
    const size_t lpos = nl == npos ? 0 : nl + 1;
    if (lpos == 0 && !lineStarting_)
      return text;
    const std::string tail = text.substr(lpos);
    if (tail.empty() || !pyStrip(tail, std::nullopt, true, true).empty())
      return text;
    return text.substr(0, lpos);
  }

  void emitData(const std::string &text, size_t at) {
    if (!text.empty())
      emit(Tok::Data, at, text);
  }

  /// One step of the root state: data up to the next tag, then the tag. False at the end.
  bool lexRoot() {
    size_t start = pos_;
    while ((start = src_.find('{', start)) != npos) {
      if (start + 1 < src_.size() &&
          (src_[start + 1] == '{' || src_[start + 1] == '%' || src_[start + 1] == '#'))
        break;
      ++start;
    }
    if (start == npos) {
      emitData(src_.substr(pos_), pos_);
      pos_ = src_.size();
      return false;
    }
    const char kind = src_[start + 1];
    size_t p = start + 2;
    char sign = 0;
    if (p < src_.size() && (src_[p] == '-' || src_[p] == '+'))
      sign = src_[p++];
    const size_t rawEnd = kind == '%' ? matchRawBegin(p) : npos;
    std::string text = src_.substr(pos_, start - pos_);
    if (sign == '-')
      text = rstripText(text);
    else if (sign != '+' && kind != '{')
      text = lstripText(text);
    emitData(text, pos_);
    if (rawEnd != npos)
      lexRaw(start, rawEnd);
    else if (kind == '#')
      lexComment(start, p);
    else
      lexTag(kind, start, p);
    return true;
  }

  /// If `\s*raw\s*(-%}\s*|%})` matches at `at`, the position after it.
  size_t matchRawBegin(size_t at) const {
    size_t p = skipSpace(at);
    if (!startsWith(p, "raw"))
      return npos;
    p = skipSpace(p + 3);
    if (startsWith(p, "-%}"))
      return skipSpace(p + 3);
    if (startsWith(p, "%}"))
      return p + 2;
    return npos;
  }

  void lexRaw(size_t start, size_t bodyStart) {
    lineStarting_ = src_[bodyStart - 1] == '\n';
    for (size_t at = src_.find("{%", bodyStart); at != npos; at = src_.find("{%", at + 1)) {
      size_t p = at + 2;
      char sign = 0;
      if (p < src_.size() && (src_[p] == '-' || src_[p] == '+'))
        sign = src_[p++];
      p = skipSpace(p);
      if (!startsWith(p, "endraw"))
        continue;
      p = skipSpace(p + 6);
      size_t end;
      if (startsWith(p, "+%}"))
        end = p + 3;
      else if (startsWith(p, "-%}"))
        end = skipSpace(p + 3);
      else if (startsWith(p, "%}"))
        end = p + 2 + (p + 2 < src_.size() && src_[p + 2] == '\n');
      else
        continue;
      std::string text = src_.substr(bodyStart, at - bodyStart);
      if (sign == '-')
        text = rstripText(text);
      else if (sign != '+')
        text = lstripText(text);
      emitData(text, bodyStart);
      finish(end);
      return;
    }
    fail(start, "Missing end of raw directive");
  }

  void lexComment(size_t start, size_t bodyStart) {
    const size_t close = src_.find("#}", bodyStart);
    if (close == npos)
      fail(start, "Missing end of comment tag");
    size_t end = close + 2;
    const char before = close > bodyStart ? src_[close - 1] : 0;
    if (before == '-')
      end = skipSpace(end);
    else if (before != '+' && end < src_.size() && src_[end] == '\n')
      ++end;
    finish(end);
  }

  void finish(size_t end) {
    lineStarting_ = end > 0 && src_[end - 1] == '\n';
    pos_ = end;
  }

  /// A {{ ... }} or {% ... %} tag: begin token, expression tokens, end token.
  void lexTag(char kind, size_t start, size_t p) {
    const bool block = kind == '%';
    emit(block ? Tok::BlockBegin : Tok::VariableBegin, start);
    std::vector<char> balance;
    while (true) {
      if (p >= src_.size())
        fail(start, block ? "unexpected end of template: missing '%}' for the tag opened here"
                          : "unexpected end of template: missing '}}' for the tag opened here");
      if (balance.empty()) {
        if (const size_t end = matchTagEnd(block, p); end != npos) {
          emit(block ? Tok::BlockEnd : Tok::VariableEnd, p);
          finish(end);
          return;
        }
      }
      if (const size_t n = spaceAt(p)) {
        p += n;
        continue;
      }
      p = lexToken(p, balance);
    }
  }

  size_t matchTagEnd(bool block, size_t p) const {
    if (block) {
      if (startsWith(p, "-%}"))
        return skipSpace(p + 3);
      if (startsWith(p, "+%}"))
        return p + 3;
      if (startsWith(p, "%}"))
        return p + 2 + (p + 2 < src_.size() && src_[p + 2] == '\n');
      return npos;
    }
    if (startsWith(p, "-}}"))
      return skipSpace(p + 3);
    if (startsWith(p, "}}"))
      return p + 2;
    return npos;
  }

  /// Lexes one token at `p` (not whitespace, not a tag end); returns the position after.
  size_t lexToken(size_t p, std::vector<char> &balance) {
    const char c = src_[p];
    if (isDigit(c)) {
      if (const size_t end = matchFloat(p); end != npos)
        return emitFloat(p, end);
      if (const size_t end = matchInteger(p); end != npos)
        return emitInteger(p, end);
    }
    if (isAsciiAlpha(c) || c == '_' || static_cast<unsigned char>(c) >= 0x80)
      if (const size_t end = matchName(p); end != npos) {
        emit(Tok::Name, p, src_.substr(p, end - p));
        return end;
      }
    if (c == '\'' || c == '"')
      return lexString(p);
    return lexOperator(p, balance);
  }

  size_t matchName(size_t p) const {
    size_t q = p;
    bool first = true;
    while (q < src_.size()) {
      const auto c = static_cast<unsigned char>(src_[q]);
      if (c < 0x80) {
        if (!(isAsciiAlpha(char(c)) || c == '_' || (!first && isDigit(char(c)))))
          break;
        ++q;
      } else {
        const size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        const char32_t cp = decodeUtf8(std::string_view(src_).substr(q, n))[0];
        if (!isPyAlnum(cp))
          break;
        q += n;
      }
      first = false;
    }
    return q == p ? npos : q;
  }

  /// `(\d+_)*\d+` at p: the end, or npos.
  size_t matchDigits(size_t p, bool (*digit)(char) = isDigit) const {
    if (p >= src_.size() || !digit(src_[p]))
      return npos;
    while (p < src_.size() && digit(src_[p]))
      ++p;
    while (p + 1 < src_.size() && src_[p] == '_' && digit(src_[p + 1])) {
      ++p;
      while (p < src_.size() && digit(src_[p]))
        ++p;
    }
    return p;
  }

  size_t matchExponent(size_t p) const {
    if (p >= src_.size() || (src_[p] != 'e' && src_[p] != 'E'))
      return npos;
    ++p;
    if (p < src_.size() && (src_[p] == '+' || src_[p] == '-'))
      ++p;
    return matchDigits(p);
  }

  /// jinja2's float_re: digits, then a fraction and/or an exponent.
  size_t matchFloat(size_t p) const {
    if (p > 0 && src_[p - 1] == '.')
      return npos;
    const size_t whole = matchDigits(p);
    if (whole == npos)
      return npos;
    const size_t frac = whole < src_.size() && src_[whole] == '.' ? matchDigits(whole + 1) : npos;
    if (frac != npos)
      if (const size_t e = matchExponent(frac); e != npos)
        return e;
    if (const size_t e = matchExponent(whole); e != npos)
      return e;
    return frac;
  }

  /// jinja2's integer_re: 0b.., 0o.., 0x.., decimal, or zeros.
  size_t matchInteger(size_t p) const {
    auto prefixed = [&](char letter, bool (*digit)(char)) -> size_t {
      if (src_[p] != '0' || p + 1 >= src_.size() || (src_[p + 1] | 0x20) != letter)
        return npos;
      size_t q = p + 2, end = npos;
      while (true) {
        const size_t r = q < src_.size() && src_[q] == '_' ? q + 1 : q;
        if (r >= src_.size() || !digit(src_[r]))
          return end;
        q = end = r + 1;
      }
    };
    static auto bin = [](char ch) { return ch == '0' || ch == '1'; };
    static auto oct = [](char ch) { return ch >= '0' && ch <= '7'; };
    static auto hex = [](char ch) {
      return isDigit(ch) || ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f');
    };
    for (auto [letter, digit] : {std::pair<char, bool (*)(char)>{'b', bin}, {'o', oct}, {'x', hex}})
      if (const size_t end = prefixed(letter, digit); end != npos)
        return end;
    if (src_[p] != '0')
      return matchDigits(p);
    size_t q = p + 1;
    while (q < src_.size()) {
      const size_t r = src_[q] == '_' ? q + 1 : q;
      if (r >= src_.size() || src_[r] != '0')
        break;
      q = r + 1;
    }
    return q;
  }

  static std::string withoutUnderscores(std::string s) {
    s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
    return s;
  }

  size_t emitFloat(size_t p, size_t end) {
    const std::string text = withoutUnderscores(src_.substr(p, end - p));
    Token t;
    t.type = Tok::Float;
    t.text = text;
    t.number = std::strtod(text.c_str(), nullptr);
    setWhere(t, p);
    out_.push_back(std::move(t));
    return end;
  }

  size_t emitInteger(size_t p, size_t end) {
    const std::string text = withoutUnderscores(src_.substr(p, end - p));
    int base = 10;
    size_t digits = 0;
    if (text.size() > 1 && text[0] == '0' && isAsciiAlpha(text[1])) {
      const char letter = char(text[1] | 0x20);
      base = letter == 'b' ? 2 : letter == 'o' ? 8 : 16;
      digits = 2;
    }
    errno = 0;
    const unsigned long long v = std::strtoull(text.c_str() + digits, nullptr, base);
    if (errno == ERANGE || v > uint64_t(INT64_MAX))
      fail(p, "integer literal " + text + " does not fit in 64 bits");
    Token t;
    t.type = Tok::Integer;
    t.text = text;
    t.integer = int64_t(v);
    setWhere(t, p);
    out_.push_back(std::move(t));
    return end;
  }

  size_t lexString(size_t p) {
    const char quote = src_[p];
    size_t q = p + 1;
    while (q < src_.size() && src_[q] != quote)
      q += src_[q] == '\\' ? 2 : 1;
    if (q >= src_.size())
      fail(p, "unterminated string literal");
    Token t;
    t.type = Tok::String;
    t.text = unescape(src_.substr(p + 1, q - p - 1), p);
    setWhere(t, p);
    out_.push_back(std::move(t));
    return q + 1;
  }

  /// Python's unicode-escape decoding of a literal's body (after jinja2's
  /// backslashreplace round trip, which leaves non-ASCII text as is).
  std::string unescape(const std::string &body, size_t at) const {
    std::string out;
    size_t i = 0;
    while (i < body.size()) {
      if (body[i] != '\\') {
        out += body[i++];
        continue;
      }
      if (i + 1 >= body.size())
        fail(at, "\\ at end of string");
      i = escape(body, i + 1, out, at);
    }
    return out;
  }

  /// Decodes the escape whose letter is body[i]; returns the position after it.
  size_t escape(const std::string &body, size_t i, std::string &out, size_t at) const {
    static const char kSimple[] = "\\\\''\"\"a\ab\bf\fn\nr\rt\tv\v";
    const char e = body[i++];
    if (e == '\n') // a backslash-newline continues the line
      return i;
    for (size_t k = 0; kSimple[k]; k += 2)
      if (kSimple[k] == e) {
        out += kSimple[k + 1];
        return i;
      }
    if (e == 'x' || e == 'u' || e == 'U')
      return hexEscape(body, i, e == 'x' ? 2 : e == 'u' ? 4 : 8, out, at);
    if (e == 'N')
      fail(at, "\\N{...} escapes are not supported");
    if (e >= '0' && e <= '7') {
      unsigned v = unsigned(e - '0');
      for (int k = 0; k < 2 && i < body.size() && body[i] >= '0' && body[i] <= '7'; ++k)
        v = v * 8 + unsigned(body[i++] - '0');
      appendUtf8(out, v);
      return i;
    }
    if (static_cast<unsigned char>(e) >= 0x80) {
      // backslashreplace turned the code point into \xNN / \uNNNN / \UNNNNNNNN, and "\\"
      // followed by that decodes to a backslash followed by the escape's text.
      const size_t pos = i - 1;
      const auto lead = static_cast<unsigned char>(e);
      const size_t n = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
      const char32_t cp = decodeUtf8(std::string_view(body).substr(pos, n))[0];
      char buf[16];
      std::snprintf(buf, sizeof(buf),
                    cp <= 0xFF     ? "\\x%02x"
                    : cp <= 0xFFFF ? "\\u%04x"
                                   : "\\U%08x",
                    unsigned(cp));
      out += buf;
      return pos + n;
    }
    out += '\\'; // an unknown escape stays as written
    out += e;
    return i;
  }

  size_t hexEscape(const std::string &body, size_t i, int digits, std::string &out,
                   size_t at) const {
    char32_t v = 0;
    for (int k = 0; k < digits; ++k) {
      const char c = i + size_t(k) < body.size() ? body[i + size_t(k)] : 0;
      const int d = isDigit(c)                               ? c - '0'
                    : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10
                                                             : -1;
      if (d < 0)
        fail(at, digits == 2   ? "truncated \\xXX escape"
                 : digits == 4 ? "truncated \\uXXXX escape"
                               : "truncated \\UXXXXXXXX escape");
      v = v * 16 + char32_t(d);
    }
    if (v > 0x10FFFF)
      fail(at, "illegal Unicode character");
    if (v >= 0xD800 && v <= 0xDFFF)
      fail(at, "surrogate code points in string literals are not supported");
    appendUtf8(out, v);
    return i + size_t(digits);
  }

  size_t lexOperator(size_t p, std::vector<char> &balance) {
    static const char *const kOperators[] = {"//", "**", "==", "!=", ">=", "<=", "+", "-", "/",
                                             "*",  "%",  "~",  "[",  "]",  "(",  ")", "{", "}",
                                             ">",  "<",  "=",  ".",  ":",  "|",  ",", ";"};
    for (const char *op : kOperators) {
      if (!startsWith(p, op))
        continue;
      const char c = op[0];
      if (op[1] == 0 && (c == '(' || c == '[' || c == '{')) {
        balance.push_back(c == '(' ? ')' : c == '[' ? ']' : '}');
      } else if (op[1] == 0 && (c == ')' || c == ']' || c == '}')) {
        if (balance.empty())
          fail(p, std::string("unexpected '") + c + "'");
        if (balance.back() != c)
          fail(p, std::string("unexpected '") + c + "', expected '" + balance.back() + "'");
        balance.pop_back();
      }
      emit(Tok::Operator, p, op);
      return p + std::strlen(op);
    }
    const auto lead = static_cast<unsigned char>(src_[p]);
    const size_t n = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0x80 ? 2 : 1;
    fail(p, "unexpected char " + pyReprString(src_.substr(p, n)));
  }

  const std::string src_;
  std::vector<size_t> lineStarts_;
  mutable size_t cacheLine_ = 0, cachePos_ = 0, cacheColumn_ = 0;
  size_t pos_ = 0;
  bool lineStarting_ = true;
  std::vector<Token> out_;
};

} // namespace

std::vector<Token> tokenize(const std::string &source) { return Lexer(source).run(); }

} // namespace mm::rt::jinja
