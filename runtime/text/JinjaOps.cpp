//===- JinjaOps.cpp - Python operators on template values -----------------===//
//
// The arithmetic operators (+ - * / // % **, unary - and +), slicing and str % args,
// with CPython's semantics: int and float mix, bool is an int, floor division and modulo
// round towards negative infinity, sequences concatenate and repeat, type errors carry
// CPython's messages. Integers are 64-bit (an overflow is an error, where Python would
// grow); sizes are checked against the render limits before anything large is built.
//
//===----------------------------------------------------------------------===//
#include "runtime/text/Jinja.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace mm::rt::jinja {
namespace {

[[noreturn]] void integerOverflow(const char *op) {
  raise("OverflowError", "integer overflow in ", op,
        " (Python integers are unbounded; this renderer's are 64-bit)");
}

template <typename Op> int64_t checked(Op op, int64_t a, int64_t b, const char *name) {
  int64_t r = 0;
  if (op(a, b, &r))
    integerOverflow(name);
  return r;
}

bool addOverflow(int64_t a, int64_t b, int64_t *r) { return __builtin_add_overflow(a, b, r); }
bool subOverflow(int64_t a, int64_t b, int64_t *r) { return __builtin_sub_overflow(a, b, r); }
bool mulOverflow(int64_t a, int64_t b, int64_t *r) { return __builtin_mul_overflow(a, b, r); }

[[noreturn]] void unsupportedOperands(const std::string &op, const Value &a, const Value &b) {
  raise("TypeError", "unsupported operand type(s) for ", op, ": '", typeName(a), "' and '",
        typeName(b), "'");
}

bool isPlainSequence(const Value &v) {
  return v.isList() &&
         (v.list().flavor == ListFlavor::List || v.list().flavor == ListFlavor::Tuple);
}

bool isSequenceOrString(const Value &v) { return v.isString() || isPlainSequence(v); }

/// Python's float floor division and modulo (floatobject.c float_divmod).
std::pair<double, double> floatDivmod(double vx, double wx) {
  double mod = std::fmod(vx, wx);
  double div = (vx - mod) / wx;
  if (mod != 0) {
    if ((wx < 0) != (mod < 0)) {
      mod += wx;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, wx);
  }
  double floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5)
      floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, vx / wx);
  }
  return {floordiv, mod};
}

/// Most items a list built by + or * may hold.
constexpr size_t kMaxListItems = size_t(1) << 24;

/// Raises RenderLimitError when a list of `items` is too long, else counts its work:
/// both before the list is built.
void checkListSize(Renderer &r, size_t items, const char *what) {
  if (items > kMaxListItems)
    raise("RenderLimitError", what, " over ", std::to_string(kMaxListItems), " items");
  r.charge(items);
}

Value add(Renderer &r, const Value &a, const Value &b) {
  if (a.isIntegral() && b.isIntegral())
    return Value::integer(checked(addOverflow, a.i(), b.i(), "+"));
  if (a.isNumber() && b.isNumber())
    return Value::number(a.f() + b.f());
  if (a.isString() && b.isString()) {
    r.checkSize(a.s().size() + b.s().size());
    r.charge((a.s().size() + b.s().size()) / 64);
    return Value::string(a.s() + b.s());
  }
  if (isPlainSequence(a) && isPlainSequence(b) && a.list().flavor == b.list().flavor) {
    const size_t n = a.list().items.size() + b.list().items.size();
    checkListSize(r, n, "list concatenation");
    ValueList items;
    items.reserve(n);
    items = a.list().items;
    items.insert(items.end(), b.list().items.begin(), b.list().items.end());
    return Value::list(std::move(items), a.list().flavor);
  }
  if (isSequenceOrString(a))
    raise("TypeError", "can only concatenate ", typeName(a), " (not \"", typeName(b), "\") to ",
          typeName(a));
  unsupportedOperands("+", a, b);
}

