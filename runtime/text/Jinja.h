//===- Jinja.h - the Jinja subset behind ChatTemplate (private) ------------===//
//
// Internal interfaces of the chat-template renderer (ChatTemplate.h is the public one):
// Python-like values, the token stream, the syntax tree, and the lexer / parser / renderer
// entry points. Everything follows jinja2 3.1 as configured by transformers'
// _compile_jinja_template (ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks,
// loopcontrols, the generation tag); "Python" below means CPython 3 semantics.
//
// Errors: jinja::Failure carries a Python-style exception name ("TypeError") and message;
// ChatTemplate turns it into mm::rt::ChatTemplateError with the template name and line.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_TEXT_JINJA_H
#define MM_RUNTIME_TEXT_JINJA_H

#include <cstdint>
#include <ctime>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mm::rt::jinja {

// ---- failures ---------------------------------------------------------------------------

/// A render or parse failure. `type` is the Python exception jinja2 would raise
/// ("TypeError", "UndefinedError", "TemplateSyntaxError", ...; "TemplateError" for
/// raise_exception, whose message is the template's own text).
struct Failure {
  std::string type;
  std::string message;
  int line = 0;   ///< 1-based; 0: not known where
  int column = 0; ///< 1-based, in code points; 0: not known
};

template <typename... Parts> [[noreturn]] void raise(const char *type, const Parts &...parts) {
  std::string message;
  (message.append(parts), ...);
  throw Failure{type, std::move(message)};
}

// ---- values -----------------------------------------------------------------------------

struct Object {
  virtual ~Object() = default;
};
struct ListObj;
struct DictObj;
struct NamespaceObj;
struct CallableObj;
struct LoopObj;

/// What a Python sequence value is; all are stored as ListObj. Tuples print as (..),
/// dict views as dict_keys([..]), generators (map/select/... results, as in jinja2) are
/// always true, have no len() and cannot be indexed.
enum class ListFlavor : uint8_t { List, Tuple, Generator, DictKeys, DictValues, DictItems, Range };

class Value {
public:
  enum class Kind : uint8_t {
    Undefined,
    None,
    Bool,
    Int,
    Float,
    String,
    List,
    Dict,
    Namespace,
    Callable,
    Loop
  };

  Value() = default; ///< an Undefined with no name
  /// An Undefined; using it (other than printing, testing, iterating) raises
  /// UndefinedError with `message`, or SecurityError when `unsafe` (an attribute the
  /// sandbox refuses, such as list.append).
  static Value undefined(std::string message, bool unsafe = false);
  static Value none();
  static Value boolean(bool b);
  static Value integer(int64_t i);
  static Value number(double f);
  static Value string(std::string s);
  static Value list(std::vector<Value> items, ListFlavor flavor = ListFlavor::List);
  static Value dict(std::shared_ptr<DictObj> d);
  static Value object(Kind kind, std::shared_ptr<Object> o);

  Kind kind() const { return kind_; }
  bool isUndefined() const { return kind_ == Kind::Undefined; }
  bool isNone() const { return kind_ == Kind::None; }
  bool isString() const { return kind_ == Kind::String; }
  bool isList() const { return kind_ == Kind::List; }
  bool isDict() const { return kind_ == Kind::Dict; }
  /// bool, int or float (Python's numbers.Number).
  bool isNumber() const {
    return kind_ == Kind::Bool || kind_ == Kind::Int || kind_ == Kind::Float;
  }
  /// bool or int (Python's int, which bool subclasses).
  bool isIntegral() const { return kind_ == Kind::Bool || kind_ == Kind::Int; }

  bool b() const { return kind_ == Kind::Bool && scalar_.b; }
  int64_t i() const { return kind_ == Kind::Bool ? int64_t(scalar_.b) : scalar_.i; }
  double f() const { return kind_ == Kind::Float ? scalar_.f : double(i()); }
  const std::string &s() const;
  const ListObj &list() const;
  const DictObj &dict() const;
  NamespaceObj &ns() const;
  const CallableObj &callable() const;
  LoopObj &loop() const;
  /// jinja2's UndefinedError text for this undefined ("'x' is undefined", ...).
  std::string undefinedMessage() const;
  /// Raises the error using this Undefined raises.
  [[noreturn]] void failUndefined() const;
  /// Same object (Python `is` for containers, callables and namespaces).
  const Object *identity() const { return obj_.get(); }

private:
  Kind kind_ = Kind::Undefined;
  union Scalar {
    bool b;
    int64_t i;
    double f;
  } scalar_{};
  std::shared_ptr<Object> obj_;
};

