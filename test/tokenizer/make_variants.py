#!/usr/bin/python3
"""Derives tokenizer.json variants from the committed vocabularies, so that the options the
three real files do not use are checked against HF `tokenizers` too (hf_reference.py on
the GPU machine computes their references over the first 2,000 corpus strings):
  qwen3-flags    added tokens with lstrip, rstrip, single_word and normalized (matched after
                 the NFC normaliser), one of them not special
  llama3-gpt2    GPT-2's ByteLevel pre-tokenizer alone (add_prefix_space, use_regex)
  llama3-split   Split on a String pattern, behaviours MergedWithPrevious / MergedWithNext /
                 Contiguous / Removed and invert, before ByteLevel
  llama2-decode  Strip(start 2; a stop > 0 panics in tokenizers 0.23 on an empty token) and a Regex Replace in the decoder, Llama-2's
                 post-processor with an eos after the sequence
usage: make_variants.py VOCAB_ROOT OUT_ROOT   (VOCAB_ROOT/<name>/tokenizer.json)
"""
import copy
import json
import os
import sys


def load(root, name):
    with open(os.path.join(root, name, "tokenizer.json"), encoding="utf-8") as f:
        return json.load(f)


def qwen3_flags(t):
    t = copy.deepcopy(t)
    for a in t["added_tokens"]:
        if a["content"] == "<|im_start|>":
            a["lstrip"] = a["rstrip"] = True
        elif a["content"] == "<|im_end|>":
            a["single_word"] = True
        elif a["content"] == "<think>":
            a["normalized"] = True
            a["special"] = False
    # A normalized added token whose content NFC changes ("e" + combining acute -> "é").
    t["added_tokens"].append({"id": len(t["model"]["vocab"]) + 500, "content": "cafe\u0301 au lait",
                              "single_word": False, "lstrip": False, "rstrip": False,
                              "normalized": True, "special": False})
    return t


def llama3_gpt2(t):
    t = copy.deepcopy(t)
    t["pre_tokenizer"] = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}
    return t


def llama3_split(t):
    t = copy.deepcopy(t)
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
    t["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithNext", "invert": False},
        {"type": "Split", "pattern": {"Regex": "[0-9]"}, "behavior": "MergedWithPrevious", "invert": False},
        {"type": "Split", "pattern": {"Regex": "[aeiou]+"}, "behavior": "Contiguous", "invert": False},
        {"type": "Split", "pattern": {"String": "\n"}, "behavior": "Removed", "invert": False},
        {"type": "Split", "pattern": {"Regex": "\\p{Han}+"}, "behavior": "Isolated", "invert": True},
        byte_level]}
    return t


def llama2_decode(t):
    t = copy.deepcopy(t)
    t["decoder"] = {"type": "Sequence", "decoders": [
        {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
        {"type": "ByteFallback"},
        {"type": "Replace", "pattern": {"Regex": "[0-9]+"}, "content": "#"},
        {"type": "Fuse"},
        {"type": "Strip", "content": " ", "start": 2, "stop": 0}]}
    pp = t["post_processor"]
    pp["single"].append({"SpecialToken": {"id": "</s>", "type_id": 0}})
    pp["special_tokens"]["</s>"] = {"id": "</s>", "ids": [2], "tokens": ["</s>"]}
    return t


VARIANTS = {"qwen3-flags": ("qwen3", qwen3_flags), "llama3-gpt2": ("llama3", llama3_gpt2),
            "llama3-split": ("llama3", llama3_split), "llama2-decode": ("llama2", llama2_decode)}


def main_for(root, out, name):
    """Writes OUT/<name>/tokenizer.json from ROOT/<its base>/tokenizer.json."""
    base, make = VARIANTS[name]
    os.makedirs(os.path.join(out, name), exist_ok=True)
    with open(os.path.join(out, name, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(make(load(root, base)), f, ensure_ascii=False)


def main():
    root, out = sys.argv[1:3]
    for name in VARIANTS:
        main_for(root, out, name)


if __name__ == "__main__":
    main()