/// seq * n (either order) for a str, list or tuple.
Value repeat(Renderer &r, const Value &seq, const Value &count) {
  if (!count.isIntegral())
    raise("TypeError", "can't multiply sequence by non-int of type '", typeName(count), "'");
  const int64_t n = std::max<int64_t>(count.i(), 0);
  if (seq.isString()) {
    if (n > 0 && seq.s().size() > r.limits().maxStringBytes / size_t(n))
      r.checkSize(r.limits().maxStringBytes + 1);
    std::string out;
    out.reserve(seq.s().size() * size_t(n));
    for (int64_t k = 0; k < n; ++k)
      out += seq.s();
    r.charge(out.size() / 64);
    return Value::string(std::move(out));
  }
  const size_t size = seq.list().items.size();
  checkListSize(r, n > 0 && size > kMaxListItems / size_t(n) ? kMaxListItems + 1 : size * size_t(n),
                "list repetition");
  ValueList items;
  items.reserve(size * size_t(n));
  for (int64_t k = 0; k < n; ++k)
    items.insert(items.end(), seq.list().items.begin(), seq.list().items.end());
  return Value::list(std::move(items), seq.list().flavor);
}

Value multiply(Renderer &r, const Value &a, const Value &b) {
  if (a.isIntegral() && b.isIntegral())
    return Value::integer(checked(mulOverflow, a.i(), b.i(), "*"));
  if (a.isNumber() && b.isNumber())
    return Value::number(a.f() * b.f());
  if (isSequenceOrString(a))
    return repeat(r, a, b);
  if (isSequenceOrString(b))
    return repeat(r, b, a);
  unsupportedOperands("*", a, b);
}

/// a // b or a % b for numbers.
Value floorDivOrMod(const std::string &op, const Value &a, const Value &b) {
  if (!a.isNumber() || !b.isNumber())
    unsupportedOperands(op, a, b);
  const bool div = op == "//";
  if (a.isIntegral() && b.isIntegral()) {
    if (b.i() == 0)
      raise("ZeroDivisionError",
            div ? "integer division or modulo by zero" : "integer modulo by zero");
    if (a.i() == std::numeric_limits<int64_t>::min() && b.i() == -1) {
      if (!div)
        return Value::integer(0); // the remainder fits; only the quotient overflows
      integerOverflow(op.c_str());
    }
    int64_t q = a.i() / b.i(), m = a.i() % b.i();
    if (m != 0 && ((m < 0) != (b.i() < 0))) {
      --q;
      m += b.i();
    }
    return Value::integer(div ? q : m);
  }
  if (b.f() == 0)
    raise("ZeroDivisionError", div ? "float floor division by zero" : "float modulo");
  const auto [q, m] = floatDivmod(a.f(), b.f());
  return Value::number(div ? q : m);
}

Value power(const Value &a, const Value &b) {
  if (!a.isNumber() || !b.isNumber())
    unsupportedOperands("** or pow()", a, b);
  if (a.isIntegral() && b.isIntegral() && b.i() >= 0) {
    int64_t result = 1, base = a.i();
    for (int64_t exp = b.i(); exp > 0; exp >>= 1) {
      if (exp & 1)
        result = checked(mulOverflow, result, base, "**");
      if (exp > 1)
        base = checked(mulOverflow, base, base, "**");
    }
    return Value::integer(result);
  }
  if (a.f() == 0 && b.f() < 0)
    raise("ZeroDivisionError", "0.0 cannot be raised to a negative power");
  if (a.f() < 0 && b.f() != std::floor(b.f()))
    raise("ValueError", "complex results of ** are not supported");
  return Value::number(std::pow(a.f(), b.f()));
}

/// Slice positions of a sequence of `length` (PySlice_Unpack + PySlice_AdjustIndices).
std::vector<size_t> sliceIndices(Renderer &r, int64_t length, const Value &start, const Value &stop,
                                 int64_t step) {
  auto adjust = [&](const Value &p, bool isStart) {
    if (p.isNone())
      return step < 0 ? (isStart ? length - 1 : -1) : (isStart ? 0 : length);
    int64_t v = std::clamp<int64_t>(p.i(), -(int64_t(1) << 62), int64_t(1) << 62);
    if (v < 0) {
      v += length;
      if (v < 0)
        v = step < 0 ? -1 : 0;
    } else if (v >= length) {
      v = step < 0 ? length - 1 : length;
    }
    return v;
  };
  std::vector<size_t> idx;
  const int64_t end = adjust(stop, false);
  for (int64_t i = adjust(start, true); step > 0 ? i < end : i > end; i += step)
    idx.push_back(size_t(i));
  r.charge(idx.size());
  return idx;
}

