//===- JinjaFilters.cpp - jinja2's builtin filters -------------------------===//
//
// The filters (jinja2/filters.py) chat templates use, with jinja2 3.1's argument names
// and defaults, plus transformers' tojson (json.dumps with ensure_ascii=False). Results
// that jinja2 returns as generators (map, select, selectattr, reject, rejectattr, unique,
// items, batch, reverse of a list) are generators here too: always true, no length,
// printable only as "<generator object>".
//
// Supported filters: abs attr batch capitalize center count d default dictsort e escape
// first float format indent int items join last length list lower map max min reject
// rejectattr replace reverse round safe select selectattr sort string sum title tojson
// trim unique upper wordcount.
//
//===----------------------------------------------------------------------===//
#include "runtime/text/Jinja.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace mm::rt::jinja {

namespace {

Value generator(ValueList items) { return Value::list(std::move(items), ListFlavor::Generator); }

Value ignoreCase(const Value &v) { return v.isString() ? Value::string(pyLower(v.s())) : v; }

/// len(v) as Python computes it.
int64_t pyLen(const Value &v) {
  switch (v.kind()) {
  case Value::Kind::Undefined:
    return 0;
  case Value::Kind::String:
    return int64_t(codePointCount(v.s()));
  case Value::Kind::List:
    if (v.list().flavor != ListFlavor::Generator)
      return int64_t(v.list().items.size());
    break;
  case Value::Kind::Dict:
    return int64_t(v.dict().size());
  default:
    break;
  }
  raise("TypeError", "object of type '", typeName(v), "' has no len()");
}

/// Python float(str): optional sign, digits with single underscores, inf/nan.
std::optional<double> parseFloat(const std::string &text) {
  std::string s = pyStrip(text, std::nullopt, true, true);
  std::string lower = pyLower(s);
  size_t body = lower[0] == '+' || lower[0] == '-' ? 1 : 0;
  const std::string word = lower.substr(body);
  if (word == "inf" || word == "infinity" || word == "nan") {
    const double v = word == "nan" ? NAN : INFINITY;
    return lower[0] == '-' ? -v : v;
  }
  std::string clean;
  for (size_t k = 0; k < s.size(); ++k) {
    if (s[k] == '_') {
      const bool ok = k > 0 && k + 1 < s.size() && std::isdigit((unsigned char)s[k - 1]) &&
                      std::isdigit((unsigned char)s[k + 1]);
      if (!ok)
        return std::nullopt;
      continue;
    }
    const char c = s[k];
    if (!(std::isdigit((unsigned char)c) || c == '.' || c == 'e' || c == 'E' || c == '+' ||
          c == '-'))
      return std::nullopt;
    clean += c;
  }
  if (clean.empty())
    return std::nullopt;
  char *end = nullptr;
  const double v = std::strtod(clean.c_str(), &end);
  if (end != clean.c_str() + clean.size())
    return std::nullopt;
  return v;
}

/// Python int(str, base).
std::optional<int64_t> parseInt(const std::string &text, int64_t base) {
  std::string s = pyStrip(text, std::nullopt, true, true);
  bool negative = false;
  size_t k = 0;
  if (k < s.size() && (s[k] == '+' || s[k] == '-'))
    negative = s[k++] == '-';
  auto prefixBase = [&](size_t at) -> int64_t {
    if (at + 1 < s.size() && s[at] == '0') {
      const char p = char(s[at + 1] | 0x20);
      if (p == 'x')
        return 16;
      if (p == 'o')
        return 8;
      if (p == 'b')
        return 2;
    }
    return 0;
  };
  const int64_t prefixed = prefixBase(k);
  if (base == 0) {
    base = prefixed ? prefixed : 10;
    if (prefixed)
      k += 2;
    else if (s.size() - k > 1 && s[k] == '0' && s.find_first_not_of("0_", k) != std::string::npos)
      return std::nullopt; // int('010', 0) is an error
  } else if (prefixed && prefixed == base) {
    k += 2;
  }
  if (base < 2 || base > 36 || k >= s.size())
    return std::nullopt;
  __int128 v = 0;
  bool lastDigit = prefixed && k >= 2 && s[k - 1] != '_' ? true : false;
  bool any = false;
  for (; k < s.size(); ++k) {
    const char c = s[k];
    if (c == '_') {
      if (!any && !lastDigit)
        return std::nullopt;
      if (k + 1 >= s.size() || s[k + 1] == '_')
        return std::nullopt;
      continue;
    }
    const int d = std::isdigit((unsigned char)c)   ? c - '0'
                  : std::isalpha((unsigned char)c) ? (c | 0x20) - 'a' + 10
                                                   : 99;
    if (d >= base)
      return std::nullopt;
    v = v * base + d;
    if (v > (__int128(1) << 63))
      raise("OverflowError", "integer ", text, " does not fit in 64 bits");
    any = true;
  }
  if (!any)
    return std::nullopt;
  if (negative)
    v = -v;
  if (v > INT64_MAX)
    raise("OverflowError", "integer ", text, " does not fit in 64 bits");
  return int64_t(v);
}

int64_t floatToInt(double f) {
  if (std::isnan(f))
    raise("ValueError", "cannot convert float NaN to integer");
  if (std::isinf(f))
    raise("OverflowError", "cannot convert float infinity to integer");
  if (std::fabs(f) >= 9.2233720368547758e18)
    raise("OverflowError", "integer ", pyFloatRepr(f), " does not fit in 64 bits");
  return int64_t(f);
}

/// Sort key comparator for sort/min/max/dictsort.
bool keyLess(const Value &a, const Value &b) { return pyCompare(a, b, "<"); }

// ---- filters ----------------------------------------------------------------------------

using V = const Value &;
using L = const ValueList &;
using K = const KwArgs &;

Value fAbs(Renderer &, V v, L a, K k) {
  Args args("do_abs", a, k, {});
  if (v.isIntegral()) {
    if (v.i() == INT64_MIN)
      raise("OverflowError", "integer overflow in abs");
    return Value::integer(v.i() < 0 ? -v.i() : v.i());
  }
  if (v.kind() == Value::Kind::Float)
    return Value::number(std::fabs(v.f()));
  raise("TypeError", "bad operand type for abs(): '", typeName(v), "'");
}

Value fAttr(Renderer &r, V v, L a, K k) {
  Args args("do_attr", a, k, {"name"});
  const std::string name = pyStr(args.value(0, Value::undefined("missing name")));
  if (v.isDict()) {
    if (auto attr = builtinAttribute(v, name))
      return *attr;
    return Value::undefined("'dict object' has no attribute " + pyReprString(name));
  }
  return r.getattr(v, name);
}

Value fBatch(Renderer &r, V v, L a, K k) {
  Args args("do_batch", a, k, {"linecount", "fill_with"});
  if (!args.get(0))
    raise("TypeError", "do_batch() missing 1 required positional argument: 'linecount'");
  const int64_t count = args.integer(0, 0);
  const Value *fill = args.get(1);
  ValueList out, row;
  for (const Value &item : r.iterate(v)) {
    if (int64_t(row.size()) == count) {
      out.push_back(Value::list(std::move(row)));
      row.clear();
    }
    row.push_back(item);
  }
  if (!row.empty()) {
    if (fill && !fill->isNone() && int64_t(row.size()) < count) {
      r.charge(uint64_t(count) - row.size()); // before filling: count is the template's
      row.resize(size_t(count), *fill);
    }
    out.push_back(Value::list(std::move(row)));
  }
  return generator(std::move(out));
}

Value fCapitalize(Renderer &, V v, L a, K k) {
  Args args("do_capitalize", a, k, {});
  return Value::string(pyCapitalize(pyStr(v)));
}

Value fCenter(Renderer &r, V v, L a, K k) {
  Args args("do_center", a, k, {"width"});
  return Value::string(padString(r, pyStr(v), args.integer(0, 80), ' ', 'c'));
}

Value fLength(Renderer &, V v, L a, K k) {
  Args args("do_length", a, k, {});
  return Value::integer(pyLen(v));
}

Value fDefault(Renderer &, V v, L a, K k) {
  Args args("do_default", a, k, {"default_value", "boolean"});
  if (v.isUndefined() || (args.flag(1, false) && !truthy(v)))
    return args.value(0, Value::string(""));
  return v;
}

Value fDictsort(Renderer &r, V v, L a, K k) {
  Args args("do_dictsort", a, k, {"case_sensitive", "by", "reverse"});
  if (v.isUndefined())
    v.failUndefined();
  if (!v.isDict())
    raise("AttributeError", "'", typeName(v), "' object has no attribute 'items'");
  const std::string by = args.string(1).value_or("key");
  if (by != "key" && by != "value")
    raise("FilterArgumentError", "You can only sort by either \"key\" or \"value\"");
  const bool caseSensitive = args.flag(0, false), reverse = args.flag(2, false);
  std::vector<std::pair<Value, Value>> entries = v.dict().entries;
  r.charge(entries.size());
  std::stable_sort(entries.begin(), entries.end(), [&](const auto &x, const auto &y) {
    Value kx = by == "key" ? x.first : x.second, ky = by == "key" ? y.first : y.second;
    if (!caseSensitive) {
      kx = ignoreCase(kx);
      ky = ignoreCase(ky);
    }
    return reverse ? keyLess(ky, kx) : keyLess(kx, ky);
  });
  ValueList out;
  for (auto &[key, value] : entries)
    out.push_back(Value::list({key, value}, ListFlavor::Tuple));
  return Value::list(std::move(out));
}

Value fEscape(Renderer &, V v, L a, K k) {
  Args args("escape", a, k, {});
  std::string out;
  for (char c : pyStr(v)) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&#34;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return Value::string(std::move(out));
}

Value fFirst(Renderer &r, V v, L a, K k) {
  Args args("do_first", a, k, {});
  const ValueList items = r.iterate(v);
  if (items.empty())
    return Value::undefined("No first item, sequence was empty.");
  return items.front();
}

Value fLast(Renderer &r, V v, L a, K k) {
  Args args("do_last", a, k, {}); // next(iter(reversed(seq)))
  const bool reversible = v.isUndefined() || v.isString() || v.isDict() ||
                          (v.isList() && v.list().flavor != ListFlavor::Generator);
  if (!reversible)
    raise("TypeError", "'", typeName(v), "' object is not reversible");
  const ValueList items = r.iterate(v);
  if (items.empty())
    return Value::undefined("No last item, sequence was empty.");
  return items.back();
}

Value fFloat(Renderer &, V v, L a, K k) {
  Args args("do_float", a, k, {"default"});
  if (v.isUndefined()) // float(Undefined) raises
    v.failUndefined();
  if (v.isNumber())
    return Value::number(v.f());
  if (v.isString())
    if (const auto f = parseFloat(v.s()))
      return Value::number(*f);
  return args.value(0, Value::number(0.0));
}

Value fInt(Renderer &, V v, L a, K k) {
  Args args("do_int", a, k, {"default", "base"});
  const Value fallback = args.value(0, Value::integer(0));
  if (v.isUndefined()) // int(Undefined) raises
    v.failUndefined();
  if (v.isIntegral())
    return Value::integer(v.i());
  if (v.kind() == Value::Kind::Float)
    return std::isnan(v.f()) ? fallback : Value::integer(floatToInt(v.f()));
  if (!v.isString())
    return fallback;
  if (const auto i = parseInt(v.s(), args.integer(1, 10)))
    return Value::integer(*i);
  if (const auto f = parseFloat(v.s()))
    return std::isnan(*f) ? fallback : Value::integer(floatToInt(*f));
  return fallback;
}

Value fFormat(Renderer &r, V v, L a, K k) {
  if (!a.empty() && !k.empty())
    raise("FilterArgumentError", "can't handle positional and keyword arguments at the same time");
  if (!k.empty()) {
    auto d = std::make_shared<DictObj>();
    for (const auto &[key, value] : k)
      d->set(Value::string(key), value);
    return percentFormat(r, pyStr(v), Value::dict(std::move(d)));
  }
  return percentFormat(r, pyStr(v), Value::list(a, ListFlavor::Tuple));
}

Value fIndent(Renderer &r, V v, L a, K k) {
  Args args("do_indent", a, k, {"width", "first", "blank"});
  if (v.isUndefined())
    v.failUndefined();
  if (v.isList() && (v.list().flavor == ListFlavor::List)) // s += "\n"; s.splitlines()
    raise("AttributeError", "'list' object has no attribute 'splitlines'");
  if (v.isList() && (v.list().flavor == ListFlavor::Tuple))
    raise("TypeError", "can only concatenate tuple (not \"str\") to tuple");
  if (!v.isString())
    raise("TypeError", "unsupported operand type(s) for +=: '", typeName(v), "' and 'str'");
  std::string indention;
  if (const Value *w = args.get(0); w && w->isString()) {
    indention = w->s();
  } else {
    const int64_t width = std::max<int64_t>(args.integer(0, 4), 0);
    r.checkSize(size_t(width)); // before building it
    indention.assign(size_t(width), ' ');
  }
  const std::string s = pyStr(v) + "\n";
  const std::vector<std::string> lines = pySplitLines(s, false);
  r.charge(lines.size());
  std::string out;
  if (args.flag(2, false)) {
    for (size_t n = 0; n < lines.size(); ++n) {
      if (n)
        out += "\n" + indention;
      out += lines[n];
      r.checkSize(out.size());
    }
  } else {
    out = lines.empty() ? "" : lines[0];
    for (size_t n = 1; n < lines.size(); ++n) {
      out += "\n";
      if (!lines[n].empty())
        out += indention + lines[n];
      r.checkSize(out.size());
    }
  }
  if (args.flag(1, false))
    out = indention + out;
  return Value::string(std::move(out));
}

Value fItems(Renderer &r, V v, L a, K k) {
  Args args("do_items", a, k, {});
  if (v.isUndefined())
    return generator({});
  if (!v.isDict())
    raise("TypeError", "Can only get item pairs from a mapping.");
  r.charge(v.dict().size());
  ValueList out;
  for (const auto &[key, value] : v.dict().entries)
    out.push_back(Value::list({key, value}, ListFlavor::Tuple));
  return generator(std::move(out));
}

Value fJoin(Renderer &r, V v, L a, K k) {
  Args args("do_join", a, k, {"d", "attribute"});
  const std::string sep = pyStr(args.value(0, Value::string("")));
  const Value *attribute = args.get(1) && !args.get(1)->isNone() ? args.get(1) : nullptr;
  std::string out;
  size_t n = 0;
  for (const Value &item : r.iterate(v)) {
    if (n++)
      out += sep;
    out += pyStr(attribute ? attributeOf(r, item, *attribute) : item);
    r.checkSize(out.size());
  }
  return Value::string(std::move(out));
}

Value fList(Renderer &r, V v, L a, K k) {
  Args args("do_list", a, k, {});
  return Value::list(r.iterate(v));
}

Value fLower(Renderer &, V v, L a, K k) {
  Args args("do_lower", a, k, {});
  return Value::string(pyLower(pyStr(v)));
}

Value fUpper(Renderer &, V v, L a, K k) {
  Args args("do_upper", a, k, {});
  return Value::string(pyUpper(pyStr(v)));
}

Value fMap(Renderer &r, V v, L a, K k) {
  ValueList out;
  if (!truthy(v)) // sync_do_map: `if value:`
    return generator({});
  if (a.empty()) {
    Args args("map", a, k, {"attribute", "default"});
    if (!args.get(0))
      raise("FilterArgumentError", "map requires a filter argument");
    const Value fallback = args.value(1, Value::none());
    for (const Value &item : r.iterate(v))
      out.push_back(attributeOf(r, item, *args.get(0), fallback.isNone() ? nullptr : &fallback));
    return generator(std::move(out));
  }
  if (!a[0].isString())
    raise("TypeError", "map(): the filter name must be a string");
  const ValueList rest(a.begin() + 1, a.end());
  for (const Value &item : r.iterate(v))
    out.push_back(r.applyFilter(a[0].s(), item, rest, k));
  return generator(std::move(out));
}

Value minOrMax(Renderer &r, V v, L a, K k, bool max) {
  Args args(max ? "do_max" : "do_min", a, k, {"case_sensitive", "attribute"});
  const ValueList items = r.iterate(v);
  if (items.empty())
    return Value::undefined("No aggregated item, sequence was empty.");
  const bool caseSensitive = args.flag(0, false);
  auto key = [&](const Value &item) {
    Value kv = args.get(1) ? attributeOf(r, item, *args.get(1)) : item;
    return caseSensitive ? kv : ignoreCase(kv);
  };
  size_t best = 0;
  Value bestKey = key(items[0]);
  for (size_t n = 1; n < items.size(); ++n) {
    Value kn = key(items[n]); // CPython's min_max: item > best / item < best
    if (pyCompare(kn, bestKey, max ? ">" : "<")) {
      best = n;
      bestKey = std::move(kn);
    }
  }
  return items[best];
}

Value fMax(Renderer &r, V v, L a, K k) { return minOrMax(r, v, a, k, true); }
Value fMin(Renderer &r, V v, L a, K k) { return minOrMax(r, v, a, k, false); }

/// select / reject / selectattr / rejectattr (jinja2's select_or_reject).
Value selectOrReject(Renderer &r, V v, L a, K k, bool keep, bool byAttribute) {
  if (!truthy(v)) // select_or_reject: `if value:`
    return generator({});
  size_t off = 0;
  if (byAttribute) {
    if (a.empty())
      raise("FilterArgumentError", "Missing parameter for attribute name");
    off = 1;
  }
  const bool hasTest = a.size() > off;
  if (hasTest && !a[off].isString())
    raise("TypeError", "the test name must be a string");
  const ValueList testArgs(a.begin() + long(std::min(a.size(), off + 1)), a.end());
  ValueList out;
  for (const Value &item : r.iterate(v)) {
    const Value probe = byAttribute ? attributeOf(r, item, a[0]) : item;
    const bool pass = hasTest ? r.applyTest(a[off].s(), probe, testArgs, k) : truthy(probe);
    if (pass == keep)
      out.push_back(item);
  }
  return generator(std::move(out));
}

Value fSelect(Renderer &r, V v, L a, K k) { return selectOrReject(r, v, a, k, true, false); }
Value fReject(Renderer &r, V v, L a, K k) { return selectOrReject(r, v, a, k, false, false); }
Value fSelectattr(Renderer &r, V v, L a, K k) { return selectOrReject(r, v, a, k, true, true); }
Value fRejectattr(Renderer &r, V v, L a, K k) { return selectOrReject(r, v, a, k, false, true); }

Value fReplace(Renderer &r, V v, L a, K k) {
  Args args("do_replace", a, k, {"old", "new", "count"});
  if (!args.get(0) || !args.get(1))
    raise("TypeError", "do_replace() missing required arguments 'old' and 'new'");
  const Value *count = args.get(2);
  const int64_t n = count && !count->isNone() ? args.integer(2, -1) : -1;
  const std::string s = pyStr(v);
  r.charge(s.size() / 64);
  return Value::string(
      pyReplace(s, pyStr(*args.get(0)), pyStr(*args.get(1)), n, r.limits().maxStringBytes));
}

Value fReverse(Renderer &r, V v, L a, K k) {
  Args args("do_reverse", a, k, {});
  if (v.isString()) {
    std::u32string s = decodeUtf8(v.s());
    std::reverse(s.begin(), s.end());
    return Value::string(encodeUtf8(s));
  }
  if (!(v.isUndefined() || v.isList() || v.isDict()))
    raise("FilterArgumentError", "argument must be iterable");
  ValueList items = r.iterate(v);
  std::reverse(items.begin(), items.end());
  if (v.isList() && v.list().flavor == ListFlavor::Generator)
    return Value::list(std::move(items)); // list(value); rv.reverse()
  return generator(std::move(items));     // reversed(value)
}

/// Python round(x, ndigits) for floats: correctly rounded through the decimal form.
double roundFloat(double x, int64_t ndigits) {
  if (!std::isfinite(x) || ndigits > 323)
    return x;
  if (ndigits < -308)
    return 0.0 * x;
  if (ndigits >= 0) {
    char buf[512];
    std::snprintf(buf, sizeof(buf), "%.*f", int(ndigits), x);
    return std::strtod(buf, nullptr);
  }
  const double pow10 = std::pow(10.0, double(-ndigits));
  const double y = x / pow10;
  return std::nearbyint(y) * pow10;
}

Value fRound(Renderer &, V v, L a, K k) {
  Args args("do_round", a, k, {"precision", "method"});
  const int64_t precision = args.integer(0, 0);
  const std::string method = args.string(1).value_or("common");
  if (method != "common" && method != "ceil" && method != "floor")
    raise("FilterArgumentError", "method must be common, ceil or floor");
  if (!v.isNumber())
    raise("TypeError", "type ", typeName(v), " doesn't define __round__ method");
  if (method == "common") {
    if (v.kind() == Value::Kind::Float)
      return Value::number(roundFloat(v.f(), precision));
    if (precision >= 0)
      return Value::integer(v.i());
    if (precision < -18)
      return Value::integer(0);
    int64_t p = 1;
    for (int64_t n = 0; n < -precision; ++n)
      p *= 10;
    int64_t q = v.i() / p, rem = v.i() % p;
    if (rem < 0) {
      rem += p;
      --q;
    }
    if (2 * rem > p || (2 * rem == p && (q & 1)))
      ++q;
    return Value::integer(q * p);
  }
  const double factor = std::pow(10.0, double(precision));
  const double scaled = v.f() * factor;
  return Value::number((method == "ceil" ? std::ceil(scaled) : std::floor(scaled)) / factor);
}

Value fSafe(Renderer &, V v, L a, K k) {
  Args args("do_mark_safe", a, k, {});
  return Value::string(pyStr(v));
}

Value fSort(Renderer &r, V v, L a, K k) {
  Args args("do_sort", a, k, {"reverse", "case_sensitive", "attribute"});
  const bool reverse = args.flag(0, false), caseSensitive = args.flag(1, false);
  ValueList items = r.iterate(v);
  std::vector<std::pair<Value, size_t>> keyed;
  for (size_t n = 0; n < items.size(); ++n) {
    Value kv = args.get(2) ? attributeOf(r, items[n], *args.get(2)) : items[n];
    keyed.emplace_back(caseSensitive ? kv : ignoreCase(kv), n);
  }
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto &x, const auto &y) {
    return reverse ? keyLess(y.first, x.first) : keyLess(x.first, y.first);
  });
  ValueList out;
  for (const auto &[key, n] : keyed)
    out.push_back(items[n]);
  return Value::list(std::move(out));
}

