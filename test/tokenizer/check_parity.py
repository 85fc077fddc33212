#!/usr/bin/python3
"""Tokenizer parity with HF `tokenizers` (issue 18): runs `mmc tokenize` on the committed
corpus (strings.jsonl.xz, 10,000 strings) with one committed vocabulary and compares, line
by line and exactly, with the reference outputs hf_reference.py computed with tokenizers
0.23.2 on the GPU machine:
  - ids without special tokens (ref/<vocab>.ids.jsonl.xz),
  - ids with add_special_tokens (ref/<vocab>.special.jsonl.xz),
  - decode of the reference ids, special tokens kept (ref/<vocab>.decoded.jsonl.xz).
Prints one PASS/FAIL line per comparison (a FAIL shows the first differing strings) and
exits 1 on any difference.
usage: check_parity.py MMC VOCAB WORK_DIR
VOCAB: llama2, llama3 or qwen3, or a variant of make_variants.py (checked on the first
2,000 strings).
"""
import json
import lzma
import os
import subprocess
import sys

import make_variants

MMC, VOCAB, WORK = sys.argv[1:4]
HERE = os.path.dirname(os.path.abspath(__file__))


def unpack(name, dest):
    with lzma.open(os.path.join(HERE, name), "rb") as f, open(dest, "wb") as out:
        out.write(f.read())
    return dest


def lines(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def mmc_tokenize(folder, path, *flags):
    r = subprocess.run([MMC, "tokenize", folder, "--file", path, *flags], capture_output=True)
    if r.returncode != 0:
        sys.exit(f"FAIL {VOCAB}: mmc tokenize {' '.join(flags)} exited {r.returncode}: "
                 f"{r.stderr.decode(errors='replace').strip()}")
    return [json.loads(line) for line in r.stdout.decode("utf-8").split("\n") if line]


def compare(label, ours, ref, strings):
    if len(ours) != len(ref):
        print(f"FAIL {VOCAB} {label}: {len(ours)} output lines for {len(ref)} references")
        return False
    bad = [i for i, (a, b) in enumerate(zip(ours, ref)) if a != b]
    if not bad:
        print(f"PASS {VOCAB} {label}: {len(ref)} of {len(ref)} identical")
        return True
    print(f"FAIL {VOCAB} {label}: {len(bad)} of {len(ref)} differ; first ones:")
    for i in bad[:3]:
        print(f"  line {i + 1}: {strings[i]!r:.160}\n    mmc:  {ours[i]!r:.200}\n    HF:   {ref[i]!r:.200}")
    return False


def vocabulary():
    """The folder holding VOCAB's tokenizer.json, and how many corpus strings it is checked on."""
    base, count = (make_variants.VARIANTS[VOCAB][0], 2000) if VOCAB in make_variants.VARIANTS else (VOCAB, None)
    root = os.path.join(WORK, "vocab")
    os.makedirs(os.path.join(root, base), exist_ok=True)
    unpack(f"{base}/tokenizer.json.xz", os.path.join(root, base, "tokenizer.json"))
    if base == VOCAB:
        return os.path.join(root, base), count
    make_variants.main_for(root, os.path.join(WORK, "variants"), VOCAB)
    return os.path.join(WORK, "variants", VOCAB), count


def main():
    folder, count = vocabulary()
    corpus = os.path.join(WORK, f"strings-{VOCAB}.jsonl")
    with lzma.open(os.path.join(HERE, "strings.jsonl.xz"), "rt", encoding="utf-8") as f, \
            open(corpus, "w", encoding="utf-8") as out:
        out.writelines(f.readlines()[:count])
    strings = lines(corpus)
    refs = {k: lines(unpack(f"ref/{VOCAB}.{k}.jsonl.xz", os.path.join(WORK, f"{VOCAB}.{k}.jsonl")))
            for k in ("ids", "special", "decoded")}
    ok = compare("ids", mmc_tokenize(folder, corpus), refs["ids"], strings)
    ok &= compare("ids with special tokens", mmc_tokenize(folder, corpus, "--add-special-tokens"),
                  refs["special"], strings)
    ok &= compare("decode", mmc_tokenize(folder, os.path.join(WORK, f"{VOCAB}.ids.jsonl"), "--decode"),
                  refs["decoded"], strings)
    round_trip = sum(d == s for d, s in zip(refs["decoded"], strings))
    print(f"{VOCAB}: decode(encode(x)) == x for {round_trip} of {len(strings)} strings, as in HF")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
