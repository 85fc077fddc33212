//===- JinjaValue.cpp - Python semantics of template values ---------------===//
//
// Values as CPython sees them inside jinja2: str() and repr() (floats as repr(), strings
// quoted as Python quotes them), truth, ==, ordering, hashing for dict keys, and
// json.dumps for the tojson filter transformers installs.
//
//===----------------------------------------------------------------------===//
#include "runtime/text/Jinja.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace mm::rt::jinja {

// ---- construction and access ------------------------------------------------------------

Value Value::undefined(std::string message, bool unsafe) {
  Value v;
  auto obj = std::make_shared<UndefinedObj>();
  obj->message = std::move(message);
  obj->unsafe = unsafe;
  v.obj_ = std::move(obj);
  return v;
}

Value Value::none() {
  Value v;
  v.kind_ = Kind::None;
  return v;
}

Value Value::boolean(bool b) {
  Value v;
  v.kind_ = Kind::Bool;
  v.scalar_.b = b;
  return v;
}

Value Value::integer(int64_t i) {
  Value v;
  v.kind_ = Kind::Int;
  v.scalar_.i = i;
  return v;
}

Value Value::number(double f) {
  Value v;
  v.kind_ = Kind::Float;
  v.scalar_.f = f;
  return v;
}

Value Value::string(std::string s) {
  Value v;
  v.kind_ = Kind::String;
  auto obj = std::make_shared<StringObj>();
  obj->text = std::move(s);
  v.obj_ = std::move(obj);
  return v;
}

Value Value::list(std::vector<Value> items, ListFlavor flavor) {
  auto obj = std::make_shared<ListObj>();
  int depth = 0;
  for (const Value &item : items)
    depth = std::max(depth, valueDepth(item));
  if (depth >= kMaxValueDepth)
    raise("RecursionError", "values nested over ", std::to_string(kMaxValueDepth), " levels deep");
  obj->depth = depth + 1;
  obj->items = std::move(items);
  obj->flavor = flavor;
  return object(Kind::List, std::move(obj));
}

Value Value::dict(std::shared_ptr<DictObj> d) { return object(Kind::Dict, std::move(d)); }

Value Value::object(Kind kind, std::shared_ptr<Object> o) {
  Value v;
  v.kind_ = kind;
  v.obj_ = std::move(o);
  return v;
}

const std::string &Value::s() const { return static_cast<const StringObj &>(*obj_).text; }
const ListObj &Value::list() const { return static_cast<const ListObj &>(*obj_); }
const DictObj &Value::dict() const { return static_cast<const DictObj &>(*obj_); }
NamespaceObj &Value::ns() const { return static_cast<NamespaceObj &>(*obj_); }
const CallableObj &Value::callable() const { return static_cast<const CallableObj &>(*obj_); }
LoopObj &Value::loop() const { return static_cast<LoopObj &>(*obj_); }

std::string Value::undefinedMessage() const {
  if (obj_)
    return static_cast<const UndefinedObj &>(*obj_).message;
  return "undefined value";
}

void Value::failUndefined() const {
  const bool unsafe = obj_ && static_cast<const UndefinedObj &>(*obj_).unsafe;
  raise(unsafe ? "SecurityError" : "UndefinedError", undefinedMessage());
}

int valueDepth(const Value &v) {
  switch (v.kind()) {
  case Value::Kind::List:
    return v.list().depth;
  case Value::Kind::Dict:
    return v.dict().depth;
  case Value::Kind::Namespace:
    return v.ns().attrs.depth;
  default:
    return 1;
  }
}

const Value *DictObj::find(const Value &key) const {
  const auto it = index.find(hashKey(key));
  return it == index.end() ? nullptr : &entries[it->second].second;
}

void DictObj::set(Value key, Value value) {
  const int d = valueDepth(value);
  if (d >= kMaxValueDepth)
    raise("RecursionError", "values nested over ", std::to_string(kMaxValueDepth), " levels deep");
  depth = std::max(depth, d + 1);
  std::string h = hashKey(key);
  const auto it = index.find(h);
  if (it != index.end()) {
    entries[it->second].second = std::move(value);
    return;
  }
  index.emplace(std::move(h), entries.size());
  entries.emplace_back(std::move(key), std::move(value));
}

