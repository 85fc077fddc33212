#!/usr/bin/env bash
# llava-1b-ts on one CUDA GPU: mmc/mmrun (bf16, with and without CUDA graphs) against HF
# transformers in PyTorch (bf16 eager with SDPA, and torch.compile), plus the device's copy
# bandwidth for the decode roofline; prints one markdown table (bench/gpu_table.py).
#
# Usage: bash bench/gpu_bench.sh --mmc PATH --mmrun PATH [--work DIR] [--shared DIR]
#          [--model DIR] [--skip-gen] [--skip-compile] [--skip-mmrun] [--skip-hf] [--skip-hf-eager]
#          [--skip-hf-compile]
#          [--new-tokens 128] [--runs 3] [--repeat 20] [--hf-compile-timeout 480]
#
# Phases, each timed on stderr and recorded in WORK/results/phases.tsv:
#   versions   GPU name/driver (nvidia-smi), torch, transformers, mmc/mmrun versions
#   gen        GEN_DIR=WORK NO_TAR=1 python3 SHARED/tools/gen_models.py llava-1b-ts (minutes:
#              ONNX export of a 1.1B model on the CPU)           [--skip-gen: reuse WORK/llava-1b-ts]
#              --model DIR: benchmark that LLaVA folder instead (config.json, onnx/, safetensors;
#              any export flavour or shape, e.g. models/recipes/gen_big_flavour.py llava-7b f16
#              ts --weights); no gen phase
#   inputs     pix1.npy, pix8.npy, prompt_ids.txt (bench/hf_llava_bench.py inputs)
#   bandwidth  1 GiB device-to-device copy (torch)
#   compile    mmc compile MODEL -o WORK/plan.fb --target cuda --dtype bf16  [--skip-compile]
#   mmrun      RUNS generations (--warmup 1, --max-new-tokens N) and single-graph vision
#              encoder runs (batch 1 and 8, --repeat REPEAT), each with and without
#              --no-cuda-graphs                                                [--skip-mmrun]
#   hf_eager   bench/hf_llava_bench.py eager                    [--skip-hf, --skip-hf-eager]
#   hf_compile bench/hf_llava_bench.py compile (killed after --hf-compile-timeout s)
#                                                             [--skip-hf, --skip-hf-compile]
#   table      bench/gpu_table.py: the table from whatever results WORK/results holds, so a
#              run split over several calls (e.g. --skip-compile --skip-mmrun ... on a later
#              call, same WORK) still ends with the whole table.
# PYTHON (default python3) runs the Python parts; WORK (default /tmp/mmc-bench) needs about
# 15 GB; SHARED defaults to ../shared (or shared/, shared-dist/ inside the repository). With
# $OUT set, results/ and the summary JSON are copied to $OUT/gpu_bench/ after every phase.
# Exit status 1 if a phase failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$HERE")"
PY="${PYTHON:-python3}"
MMC="" MMRUN="" WORK="/tmp/mmc-bench" SHARED="" MODEL=""
SKIP_GEN=0 SKIP_COMPILE=0 SKIP_MMRUN=0 SKIP_HF=0 SKIP_HF_EAGER=0 SKIP_HF_COMPILE=0
NEW_TOKENS=128 RUNS=3 REPEAT=20 HF_COMPILE_TIMEOUT=480
MODEL_NAME="llava-1b-ts"

usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
need_value() { [[ $# -ge 2 && -n "$2" ]] || { echo "gpu_bench: $1 needs a value" >&2; usage; }; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --mmc) need_value "$@"; MMC="$2"; shift 2 ;;
    --mmrun) need_value "$@"; MMRUN="$2"; shift 2 ;;
    --work) need_value "$@"; WORK="$2"; shift 2 ;;
    --shared) need_value "$@"; SHARED="$2"; shift 2 ;;
    --model) need_value "$@"; MODEL="$2"; SKIP_GEN=1; shift 2 ;;
    --new-tokens) need_value "$@"; NEW_TOKENS="$2"; shift 2 ;;
    --runs) need_value "$@"; RUNS="$2"; shift 2 ;;
    --repeat) need_value "$@"; REPEAT="$2"; shift 2 ;;
    --hf-compile-timeout) need_value "$@"; HF_COMPILE_TIMEOUT="$2"; shift 2 ;;
    --skip-gen) SKIP_GEN=1; shift ;;
    --skip-compile) SKIP_COMPILE=1; shift ;;
    --skip-mmrun) SKIP_MMRUN=1; shift ;;
    --skip-hf) SKIP_HF=1; shift ;;
    --skip-hf-eager) SKIP_HF_EAGER=1; shift ;;
    --skip-hf-compile) SKIP_HF_COMPILE=1; shift ;;
    -h|--help) usage ;;
    *) echo "gpu_bench: unknown argument '$1'" >&2; usage ;;
  esac
