#!/usr/bin/env bash
# The README's first command: set up and build (scripts/setup.sh), then run the main job on
# the bundled default model: import it, compile it into a plan, and generate 16 tokens with
# mmrun for the reference image and prompt.
#
#   scripts/demo.sh [model folder]       (default: models/tiny-llava-ts)
#   MM_BUILD=dir scripts/demo.sh         (build folder; default: build/)
#
# Outputs go to out/demo/. A step that is not implemented yet is reported as such and ends
# the demo with status 0; a real failure of a step that exists exits nonzero.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MM_BUILD:-$root/build}
model=$(cd "${1:-$root/models/tiny-llava-ts}" && pwd)
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
  echo "demo: $step: ${*//$root\//}"
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