// ---- type names, str and repr -----------------------------------------------------------

std::string typeName(const Value &v) {
  switch (v.kind()) {
  case Value::Kind::Undefined:
    return "Undefined";
  case Value::Kind::None:
    return "NoneType";
  case Value::Kind::Bool:
    return "bool";
  case Value::Kind::Int:
    return "int";
  case Value::Kind::Float:
    return "float";
  case Value::Kind::String:
    return "str";
  case Value::Kind::List:
    switch (v.list().flavor) {
    case ListFlavor::List:
      return "list";
    case ListFlavor::Tuple:
      return "tuple";
    case ListFlavor::Generator:
      return "generator";
    case ListFlavor::DictKeys:
      return "dict_keys";
    case ListFlavor::DictValues:
      return "dict_values";
    case ListFlavor::DictItems:
      return "dict_items";
    case ListFlavor::Range:
      return "range";
    }
    break;
  case Value::Kind::Dict:
    return "dict";
  case Value::Kind::Namespace:
    return "Namespace";
  case Value::Kind::Callable:
    return v.callable().type == CallableObj::Type::Macro ? "Macro" : "builtin_function_or_method";
  case Value::Kind::Loop:
    return "LoopContext";
  }
  return "object";
}

std::string pyFloatRepr(double f) {
  if (std::isnan(f))
    return "nan";
  if (std::isinf(f))
    return f < 0 ? "-inf" : "inf";
  char buf[64];
  const auto res =
      std::to_chars(buf, buf + sizeof(buf), std::fabs(f), std::chars_format::scientific);
  const std::string sci(buf, res.ptr);
  const size_t e = sci.find('e');
  std::string digits = sci.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  const int exponent = std::stoi(sci.substr(e + 1));
  const int decpt = exponent + 1; // digits[0] sits just left of this position
  const int n = int(digits.size());
  std::string out = std::signbit(f) ? "-" : "";
  if (decpt <= -4 || decpt > 16) {
    out += digits[0];
    if (n > 1)
      out += "." + digits.substr(1);
    const int x = decpt - 1;
    char exp[16];
    std::snprintf(exp, sizeof(exp), "e%c%02d", x < 0 ? '-' : '+', std::abs(x));
    return out + exp;
  }
  if (decpt <= 0)
    return out + "0." + std::string(size_t(-decpt), '0') + digits;
  if (decpt >= n)
    return out + digits + std::string(size_t(decpt - n), '0') + ".0";
  return out + digits.substr(0, size_t(decpt)) + "." + digits.substr(size_t(decpt));
}

std::string pyReprString(std::string_view s) {
  const bool hasSingle = s.find('\'') != std::string_view::npos;
  const bool hasDouble = s.find('"') != std::string_view::npos;
  const char quote = hasSingle && !hasDouble ? '"' : '\'';
  std::string out(1, quote);
  char buf[16];
  for (char32_t cp : decodeUtf8(s)) {
    if (cp == char32_t(quote) || cp == '\\') {
      out += '\\';
      out += char(cp);
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp < 0x20 || cp == 0x7F) {
      std::snprintf(buf, sizeof(buf), "\\x%02x", unsigned(cp));
      out += buf;
    } else if (cp < 0x7F || isPyPrintable(cp)) {
      appendUtf8(out, cp);
    } else {
      std::snprintf(buf, sizeof(buf),
                    cp <= 0xFF     ? "\\x%02x"
                    : cp <= 0xFFFF ? "\\u%04x"
                                   : "\\U%08x",
                    unsigned(cp));
      out += buf;
    }
  }
  out += quote;
  return out;
}

