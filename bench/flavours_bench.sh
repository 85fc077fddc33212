#!/usr/bin/env bash
# One model in several export flavours (fp32 / fp16, TorchScript / dynamo, Optimum, ...),
# compiled and run side by side by mmc/mmrun in one run: the fused ops of each flavour, its
# decode tokens/s, time to first token, vision time and peak device memory, and whether
# each flavour is within 5 % (decode) and 10 % (TTFT) of the first one with the same fused
# ops (issue 13's acceptance). HF peers for the same shape come from bench/gpu_bench.sh.
#
# Usage: bash bench/flavours_bench.sh --mmc PATH --mmrun PATH [--device cuda|cpu]
#          [--dtype bf16] [--work DIR] [--new-tokens 128] [--runs 3] NAME=MODEL_DIR ...
#
# MODEL_DIR: a LLaVA folder (config.json, onnx/{vision_encoder,embed_tokens,
# decoder_model_merged}.onnx), e.g. from ../shared/tools/gen_models.py (fp32) and
# gen_half.py (fp16). The inputs (bench/hf_llava_bench.py inputs: one image, 32 text tokens)
# come from the first folder's config. Per flavour, WORK/NAME/ holds compile.log (mmc
# compile --stats), fused.txt (test/e2e/Inputs/fused_counts.py) and gen_R.json (mmrun
# --json, after one warm-up generation); WORK/table.md is the table (bench/flavours_table.py).
# --device cpu runs the same on the CPU (for tiny models; the dtype then defaults to the
# model's own). Exit status 1 when a step failed or a flavour misses the acceptance.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$HERE")"
PY="${PYTHON:-python3}"
MMC="" MMRUN="" DEVICE=cuda DTYPE="" WORK=/tmp/mmc-flavours NEW_TOKENS=128 RUNS=3
FLAVOURS=()

usage() { sed -n '7,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
need_value() { [[ $# -ge 2 && -n "$2" ]] || { echo "flavours_bench: $1 needs a value" >&2; usage; }; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --mmc) need_value "$@"; MMC="$2"; shift 2 ;;
    --mmrun) need_value "$@"; MMRUN="$2"; shift 2 ;;
    --device) need_value "$@"; DEVICE="$2"; shift 2 ;;
    --dtype) need_value "$@"; DTYPE="$2"; shift 2 ;;
    --work) need_value "$@"; WORK="$2"; shift 2 ;;
    --new-tokens) need_value "$@"; NEW_TOKENS="$2"; shift 2 ;;
    --runs) need_value "$@"; RUNS="$2"; shift 2 ;;
    -h|--help) usage ;;
    *=*) FLAVOURS+=("$1"); shift ;;
    *) echo "flavours_bench: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ -x "$MMC" && -x "$MMRUN" ]] || { echo "flavours_bench: --mmc and --mmrun must be executables" >&2; usage; }
[[ "$DEVICE" == cuda || "$DEVICE" == cpu ]] || { echo "flavours_bench: --device is cuda or cpu" >&2; exit 2; }
[[ ${#FLAVOURS[@]} -gt 0 ]] || { echo "flavours_bench: give at least one NAME=MODEL_DIR" >&2; usage; }
for n in "$NEW_TOKENS" "$RUNS"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "flavours_bench: '$n' is not a positive integer" >&2; exit 2; }
done
[[ -z "$DTYPE" && "$DEVICE" == cuda ]] && DTYPE=bf16
mkdir -p "$WORK" && WORK="$(cd "$WORK" && pwd)" || exit 2
log() { echo "[flavours_bench $(date -u +%H:%M:%S)] $*" >&2; }
failed=0

first_dir="${FLAVOURS[0]#*=}"
log "inputs from $first_dir/config.json"
"$PY" "$HERE/hf_llava_bench.py" inputs "$first_dir" --out "$WORK/inputs" >"$WORK/inputs.json" ||
  { log "inputs: FAILED"; exit 1; }
ids="$(cat "$WORK/inputs/prompt_ids.txt")"

target=(--target cpu); [[ $DEVICE == cuda ]] && target=(--target cuda)
dtype=(); [[ -n "$DTYPE" ]] && dtype=(--dtype "$DTYPE")
names=() compiled=()
for spec in "${FLAVOURS[@]}"; do
  name="${spec%%=*}" dir="${spec#*=}" out="$WORK/${spec%%=*}"
  names+=("$name")
  mkdir -p "$out" && rm -f "$out"/gen_*.json
  log "$name: $MMC compile $dir -o $out/plan.fb ${target[*]} ${dtype[*]} --stats"
  t0=$(date +%s.%N)
  if ! "$MMC" compile "$dir" -o "$out/plan.fb" "${target[@]}" "${dtype[@]}" --stats >"$out/compile.log" 2>&1; then
    log "$name: compile FAILED"; tail -n 20 "$out/compile.log" >&2; failed=1; continue
  fi
  awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f\n", b - a }' >"$out/compile_seconds"
  "$PY" "$REPO/test/e2e/Inputs/fused_counts.py" <"$out/compile.log" >"$out/fused.txt" || failed=1
  compiled+=("$name")
done
# The runs go round the flavours (run 1 of each, then run 2, ...), so that a drift of the
# machine over the minutes of the benchmark (clocks, other load) falls on every flavour alike.
for ((r = 1; r <= RUNS; r++)); do
  for name in "${compiled[@]}"; do
    out="$WORK/$name"
    if ! "$MMRUN" "$out/plan.fb" --device "$DEVICE" --pixel-values "$WORK/inputs/pix1.npy" \
        --input-ids "$ids" --max-new-tokens "$NEW_TOKENS" --warmup 1 --json \
        >"$out/gen_$r.json" 2>"$out/gen_$r.log"; then
      log "$name: mmrun FAILED (run $r)"; tail -n 20 "$out/gen_$r.log" >&2; rm -f "$out/gen_$r.json"; failed=1
    fi
  done
done
"$PY" "$HERE/flavours_table.py" --work "$WORK" --device "$DEVICE" "${names[@]}" | tee "$WORK/table.md"
[[ ${PIPESTATUS[0]} -eq 0 && $failed -eq 0 ]]
