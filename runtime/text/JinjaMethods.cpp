//===- JinjaMethods.cpp - globals, methods and % formatting ----------------===//
//
// What the template can call besides filters: the globals of jinja2's default namespace
// and of transformers (range, dict, namespace, raise_exception, strftime_now), the
// Python methods of str, dict, list and jinja2's loop object, and str % args. The
// sandbox's rules apply: methods that mutate a list or dict are "unsafe" (an Undefined
// that raises SecurityError when used), range() is capped at 100000 items.
//
//===----------------------------------------------------------------------===//
#include "runtime/text/Jinja.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace mm::rt::jinja {
namespace {

using L = const ValueList &;
using K = const KwArgs &;

constexpr int64_t kMaxRange = 100000; // jinja2.sandbox.MAX_RANGE

// ---- globals ----------------------------------------------------------------------------

Value gRange(Renderer &r, L a, K k) {
  if (!k.empty())
    raise("TypeError", "range() takes no keyword arguments");
  if (a.empty() || a.size() > 3)
    raise("TypeError", "range expected at most 3 arguments, got ", std::to_string(a.size()));
  for (const Value &v : a)
    if (!v.isIntegral())
      raise("TypeError", "'", typeName(v), "' object cannot be interpreted as an integer");
  const int64_t start = a.size() == 1 ? 0 : a[0].i();
  const int64_t stop = a.size() == 1 ? a[0].i() : a[1].i();
  const int64_t step = a.size() == 3 ? a[2].i() : 1;
  if (step == 0)
    raise("ValueError", "range() arg 3 must not be zero");
  const __int128 span = step > 0 ? __int128(stop) - start : __int128(start) - stop;
  const __int128 absStep = step > 0 ? step : -__int128(step);
  const __int128 count = span <= 0 ? 0 : (span + absStep - 1) / absStep;
  if (count > kMaxRange)
    raise("OverflowError", "Range too big. The sandbox blocks ranges larger than MAX_RANGE "
                           "(100000).");
  r.charge(uint64_t(count));
  ValueList items;
  for (int64_t n = 0; n < int64_t(count); ++n)
    items.push_back(Value::integer(start + n * step));
  Value v = Value::list(std::move(items), ListFlavor::Range);
  auto &l = const_cast<ListObj &>(v.list());
  l.rangeStart = start;
  l.rangeStop = stop;
  l.rangeStep = step;
  return v;
}

/// dict(mapping_or_pairs, **kwargs), as Python's dict() constructor.
std::shared_ptr<DictObj> buildDict(Renderer &r, const char *what, L a, K k) {
  if (a.size() > 1)
    raise("TypeError", what, " expected at most 1 argument, got ", std::to_string(a.size()));
  auto d = std::make_shared<DictObj>();
  if (a.size() == 1) {
    if (a[0].isDict()) {
      for (const auto &[key, value] : a[0].dict().entries)
        d->set(key, value);
    } else {
      for (const Value &pair : r.iterate(a[0])) {
        const ValueList kv = r.iterate(pair);
        if (kv.size() != 2)
          raise("ValueError", "dictionary update sequence element has length ",
                std::to_string(kv.size()), "; 2 is required");
        d->set(kv[0], kv[1]);
      }
    }
  }
  for (const auto &[key, value] : k)
    d->set(Value::string(key), value);
  return d;
}

Value gDict(Renderer &r, L a, K k) { return Value::dict(buildDict(r, "dict", a, k)); }

Value gNamespace(Renderer &r, L a, K k) {
  const std::shared_ptr<DictObj> attrs = buildDict(r, "Namespace", a, k);
  auto ns = std::make_shared<NamespaceObj>();
  for (auto &[key, value] : attrs->entries) {
    if (!key.isString())
      raise("TypeError", "namespace attribute names must be strings");
    if (holdsMutable(value, r))
      raise("TemplateRuntimeError",
            "storing a namespace, loop or macro inside a namespace is not supported");
    ns->attrs.set(key, value);
  }
  return Value::object(Value::Kind::Namespace, std::move(ns));
}

Value gRaiseException(Renderer &, L a, K k) {
  Args args("raise_exception", a, k, {"message"});
  raise("TemplateError", pyStr(args.value(0, Value::string(""))));
}

/// datetime.now().strftime(format) for a naive local time.
Value gStrftimeNow(Renderer &r, L a, K k) {
  Args args("strftime_now", a, k, {"format"});
  if (!args.get(0) || !args.get(0)->isString())
    raise("TypeError", "strftime() argument 1 must be str");
  const std::string &format = args.get(0)->s();
  // Python handles %f, %z and %Z itself (naive: empty zone); libc does the rest.
  std::string expanded;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%' || i + 1 >= format.size()) {
      expanded += format[i];
      continue;
    }
    const char c = format[++i];
    if (c == 'f') {
      char buf[16];
      std::snprintf(buf, sizeof(buf), "%06ld", r.microseconds());
      expanded += buf;
    } else if (c != 'z' && c != 'Z') {
      expanded += '%';
      expanded += c;
    }
  }
  std::string out;
  for (size_t size = 256; size <= (size_t(1) << 20); size *= 4) {
    std::vector<char> buf(size);
    const size_t n = std::strftime(buf.data(), size, ("\x01" + expanded).c_str(), &r.now());
    if (n > 0) {
      out.assign(buf.data() + 1, n - 1);
      return Value::string(std::move(out));
    }
  }
  raise("ValueError", "strftime format expands too far");
}