using ValueList = std::vector<Value>;

struct StringObj : Object {
  std::string text;
};
struct UndefinedObj : Object {
  std::string message;
  bool unsafe = false;
};

/// Values nest at most this deep (JSON input, literals, namespaces): keeps every
/// recursive walk (repr, tojson, ==, destruction) far from the stack limit.
constexpr int kMaxValueDepth = 200;

struct ListObj : Object {
  ValueList items;
  ListFlavor flavor = ListFlavor::List;
  int depth = 1;
  int64_t rangeStart = 0, rangeStop = 0, rangeStep = 1; ///< Range only, for repr
};

/// An insertion-ordered dict keyed by Python hashables (str, int, float, bool, None);
/// 1, 1.0 and True are the same key, as in Python.
struct DictObj : Object {
  std::vector<std::pair<Value, Value>> entries;
  std::unordered_map<std::string, size_t> index;
  int depth = 1;

  const Value *find(const Value &key) const;
  void set(Value key, Value value);
  size_t size() const { return entries.size(); }
};

/// jinja2's namespace(): the one mutable value (`{% set ns.attr = ... %}`).
struct NamespaceObj : Object {
  DictObj attrs;
};

struct MacroDef;
class Renderer;
using GlobalFn = Value (*)(Renderer &, const ValueList &,
                           const std::vector<std::pair<std::string, Value>> &);

struct CallableObj : Object {
  enum class Type : uint8_t { Macro, Global, Method } type = Type::Global;
  std::string name; ///< global or method name
  const MacroDef *macro = nullptr;
  const void *scope = nullptr; ///< Macro: the renderer frame it closes over
  GlobalFn fn = nullptr;
  Value receiver; ///< Method: the object (str, dict, list, loop)
};

/// jinja2's LoopContext. The items come lazily from `source` through `accept` (the
/// loop's `if` filter), because jinja2 evaluates the filter only when the loop, or
/// loop.length / loop.last / loop.nextitem, asks for the next item.
struct LoopObj : Object {
  std::shared_ptr<const ValueList> source;
  std::function<bool(const Value &)> accept; ///< null: every item
  size_t nextSource = 0;
  ValueList items; ///< accepted so far
  size_t index0 = 0;
  int depth = 1;
  bool seenChanged = false;
  Value lastChanged;

  /// Whether item `n` exists, pulling items through the filter as needed.
  bool fetch(size_t n);
  size_t length();
};

/// Depth of a value for kMaxValueDepth (1 for scalars).
int valueDepth(const Value &v);
/// Whether `v` holds a namespace, loop or macro anywhere: such values cannot be stored in
/// a namespace (a reference cycle, or a macro outliving the frame it refers to).
bool holdsMutable(const Value &v, Renderer &r);

// ---- Python semantics (JinjaValue.cpp) --------------------------------------------------

std::string typeName(const Value &v);         ///< Python type(v).__name__
std::string pyStr(const Value &v);            ///< str(v)
std::string pyRepr(const Value &v);           ///< repr(v)
std::string pyReprString(std::string_view s); ///< repr() of a str
std::string pyFloatRepr(double f);            ///< repr() of a float
bool truthy(const Value &v);
bool pyEqual(const Value &a, const Value &b);
/// a op b for op in <, <=, >, >=; raises TypeError for unorderable types.
bool pyCompare(const Value &a, const Value &b, std::string_view op);
/// Dict key of a hashable value; raises TypeError("unhashable type: 'list'").
std::string hashKey(const Value &v);

struct JsonOptions {
  bool ensureAscii = false;
  std::optional<std::string> indent;
  std::string itemSeparator = ", ", keySeparator = ": ";
  bool sortKeys = false;
  size_t maxBytes = size_t(64) << 20; ///< raises RenderLimitError beyond this
};
/// json.dumps(v, ...) with transformers' defaults (ensure_ascii=False).
std::string toJson(const Value &v, const JsonOptions &options);

// ---- strings (JinjaString.cpp); all text is valid UTF-8 --------------------------------