Value fString(Renderer &, V v, L a, K k) {
  Args args("do_string", a, k, {});
  return v.isString() ? v : Value::string(pyStr(v));
}

Value fSum(Renderer &r, V v, L a, K k) {
  Args args("do_sum", a, k, {"attribute", "start"});
  Value total = args.value(1, Value::integer(0));
  for (const Value &item : r.iterate(v)) {
    const Value x = args.get(0) ? attributeOf(r, item, *args.get(0)) : item;
    if (x.isUndefined())
      x.failUndefined();
    if (!total.isNumber() || !x.isNumber())
      raise("TypeError", "unsupported operand type(s) for +: '", typeName(total), "' and '",
            typeName(x), "'");
    int64_t s = 0;
    if (total.isIntegral() && x.isIntegral()) {
      if (__builtin_add_overflow(total.i(), x.i(), &s))
        raise("OverflowError", "integer overflow in sum");
      total = Value::integer(s);
    } else {
      total = Value::number(total.f() + x.f());
    }
  }
  return total;
}

Value fTitle(Renderer &, V v, L a, K k) {
  Args args("do_title", a, k, {});
  return Value::string(jinjaTitle(pyStr(v)));
}

bool isPlainSeparatorPair(const Value &v) {
  return v.isList() &&
         (v.list().flavor == ListFlavor::List || v.list().flavor == ListFlavor::Tuple) &&
         v.list().items.size() == 2 && v.list().items[0].isString() && v.list().items[1].isString();
}