Value gUnsupported(Renderer &, L, K) {
  raise("TemplateRuntimeError", "the globals lipsum, cycler and joiner are not supported in "
                                "chat templates");
}

// ---- method tables ----------------------------------------------------------------------

const char *const kStrMethods[] = {
    "capitalize",   "casefold",    "center",    "count",      "encode",       "endswith",
    "expandtabs",   "find",        "format",    "format_map", "index",        "isalnum",
    "isalpha",      "isascii",     "isdecimal", "isdigit",    "isidentifier", "islower",
    "isnumeric",    "isprintable", "isspace",   "istitle",    "isupper",      "join",
    "ljust",        "lower",       "lstrip",    "maketrans",  "partition",    "removeprefix",
    "removesuffix", "replace",     "rfind",     "rindex",     "rjust",        "rpartition",
    "rsplit",       "rstrip",      "split",     "splitlines", "startswith",   "strip",
    "swapcase",     "title",       "translate", "upper",      "zfill"};
const char *const kDictMethods[] = {"copy", "fromkeys", "get", "items", "keys", "values"};
const char *const kDictUnsafe[] = {"clear", "pop", "popitem", "setdefault", "update"};
const char *const kListMethods[] = {"copy", "count", "index"};
const char *const kListUnsafe[] = {"append", "clear",  "extend",  "insert",
                                   "pop",    "remove", "reverse", "sort"};

template <size_t N> bool oneOf(const std::string &name, const char *const (&names)[N]) {
  return std::any_of(std::begin(names), std::end(names), [&](const char *n) { return name == n; });
}

Value method(const Value &receiver, const std::string &name) {
  auto obj = std::make_shared<CallableObj>();
  obj->type = CallableObj::Type::Method;
  obj->name = name;
  obj->receiver = receiver;
  return Value::object(Value::Kind::Callable, std::move(obj));
}

Value unsafe(const std::string &name, const char *type) {
  return Value::undefined(
      "access to attribute " + pyReprString(name) + " of '" + type + "' object is unsafe.", true);
}

std::optional<Value> loopAttribute(const Value &loop, const std::string &name) {
  LoopObj &l = loop.loop();
  const size_t index0 = l.index0;
  if (name == "index")
    return Value::integer(int64_t(index0) + 1);
  if (name == "index0")
    return Value::integer(int64_t(index0));
  if (name == "revindex")
    return Value::integer(int64_t(l.length() - index0));
  if (name == "revindex0")
    return Value::integer(int64_t(l.length() - index0) - 1);
  if (name == "first")
    return Value::boolean(index0 == 0);
  if (name == "last")
    return Value::boolean(!l.fetch(index0 + 1));
  if (name == "length")
    return Value::integer(int64_t(l.length()));
  if (name == "depth")
    return Value::integer(l.depth);
  if (name == "depth0")
    return Value::integer(l.depth - 1);
  if (name == "previtem")
    return index0 > 0 ? l.items[index0 - 1] : Value::undefined("there is no previous item");
  if (name == "nextitem")
    return l.fetch(index0 + 1) ? l.items[index0 + 1] : Value::undefined("there is no next item");
  if (name == "cycle" || name == "changed")
    return method(loop, name);
  return std::nullopt;
}

