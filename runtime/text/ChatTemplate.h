//===- ChatTemplate.h - Hugging Face chat templates (a Jinja subset) -------===//
//
// Renders a model's chat template (tokenizer_config.json / chat_template.json
// "chat_template") into the prompt string, byte for byte as transformers'
// `tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=...)`.
//
// The language is Jinja 3.1 (https://jinja.palletsprojects.com/en/3.1.x/templates/) in
// transformers' environment (transformers/utils/chat_template_utils.py,
// _compile_jinja_template): jinja2.sandbox.ImmutableSandboxedEnvironment with
// trim_blocks=True, lstrip_blocks=True, the loopcontrols extension ({% break %},
// {% continue %}) and the {% generation %} tag (its body renders as is); the globals
// raise_exception(message) and strftime_now(format); and the tojson filter replaced by
// json.dumps(x, ensure_ascii=False, indent=indent, separators=separators,
// sort_keys=sort_keys). Values follow Python: str() of True is "True", of None "None",
// floats print as repr(), lengths and slices count code points, 'a' + 1 is a TypeError,
// dicts keep insertion order, and the sandbox refuses mutating methods (list.append).
//
// Supported: {{ }}, {% if/elif/else %}, {% for %} (unpacking, `if` filter, else, loop.*,
// break/continue), {% set %} (also ns.attr and block set), {% macro %} and calls,
// {% filter %}, {% with %}, {% raw %}, {% generation %}, comments and all whitespace
// controls; literals, arithmetic, comparisons, `in`, `is` tests, conditional expressions,
// attribute/item access and slicing; the globals range, dict, namespace; the filters,
// tests and str/dict/list/loop methods chat templates use (listed in JinjaFilters.cpp,
// JinjaTests.cpp, JinjaMethods.cpp). Not supported, with an error naming the construct:
// {% extends/block/include/import/call %}, recursive loops, str.format, the globals
// lipsum/cycler/joiner, the filters groupby, slice, truncate, wordwrap, urlize,
// urlencode, striptags, xmlattr, pprint, random, filesizeformat and forceescape, and
// integers beyond 64 bits. Known differences from jinja2: Unicode case mapping is
// utf8proc's (plus Python's special cases for sharp s, ligatures, dotted I and final
// sigma); generator results (map, select, ...) print as "<generator object>" and can be
// iterated more than once; `|safe` marks nothing, so `x|safe|e` still escapes; jinja2's
// compile-time folding of constant expressions (which turns some errors into Undefined)
// is not reproduced; attributes of numbers (x.real) are undefined; a namespace cannot
// hold a namespace, loop or macro; complex numbers ((-8) ** 0.5) are errors.
//
// Errors: parse errors and render errors (undefined values used, Python type errors,
// raise_exception(...), the sandbox refusing an attribute, limits) throw
// ChatTemplateError (an mm::rt::Error) whose what() reads
//   "chat template '<what>' line L, column C: <message>"
// (column only for parse errors); message() is the part after the colon: jinja2's
// message, after the Python exception name for runtime errors ("TypeError: can only
// concatenate str (not "int") to str"), and for raise_exception('...') exactly the
// template's text. Rendering never crashes: blocks nest at most 100 deep, expressions at
// most 200 high, values 200 deep, the renderer's recursion is bounded (under 1 MB of
// stack), and ChatTemplateOptions bounds loops, output, macro depth and total work.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_TEXT_CHATTEMPLATE_H
#define MM_RUNTIME_TEXT_CHATTEMPLATE_H

#include "runtime/core/Error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <ctime>
#include <memory>
#include <optional>
#include <string>

namespace mm::rt {

namespace jinja {
struct Template;
}

/// A chat template parse or render failure.
class ChatTemplateError : public Error {
public:
  ChatTemplateError(const std::string &what, std::string message, int line, int column);
  /// The failure alone, without template name and position (for raise_exception: the
  /// template's message).
  const std::string &message() const { return message_; }
  int line() const { return line_; }     ///< 1-based; 0 if unknown
  int column() const { return column_; } ///< 1-based, in code points; 0 if unknown

private:
  std::string message_;
  int line_, column_;
};

/// Limits and clock of one render.
struct ChatTemplateOptions {
  /// The time strftime_now() formats (local, naive, as Python's datetime.now()); unset:
  /// the current local time.
  std::optional<std::tm> now;
  /// All loop iterations of the render together.
  uint64_t maxLoopIterations = 1000000;
  /// The result, and any string built on the way.
  size_t maxOutputBytes = size_t(64) << 20;
  /// Nested macro calls.
  int maxCallDepth = 32;
  /// Work of filters, methods, operators and output together, in units of one container
  /// item or 64 bytes of string read or written (a few seconds of CPU at most).
  uint64_t maxWork = 50000000;
};

/// A parsed chat template. Copies share the parsed tree; render() is const and may run
/// concurrently.
class ChatTemplate {
public:
  /// Parses `source`; `what` names it in errors (e.g. the model folder). Throws
  /// ChatTemplateError naming line and column and what was expected.
  static ChatTemplate parse(const std::string &source, const std::string &what);

  /// Renders with `context` (a JSON object: its members are the template's variables).
  /// Object members keep their order, as Python dicts do (it shows in tojson and in
  /// loops over items()): parse the messages with nlohmann::ordered_json::parse. Throws
  /// ChatTemplateError.
  std::string render(const nlohmann::ordered_json &context,
                     const ChatTemplateOptions &options = {}) const;
  /// The same for a plain nlohmann::json, whose objects iterate in sorted key order.
  std::string render(const nlohmann::json &context, const ChatTemplateOptions &options = {}) const;

  /// transformers' render context: {messages, tools: null, documents: null,
  /// add_generation_prompt, bos_token, eos_token} then the members of `extra` (which
  /// override; e.g. tools, enable_thinking, other special tokens). An unset token is left
  /// out (undefined in the template), as for tokenizers without one.
  static nlohmann::ordered_json
  makeContext(const nlohmann::ordered_json &messages, bool addGenerationPrompt,
              const std::optional<std::string> &bosToken,
              const std::optional<std::string> &eosToken,
              const nlohmann::ordered_json &extra = nlohmann::ordered_json::object());

  /// render(makeContext(...)).
  std::string apply(const nlohmann::ordered_json &messages, bool addGenerationPrompt,
                    const std::optional<std::string> &bosToken,
                    const std::optional<std::string> &eosToken,
                    const nlohmann::ordered_json &extra = nlohmann::ordered_json::object(),
                    const ChatTemplateOptions &options = {}) const;

  const std::string &name() const;

private:
  explicit ChatTemplate(std::shared_ptr<const jinja::Template> impl);
  template <typename Json>
  std::string renderJson(const Json &context, const ChatTemplateOptions &options) const;
  std::shared_ptr<const jinja::Template> impl_;
};

} // namespace mm::rt

#endif // MM_RUNTIME_TEXT_CHATTEMPLATE_H