Value fTojson(Renderer &r, V v, L a, K k) {
  Args args("tojson", a, k, {"ensure_ascii", "indent", "separators", "sort_keys"});
  JsonOptions o;
  o.maxBytes = r.limits().maxStringBytes;
  o.ensureAscii = args.flag(0, false);
  o.sortKeys = args.flag(3, false);
  if (const Value *indent = args.get(1); indent && !indent->isNone()) {
    if (indent->isString())
      o.indent = indent->s();
    else if (indent->isIntegral())
      o.indent = std::string(size_t(std::clamp<int64_t>(indent->i(), 0, 1 << 16)), ' ');
    else
      raise("TypeError", "tojson(): indent must be an int or a str");
    o.itemSeparator = ",";
  }
  if (const Value *sep = args.get(2); sep && !sep->isNone()) {
    if (!isPlainSeparatorPair(*sep))
      raise("TypeError", "tojson(): separators must be a pair of strings");
    o.itemSeparator = sep->list().items[0].s();
    o.keySeparator = sep->list().items[1].s();
  }
  std::string out = toJson(v, o);
  r.checkSize(out.size());
  r.charge(out.size() / 64);
  return Value::string(std::move(out));
}

Value fTrim(Renderer &, V v, L a, K k) {
  Args args("do_trim", a, k, {"chars"});
  return Value::string(pyStrip(pyStr(v), args.string(0), true, true));
}

