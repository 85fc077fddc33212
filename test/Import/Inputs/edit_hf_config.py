#!/usr/bin/env python3
"""Copies a Hugging Face folder and edits its config.json, for the importer's config-error
tests:

  edit_hf_config.py SRC DST KEY=JSON [KEY=JSON ...]

KEY is a dotted path into config.json ("text_config.model_type"); JSON its new value
("\\"gemma2\\"", 3), or nothing to remove the key. The safetensors files are linked, not
copied.
"""
import json
import os
import shutil
import sys

src, dst = sys.argv[1], sys.argv[2]
shutil.rmtree(dst, ignore_errors=True)
os.makedirs(dst)
for name in os.listdir(src):
    if name.endswith(".safetensors") or name.endswith(".index.json"):
        os.symlink(os.path.abspath(os.path.join(src, name)), os.path.join(dst, name))
config = json.load(open(os.path.join(src, "config.json")))
for edit in sys.argv[3:]:
    key, value = edit.split("=", 1)
    *path, last = key.split(".")
    node = config
    for p in path:
        node = node.setdefault(p, {})
    if value:
        node[last] = json.loads(value)
    else:
        node.pop(last, None)
json.dump(config, open(os.path.join(dst, "config.json"), "w"), indent=1)