// ---- str % args -------------------------------------------------------------------------

/// One conversion of a %-format: %[(key)][flags][width][.precision][length]type.
struct Spec {
  std::string key; ///< the mapping key, if any
  bool hasKey = false;
  std::string flags;
  int64_t width = -1, precision = -1;
  char type = 0;
};

bool oneOf(char c, const char *set) { return c != 0 && std::strchr(set, c) != nullptr; }

/// Parses the conversion after the '%' at format[i]; returns the position of its type. A
/// width or precision that alone would exceed the render's string limit raises
/// RenderLimitError (CPython would try to build it).
size_t parseSpec(const Renderer &r, const std::string &format, size_t i, Spec &spec) {
  const size_t start = i - 1;
  if (i < format.size() && format[i] == '(') {
    const size_t close = format.find(')', i);
    if (close == std::string::npos)
      raise("ValueError", "incomplete format key");
    spec.key = format.substr(i + 1, close - i - 1);
    spec.hasKey = true;
    i = close + 1;
  }
  while (i < format.size() && oneOf(format[i], "-+ #0"))
    spec.flags += format[i++];
  auto number = [&](int64_t &field) {
    if (i < format.size() && format[i] == '*')
      raise("TemplateRuntimeError", "'*' widths in % formatting are not supported");
    if (i < format.size() && std::isdigit(static_cast<unsigned char>(format[i]))) {
      field = 0;
      while (i < format.size() && std::isdigit(static_cast<unsigned char>(format[i]))) {
        field = field * 10 + (format[i++] - '0');
        if (uint64_t(field) > r.limits().maxStringBytes)
          r.checkSize(size_t(field));
      }
    }
  };
  number(spec.width);
  if (i < format.size() && format[i] == '.') {
    ++i;
    spec.precision = 0;
    number(spec.precision);
  }
  while (i < format.size() && oneOf(format[i], "hlL"))
    ++i;
  if (i >= format.size())
    raise("ValueError", "incomplete format");
  spec.type = format[i];
  if (!oneOf(spec.type, "sradiuxXoeEfFgGc"))
    raise("ValueError", "unsupported format character '", std::string(1, spec.type), "' at index ",
          std::to_string(start));
  return i;
}

std::string padded(const std::string &body, const Spec &spec) {
  const auto n = int64_t(codePointCount(body));
  if (spec.width <= n)
    return body;
  const std::string pad(size_t(spec.width - n), ' ');
  return spec.flags.find('-') != std::string::npos ? body + pad : pad + body;
}

/// The printf conversion for snprintf: flags, width and precision, then `type`.
std::string printfFormat(const Spec &spec, const char *type) {
  std::string f = "%" + spec.flags;
  if (spec.width >= 0)
    f += std::to_string(spec.width);
  if (spec.precision >= 0)
    f += "." + std::to_string(spec.precision);
  return f + type;
}

std::string formatText(const Spec &spec, const Value &arg) {
  std::string body = spec.type == 's' ? pyStr(arg) : pyRepr(arg);
  if (spec.precision >= 0) {
    const std::u32string cps = decodeUtf8(body);
    if (int64_t(cps.size()) > spec.precision)
      body = encodeUtf8(std::u32string_view(cps).substr(0, size_t(spec.precision)));
  }
  return padded(body, spec);
}

