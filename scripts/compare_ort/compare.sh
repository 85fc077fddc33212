#!/usr/bin/env bash
# Runs every graph of ../shared/models through `mmc compile` + `mmrun` and through
# onnxruntime (npm's onnxruntime-node, see ../shared/docs/TOOLCHAIN.md) on random inputs
# with several dynamic sizes (batch, seq, past), and compares the outputs
# (`mmrun --compare-dir`). Checks that shape folding (and the rest of the pipeline) keeps
# the graphs' meaning for sizes other than the exported test data's.
# Usage: scripts/compare_ort/compare.sh [build dir (default build)] [extra mmc compile flags]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
shift || true
models=$root/../shared/models
here=$root/scripts/compare_ort
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
py=/usr/bin/python3
status=0
check() { # model.onnx plan function spec
  local dir=$work/case$RANDOM
  $py "$here/make_inputs.py" "$1" "$dir" "$4"
  node "$here/run_ort.js" "$1" "$dir"
  $py "$here/write_outputs.py" "$dir"
  local fn=()
  [ -n "$3" ] && fn=(--function "$3")
  if out=$("$build/bin/mmrun" "$2" "${fn[@]}" --input-dir "$dir" --compare-dir "$dir" 2>&1); then
    echo "ok   $(basename "$(dirname "$(dirname "$1")")")/$(basename "$1") $4"
  else
    echo "FAIL $1 $4"; echo "$out"; status=1
  fi
}
for m in tiny-vit-ts tiny-vit-dynamo tiny-llava-ts tiny-llava-dynamo; do
  "$build/bin/mmc" compile "$models/$m" -o "$work/$m.fb" "$@" >/dev/null
done
for m in tiny-vit-ts tiny-vit-dynamo; do
  for b in 1 3; do check "$models/$m/onnx/model.onnx" "$work/$m.fb" "" "{\"batch\": $b}"; done
done
for m in tiny-llava-ts tiny-llava-dynamo; do
  check "$models/$m/onnx/vision_encoder.onnx" "$work/$m.fb" vision_encoder '{"batch": 1}'
  check "$models/$m/onnx/embed_tokens.onnx" "$work/$m.fb" embed_tokens '{"batch": 2, "seq": 5}'
  for spec in '{"batch": 1, "seq": 1, "past": 6}' '{"batch": 2, "seq": 7, "past": 2}' \
              '{"batch": 3, "seq": 4, "past": 0}'; do
    check "$models/$m/onnx/decoder_model_merged.onnx" "$work/$m.fb" decoder_model_merged "$spec"
  done
done
check "$models/tiny-llava-ts/onnx/vision_encoder.onnx" "$work/tiny-llava-ts.fb" vision_encoder '{"batch": 3}'
exit $status
