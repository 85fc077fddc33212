//===- Unicode.h - UTF-8 helpers for the tokenizer ---------------------------===//
//
// What tokenizer.json processing needs of Unicode, with the semantics of the Rust code HF
// `tokenizers` is written in:
//   - UTF-8 validation and code point iteration (RFC 3629: no surrogates, no overlongs);
//   - lossy decoding of bytes as Rust's String::from_utf8_lossy does it: each maximal
//     subpart of an ill-formed sequence becomes one U+FFFD (Unicode 15, section 3.9,
//     "U+FFFD Substitution of Maximal Subparts");
//   - NFC normalisation (UAX #15) through utf8proc, as of Unicode 9.0, the version of
//     tokenizers' normalisation tables (unicode-normalization-alignments): code points
//     assigned later are left alone;
//   - char::is_whitespace (the White_Space property) and an approximation of
//     char::is_alphanumeric (general categories L* and N*; Rust's Alphabetic also takes the
//     Other_Alphabetic marks, e.g. Devanagari vowel signs).
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_TEXT_UNICODE_H
#define MM_RUNTIME_TEXT_UNICODE_H

#include <cstddef>
#include <string>
#include <string_view>

namespace mm::rt::text {

/// The byte offset of the first ill-formed UTF-8 sequence in `s`, or npos when `s` is valid.
size_t firstInvalidUtf8(std::string_view s);

/// The code point starting at byte `i` of valid UTF-8 `s`; advances `i` past it.
char32_t nextCodePoint(std::string_view s, size_t &i);

/// The number of bytes of the UTF-8 sequence whose lead byte is `lead` (1 for a stray
/// continuation byte).
size_t utf8Length(unsigned char lead);

/// Appends code point `c` to `out` in UTF-8.
void appendUtf8(std::string &out, char32_t c);

/// `bytes` as valid UTF-8, ill-formed parts replaced by U+FFFD as from_utf8_lossy does.
std::string lossyUtf8(std::string_view bytes);

/// The NFC form of valid UTF-8 `s` as tokenizers computes it (see the file comment;
/// embedded NULs kept).
std::string toNfc(std::string_view s);

/// Rust's char::is_whitespace: the Unicode White_Space property.
bool isWhitespace(char32_t c);

/// A letter or number (general category L* or N*); see the file comment.
bool isAlphanumeric(char32_t c);

} // namespace mm::rt::text

#endif