/// The digits of |v| in base 10, 16 or 8 (v integral, or a float truncated as int()).
std::string integerDigits(const Value &v, char type, bool &negative) {
  char buf[512];
  if (v.isIntegral()) {
    const auto magnitude =
        static_cast<unsigned long long>(v.i() < 0 ? -(v.i() + 1) : v.i()) + (v.i() < 0 ? 1 : 0);
    negative = v.i() < 0;
    const char format[] = {'%', 'l', 'l', type == 'x' || type == 'X' || type == 'o' ? type : 'u',
                           0};
    std::snprintf(buf, sizeof(buf), format, magnitude);
    return buf;
  }
  const double t = std::trunc(v.f());
  if (!std::isfinite(t))
    raise(std::isnan(t) ? "ValueError" : "OverflowError", "cannot convert float ",
          std::isnan(t) ? "NaN" : "infinity", " to integer");
  negative = t < 0;
  std::snprintf(buf, sizeof(buf), "%.0f", std::fabs(t)); // exact: t is an integer
  return buf;
}

/// %d %i %u %x %X %o as CPython formats them (precision pads digits with zeros, the 0
/// flag pads after the sign and prefix, # adds 0x / 0X / 0o).
std::string formatInteger(const Spec &spec, const Value &arg) {
  const bool decimal = oneOf(spec.type, "diu");
  if (decimal ? !arg.isNumber() : !arg.isIntegral())
    raise("TypeError", "%", std::string(1, spec.type),
          decimal ? " format: a real number is required, not "
                  : " format: an integer is required, not ",
          typeName(arg));
  bool negative = false;
  std::string digits = integerDigits(arg, spec.type, negative);
  if (spec.precision > int64_t(digits.size()))
    digits.insert(0, size_t(spec.precision) - digits.size(), '0');
  auto has = [&](char flag) { return spec.flags.find(flag) != std::string::npos; };
  std::string prefix = negative ? "-" : has('+') ? "+" : has(' ') ? " " : "";
  if (has('#') && !decimal)
    prefix += spec.type == 'o' ? "0o" : spec.type == 'x' ? "0x" : "0X";
  const int64_t length = int64_t(prefix.size() + digits.size());
  if (spec.width > length && !has('-') && has('0'))
    digits.insert(0, size_t(spec.width - length), '0');
  return padded(prefix + digits, spec);
}

std::string formatFloat(const Spec &spec, const Value &arg) {
  if (!arg.isNumber())
    raise("TypeError", "must be real number, not ", typeName(arg));
  const char type[] = {spec.type, 0};
  const std::string format = printfFormat(spec, type);
  // Sized by a first call: a width or precision up to the string limit, or a %f of 1e308
  // with a long precision, needs more than any fixed buffer.
  const int n = std::snprintf(nullptr, 0, format.c_str(), arg.f());
  if (n < 0)
    raise("ValueError", "cannot format ", pyFloatRepr(arg.f()), " with '", format, "'");
  std::string out(size_t(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), format.c_str(), arg.f());
  out.pop_back();
  return out;
}

std::string formatChar(const Spec &spec, const Value &arg) {
  if (arg.isString() && codePointCount(arg.s()) == 1)
    return padded(arg.s(), spec);
  if (!arg.isIntegral())
    raise("TypeError", "%c requires int or char");
  if (arg.i() < 0 || arg.i() > 0x10FFFF)
    raise("OverflowError", "%c arg not in range(0x110000)");
  std::string s;
  appendUtf8(s, char32_t(arg.i()));
  return padded(s, spec);
}

std::string formatOne(const Spec &spec, const Value &arg) {
  if (oneOf(spec.type, "sra"))
    return formatText(spec, arg);
  if (oneOf(spec.type, "diuxXo"))
    return formatInteger(spec, arg);
  if (spec.type == 'c')
    return formatChar(spec, arg);
  return formatFloat(spec, arg);
}

} // namespace

Value binaryOp(Renderer &r, const std::string &op, const Value &a, const Value &b) {
  if (op == "%" && a.isString()) // str.__mod__ takes even an Undefined (as a mapping)
    return percentFormat(r, a.s(), b);
  if (a.isUndefined())
    a.failUndefined();
  if (b.isUndefined())
    b.failUndefined();
  if (op == "+")
    return add(r, a, b);
  if (op == "-") {
    if (a.isIntegral() && b.isIntegral())
      return Value::integer(checked(subOverflow, a.i(), b.i(), "-"));
    if (a.isNumber() && b.isNumber())
      return Value::number(a.f() - b.f());
    unsupportedOperands(op, a, b);
  }
  if (op == "*")
    return multiply(r, a, b);
  if (op == "/") {
    if (!a.isNumber() || !b.isNumber())
      unsupportedOperands(op, a, b);
    if (b.f() == 0)
      raise("ZeroDivisionError",
            a.isIntegral() && b.isIntegral() ? "division by zero" : "float division by zero");
    return Value::number(a.f() / b.f());
  }
  if (op == "//" || op == "%")
    return floorDivOrMod(op, a, b);
  if (op == "**")
    return power(a, b);
  raise("TemplateRuntimeError", "unknown operator ", op);
}

