#!/usr/bin/env python3
"""Checks that the lit tests in test/Dialect/mm cover the whole `mm` dialect.

Usage: check_coverage.py <dialects dir> <test dir>

1. Every op defined in <dialects>/include/mm/*.td (`def MM_XOp : MM_...<"mnemonic", ...>`)
   appears in a CHECK line of a round-trip test (a .mlir file not named invalid-*).
2. Every verifier error emitted in <dialects>/lib/*.cpp (`emitOpError(...)` statements)
   appears in an `expected-error` line of an invalid-*.mlir test. A message built from
   several string pieces is identified by its longest piece.

Exits 1 with one line per missing item; prints a summary on success.
"""
import pathlib
import re
import sys

OP_DEF = re.compile(r'^def\s+MM_\w+\s*:\s*MM_\w+<\s*"([a-z0-9_]+)"', re.M)
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
MIN_OPS, MIN_MESSAGES = 60, 80  # guards against a regex that silently matches nothing


def ops(dialects):
    found = {}
    for td in sorted((dialects / "include" / "mm").glob("*.td")):
        for m in OP_DEF.finditer(td.read_text()):
            found[m.group(1)] = td.name
    return found


def messages(dialects):
    """Yields (file:line, key) for each emitOpError statement; key = its longest string."""
    for cpp in sorted((dialects / "lib").glob("*.cpp")):
        text = cpp.read_text()
        for m in re.finditer(r"emitOpError\(", text):
            end = text.find(";", m.end())
            pieces = [p.strip() for p in STRING.findall(text[m.end():end])]
            pieces = [p for p in pieces if p]
            if not pieces:
                continue  # message built entirely from variables: nothing to match
            line = text.count("\n", 0, m.start()) + 1
            yield f"{cpp.name}:{line}", max(pieces, key=len)


def main():
    dialects, tests = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    roundtrip, expected = [], []
    for f in sorted(tests.glob("*.mlir")):
        lines = f.read_text().splitlines()
        if f.name.startswith("invalid"):
            expected += [l for l in lines if "expected-error" in l]
        else:
            roundtrip += [l for l in lines if re.search(r"CHECK[-A-Z]*:", l)]

    missing = []
    defined = ops(dialects)
    for mnemonic, td in sorted(defined.items()):
        pattern = re.compile(r'(?<![\w#.])"?mm\.' + re.escape(mnemonic) + r'(?=[\s"(])')
        if not any(pattern.search(l) for l in roundtrip):
            missing.append(f"op mm.{mnemonic} ({td}) has no round-trip CHECK line in {tests}")

    found = list(messages(dialects))
    for where, key in found:
        if not any(key in l for l in expected):
            missing.append(f"verifier error '{key}' ({where}) has no expected-error in "
                           f"{tests}/invalid-*.mlir")

    if len(defined) < MIN_OPS or len(found) < MIN_MESSAGES:
        missing.append(f"found only {len(defined)} ops and {len(found)} verifier errors: "
                       "has the ODS or verifier style changed? update this script")
    for m in missing:
        print(m)
    if missing:
        return 1
    print(f"coverage ok: {len(defined)} ops, {len(found)} verifier errors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