/// Byte offset of the first invalid UTF-8 sequence, or npos.
size_t findInvalidUtf8(std::string_view s);
std::u32string decodeUtf8(std::string_view s);
void appendUtf8(std::string &out, char32_t cp);
std::string encodeUtf8(std::u32string_view s);
size_t codePointCount(std::string_view s);
bool isPySpace(char32_t cp); ///< str.isspace()
bool isPyAlnum(char32_t cp); ///< str.isalnum()
bool isPyCased(char32_t cp);
bool isPyAlpha(char32_t cp);        ///< str.isalpha() for one char
bool isPyDecimal(char32_t cp);      ///< str.isdecimal() (and isdigit)
bool isPyNumeric(char32_t cp);      ///< str.isnumeric()
bool pyIsUpper(std::string_view s); ///< str.isupper()
bool pyIsLower(std::string_view s); ///< str.islower()
bool isPyPrintable(char32_t cp);
std::string pyUpper(std::string_view s);
std::string pyLower(std::string_view s);
std::string pyTitle(std::string_view s);      ///< str.title()
std::string pyCapitalize(std::string_view s); ///< str.capitalize()
std::string pySwapcase(std::string_view s);
/// str.strip/lstrip/rstrip; `chars` unset: whitespace.
std::string pyStrip(std::string_view s, const std::optional<std::string> &chars, bool left,
                    bool right);
/// str.split / str.rsplit; `sep` unset: runs of whitespace.
std::vector<std::string> pySplit(std::string_view s, const std::optional<std::string> &sep,
                                 int64_t maxSplit, bool fromRight);
std::vector<std::string> pySplitLines(std::string_view s, bool keepEnds);
/// str.replace(old, new, count) with Python's rule for an empty `old`.
std::string pyReplace(std::string_view s, std::string_view old, std::string_view rep, int64_t count,
                      size_t maxBytes);
/// Code-point index of `sub` in `s` (str.find / rfind), or -1.
int64_t pyFind(std::string_view s, std::string_view sub, bool fromRight);
int64_t pyCount(std::string_view s, std::string_view sub);
/// jinja2's title filter (words split at whitespace, -, (, {, [, <).
std::string jinjaTitle(std::string_view s);
/// len(re.findall(r"\w+", s)).
int64_t wordCount(std::string_view s);

// ---- tokens (JinjaLexer.cpp) ------------------------------------------------------------

enum class Tok : uint8_t {
  Data,
  VariableBegin,
  VariableEnd,
  BlockBegin,
  BlockEnd,
  Name,
  String,
  Integer,
  Float,
  Operator,
  End
};

struct Token {
  Tok type = Tok::End;
  std::string text; ///< data, name, operator, or the decoded string literal
  int64_t integer = 0;
  double number = 0;
  int line = 1, column = 1;
};

/// Splits a template (newlines already normalised) into tokens, applying trim_blocks,
/// lstrip_blocks and the -/+ whitespace controls, dropping comments and expanding raw
/// blocks into data. Throws Failure (TemplateSyntaxError) with line and column.
std::vector<Token> tokenize(const std::string &source);

// ---- syntax tree (JinjaParser.cpp) ------------------------------------------------------

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;
struct Node;
using NodePtr = std::unique_ptr<Node>;
using Body = std::vector<NodePtr>;

struct Expr {
  enum class Kind : uint8_t {
    Const,    ///< value
    Name,     ///< name
    List,     ///< args
    Tuple,    ///< args
    Dict,     ///< args: key, value, key, value, ...
    Getattr,  ///< args[0] . name
    Getitem,  ///< args[0] [ args[1] ]
    Slice,    ///< args[0] [ args[1] : args[2] : args[3] ] (null parts are omitted bounds)
    Call,     ///< args[0] ( args[1..] , kwargs )
    Filter,   ///< args[0] | name ( args[1..] , kwargs ); args[0] null in a filter block
    Test,     ///< args[0] is name ( args[1..] , kwargs )
    Unary,    ///< op args[0]: "-", "+", "not"
    Binary,   ///< args[0] op args[1]: + - * / // % ** and or
    Concat,   ///< args[0] ~ args[1] ~ ...
    Compare,  ///< args[0] ops[0] args[1] ops[1] args[2] ...
    CondExpr, ///< args[1] if args[0] else args[2] (args[2] null: undefined)
  };
  Kind kind;
  int line = 0, column = 0;
  int depth = 1;                ///< height of this subtree (bounded by the parser)
  std::string name;             ///< Name, Getattr, Filter, Test; operator for Unary/Binary
  std::vector<std::string> ops; ///< Compare: "==", "!=", "<", "<=", ">", ">=", "in", "notin"
  std::vector<ExprPtr> args;
  std::vector<std::pair<std::string, ExprPtr>> kwargs;
  Value value; ///< Const
  /// Filter/Test: the builtin (checked to exist at parse time).
  const void *builtin = nullptr;
};

