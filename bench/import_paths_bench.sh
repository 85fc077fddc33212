#!/usr/bin/env bash
# One LLaVA folder compiled by both importers, side by side in one run (issue 15): the ONNX
# graphs (--from onnx) and config.json + safetensors (--from hf), each `mmc compile --target
# cuda --dtype bf16` under /usr/bin/time -v (wall seconds, peak RSS), then RUNS greedy
# generations of each plan, interleaved (onnx, hf, onnx, hf, ...), with mmrun --json; prints
# a markdown table (bench/import_paths_table.py): compile s, peak RSS MiB, plan MiB, TTFT ms
# and decode tok/s (medians), and whether the two paths generate the same tokens.
#
# Usage: bash bench/import_paths_bench.sh --mmc PATH --mmrun PATH --model DIR [--work DIR]
#          [--paths "onnx hf"] [--runs 3] [--new-tokens 128]
# --paths hf alone measures a folder with no ONNX graphs (a safetensors-only 7B). Inputs are
# bench/hf_llava_bench.py's (1 image + 32 text tokens). Exit status 1 if a step failed.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY="${PYTHON:-python3}"
MMC="" MMRUN="" MODEL="" WORK="/tmp/mmc-import-paths" PATHS="onnx hf" RUNS=3 NEW_TOKENS=128
while [[ $# -gt 0 ]]; do
  case "$1" in
    --mmc) MMC="$2"; shift 2 ;;
    --mmrun) MMRUN="$2"; shift 2 ;;
    --model) MODEL="$2"; shift 2 ;;
    --work) WORK="$2"; shift 2 ;;
    --paths) PATHS="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --new-tokens) NEW_TOKENS="$2"; shift 2 ;;
    *) echo "import_paths_bench: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -n "$MMC" && -n "$MMRUN" && -d "$MODEL" ]] || { sed -n '9,10p' "$0" >&2; exit 2; }
RES="$WORK/results"
mkdir -p "$RES"
status=0
"$PY" "$HERE/hf_llava_bench.py" inputs "$MODEL" --out "$WORK/inputs" > "$RES/inputs.log" 2>&1 ||
  { tail -5 "$RES/inputs.log"; exit 1; }
IDS="$(cat "$WORK/inputs/prompt_ids.txt")"
for p in $PATHS; do
  echo "compile --from $p: $MMC compile $MODEL --from $p -o $WORK/$p.plan --target cuda --dtype bf16" >&2
  /usr/bin/time -v "$MMC" compile "$MODEL" --from "$p" -o "$WORK/$p.plan" --target cuda --dtype bf16 \
    > "$RES/compile_$p.log" 2>&1 || { tail -20 "$RES/compile_$p.log"; status=1; }
done
for ((r = 1; r <= RUNS; r++)); do
  for p in $PATHS; do
    [[ -f "$WORK/$p.plan" ]] || continue
    "$MMRUN" "$WORK/$p.plan" --device cuda --pixel-values "$WORK/inputs/pix1.npy" --input-ids "$IDS" \
      --max-new-tokens "$NEW_TOKENS" --warmup 1 --json > "$RES/gen_${p}_$r.json" 2> "$RES/gen_${p}_$r.log" ||
      { tail -5 "$RES/gen_${p}_$r.log"; rm -f "$RES/gen_${p}_$r.json"; status=1; }
  done
done
"$PY" "$HERE/import_paths_table.py" "$WORK" $PATHS || status=1
exit $status
