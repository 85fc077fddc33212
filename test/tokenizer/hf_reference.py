#!/usr/bin/python3
"""Computes the reference ids and decoded text of the parity corpus with HF `tokenizers`
(run on the GPU machine, where it is installed; the outputs are committed).

usage: hf_reference.py STRINGS.jsonl OUT_DIR VOCAB_DIR...
For each VOCAB_DIR (a folder with tokenizer.json) writes OUT_DIR/<name>.ids.jsonl (ids without
special tokens), <name>.special.jsonl (add_special_tokens=True) and <name>.decoded.jsonl
(decode of the first, special tokens kept): one JSON value per line, in the corpus' order.
"""
import json
import os
import sys

import tokenizers

strings_path, out_dir, vocabs = sys.argv[1], sys.argv[2], sys.argv[3:]
strings = [json.loads(line) for line in open(strings_path, encoding="utf-8")]
os.makedirs(out_dir, exist_ok=True)
for vocab in vocabs:
    name = os.path.basename(os.path.normpath(vocab))
    tok = tokenizers.Tokenizer.from_file(os.path.join(vocab, "tokenizer.json"))
    plain = [tok.encode(s, add_special_tokens=False).ids for s in strings]
    special = [tok.encode(s, add_special_tokens=True).ids for s in strings]
    decoded = [tok.decode(ids, skip_special_tokens=False) for ids in plain]
    for suffix, rows in (("ids", plain), ("special", special), ("decoded", decoded)):
        with open(os.path.join(out_dir, f"{name}.{suffix}.jsonl"), "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row, separators=(",", ":")) + "\n")
    same = sum(d == s for d, s in zip(decoded, strings))
    print(f"{name}: {len(strings)} strings, decode(encode(x)) == x for {same}")
print(f"tokenizers {tokenizers.__version__}")
