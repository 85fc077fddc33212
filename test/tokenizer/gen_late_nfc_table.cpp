// Prints the table kLateNormalizing of runtime/text/Unicode.cpp: the code points assigned
// after Unicode 9.0 that NFC does not leave inert (a nonzero canonical combining class, a
// decomposition, or a composition with a neighbour), as ranges. HF `tokenizers` normalises
// with unicode-normalization-alignments, whose tables are Unicode 9.0: to it these are
// unassigned starters that nothing happens to.
// Build and run (ICU from Debian's libicu-dev):
//   g++ test/tokenizer/gen_late_nfc_table.cpp -licuuc -o /tmp/gen && /tmp/gen
#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <cstdio>

int main() {
  UErrorCode error = U_ZERO_ERROR;
  const UNormalizer2 *nfc = unorm2_getNFCInstance(&error);
  if (U_FAILURE(error))
    return 1;
  int start = -1, previous = -2;
  for (UChar32 c = 0; c <= 0x10FFFF; ++c) {
    UVersionInfo age;
    u_charAge(c, age);
    if (age[0] <= 9 || unorm2_isInert(nfc, c))
      continue;
    if (c != previous + 1) {
      if (start >= 0)
        std::printf("{0x%X, 0x%X},\n", start, previous);
      start = c;
    }
    previous = c;
  }
  if (start >= 0)
    std::printf("{0x%X, 0x%X},\n", start, previous);
  std::fprintf(stderr, "ICU's Unicode %s\n", U_UNICODE_VERSION);
  return 0;
}