namespace {

std::string joinRepr(const ValueList &items) {
  std::string out;
  for (size_t k = 0; k < items.size(); ++k) {
    if (k)
      out += ", ";
    out += pyRepr(items[k]);
  }
  return out;
}

std::string dictRepr(const DictObj &d) {
  std::string out = "{";
  for (size_t k = 0; k < d.entries.size(); ++k) {
    if (k)
      out += ", ";
    out += pyRepr(d.entries[k].first) + ": " + pyRepr(d.entries[k].second);
  }
  return out + "}";
}

std::string listRepr(const ListObj &l) {
  switch (l.flavor) {
  case ListFlavor::List:
    return "[" + joinRepr(l.items) + "]";
  case ListFlavor::Tuple:
    return "(" + joinRepr(l.items) + (l.items.size() == 1 ? ",)" : ")");
  case ListFlavor::Generator:
    return "<generator object>";
  case ListFlavor::DictKeys:
    return "dict_keys([" + joinRepr(l.items) + "])";
  case ListFlavor::DictValues:
    return "dict_values([" + joinRepr(l.items) + "])";
  case ListFlavor::DictItems:
    return "dict_items([" + joinRepr(l.items) + "])";
  case ListFlavor::Range:
    return "range(" + std::to_string(l.rangeStart) + ", " + std::to_string(l.rangeStop) +
           (l.rangeStep == 1 ? "" : ", " + std::to_string(l.rangeStep)) + ")";
  }
  return "";
}

std::string callableRepr(const CallableObj &c) {
  switch (c.type) {
  case CallableObj::Type::Macro:
    return "<Macro " + pyReprString(c.name) + ">";
  case CallableObj::Type::Global:
    return "<function " + c.name + ">";
  case CallableObj::Type::Method:
    return "<built-in method " + c.name + " of " + typeName(c.receiver) + " object>";
  }
  return "";
}

} // namespace

std::string pyStr(const Value &v) {
  switch (v.kind()) {
  case Value::Kind::Undefined:
    return "";
  case Value::Kind::String:
    return v.s();
  default:
    return pyRepr(v);
  }
}

std::string pyRepr(const Value &v) {
  switch (v.kind()) {
  case Value::Kind::Undefined:
    return "Undefined";
  case Value::Kind::None:
    return "None";
  case Value::Kind::Bool:
    return v.b() ? "True" : "False";
  case Value::Kind::Int:
    return std::to_string(v.i());
  case Value::Kind::Float:
    return pyFloatRepr(v.f());
  case Value::Kind::String:
    return pyReprString(v.s());
  case Value::Kind::List:
    return listRepr(v.list());
  case Value::Kind::Dict:
    return dictRepr(v.dict());
  case Value::Kind::Namespace:
    return "<Namespace " + dictRepr(v.ns().attrs) + ">";
  case Value::Kind::Callable:
    return callableRepr(v.callable());
  case Value::Kind::Loop: {
    LoopObj &l = v.loop();
    return "<LoopContext " + std::to_string(l.index0 + 1) + "/" + std::to_string(l.length()) + ">";
  }
  }
  return "";
}

// ---- truth, equality, order, hashing ----------------------------------------------------

bool truthy(const Value &v) {
  switch (v.kind()) {
  case Value::Kind::Undefined:
  case Value::Kind::None:
    return false;
  case Value::Kind::Bool:
    return v.b();
  case Value::Kind::Int:
    return v.i() != 0;
  case Value::Kind::Float:
    return v.f() != 0.0;
  case Value::Kind::String:
    return !v.s().empty();
  case Value::Kind::List:
    return v.list().flavor == ListFlavor::Generator || !v.list().items.empty();
  case Value::Kind::Dict:
    return v.dict().size() != 0;
  default:
    return true;
  }
}

namespace {

/// Exact three-way comparison of two numbers as Python does it (int vs float included);
/// nullopt when a NaN is involved.
std::optional<int> compareNumbers(const Value &a, const Value &b) {
  if (a.isIntegral() && b.isIntegral())
    return a.i() < b.i() ? -1 : a.i() > b.i() ? 1 : 0;
  if (a.kind() == Value::Kind::Float && b.kind() == Value::Kind::Float) {
    if (std::isnan(a.f()) || std::isnan(b.f()))
      return std::nullopt;
    return a.f() < b.f() ? -1 : a.f() > b.f() ? 1 : 0;
  }
  // One int, one float: compare exactly (doubles beyond 2^63 are integral).
  const bool aFloat = a.kind() == Value::Kind::Float;
  const double f = aFloat ? a.f() : b.f();
  const int64_t i = aFloat ? b.i() : a.i();
  if (std::isnan(f))
    return std::nullopt;
  int fVsI;
  if (f >= 9223372036854775808.0) {
    fVsI = 1;
  } else if (f < -9223372036854775808.0) {
    fVsI = -1;
  } else {
    const double fl = std::floor(f);
    const auto fi = int64_t(fl);
    fVsI = fi < i ? -1 : fi > i ? 1 : (f > fl ? 1 : 0);
  }
  return aFloat ? fVsI : -fVsI;
}

bool sameSequenceType(const ListObj &a, const ListObj &b) { return a.flavor == b.flavor; }

[[noreturn]] void unorderable(const Value &a, const Value &b, std::string_view op) {
  raise("TypeError", "'", std::string(op), "' not supported between instances of '", typeName(a),
        "' and '", typeName(b), "'");
}

} // namespace

