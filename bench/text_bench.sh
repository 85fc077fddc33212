#!/usr/bin/env bash
# The text path on llava-1b (CLIP-B/16-224 + a 1.1B Llama, random weights, Mistral's 32064-id
# vocabulary) on one CUDA GPU, side by side in one run: `mmrun --image --prompt` (bf16 plan,
# greedy and sampled) against `mmrun --input-ids` on the same prompt ids (what the text path
# costs) and transformers (LlavaProcessor + generate, bf16 eager; bench/text_bench.py).
#
#   bash bench/text_bench.sh MMC MMRUN GEN_TOOLS [WORK] [NEW_TOKENS]
#
# GEN_TOOLS holds gen_models.py (../shared/tools); WORK (default /tmp/text-bench) gets the
# model (gen_models.py llava-1b-ts: minutes) and results/*.json; one JSON line per run on
# stdout. Every mmrun run: --warmup 1 --ignore-eos --max-new-tokens NEW_TOKENS (default 128).
set -uo pipefail
mmc=$1 mmrun=$2 tools=$3 work=${4:-/tmp/text-bench} n=${5:-128}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
model=$work/llava-1b-ts res=$work/results
mkdir -p "$res"
image=$repo/models/tiny-llava-chat/reference/image.png
question="Describe the image."
if [ ! -f "$model/onnx/decoder_model_merged.onnx" ]; then
  t0=$(date +%s)
  GEN_DIR=$work NO_TAR=1 python3 "$tools/gen_models.py" llava-1b-ts > "$res/gen.log" 2>&1 || { tail "$res/gen.log"; exit 1; }
  echo "gen: $(( $(date +%s) - t0 )) s" >&2
fi
python3 "$here/text_bench.py" setup "$model" "$repo/models/tiny-llava-chat" >&2
t0=$(date +%s%N)
"$mmc" compile "$model" -o "$work/plan.fb" --target cuda --dtype bf16 > "$res/compile.log" 2>&1 || { tail "$res/compile.log"; exit 1; }
echo "compile: $(( ($(date +%s%N) - t0) / 1000000 )) ms" >&2
common=(--device cuda --warmup 1 --ignore-eos --max-new-tokens "$n" --json)
"$mmrun" "$work/plan.fb" "${common[@]}" --image "$image" --prompt "$question" > "$res/text-greedy.json"
ids=$(python3 -c 'import json,sys; print(",".join(map(str, json.load(open(sys.argv[1]))["prompt_ids"])))' "$res/text-greedy.json")
"$mmrun" "$work/plan.fb" "${common[@]}" --image "$image" --input-ids "$ids" > "$res/ids-greedy.json"
"$mmrun" "$work/plan.fb" "${common[@]}" --image "$image" --prompt "$question" --temperature 0.8 --top-p 0.9 --seed 1 > "$res/text-sampled.json"
python3 "$here/text_bench.py" hf "$model" "$image" "$question" "$n" > "$res/hf-greedy.json" 2> "$res/hf-greedy.log" || tail "$res/hf-greedy.log"
python3 "$here/text_bench.py" hf "$model" "$image" "$question" "$n" --sample > "$res/hf-sampled.json" 2> "$res/hf-sampled.log" || tail "$res/hf-sampled.log"
for r in text-greedy ids-greedy text-sampled; do
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); t=j["timing"]; print(json.dumps({"run": sys.argv[2], "prompt_tokens": j["prompt_tokens"], "new_tokens": len(j["tokens"]), "preprocess_ms": t.get("preprocess_ms"), "time_to_first_token_ms": t["time_to_first_token_ms"], "decode_tokens_per_s": t["decode_tokens_per_s"]}))' "$res/$r.json" "mmrun $r"
done
for r in hf-greedy hf-sampled; do
  [ -s "$res/$r.json" ] && python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); j["run"]=sys.argv[2]; print(json.dumps(j))' "$res/$r.json" "$r"
done