/// An assignment target: a name, a namespace attribute (`ns.attr`), or a tuple of targets.
struct Target {
  std::string name;             ///< name, or the namespace variable
  std::string attr;             ///< namespace attribute (non-empty: ns.attr)
  std::vector<Target> elements; ///< tuple unpacking when non-empty
  bool isTuple = false;
};

struct MacroDef {
  std::string name;
  std::vector<std::pair<std::string, ExprPtr>> params; ///< default null: required
  Body body;
  bool usesVarargs = false, usesKwargs = false;
  int line = 0;
};

struct Node {
  enum class Kind : uint8_t {
    Text,     ///< text
    Output,   ///< {{ exprs[0] }}
    If,       ///< exprs[i] -> bodies[i]; bodies.back() is the else when it outnumbers
    For,      ///< for target in exprs[0] [if exprs[1]]: bodies[0] else bodies[1]
    Set,      ///< target = exprs[0]
    SetBlock, ///< target = (rendered bodies[0]) | exprs[0] (filter chain, optional)
    Macro,    ///< macro
    Break,
    Continue,
    FilterBlock, ///< bodies[0] rendered, then exprs[0] (filter chain on a null input)
    With,        ///< targets[i] = exprs[i] in a new scope, bodies[0]
    Scope,       ///< bodies[0] as is (the generation tag)
  };
  Kind kind;
  int line = 0, column = 0;
  std::string text;
  std::vector<ExprPtr> exprs;
  std::vector<Body> bodies;
  Target target;
  std::vector<Target> targets;
  bool hasFilter = false; ///< For: exprs[1] is the loop filter
  std::unique_ptr<MacroDef> macro;
};

/// A parsed template.
struct Template {
  std::string name;
  Body body;
};

/// Parses tokens into a template (JinjaParser.cpp, JinjaParseExpr.cpp). Throws Failure
/// (TemplateSyntaxError, or TemplateAssertionError for unknown filters and tests) with
/// line and column.
std::unique_ptr<Template> parseTemplate(const std::vector<Token> &tokens, std::string name);

// ---- builtins (JinjaFilters.cpp, JinjaTests.cpp, JinjaMethods.cpp) ----------------------

using KwArgs = std::vector<std::pair<std::string, Value>>;
using FilterFn = Value (*)(Renderer &, const Value &, const ValueList &, const KwArgs &);
using TestFn = bool (*)(Renderer &, const Value &, const ValueList &, const KwArgs &);

struct FilterDef {
  const char *name;
  FilterFn fn;
};
struct TestDef {
  const char *name;
  TestFn fn;
};

/// The builtin filter / test of that name; null if none. `known` is set when jinja2 has
/// it but this renderer does not (so the error can say "not supported").
const FilterDef *findFilter(std::string_view name, bool *known);
const TestDef *findTest(std::string_view name, bool *known);
/// The global function of that name (range, namespace, dict, raise_exception,
/// strftime_now, ...); null if none.
GlobalFn findGlobal(std::string_view name);
/// obj.name for Python's builtin types (str, dict, list, loop): a bound method, an
/// attribute (loop.index), or an Undefined; nullopt when the type has no such attribute.
std::optional<Value> builtinAttribute(const Value &obj, const std::string &name);
/// Calls a bound method.
Value callMethod(Renderer &r, const CallableObj &method, const ValueList &args,
                 const KwArgs &kwargs);
/// Python `item in container`.
bool containsValue(const Value &container, const Value &item);
/// str.ljust / str.rjust / str.center (`align` 'l', 'r' or 'c'; also the center filter):
/// `s` padded with `fill` to `width` code points, CPython's split of the padding for
/// center. Raises RenderLimitError, before building anything, when the result would
/// exceed RenderLimits::maxStringBytes.
std::string padString(Renderer &r, const std::string &s, int64_t width, char32_t fill, char align);

/// Binds a builtin's arguments like a Python signature: positional then keyword, each
/// named once; raises TypeError for surplus or unknown arguments.
class Args {
public:
  Args(const char *function, const ValueList &positional, const KwArgs &keywords,
       std::initializer_list<const char *> names);
  /// Parameter `index` if passed, else null.
  const Value *get(size_t index) const { return bound_[index]; }
  Value value(size_t index, Value fallback) const {
    return bound_[index] ? *bound_[index] : std::move(fallback);
  }
  bool flag(size_t index, bool fallback) const;
  int64_t integer(size_t index, int64_t fallback) const;
  /// A str parameter (None or absent: unset).
  std::optional<std::string> string(size_t index) const;
  const char *function() const { return function_; }

private:
  const char *function_;
  std::vector<const char *> names_;
  std::vector<const Value *> bound_;
};