bool pyEqual(const Value &a, const Value &b) {
  if (a.isNumber() && b.isNumber()) {
    const auto c = compareNumbers(a, b);
    return c && *c == 0;
  }
  if (a.kind() != b.kind())
    return false;
  switch (a.kind()) {
  case Value::Kind::Undefined:
  case Value::Kind::None:
    return true;
  case Value::Kind::String:
    return a.s() == b.s();
  case Value::Kind::List: {
    const ListObj &x = a.list(), &y = b.list();
    if (x.flavor == ListFlavor::Generator || y.flavor == ListFlavor::Generator)
      return a.identity() == b.identity();
    if (!sameSequenceType(x, y) || x.items.size() != y.items.size())
      return false;
    for (size_t k = 0; k < x.items.size(); ++k)
      if (!pyEqual(x.items[k], y.items[k]))
        return false;
    return true;
  }
  case Value::Kind::Dict: {
    const DictObj &x = a.dict(), &y = b.dict();
    if (x.size() != y.size())
      return false;
    for (const auto &[key, value] : x.entries) {
      const Value *other = y.find(key);
      if (!other || !pyEqual(value, *other))
        return false;
    }
    return true;
  }
  default:
    return a.identity() == b.identity();
  }
}

bool pyCompare(const Value &a, const Value &b, std::string_view op) {
  if (a.isUndefined())
    a.failUndefined();
  if (b.isUndefined())
    b.failUndefined();
  auto apply = [&](int c) {
    return op == "<" ? c < 0 : op == "<=" ? c <= 0 : op == ">" ? c > 0 : c >= 0;
  };
  if (a.isNumber() && b.isNumber()) {
    const auto c = compareNumbers(a, b);
    return c && apply(*c);
  }
  if (a.isString() && b.isString())
    return apply(a.s().compare(b.s()));
  if (a.isList() && b.isList() && sameSequenceType(a.list(), b.list()) &&
      (a.list().flavor == ListFlavor::List || a.list().flavor == ListFlavor::Tuple)) {
    const ValueList &x = a.list().items, &y = b.list().items;
    for (size_t k = 0; k < x.size() && k < y.size(); ++k)
      if (!pyEqual(x[k], y[k]))
        return pyCompare(x[k], y[k], op);
    return apply(x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0);
  }
  unorderable(a, b, op);
}

std::string hashKey(const Value &v) {
  switch (v.kind()) {
  case Value::Kind::String:
    return "s" + v.s();
  case Value::Kind::Bool:
  case Value::Kind::Int:
    return "i" + std::to_string(v.i());
  case Value::Kind::Float: {
    const double f = v.f();
    if (std::isfinite(f) && f == std::floor(f) && std::fabs(f) < 9.2e18)
      return "i" + std::to_string(int64_t(f));
    return "f" + pyFloatRepr(f);
  }
  case Value::Kind::None:
    return "n";
  case Value::Kind::Undefined:
    return "u";
  case Value::Kind::List:
    if (v.list().flavor == ListFlavor::Tuple) {
      std::string out = "t(";
      for (const Value &item : v.list().items)
        out += hashKey(item) + ",";
      return out + ")";
    }
    break;
  default:
    break;
  }
  raise("TypeError", "unhashable type: '", typeName(v), "'");
}

// ---- json.dumps -------------------------------------------------------------------------