// ---- str methods ------------------------------------------------------------------------

const std::string &strArg(const Args &args, size_t index, const char *what) {
  const Value *v = args.get(index);
  if (!v)
    raise("TypeError", args.function(), "() missing required argument ", what);
  if (!v->isString())
    raise("TypeError", "must be str, not ", typeName(*v));
  return v->s();
}

/// s[start:end] by code points with Python's clamping (for find/startswith ranges).
std::string subrange(const std::string &s, const Args &args, size_t first, int64_t *offset) {
  const std::u32string cps = decodeUtf8(s);
  const auto n = int64_t(cps.size());
  auto bound = [&](size_t i, int64_t fallback) {
    const Value *v = args.get(i);
    if (!v || v->isNone())
      return fallback;
    int64_t x = args.integer(i, fallback);
    if (x < 0)
      x = std::max<int64_t>(x + n, 0);
    return std::min(x, n);
  };
  const int64_t start = bound(first, 0), end = bound(first + 1, n);
  *offset = start;
  if (start >= end)
    return start > n ? std::string("\x01") : std::string();
  return encodeUtf8(std::u32string_view(cps).substr(size_t(start), size_t(end - start)));
}

Value affixTest(const std::string &s, const Args &args, bool prefix) {
  int64_t offset = 0;
  const std::string part = subrange(s, args, 1, &offset);
  const Value *arg = args.get(0);
  if (!arg)
    raise("TypeError", args.function(), "() takes at least 1 argument (0 given)");
  std::vector<std::string> affixes;
  if (arg->isString()) {
    affixes.push_back(arg->s());
  } else if (arg->isList() && arg->list().flavor == ListFlavor::Tuple) {
    for (const Value &v : arg->list().items) {
      if (!v.isString())
        raise("TypeError", "tuple for ", args.function(), " must only contain str, not ",
              typeName(v));
      affixes.push_back(v.s());
    }
  } else {
    raise("TypeError", args.function(), " first arg must be str or a tuple of str, not ",
          typeName(*arg));
  }
  if (part == "\x01")
    return Value::boolean(false);
  for (const std::string &a : affixes) {
    const bool hit = a.size() <= part.size() &&
                     (prefix ? part.compare(0, a.size(), a) == 0
                             : part.compare(part.size() - a.size(), a.size(), a) == 0);
    if (hit)
      return Value::boolean(true);
  }
  return Value::boolean(false);
}

template <typename Pred> Value allChars(const std::string &s, Pred pred) {
  const std::u32string cps = decodeUtf8(s);
  return Value::boolean(!cps.empty() && std::all_of(cps.begin(), cps.end(), pred));
}

Value strList(const std::vector<std::string> &parts, ListFlavor flavor = ListFlavor::List) {
  ValueList out;
  for (const std::string &p : parts)
    out.push_back(Value::string(p));
  return Value::list(std::move(out), flavor);
}

Value findMethod(const std::string &s, const Args &args, bool fromRight, bool raises) {
  int64_t offset = 0;
  const std::string &sub = strArg(args, 0, "sub");
  const std::string part = subrange(s, args, 1, &offset);
  int64_t at = part == "\x01" ? -1 : pyFind(part, sub, fromRight);
  if (at >= 0)
    at += offset;
  if (at < 0 && raises)
    raise("ValueError", "substring not found");
  return Value::integer(at);
}

Value padMethod(Renderer &r, const std::string &s, const Args &args, const std::string &how) {
  const int64_t width = args.integer(0, 0);
  char32_t fill = ' ';
  if (const auto f = args.string(1)) {
    const std::u32string cps = decodeUtf8(*f);
    if (cps.size() != 1)
      raise("TypeError", "The fill character must be exactly one character long");
    fill = cps[0];
  }
  const char align = how == "rjust" ? 'r' : how == "ljust" ? 'l' : 'c';
  return Value::string(padString(r, s, width, fill, align));
}

Value partitionMethod(const std::string &s, const Args &args, bool fromRight) {
  const std::string &sep = strArg(args, 0, "sep");
  if (sep.empty())
    raise("ValueError", "empty separator");
  const size_t at = fromRight ? s.rfind(sep) : s.find(sep);
  if (at == std::string::npos)
    return strList(fromRight ? std::vector<std::string>{"", "", s}
                             : std::vector<std::string>{s, "", ""},
                   ListFlavor::Tuple);
  return strList({s.substr(0, at), sep, s.substr(at + sep.size())}, ListFlavor::Tuple);
}

