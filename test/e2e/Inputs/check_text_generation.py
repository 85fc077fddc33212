#!/usr/bin/env python3
"""Checks `mmrun PLAN --prompt ... --json` against the transformers references of a model
folder's reference/generation.json (models/recipes/gen_chat_model.py): for each case, the
prompt after the chat template and the image-placeholder expansion, its token ids, the
greedy new tokens and their text must be identical. Prints one PASS/FAIL line per case and
exits 1 on any failure.

  check_text_generation.py MMRUN PLAN MODEL_DIR [--device cpu|cuda] [extra mmrun args...]
"""
import json
import os
import subprocess
import sys


def command(mmrun, plan, model, case, extra):
    cmd = [mmrun, plan, "--json", "--max-new-tokens", str(case["max_new_tokens"])] + extra
    for _ in range(case["images"]):
        cmd += ["--image", os.path.join(model, "reference", "image.png")]
    if "prompt" in case:
        return cmd + ["--raw-prompt", "--prompt", case["prompt"]]
    for m in case["messages"]:
        text = "".join(p["text"] for p in m["content"] if p["type"] == "text")
        if m["role"] == "system":
            cmd += ["--system", text]
        else:
            cmd += ["--prompt", text]
    return cmd


def main():
    mmrun, plan, model, *extra = sys.argv[1:]
    with open(os.path.join(model, "reference", "generation.json"), encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    failed = 0
    for case in cases:
        cmd = command(mmrun, plan, model, case, extra)
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            print(f"FAIL {case['name']}: mmrun exit {p.returncode}: {p.stderr.strip()}")
            failed += 1
            continue
        got = json.loads(p.stdout)
        checks = [("prompt", got["prompt"], case["prompt_text"] if case["images"] == 0 else None),
                  ("prompt_ids", got["prompt_ids"], case["input_ids"]),
                  ("tokens", got["tokens"], case["greedy_new_tokens"]),
                  ("text", got["text"], case["text"])]
        bad = [(what, a, b) for what, a, b in checks if b is not None and a != b]
        if bad:
            failed += 1
            for what, a, b in bad:
                print(f"FAIL {case['name']} {what}:\n  mmrun        {a!r}\n  transformers {b!r}")
        else:
            print(f"PASS {case['name']} {len(got['prompt_ids'])} prompt ids, "
                  f"{len(got['tokens'])} tokens, text {got['text'][:40]!r}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
