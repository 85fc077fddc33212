#!/usr/bin/env bash
# The README's first command: set up and build (scripts/setup.sh), then run the main job on
# the bundled default model: import it, compile it into a plan, and answer a question about
# an image with mmrun (--image, --prompt), checking the text against transformers'.
#
#   scripts/demo.sh [model folder]       (default: models/tiny-llava-chat; a folder without a
#                                         tokenizer, e.g. models/tiny-llava-ts, is run from
#                                         its reference token ids instead)
#   MM_BUILD=dir scripts/demo.sh         (build folder; default: build/)
#
# Outputs go to out/demo/. A step that is not implemented yet is reported as such and ends
# the demo with status 0; a real failure of a step that exists exits nonzero.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MM_BUILD:-$root/build}
model=$(cd "${1:-$root/models/tiny-llava-chat}" && pwd)
name=$(basename "$model")
out=$root/out/demo
bin=$build/bin

"$root/scripts/setup.sh" "$build"
mkdir -p "$out"
done_steps="setup and build"

# run_step STEP CMD...: runs CMD, showing its output. On failure: if CMD said the feature is
# "not implemented yet", stop the demo successfully and say so; otherwise exit with its status.
run_step() {
  local step=$1; shift
  local shown
  shown=$(printf '%q ' "$@")
  echo "demo: $step: ${shown//$root\//}"
  local rc=0
  "$@" 2>"$out/$step.stderr" | tee "$out/$step.stdout" || rc=$?
  cat "$out/$step.stderr" >&2
  if [ $rc -eq 0 ]; then
    done_steps="$done_steps, $step"
    return 0
  fi
  if grep -q "not implemented yet" "$out/$step.stderr"; then
    echo "demo: stopped at '$step': it is not implemented yet." \
      "What exists ran and passed: $done_steps. Status: docs/mmc.md, docs/mmrun.md."
    exit 0
  fi
  echo "demo: '$step' failed (exit $rc)" >&2
  exit $rc
}

# 1. ONNX -> mm dialect; the printed IR must parse and verify again.
run_step import "$bin/mmc" import "$model" -o "$out/$name.mlir"
run_step verify "$bin/mmc-opt" "$out/$name.mlir" -o /dev/null
echo "demo: $out/$name.mlir: $(grep -c ' = mm\.' "$out/$name.mlir") mm ops"

# 2. Compile to a plan for the CPU runtime.
run_step compile "$bin/mmc" compile "$model" -o "$out/$name.plan"

# 3. Generate with the reference image and prompt (reference/generation.json).
ref=$model/reference
if [ -f "$model/tokenizer.json" ]; then
  question="Describe the image."
  run_step run "$bin/mmrun" "$out/$name.plan" --image "$ref/image.png" --prompt "$question" \
    --max-new-tokens 24
  want=$(/usr/bin/python3 -c 'import json,sys; print([c for c in json.load(open(sys.argv[1]))["cases"] if c["name"] == "image-chat"][0]["text"])' "$ref/generation.json")
  if [ "$(cat "$out/run.stdout")" != "$want" ]; then
    echo "demo: the text differs from transformers' greedy text for this image and prompt: $want" >&2
    exit 1
  fi
  echo "demo: the text is transformers' greedy text for this image and question (the weights" \
    "are random, so the text is too)"
  exit 0
fi
ids=$(/usr/bin/python3 -c 'import json,sys; print(",".join(map(str, json.load(open(sys.argv[1]))["prompt_ids"])))' "$ref/generation.json")
run_step run "$bin/mmrun" "$out/$name.plan" --pixel-values "$ref/pixel_values.npy" \
  --input-ids "$ids" --max-new-tokens 16
want=$(/usr/bin/python3 -c 'import json,sys; print(*json.load(open(sys.argv[1]))["greedy_new_tokens"])' "$ref/generation.json")
got=$(sed -n 's/^tokens: //p' "$out/run.stdout")
if [ "$got" != "$want" ]; then
  echo "demo: the tokens differ from PyTorch's greedy tokens for this input: $want" >&2
  exit 1
fi
echo "demo: the tokens match PyTorch's greedy tokens for this input ($want)"