Value unaryOp(const std::string &op, const Value &v) {
  if (op == "not")
    return Value::boolean(!truthy(v));
  if (v.isUndefined())
    v.failUndefined();
  if (v.isIntegral())
    return Value::integer(op == "+" ? v.i() : checked(subOverflow, 0, v.i(), "unary -"));
  if (v.kind() == Value::Kind::Float)
    return Value::number(op == "-" ? -v.f() : v.f());
  raise("TypeError", "bad operand type for unary ", op, ": '", typeName(v), "'");
}

Value sliceOp(Renderer &r, const Value &obj, const Value &start, const Value &stop,
              const Value &step) {
  if (obj.isUndefined())
    obj.failUndefined();
  for (const Value *p : {&start, &stop, &step})
    if (!p->isNone() && !p->isIntegral())
      raise("TypeError", "slice indices must be integers or None or have an __index__ method");
  const int64_t by = step.isNone() ? 1 : step.i();
  if (by == 0)
    raise("ValueError", "slice step cannot be zero");
  if (obj.isString()) {
    r.chargeFor(obj);
    const std::u32string s = decodeUtf8(obj.s());
    std::u32string out;
    for (size_t i : sliceIndices(r, int64_t(s.size()), start, stop, by))
      out.push_back(s[i]);
    return Value::string(encodeUtf8(out));
  }
  if (isPlainSequence(obj) || (obj.isList() && obj.list().flavor == ListFlavor::Range)) {
    const ValueList &items = obj.list().items;
    ValueList out;
    for (size_t i : sliceIndices(r, int64_t(items.size()), start, stop, by))
      out.push_back(items[i]);
    return Value::list(std::move(out), obj.list().flavor == ListFlavor::Tuple ? ListFlavor::Tuple
                                                                              : ListFlavor::List);
  }
  if (obj.isDict())
    raise("TypeError", "unhashable type: 'slice'");
  raise("TypeError", "'", typeName(obj), "' object is not subscriptable");
}

Value percentFormat(Renderer &r, const std::string &format, const Value &args) {
  const bool mapping = args.isDict() && format.find("%(") != std::string::npos;
  ValueList values;
  if (!mapping) {
    if (args.isList() && args.list().flavor == ListFlavor::Tuple)
      values = args.list().items;
    else
      values.push_back(args);
  }
  size_t next = 0;
  std::string out;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      out += format[i];
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    Spec spec;
    i = parseSpec(r, format, i + 1, spec);
    const Value *arg = nullptr;
    if (spec.hasKey || mapping) {
      if (!mapping)
        raise("TypeError", "format requires a mapping");
      if (!spec.hasKey)
        raise("TypeError", "format requires a mapping");
      arg = args.dict().find(Value::string(spec.key));
      if (!arg)
        raise("KeyError", pyReprString(spec.key));
    } else {
      if (next >= values.size())
        raise("TypeError", "not enough arguments for format string");
      arg = &values[next++];
    }
    out += formatOne(spec, *arg);
    r.checkSize(out.size());
  }
  // CPython skips this check when the single argument supports [] (a list, a dict, an
  // Undefined): PyUnicode_Format treats it as a mapping.
  const bool subscriptable = args.isDict() || args.isUndefined() ||
                             (args.isList() && (args.list().flavor == ListFlavor::List ||
                                                args.list().flavor == ListFlavor::Range));
  if (!mapping && next < values.size() && !subscriptable)
    raise("TypeError", "not all arguments converted during string formatting");
  return Value::string(std::move(out));
}

} // namespace mm::rt::jinja