/// make_attrgetter: item[part] for each dot-separated part of `attribute` (digits index
/// sequences); with `fallback`, an Undefined result becomes the fallback.
Value attributeOf(Renderer &r, const Value &item, const Value &attribute,
                  const Value *fallback = nullptr);

// ---- operators (JinjaOps.cpp) -----------------------------------------------------------

/// a op b for + - * / // % ** with Python's semantics (str % args formats).
Value binaryOp(Renderer &r, const std::string &op, const Value &a, const Value &b);
/// op v for "-", "+" and "not".
Value unaryOp(const std::string &op, const Value &v);
/// obj[start:stop:step] (None for an omitted part).
Value sliceOp(Renderer &r, const Value &obj, const Value &start, const Value &stop,
              const Value &step);
/// Python str % args.
Value percentFormat(Renderer &r, const std::string &format, const Value &args);

// ---- rendering (JinjaEval.cpp) ----------------------------------------------------------

struct RenderLimits {
  uint64_t maxLoopIterations = 1000000;
  uint64_t maxWork = 50000000; ///< see ChatTemplateOptions::maxWork
  size_t maxStringBytes = size_t(64) << 20;
  int maxCallDepth = 32;
  /// Nested exec/eval calls of the renderer: bounds its stack use (at most about 400
  /// bytes a level without sanitizers) whatever the mix of blocks, expressions, macros.
  int maxRecursion = 2000;
};

class Renderer {
public:
  Renderer(const Template &tmpl, const DictObj &context, const RenderLimits &limits,
           const std::tm &now, long microseconds);
  std::string render();

  // Used by the builtins.
  const RenderLimits &limits() const { return limits_; }
  /// Counts `units` of work against RenderLimits::maxWork.
  void charge(uint64_t units);
  /// Counts the work of an operation that reads all of `v` (a byte of a string is 1/64,
  /// an item of a container 1).
  void chargeFor(const Value &v);
  /// Raises when a string of `bytes` would exceed RenderLimits::maxStringBytes.
  void checkSize(size_t bytes) const;
  const std::tm &now() const { return now_; }
  long microseconds() const { return microseconds_; }
  Value getattr(const Value &obj, const std::string &name);
  Value getitem(const Value &obj, const Value &key);
  Value callValue(const Value &callee, const ValueList &args, const KwArgs &kwargs);
  Value applyFilter(const std::string &name, const Value &input, const ValueList &args,
                    const KwArgs &kwargs);
  bool applyTest(const std::string &name, const Value &input, const ValueList &args,
                 const KwArgs &kwargs);
  /// Iterates a value as Python's iter() does (str: code points, dict: keys).
  ValueList iterate(const Value &v);
  /// Line of the innermost construct being evaluated (for error messages).
  int currentLine() const { return line_; }

private:
  struct Frame {
    std::unordered_map<std::string, Value> vars;
    Frame *parent = nullptr;
  };
  enum class Flow : uint8_t { Normal, Break, Continue };

  Flow exec(const Body &body, Frame &frame);
  Flow execNode(const Node &node, Frame &frame);
  Flow execFor(const Node &node, Frame &frame);
  /// Renders `body` into a string of its own; a break or continue inside drops it.
  Flow capture(const Body &body, Frame &frame, std::string &text);
  Value eval(const Expr &e, Frame &frame);
  Value evalBinary(const Expr &e, Frame &frame);
  Value evalCompare(const Expr &e, Frame &frame);
  Value evalCall(const Expr &e, Frame &frame);
  Value evalSlice(const Expr &e, Frame &frame);
  Value evalFilter(const Expr &e, Frame &frame, const Value *blockInput);
  void evalArgs(const Expr &e, size_t first, Frame &frame, ValueList &args, KwArgs &kwargs);
  Value lookup(const std::string &name, Frame &frame);
  void assign(const Target &target, const Value &value, Frame &frame);
  Value callMacro(const CallableObj &macro, const ValueList &args, const KwArgs &kwargs);
  void write(std::string_view text);

  const Template &tmpl_;
  const DictObj &context_;
  RenderLimits limits_;
  std::tm now_;
  long microseconds_;
  Frame root_;
  std::string *out_ = nullptr;
  uint64_t iterations_ = 0, work_ = 0;
  int callDepth_ = 0, recursion_ = 0;
  int line_ = 0;
};

} // namespace mm::rt::jinja

#endif // MM_RUNTIME_TEXT_JINJA_H