/// A str method: receiver, the method's name (for argument errors), arguments.
using StrMethodFn = Value (*)(Renderer &, const std::string &, const char *, L, K);

Value mStrip(Renderer &, const std::string &s, const char *name, L a, K k) {
  Args args(name, a, k, {"chars"});
  const std::string n = name;
  return Value::string(pyStrip(s, args.string(0), n != "rstrip", n != "lstrip"));
}

Value mAffix(Renderer &, const std::string &s, const char *name, L a, K k) {
  Args args(name, a, k, {"prefix", "start", "end"});
  return affixTest(s, args, std::string(name) == "startswith");
}

Value mSplit(Renderer &, const std::string &s, const char *name, L a, K k) {
  Args args(name, a, k, {"sep", "maxsplit"});
  return strList(pySplit(s, args.string(0), args.integer(1, -1), std::string(name) == "rsplit"));
}

Value mSplitLines(Renderer &, const std::string &s, const char *name, L a, K k) {
  Args args(name, a, k, {"keepends"});
  return strList(pySplitLines(s, args.flag(0, false)));
}

Value mCase(Renderer &, const std::string &s, const char *name, L a, K k) {
  Args args(name, a, k, {});
  const std::string n = name;
  if (n == "upper")
    return Value::string(pyUpper(s));
  if (n == "title")
    return Value::string(pyTitle(s));
  if (n == "capitalize")
    return Value::string(pyCapitalize(s));
  if (n == "swapcase")
    return Value::string(pySwapcase(s));
  return Value::string(pyLower(s)); // lower, casefold
}

Value mReplace(Renderer &r, const std::string &s, const char *name, L a, K k) {
  Args args(name, a, k, {"old", "new", "count"});
  return Value::string(pyReplace(s, strArg(args, 0, "old"), strArg(args, 1, "new"),
                                 args.integer(2, -1), r.limits().maxStringBytes));
}

Value mFind(Renderer &, const std::string &s, const char *name, L a, K k) {
  Args args(name, a, k, {"sub", "start", "end"});
  const std::string n = name;
  return findMethod(s, args, n[0] == 'r', n.find("index") != std::string::npos);
}

Value mCount(Renderer &, const std::string &s, const char *name, L a, K k) {
  Args args(name, a, k, {"sub"});
  return Value::integer(pyCount(s, strArg(args, 0, "sub")));
}

Value mJoin(Renderer &r, const std::string &s, const char *name, L a, K k) {
  Args args(name, a, k, {"iterable"});
  std::string out;
  size_t n = 0;
  for (const Value &item : r.iterate(args.value(0, Value()))) {
    if (!item.isString())
      raise("TypeError", "sequence item ", std::to_string(n), ": expected str instance, ",
            typeName(item), " found");
    if (n++)
      out += s;
    out += item.s();
    r.checkSize(out.size());
  }
  return Value::string(std::move(out));
}

Value mPredicate(Renderer &, const std::string &s, const char *name, L a, K k) {
  Args args(name, a, k, {});
  const std::string n = name;
  if (n == "isascii")
    return Value::boolean(
        std::all_of(s.begin(), s.end(), [](char c) { return (unsigned char)c < 0x80; }));
  if (n == "isupper")
    return Value::boolean(pyIsUpper(s));
  if (n == "islower")
    return Value::boolean(pyIsLower(s));
  if (n == "isspace")
    return allChars(s, isPySpace);
  if (n == "isalnum")
    return allChars(s, isPyAlnum);
  if (n == "isalpha")
    return allChars(s, isPyAlpha);
  if (n == "isnumeric")
    return allChars(s, isPyNumeric);
  return allChars(s, isPyDecimal); // isdigit, isdecimal
}

Value mZfill(Renderer &r, const std::string &s, const char *name, L a, K k) {
  Args args(name, a, k, {"width"});
  const int64_t width = args.integer(0, 0);
  const auto n = int64_t(codePointCount(s));
  if (width <= n)
    return Value::string(s);
  r.checkSize(s.size() + size_t(std::min<int64_t>(width - n, int64_t(1) << 62)));
  const size_t sign = !s.empty() && (s[0] == '+' || s[0] == '-') ? 1 : 0;
  return Value::string(s.substr(0, sign) + std::string(size_t(width - n), '0') + s.substr(sign));
}