done
for n in "$NEW_TOKENS" "$RUNS" "$REPEAT" "$HF_COMPILE_TIMEOUT"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "gpu_bench: '$n' is not a positive integer" >&2; exit 2; }
done

if [[ -z "$SHARED" ]]; then  # ../shared next to the repository, or a copy carried inside it
  for d in "$REPO/../shared" "$REPO/shared" "$REPO/shared-dist"; do
    [[ -f "$d/tools/gen_models.py" ]] && { SHARED="$d"; break; }
  done
fi
# This benchmark is for a machine with an NVIDIA GPU: say so before minutes of model export.
if ! nvidia-smi -L > /dev/null 2>&1; then
  echo "gpu_bench: no NVIDIA GPU here (nvidia-smi -L failed); run it on the GPU machine" >&2
  exit 2
fi
if [[ $SKIP_GEN -eq 0 && ! -f "$SHARED/tools/gen_models.py" ]]; then
  echo "gpu_bench: no tools/gen_models.py under --shared '${SHARED:-../shared}'" >&2; exit 2
fi
abspath() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
# --mmc is needed unless --skip-compile, --mmrun unless --skip-mmrun (versions are printed if given)
for t in MMC MMRUN; do
  skip=$SKIP_COMPILE; [[ $t == MMRUN ]] && skip=$SKIP_MMRUN
  if [[ -z "${!t}" ]]; then
    [[ $skip -eq 1 ]] && continue
    echo "gpu_bench: --$(tr 'A-Z' 'a-z' <<<"$t") is required" >&2; usage
  fi
  [[ -x "${!t}" ]] || { echo "gpu_bench: ${!t} is not an executable file" >&2; exit 2; }
  printf -v "$t" '%s' "$(abspath "${!t}")"
done

mkdir -p "$WORK/results" || exit 2
WORK="$(cd "$WORK" && pwd)"
RES="$WORK/results" INPUTS="$WORK/inputs" PLAN="$WORK/plan.fb"
if [[ -n "$MODEL" ]]; then
  [[ -d "$MODEL" ]] || { echo "gpu_bench: --model '$MODEL' is not a folder" >&2; exit 2; }
  MODEL="$(cd "$MODEL" && pwd)"
else
  MODEL="$WORK/$MODEL_NAME"
fi
FAILED=() IDS=""

log() { echo "[gpu_bench $(date -u +%H:%M:%S)] $*" >&2; }

# shown CMD...: the command as one shell line (quoted where needed), the long prompt id list
# written as "$(cat .../prompt_ids.txt)", which is what it holds.
shown() {
  local a out=""
  for a in "$@"; do
    if [[ -n "${IDS:-}" && "$a" == "$IDS" ]]; then
      a="\"\$(cat $INPUTS/prompt_ids.txt)\""
    elif [[ "$a" =~ [^A-Za-z0-9_./=,:+@%-] ]]; then
      a="'${a//\'/\'\\\'\'}'"
    fi
    out+="${out:+ }$a"
  done
  printf '%s\n' "$out"
}

# record PHASE CMD...: adds the exact command to commands_PHASE.txt (once).
record() {
  local phase="$1" line; shift
  line="$(shown "$@")"
  grep -qxF -- "$line" "$RES/commands_$phase.txt" 2>/dev/null || echo "$line" >>"$RES/commands_$phase.txt"
}

# runj PHASE OUT.json LOG CMD...: runs CMD with stdout to OUT.json, stderr to LOG; prints the
# log's tail and returns the status on failure.
runj() {
  local phase="$1" out="$2" errlog="$3"; shift 3
  record "$phase" "$@"
  log "$phase: $(shown "$@")"
  "$@" >"$out" 2>"$errlog"
  local rc=$?
  if [[ $rc -ne 0 ]]; then
    log "$phase: FAILED (exit $rc$([[ $rc -eq 124 ]] && echo ", timed out")), see $errlog"
    rm -f "$out"  # no stale or partial result for the table
    tail -n 20 "$errlog" >&2
  fi
  return $rc
}

