//===- JinjaTests.cpp - jinja2's builtin tests and argument binding -------===//
//
// The tests (jinja2/tests.py) of `x is name(args)`: boolean callable defined divisibleby
// eq equalto escaped even false filter float ge gt greaterthan in integer iterable le
// lessthan lower lt mapping ne none number odd sameas sequence string test true
// undefined upper and the operator spellings (==, !=, <, <=, >, >=). Also the helpers
// shared by all builtins: Python-style argument binding, jinja2's attribute getter and
// the `in` operator.
//
//===----------------------------------------------------------------------===//
#include "runtime/text/Jinja.h"

#include <algorithm>
#include <cmath>

namespace mm::rt::jinja {

// ---- argument binding and shared helpers ------------------------------------------------

Args::Args(const char *function, const ValueList &positional, const KwArgs &keywords,
           std::initializer_list<const char *> names)
    : function_(function), names_(names), bound_(names.size(), nullptr) {
  if (positional.size() > names_.size())
    raise("TypeError", function, "() takes at most ", std::to_string(names_.size()),
          " argument(s) (", std::to_string(positional.size()), " given)");
  for (size_t k = 0; k < positional.size(); ++k)
    bound_[k] = &positional[k];
  for (const auto &[key, value] : keywords) {
    size_t k = 0;
    while (k < names_.size() && key != names_[k])
      ++k;
    if (k == names_.size())
      raise("TypeError", function, "() got an unexpected keyword argument ", pyReprString(key));
    if (bound_[k])
      raise("TypeError", function, "() got multiple values for argument ", pyReprString(key));
    bound_[k] = &value;
  }
}

bool Args::flag(size_t index, bool fallback) const {
  return bound_[index] ? truthy(*bound_[index]) : fallback;
}

int64_t Args::integer(size_t index, int64_t fallback) const {
  if (!bound_[index])
    return fallback;
  if (!bound_[index]->isIntegral())
    raise("TypeError", function_, "(): '", typeName(*bound_[index]),
          "' object cannot be interpreted as an integer");
  return bound_[index]->i();
}

std::optional<std::string> Args::string(size_t index) const {
  if (!bound_[index] || bound_[index]->isNone())
    return std::nullopt;
  if (!bound_[index]->isString())
    raise("TypeError", function_, "(): expected str, got ", typeName(*bound_[index]));
  return bound_[index]->s();
}

Value attributeOf(Renderer &r, const Value &item, const Value &attribute, const Value *fallback) {
  std::vector<Value> parts;
  if (attribute.isString()) {
    for (const std::string &part : pySplit(attribute.s(), std::string("."), -1, false)) {
      const bool digits = !part.empty() && std::all_of(part.begin(), part.end(),
                                                       [](char c) { return c >= '0' && c <= '9'; });
      parts.push_back(digits && part.size() < 18 ? Value::integer(std::stoll(part))
                                                 : Value::string(part));
    }
  } else {
    parts.push_back(attribute);
  }
  Value cur = item;
  for (const Value &part : parts) {
    cur = r.getitem(cur, part);
    if (fallback && cur.isUndefined())
      cur = *fallback;
  }
  return cur;
}

bool containsValue(const Value &container, const Value &item) {
  switch (container.kind()) {
  case Value::Kind::Undefined:
    return false;
  case Value::Kind::String:
    if (!item.isString())
      raise("TypeError", "'in <string>' requires string as left operand, not ", typeName(item));
    return container.s().find(item.s()) != std::string::npos;
  case Value::Kind::List:
    for (const Value &v : container.list().items)
      if (pyEqual(v, item))
        return true;
    return false;
  case Value::Kind::Dict:
    return container.dict().find(item) != nullptr;
  default:
    raise("TypeError", "argument of type '", typeName(container), "' is not iterable");
  }
}

namespace {

using V = const Value &;
using L = const ValueList &;
using K = const KwArgs &;

// ---- tests ------------------------------------------------------------------------------

bool tDefined(Renderer &, V v, L, K) { return !v.isUndefined(); }
bool tUndefined(Renderer &, V v, L, K) { return v.isUndefined(); }
bool tNone(Renderer &, V v, L, K) { return v.isNone(); }
bool tBoolean(Renderer &, V v, L, K) { return v.kind() == Value::Kind::Bool; }
bool tTrue(Renderer &, V v, L, K) { return v.kind() == Value::Kind::Bool && v.b(); }
bool tFalse(Renderer &, V v, L, K) { return v.kind() == Value::Kind::Bool && !v.b(); }
bool tInteger(Renderer &, V v, L, K) { return v.kind() == Value::Kind::Int; }
bool tFloat(Renderer &, V v, L, K) { return v.kind() == Value::Kind::Float; }
bool tNumber(Renderer &, V v, L, K) { return v.isNumber(); }
bool tString(Renderer &, V v, L, K) { return v.isString(); }
bool tMapping(Renderer &, V v, L, K) { return v.isDict(); }
bool tEscaped(Renderer &, V, L, K) { return false; }

bool tIterable(Renderer &, V v, L, K) {
  switch (v.kind()) {
  case Value::Kind::Undefined:
  case Value::Kind::String:
  case Value::Kind::List:
  case Value::Kind::Dict:
  case Value::Kind::Loop:
    return true;
  default:
    return false;
  }
}

bool tSequence(Renderer &, V v, L, K) {
  switch (v.kind()) {
  case Value::Kind::Undefined:
  case Value::Kind::String:
  case Value::Kind::Dict:
    return true;
  case Value::Kind::List: {
    const ListFlavor f = v.list().flavor;
    return f == ListFlavor::List || f == ListFlavor::Tuple || f == ListFlavor::Range;
  }
  default:
    return false;
  }
}

bool tCallable(Renderer &, V v, L, K) {
  return v.kind() == Value::Kind::Callable || v.isUndefined() || v.kind() == Value::Kind::Loop;
}

const Value &testArg(L a, K k, const char *test, const char *name) {
  Args args(test, a, k, {name});
  if (!args.get(0))
    raise("TypeError", test, "() missing 1 required positional argument: '", name, "'");
  return *args.get(0);
}

/// value % divisor, with Python's semantics (for a str, % is formatting).
Value pyMod(Renderer &r, const Value &v, const Value &divisor) {
  if (v.isUndefined())
    v.failUndefined();
  if (v.isString())
    return percentFormat(r, v.s(), divisor);
  if (!v.isNumber() || !divisor.isNumber())
    raise("TypeError", "unsupported operand type(s) for %: '", typeName(v), "' and '",
          typeName(divisor), "'");
  if (v.isIntegral() && divisor.isIntegral()) {
    if (divisor.i() == 0)
      raise("ZeroDivisionError", "integer modulo by zero");
    if (divisor.i() == -1)
      return Value::integer(0);
    int64_t m = v.i() % divisor.i();
    if (m != 0 && ((m < 0) != (divisor.i() < 0)))
      m += divisor.i();
    return Value::integer(m);
  }
  if (divisor.f() == 0)
    raise("ZeroDivisionError", "float modulo");
  double m = std::fmod(v.f(), divisor.f());
  if (m != 0 && ((m < 0) != (divisor.f() < 0)))
    m += divisor.f();
  return Value::number(m);
}

bool tOdd(Renderer &r, V v, L a, K k) {
  Args args("test_odd", a, k, {});
  return pyEqual(pyMod(r, v, Value::integer(2)), Value::integer(1));
}
bool tEven(Renderer &r, V v, L a, K k) {
  Args args("test_even", a, k, {});
  return pyEqual(pyMod(r, v, Value::integer(2)), Value::integer(0));
}
bool tDivisibleby(Renderer &r, V v, L a, K k) {
  return pyEqual(pyMod(r, v, testArg(a, k, "test_divisibleby", "num")), Value::integer(0));
}

bool tEq(Renderer &, V v, L a, K k) { return pyEqual(v, testArg(a, k, "test_eq", "other")); }
bool tNe(Renderer &, V v, L a, K k) { return !pyEqual(v, testArg(a, k, "test_ne", "other")); }
bool tLt(Renderer &, V v, L a, K k) { return pyCompare(v, testArg(a, k, "test_lt", "other"), "<"); }
bool tLe(Renderer &, V v, L a, K k) {
  return pyCompare(v, testArg(a, k, "test_le", "other"), "<=");
}
bool tGt(Renderer &, V v, L a, K k) { return pyCompare(v, testArg(a, k, "test_gt", "other"), ">"); }
bool tGe(Renderer &, V v, L a, K k) {
  return pyCompare(v, testArg(a, k, "test_ge", "other"), ">=");
}
bool tIn(Renderer &, V v, L a, K k) { return containsValue(testArg(a, k, "test_in", "seq"), v); }

bool tSameas(Renderer &, V v, L a, K k) {
  const Value &other = testArg(a, k, "test_sameas", "other");
  if (v.kind() != other.kind())
    return false;
  switch (v.kind()) {
  case Value::Kind::None:
    return true;
  case Value::Kind::Bool:
    return v.b() == other.b();
  case Value::Kind::Int: // CPython caches the small ints
    return v.i() == other.i() && v.i() >= -5 && v.i() <= 256;
  case Value::Kind::Float:
    return false;
  default:
    return v.identity() != nullptr && v.identity() == other.identity();
  }
}

bool tLower(Renderer &, V v, L a, K k) {
  Args args("test_lower", a, k, {});
  return pyIsLower(pyStr(v));
}
bool tUpper(Renderer &, V v, L a, K k) {
  Args args("test_upper", a, k, {});
  return pyIsUpper(pyStr(v));
}

bool tFilter(Renderer &, V v, L a, K k) {
  Args args("test_filter", a, k, {});
  bool known = false;
  return v.isString() && findFilter(v.s(), &known);
}
bool tTest(Renderer &, V v, L a, K k) {
  Args args("test_test", a, k, {});
  bool known = false;
  return v.isString() && findTest(v.s(), &known);
}

const TestDef kTests[] = {
    {"boolean", tBoolean}, {"callable", tCallable},
    {"defined", tDefined}, {"divisibleby", tDivisibleby},
    {"eq", tEq},           {"equalto", tEq},
    {"==", tEq},           {"escaped", tEscaped},
    {"even", tEven},       {"false", tFalse},
    {"filter", tFilter},   {"float", tFloat},
    {"ge", tGe},           {">=", tGe},
    {"gt", tGt},           {">", tGt},
    {"greaterthan", tGt},  {"in", tIn},
    {"integer", tInteger}, {"iterable", tIterable},
    {"le", tLe},           {"<=", tLe},
    {"lessthan", tLt},     {"lower", tLower},
    {"lt", tLt},           {"<", tLt},
    {"mapping", tMapping}, {"ne", tNe},
    {"!=", tNe},           {"none", tNone},
    {"number", tNumber},   {"odd", tOdd},
    {"sameas", tSameas},   {"sequence", tSequence},
    {"string", tString},   {"test", tTest},
    {"true", tTrue},       {"undefined", tUndefined},
    {"upper", tUpper},
};

} // namespace

const TestDef *findTest(std::string_view name, bool *known) {
  for (const TestDef &t : kTests)
    if (name == t.name)
      return &t;
  *known = false;
  return nullptr;
}

} // namespace mm::rt::jinja