Value mPad(Renderer &r, const std::string &s, const char *name, L a, K k) {
  Args args(name, a, k, {"width", "fillchar"});
  return padMethod(r, s, args, name);
}

Value mPartition(Renderer &, const std::string &s, const char *name, L a, K k) {
  Args args(name, a, k, {"sep"});
  return partitionMethod(s, args, std::string(name) == "rpartition");
}

Value mRemoveAffix(Renderer &, const std::string &s, const char *name, L a, K k) {
  Args args(name, a, k, {"affix"});
  const std::string &affix = strArg(args, 0, "affix");
  const bool prefix = std::string(name) == "removeprefix";
  if (prefix && s.compare(0, affix.size(), affix) == 0)
    return Value::string(s.substr(affix.size()));
  if (!prefix && !affix.empty() && affix.size() <= s.size() &&
      s.compare(s.size() - affix.size(), affix.size(), affix) == 0)
    return Value::string(s.substr(0, s.size() - affix.size()));
  return Value::string(s);
}

/// The str methods; Python's others (format, encode, translate, ...) are known but raise.
const std::pair<const char *, StrMethodFn> kStrMethodImpls[] = {
    {"strip", mStrip},
    {"lstrip", mStrip},
    {"rstrip", mStrip},
    {"startswith", mAffix},
    {"endswith", mAffix},
    {"split", mSplit},
    {"rsplit", mSplit},
    {"splitlines", mSplitLines},
    {"upper", mCase},
    {"lower", mCase},
    {"title", mCase},
    {"capitalize", mCase},
    {"swapcase", mCase},
    {"casefold", mCase},
    {"replace", mReplace},
    {"find", mFind},
    {"rfind", mFind},
    {"index", mFind},
    {"rindex", mFind},
    {"count", mCount},
    {"join", mJoin},
    {"isascii", mPredicate},
    {"isupper", mPredicate},
    {"islower", mPredicate},
    {"isspace", mPredicate},
    {"isalnum", mPredicate},
    {"isalpha", mPredicate},
    {"isnumeric", mPredicate},
    {"isdigit", mPredicate},
    {"isdecimal", mPredicate},
    {"zfill", mZfill},
    {"center", mPad},
    {"ljust", mPad},
    {"rjust", mPad},
    {"partition", mPartition},
    {"rpartition", mPartition},
    {"removeprefix", mRemoveAffix},
    {"removesuffix", mRemoveAffix},
};

Value strMethod(Renderer &r, const std::string &s, const std::string &name, L a, K k) {
  for (const auto &[method, fn] : kStrMethodImpls)
    if (name == method)
      return fn(r, s, method, a, k);
  raise("TemplateRuntimeError", "str.", name, "() is not supported in chat templates");
}

// ---- dict, list and loop methods --------------------------------------------------------

Value dictMethod(const Value &d, const std::string &name, L a, K k) {
  if (name == "get") {
    Args args("get", a, k, {"key", "default"});
    if (!args.get(0))
      raise("TypeError", "get expected at least 1 argument, got 0");
    const Value *v = d.dict().find(*args.get(0));
    return v ? *v : args.value(1, Value::none());
  }
  Args args(name.c_str(), a, k, {});
  if (name == "copy") {
    auto copy = std::make_shared<DictObj>(d.dict());
    return Value::dict(std::move(copy));
  }
  ValueList out;
  for (const auto &[key, value] : d.dict().entries) {
    if (name == "keys")
      out.push_back(key);
    else if (name == "values")
      out.push_back(value);
    else if (name == "items")
      out.push_back(Value::list({key, value}, ListFlavor::Tuple));
    else
      raise("TemplateRuntimeError", "dict.", name, "() is not supported in chat templates");
  }
  return Value::list(std::move(out), name == "keys"     ? ListFlavor::DictKeys
                                     : name == "values" ? ListFlavor::DictValues
                                                        : ListFlavor::DictItems);
}