sync_out() {
  [[ -n "${OUT:-}" ]] || return 0
  mkdir -p "$OUT/gpu_bench"
  local f
  for f in "$RES"/*; do  # logs can be long (torch.compile): keep their last 200 kB
    case "$f" in
      *.log) tail -c 200000 "$f" >"$OUT/gpu_bench/$(basename "$f")" ;;
      *) cp "$f" "$OUT/gpu_bench/" ;;
    esac
  done
}

# phase NAME FUNCTION: runs FUNCTION, times it, records the outcome in phases.tsv.
phase() {
  local name="$1" fn="$2" t0 rc secs
  rm -f "$RES/commands_$name.txt"
  t0=$(date +%s.%N)
  log "phase $name: start"
  "$fn"
  rc=$?
  secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  [[ $rc -eq 0 ]] || FAILED+=("$name")
  { grep -v "^$name	" "$RES/phases.tsv" 2>/dev/null
    printf '%s\t%s\t%s\n' "$name" "$([[ $rc -eq 0 ]] && echo ok || echo FAILED)" "$secs"; } \
    >"$RES/phases.tsv.new" && mv "$RES/phases.tsv.new" "$RES/phases.tsv"
  log "phase $name: $([[ $rc -eq 0 ]] && echo done || echo FAILED) in $secs s"
  sync_out
  return $rc
}

do_versions() {
  local gpu ver_mmc ver_mmrun commit
  gpu="$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -n 1)"
  ver_mmc="not given"; [[ -n "$MMC" ]] && ver_mmc="$MMC: $("$MMC" --version 2>&1 | tr '\n' ' ')"
  ver_mmrun="not given"; [[ -n "$MMRUN" ]] && ver_mmrun="$MMRUN: $("$MMRUN" --version 2>&1 | tr '\n' ' ')"
  commit="$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  record versions nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  GPU="$gpu" VMMC="$ver_mmc" VMMRUN="$ver_mmrun" COMMIT="$commit" "$PY" - >"$RES/versions.json" <<'EOF'
import json, os, platform
v = {"gpu (name, driver, memory)": os.environ["GPU"], "mmc": os.environ["VMMC"].strip(),
     "mmrun": os.environ["VMMRUN"].strip(), "repository commit": os.environ["COMMIT"],
     "python": platform.python_version()}
try:
    import torch, transformers
    v.update(torch=torch.__version__, torch_cuda=torch.version.cuda,
             transformers=transformers.__version__)
except Exception as ex:
    v["torch/transformers"] = f"import failed: {ex!r}"
print(json.dumps(v, indent=1))
EOF
  cat "$RES/versions.json" >&2
}

check_model() {
  local f missing=0
  for f in config.json onnx/vision_encoder.onnx onnx/embed_tokens.onnx onnx/decoder_model_merged.onnx; do
    [[ -f "$MODEL/$f" ]] || { log "missing $MODEL/$f"; missing=1; }
  done
  [[ -f "$MODEL/model.safetensors" || -f "$MODEL/model.safetensors.index.json" ]] ||
    { log "missing $MODEL/model.safetensors"; missing=1; }
  return $missing
}

do_gen() {
  record gen env "GEN_DIR=$WORK" NO_TAR=1 "$PY" "$SHARED/tools/gen_models.py" "$MODEL_NAME"
  log "gen: generating $MODEL (takes minutes)"
  GEN_DIR="$WORK" NO_TAR=1 "$PY" "$SHARED/tools/gen_models.py" "$MODEL_NAME" >"$RES/gen.log" 2>&1
  local rc=$?
  # gen_models.py logs a failed model and still exits 0: look for it
  if [[ $rc -ne 0 ]] || grep -q "$MODEL_NAME FAILED" "$RES/gen.log"; then
    tail -n 30 "$RES/gen.log" >&2
    return 1
  fi
  check_model
}

do_inputs() {
  runj inputs "$RES/inputs.json" "$RES/inputs.log" \
    "$PY" "$HERE/hf_llava_bench.py" inputs "$MODEL" --out "$INPUTS"
}

do_bandwidth() {
  runj bandwidth "$RES/bandwidth.json" "$RES/bandwidth.log" "$PY" "$HERE/hf_llava_bench.py" bandwidth
}

do_compile() {
  record compile "$MMC" compile "$MODEL" -o "$PLAN" --target cuda --dtype bf16
  log "compile: $MMC compile $MODEL -o $PLAN --target cuda --dtype bf16"
  "$MMC" compile "$MODEL" -o "$PLAN" --target cuda --dtype bf16 >"$RES/compile.log" 2>&1 ||
    { tail -n 30 "$RES/compile.log" >&2; return 1; }
  ls -l "$PLAN" >&2
}

do_mmrun() {
  [[ -f "$PLAN" ]] || { log "no plan $PLAN (run without --skip-compile)"; return 1; }
  local mode flag r b rc=0
  IDS="$(cat "$INPUTS/prompt_ids.txt")" || return 1
  rm -f "$RES"/mmrun_*.json "$RES"/mmrun_*.log
  for mode in graphs nographs; do
    flag=(); [[ $mode == nographs ]] && flag=(--no-cuda-graphs)
    for ((r = 1; r <= RUNS; r++)); do
      runj mmrun "$RES/mmrun_gen_${mode}_$r.json" "$RES/mmrun_gen_${mode}_$r.log" \
        "$MMRUN" "$PLAN" --device cuda --pixel-values "$INPUTS/pix1.npy" --input-ids "$IDS" \
        --max-new-tokens "$NEW_TOKENS" --warmup 1 --json "${flag[@]}" || rc=1
    done
    for b in 1 8; do
      runj mmrun "$RES/mmrun_vision_b${b}_$mode.json" "$RES/mmrun_vision_b${b}_$mode.log" \
        "$MMRUN" "$PLAN" --device cuda --function vision_encoder \
        --input "pixel_values=$INPUTS/pix$b.npy" --repeat "$REPEAT" --json "${flag[@]}" || rc=1
    done
  done
  # failed runs leave no JSON behind, so the table shows n/a rather than a stale number
  for r in "$RES"/mmrun_*.json; do
    "$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$r" 2>/dev/null || rm -f "$r"
  done
  return $rc
}

do_hf_eager() {
  runj hf_eager "$RES/hf_eager.json" "$RES/hf_eager.log" "$PY" "$HERE/hf_llava_bench.py" eager \
    "$MODEL" --inputs "$INPUTS" --new-tokens "$NEW_TOKENS" --runs "$RUNS" --repeat $((REPEAT - 1))
}

do_hf_compile() {
  runj hf_compile "$RES/hf_compile.json" "$RES/hf_compile.log" timeout "$HF_COMPILE_TIMEOUT" \
    "$PY" "$HERE/hf_llava_bench.py" compile "$MODEL" --inputs "$INPUTS" \
    --new-tokens "$NEW_TOKENS" --runs "$RUNS" --repeat $((REPEAT - 1))
}

do_table() {
  record table "$PY" "$HERE/gpu_table.py" --results "$RES" --model "$MODEL" --new-tokens "$NEW_TOKENS"
  "$PY" "$HERE/gpu_table.py" --results "$RES" --model "$MODEL" --new-tokens "$NEW_TOKENS" \
    --summary "$RES/gpu_bench_summary.json" | tee "$RES/table.md"
}

phase versions do_versions
if [[ $SKIP_GEN -eq 0 ]]; then
  phase gen do_gen
elif ! check_model; then
  log "--skip-gen: no complete model in $MODEL"; FAILED+=(gen)
fi
if check_model >/dev/null 2>&1; then
  phase inputs do_inputs
  phase bandwidth do_bandwidth
  [[ $SKIP_COMPILE -eq 1 ]] || phase compile do_compile
  [[ $SKIP_MMRUN -eq 1 ]] || phase mmrun do_mmrun
  [[ $SKIP_HF -eq 1 || $SKIP_HF_EAGER -eq 1 ]] || phase hf_eager do_hf_eager
  [[ $SKIP_HF -eq 1 || $SKIP_HF_COMPILE -eq 1 ]] || phase hf_compile do_hf_compile
else
  log "no model: skipping every phase that needs it"
fi
phase table do_table
if [[ ${#FAILED[@]} -gt 0 ]]; then
  log "failed phases: ${FAILED[*]}"
  exit 1
fi