Value fUnique(Renderer &r, V v, L a, K k) {
  Args args("do_unique", a, k, {"case_sensitive", "attribute"});
  const bool caseSensitive = args.flag(0, false);
  std::vector<std::string> seen;
  std::unordered_map<std::string, bool> seenSet;
  ValueList out;
  for (const Value &item : r.iterate(v)) {
    Value key = args.get(1) ? attributeOf(r, item, *args.get(1)) : item;
    if (!caseSensitive)
      key = ignoreCase(key);
    if (seenSet.emplace(hashKey(key), true).second)
      out.push_back(item);
  }
  return generator(std::move(out));
}

Value fWordcount(Renderer &, V v, L a, K k) {
  Args args("do_wordcount", a, k, {});
  return Value::integer(wordCount(pyStr(v)));
}

const FilterDef kFilters[] = {
    {"abs", fAbs},
    {"attr", fAttr},
    {"batch", fBatch},
    {"capitalize", fCapitalize},
    {"center", fCenter},
    {"count", fLength},
    {"d", fDefault},
    {"default", fDefault},
    {"dictsort", fDictsort},
    {"e", fEscape},
    {"escape", fEscape},
    {"first", fFirst},
    {"float", fFloat},
    {"format", fFormat},
    {"indent", fIndent},
    {"int", fInt},
    {"items", fItems},
    {"join", fJoin},
    {"last", fLast},
    {"length", fLength},
    {"list", fList},
    {"lower", fLower},
    {"map", fMap},
    {"max", fMax},
    {"min", fMin},
    {"reject", fReject},
    {"rejectattr", fRejectattr},
    {"replace", fReplace},
    {"reverse", fReverse},
    {"round", fRound},
    {"safe", fSafe},
    {"select", fSelect},
    {"selectattr", fSelectattr},
    {"sort", fSort},
    {"string", fString},
    {"sum", fSum},
    {"title", fTitle},
    {"tojson", fTojson},
    {"trim", fTrim},
    {"unique", fUnique},
    {"upper", fUpper},
    {"wordcount", fWordcount},
};

const char *const kUnsupportedFilters[] = {"filesizeformat", "forceescape", "groupby",   "pprint",
                                           "random",         "slice",       "striptags", "truncate",
                                           "urlencode",      "urlize",      "wordwrap",  "xmlattr"};

} // namespace

const FilterDef *findFilter(std::string_view name, bool *known) {
  for (const FilterDef &f : kFilters)
    if (name == f.name)
      return &f;
  *known = false;
  for (const char *f : kUnsupportedFilters)
    if (name == f)
      *known = true;
  return nullptr;
}

} // namespace mm::rt::jinja