Value listMethod(const Value &l, const std::string &name, L a, K k) {
  if (name == "copy") {
    Args args("copy", a, k, {});
    return Value::list(l.list().items);
  }
  Args args(name.c_str(), a, k, {"value"});
  if (!args.get(0))
    raise("TypeError", name, "() takes exactly one argument (0 given)");
  int64_t count = 0;
  const ValueList &items = l.list().items;
  for (size_t n = 0; n < items.size(); ++n) {
    if (!pyEqual(items[n], *args.get(0)))
      continue;
    if (name == "index")
      return Value::integer(int64_t(n));
    ++count;
  }
  if (name == "index")
    raise("ValueError", pyRepr(*args.get(0)), " is not in list");
  return Value::integer(count);
}

Value loopMethod(const Value &loop, const std::string &name, L a, K k) {
  if (!k.empty())
    raise("TypeError", "loop.", name, "() takes no keyword arguments");
  LoopObj &l = loop.loop();
  if (name == "cycle") {
    if (a.empty())
      raise("TypeError", "no items for cycling given");
    return a[l.index0 % a.size()];
  }
  const Value args = Value::list(a, ListFlavor::Tuple);
  if (l.seenChanged && pyEqual(l.lastChanged, args))
    return Value::boolean(false);
  l.seenChanged = true;
  l.lastChanged = args;
  return Value::boolean(true);
}

} // namespace

std::string padString(Renderer &r, const std::string &s, int64_t width, char32_t fill, char align) {
  const auto n = int64_t(codePointCount(s));
  if (width <= n)
    return s;
  std::string pad;
  appendUtf8(pad, fill);
  const int64_t marg = width - n;
  // The result's size is checked before anything is built (width is the template's).
  const uint64_t padBytes = uint64_t(marg) > (uint64_t(1) << 60) / pad.size()
                                ? uint64_t(1) << 60
                                : uint64_t(marg) * pad.size();
  r.checkSize(size_t(padBytes) + s.size());
  r.charge(padBytes / 64);
  const int64_t left = align == 'r' ? marg : align == 'l' ? 0 : marg / 2 + (marg & width & 1);
  std::string out;
  out.reserve(size_t(padBytes) + s.size());
  for (int64_t k = 0; k < left; ++k)
    out += pad;
  out += s;
  for (int64_t k = 0; k < marg - left; ++k)
    out += pad;
  return out;
}

GlobalFn findGlobal(std::string_view name) {
  if (name == "range")
    return gRange;
  if (name == "dict")
    return gDict;
  if (name == "namespace")
    return gNamespace;
  if (name == "raise_exception")
    return gRaiseException;
  if (name == "strftime_now")
    return gStrftimeNow;
  if (name == "lipsum" || name == "cycler" || name == "joiner")
    return gUnsupported;
  return nullptr;
}

std::optional<Value> builtinAttribute(const Value &obj, const std::string &name) {
  switch (obj.kind()) {
  case Value::Kind::String:
    if (oneOf(name, kStrMethods))
      return method(obj, name);
    return std::nullopt;
  case Value::Kind::Dict:
    if (oneOf(name, kDictMethods))
      return method(obj, name);
    if (oneOf(name, kDictUnsafe))
      return unsafe(name, "dict");
    return std::nullopt;
  case Value::Kind::List: {
    const ListFlavor f = obj.list().flavor;
    if (f == ListFlavor::List && oneOf(name, kListUnsafe))
      return unsafe(name, "list");
    if ((f == ListFlavor::List && oneOf(name, kListMethods)) ||
        ((f == ListFlavor::Tuple || f == ListFlavor::Range) &&
         (name == "count" || name == "index")))
      return method(obj, name);
    return std::nullopt;
  }
  case Value::Kind::Loop:
    return loopAttribute(obj, name);
  default:
    return std::nullopt;
  }
}

Value callMethod(Renderer &r, const CallableObj &m, const ValueList &args, const KwArgs &kwargs) {
  switch (m.receiver.kind()) {
  case Value::Kind::String:
    return strMethod(r, m.receiver.s(), m.name, args, kwargs);
  case Value::Kind::Dict:
    return dictMethod(m.receiver, m.name, args, kwargs);
  case Value::Kind::List:
    return listMethod(m.receiver, m.name, args, kwargs);
  case Value::Kind::Loop:
    return loopMethod(m.receiver, m.name, args, kwargs);
  default:
    raise("TypeError", "'", typeName(m.receiver), "' object has no method ", m.name);
  }
}

} // namespace mm::rt::jinja