namespace {

void jsonString(std::string &out, std::string_view s, bool ensureAscii) {
  char buf[16];
  out += '"';
  for (char32_t cp : decodeUtf8(s)) {
    switch (cp) {
    case '"':
      out += "\\\"";
      continue;
    case '\\':
      out += "\\\\";
      continue;
    case '\n':
      out += "\\n";
      continue;
    case '\r':
      out += "\\r";
      continue;
    case '\t':
      out += "\\t";
      continue;
    case '\b':
      out += "\\b";
      continue;
    case '\f':
      out += "\\f";
      continue;
    default:
      break;
    }
    if (cp < 0x20 || (ensureAscii && cp >= 0x7F)) {
      if (cp >= 0x10000) {
        const char32_t v = cp - 0x10000;
        std::snprintf(buf, sizeof(buf), "\\u%04x\\u%04x", unsigned(0xD800 + (v >> 10)),
                      unsigned(0xDC00 + (v & 0x3FF)));
      } else {
        std::snprintf(buf, sizeof(buf), "\\u%04x", unsigned(cp));
      }
      out += buf;
    } else {
      appendUtf8(out, cp);
    }
  }
  out += '"';
}

std::string jsonFloat(double f) {
  if (std::isnan(f))
    return "NaN";
  if (std::isinf(f))
    return f < 0 ? "-Infinity" : "Infinity";
  return pyFloatRepr(f);
}

std::string jsonKey(const Value &key) {
  switch (key.kind()) {
  case Value::Kind::String:
    return key.s();
  case Value::Kind::Bool:
    return key.b() ? "true" : "false";
  case Value::Kind::Int:
    return std::to_string(key.i());
  case Value::Kind::Float:
    return jsonFloat(key.f());
  case Value::Kind::None:
    return "null";
  default:
    raise("TypeError", "keys must be str, int, float, bool or None, not ", typeName(key));
  }
}

class JsonWriter {
public:
  explicit JsonWriter(const JsonOptions &o) : o_(o) {}
  std::string out;

  void write(const Value &v, int level) {
    switch (v.kind()) {
    case Value::Kind::None:
      out += "null";
      return;
    case Value::Kind::Bool:
      out += v.b() ? "true" : "false";
      return;
    case Value::Kind::Int:
      out += std::to_string(v.i());
      return;
    case Value::Kind::Float:
      out += jsonFloat(v.f());
      return;
    case Value::Kind::String:
      jsonString(out, v.s(), o_.ensureAscii);
      return;
    case Value::Kind::List:
      if (v.list().flavor == ListFlavor::List || v.list().flavor == ListFlavor::Tuple) {
        writeList(v.list().items, level);
        return;
      }
      break;
    case Value::Kind::Dict:
      writeDict(v.dict(), level);
      return;
    default:
      break;
    }
    raise("TypeError", "Object of type ", typeName(v), " is not JSON serializable");
  }

private:
  void newline(int level) {
    if (!o_.indent)
      return;
    if (out.size() + 1 + o_.indent->size() * size_t(level) > o_.maxBytes)
      raise("RenderLimitError", "tojson output exceeds the limit of ", std::to_string(o_.maxBytes),
            " bytes");
    out += '\n';
    for (int k = 0; k < level; ++k)
      out += *o_.indent;
  }

  void writeList(const ValueList &items, int level) {
    if (items.empty()) {
      out += "[]";
      return;
    }
    out += '[';
    for (size_t k = 0; k < items.size(); ++k) {
      if (k)
        out += o_.itemSeparator;
      newline(level + 1);
      write(items[k], level + 1);
    }
    newline(level);
    out += ']';
  }

  void writeDict(const DictObj &d, int level) {
    if (d.size() == 0) {
      out += "{}";
      return;
    }
    std::vector<const std::pair<Value, Value> *> entries;
    for (const auto &entry : d.entries)
      entries.push_back(&entry);
    if (o_.sortKeys)
      std::stable_sort(entries.begin(), entries.end(), [](const auto *x, const auto *y) {
        return pyCompare(x->first, y->first, "<");
      });
    out += '{';
    for (size_t k = 0; k < entries.size(); ++k) {
      if (k)
        out += o_.itemSeparator;
      newline(level + 1);
      jsonString(out, jsonKey(entries[k]->first), o_.ensureAscii);
      out += o_.keySeparator;
      write(entries[k]->second, level + 1);
    }
    newline(level);
    out += '}';
  }

  const JsonOptions &o_;
};

} // namespace

std::string toJson(const Value &v, const JsonOptions &options) {
  JsonWriter w(options);
  w.write(v, 0);
  return std::move(w.out);
}

} // namespace mm::rt::jinja
