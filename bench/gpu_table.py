#!/usr/bin/env python3
"""Prints the llava-1b-ts GPU comparison table (markdown) from the JSON files that
bench/gpu_bench.sh leaves in its results folder, and writes a JSON summary.

Reads (each optional; a missing or unreadable file gives "n/a" and a note):
  mmrun_gen_{graphs,nographs}_<i>.json   `mmrun plan.fb --device cuda ... --json` generations
  mmrun_vision_b{1,8}_{graphs,nographs}.json  `mmrun --function vision_encoder --repeat N --json`
  hf_eager.json, hf_compile.json, bandwidth.json, inputs.json   bench/hf_llava_bench.py modes
  versions.json, phases.tsv, commands_<phase>.txt                 written by gpu_bench.sh
and MODEL_DIR's safetensors header (--model) for the decode weight bytes.

Rows: vision encoder ms at batch 1 and 8 (mmrun: the mean of runs 2..N of the single-graph
run, host copies included; HF: see hf_llava_bench.py), TTFT ms, decode tokens/s (medians over
the generation runs), peak device memory MiB (mmrun: memory.peak_device_mib, the largest of
the runs; HF: torch's max_memory_reserved), and decode as a fraction of the bandwidth roofline:
decode tok/s / (copy bandwidth / decode weight bytes), where the decode weight bytes are all
decoder weights one step reads (every language-model tensor but the embedding table, plus
lm_head) at 2 bytes (bf16). Ratio columns: mmrun (CUDA graphs) / HF, value over value.

Usage: gpu_table.py --results DIR [--model MODEL_DIR] [--new-tokens 128] [--summary FILE]
(--summary defaults to $OUT/gpu_bench_summary.json when OUT is set). Exit status 0.
"""
import argparse
import glob
import json
import os
import statistics
import struct

COLUMNS = [("mmrun", "mmrun (CUDA graphs)"), ("mmrun_nographs", "mmrun (--no-cuda-graphs)"),
           ("hf_eager", "HF eager"), ("hf_compile", "HF torch.compile")]
PHASE_ORDER = ["versions", "gen", "inputs", "bandwidth", "compile", "mmrun", "hf_eager",
               "hf_compile", "table"]


def load(path, notes):
    """The JSON object in path, or None (with a note) if it is missing or unreadable."""
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        notes.append(f"missing: {os.path.basename(path)}")
    except (OSError, ValueError) as ex:
        notes.append(f"unreadable: {os.path.basename(path)} ({ex})")
    return None


def safetensors_headers(model_dir):
    """{tensor name: header entry} over model.safetensors or the shards its index names."""
    index = os.path.join(model_dir, "model.safetensors.index.json")
    if os.path.exists(index):
        with open(index) as f:
            files = sorted(set(json.load(f)["weight_map"].values()))
    else:
        files = ["model.safetensors"]
    out = {}
    for name in files:
        with open(os.path.join(model_dir, name), "rb") as f:
            (n,) = struct.unpack("<Q", f.read(8))
            out.update(json.loads(f.read(n)))
    out.pop("__metadata__", None)
    return out


def decode_weight_bytes(model_dir, bytes_per_element=2):
    """Bytes one decode step reads from the decoder weights: every tensor under a
    'language_model' or 'lm_head' name component except the embedding table, at
    bytes_per_element (the plan's bf16)."""
    total = 0
    for name, entry in safetensors_headers(model_dir).items():
        parts = name.split(".")
        if ("language_model" in parts or "lm_head" in parts) and "embed_tokens" not in parts:
            count = 1
            for d in entry["shape"]:
                count *= d
            total += count
    return total * bytes_per_element


def mmrun_vision_ms(j):
    """Mean of runs 2..N of a single-graph mmrun --repeat N report (the first run, with its
    one-time setup, left out); the plain mean when N is 1."""
    runs = j["runs"]
    if runs < 2:
        return j["mean_run_ms"]
    return (j["mean_run_ms"] * runs - j["first_run_ms"]) / (runs - 1)


def mmrun_generation(results, mode, notes):
    """Medians over the mmrun_gen_<mode>_<i>.json runs; None if there is none."""
    runs = []
    for path in sorted(glob.glob(os.path.join(results, f"mmrun_gen_{mode}_*.json"))):
        j = load(path, notes)
        if j is not None:
            runs.append(j)
    if not runs:
        notes.append(f"no mmrun generation results for {mode}")
        return None
    peaks = [r.get("memory", {}).get("peak_device_mib") for r in runs]
    return {"ttft_ms": statistics.median(r["timing"]["time_to_first_token_ms"] for r in runs),
            "decode_tok_s": statistics.median(r["timing"]["decode_tokens_per_s"] for r in runs),
            "peak_mib": max(peaks) if None not in peaks else None,
            "tokens": runs[-1]["tokens"], "runs": len(runs),
            "min_tokens": min(len(r["tokens"]) for r in runs),
            "stopped_at_eos": any(r.get("stopped_at_eos") for r in runs),
            "cuda_graphs": runs[-1].get("cuda_graphs"),
            "memory": runs[-1].get("memory", {}),
            "vision_in_loop_ms": statistics.median(r["timing"]["vision_encoder_ms"] for r in runs)}


def guarded(fn, what, notes):
    """fn(), or None with a note when a result file lacks a field the table reads."""
    try:
        return fn()
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as ex:
        notes.append(f"unexpected content in {what}: {ex!r}")
        return None


def collect(results, notes):
    """{column: {metric: value or None}} plus the raw extras the notes need."""
    cols = {c: {} for c, _ in COLUMNS}
    for c, mode in (("mmrun", "graphs"), ("mmrun_nographs", "nographs")):
        g = guarded(lambda: mmrun_generation(results, mode, notes),
                    f"mmrun_gen_{mode}_*.json", notes) or {}
        cols[c].update(ttft_ms=g.get("ttft_ms"), decode_tok_s=g.get("decode_tok_s"),
                       peak_mib=g.get("peak_mib"), gen=g)
        for b in (1, 8):
            name = f"mmrun_vision_b{b}_{mode}.json"
            j = load(os.path.join(results, name), notes)
            cols[c][f"vision_b{b}"] = guarded(lambda: mmrun_vision_ms(j), name, notes) if j else None
    for c in ("hf_eager", "hf_compile"):
        j = load(os.path.join(results, f"{c}.json"), notes) or {}
        for key in ("vision_error", "generation_error"):
            if j.get(key):
                notes.append(f"{c} {key}: {j[key]}")
        cols[c].update(vision_b1=j.get("vision_ms_b1"), vision_b8=j.get("vision_ms_b8"),
                       ttft_ms=j.get("ttft_ms"), decode_tok_s=j.get("decode_tok_s"),
                       peak_mib=j.get("memory", {}).get("peak_reserved_mib") if "ttft_ms" in j else None,
                       raw=j)
    return cols


def fmt(value, kind):
    if value is None:
        return "n/a"
    if kind == "frac":
        return f"{100 * value:.1f} %"
    if kind == "mib":
        return f"{value:.0f}"
    if kind == "tok":
        return f"{value:.1f}"
    return f"{value:.2f}" if value < 100 else f"{value:.1f}"


def ratio(a, b):
    return a / b if a is not None and b else None


def table(cols, rows):
    """Markdown lines of the table: one row per (label, metric, kind)."""
    head = ["llava-1b-ts, bf16, batch 1 unless noted"] + [t for _, t in COLUMNS] + \
        ["mmrun / HF eager", "mmrun / HF torch.compile"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label, metric, kind in rows:
        vals = [cols[c].get(metric) for c, _ in COLUMNS]
        cells = [fmt(v, kind) for v in vals]
        for other in ("hf_eager", "hf_compile"):
            r = ratio(cols["mmrun"].get(metric), cols[other].get(metric))
            cells.append("n/a" if r is None else f"{r:.3g}")
        lines.append("| " + " | ".join([label] + cells) + " |")
    return lines


def prefix_match(a, b):
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def token_notes(cols, new_tokens):
    out = []
    for c in ("mmrun", "mmrun_nographs"):
        g = cols[c]["gen"]
        if g and (g["min_tokens"] < new_tokens or g["stopped_at_eos"]):
            out.append(f"WARNING: a {c} run generated {g['min_tokens']} tokens (stopped at EOS: "
                       f"{g['stopped_at_eos']}), not {new_tokens}: its decode rate covers fewer steps")
    a, b = cols["mmrun"]["gen"], cols["mmrun_nographs"]["gen"]
    if a and b:
        same = a["tokens"] == b["tokens"]
        out.append(f"mmrun tokens with and without CUDA graphs: {'identical' if same else 'DIFFERENT'}"
                   f" ({prefix_match(a['tokens'], b['tokens'])} of {len(a['tokens'])} agree from the start)")
    hf = cols["hf_eager"]["raw"].get("tokens")
    if a and hf:
        out.append(f"mmrun vs HF eager greedy tokens (both bf16, may drift apart): first "
                   f"{prefix_match(a['tokens'], hf)} of {min(len(a['tokens']), len(hf))} agree")
    return out


def acceptance(cols):
    """The issue's three acceptance checks on the mmrun (CUDA graphs) column."""
    m, e = cols["mmrun"], cols["hf_eager"]
    checks = []
    def add(name, value, ok):
        checks.append({"check": name, "value": value, "pass": ok})
    r = ratio(m.get("decode_tok_s"), e.get("decode_tok_s"))
    add("decode >= 10x HF eager", r, None if r is None else r >= 10)
    f = m.get("roofline")
    add("decode >= 50% of the bandwidth roofline", f, None if f is None else f >= 0.5)
    r = ratio(m.get("ttft_ms"), e.get("ttft_ms"))
    add("TTFT <= 0.5x HF eager", r, None if r is None else r <= 0.5)
    return checks


def read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def weight_bytes(model_dir, hf, notes):
    """(decode weight bytes, where they come from): the safetensors header when the model
    folder is there, else the HF peer's count; notes a disagreement between the two."""
    wbytes, source = None, None
    if model_dir and os.path.isdir(model_dir):
        wbytes, source = decode_weight_bytes(model_dir), "safetensors header of " + model_dir
    elif hf.get("decode_weight_bytes"):
        wbytes, source = hf["decode_weight_bytes"], "HF model parameters"
    if wbytes and hf.get("decode_weight_bytes") and hf["decode_weight_bytes"] != wbytes:
        notes.append(f"decode weight bytes differ: {wbytes} ({source}) vs "
                     f"{hf['decode_weight_bytes']} (HF model)")
    return wbytes, source


def device_only_vision(cols):
    """Vision encoder times without host copies: mmrun's inside its generation (batch 1),
    HF's device-resident runs (CUDA events)."""
    parts = []
    for c, title in COLUMNS:
        g, raw = cols[c].get("gen") or {}, cols[c].get("raw") or {}
        if g.get("vision_in_loop_ms") is not None:
            parts.append(f"{title} b1 {g['vision_in_loop_ms']:.2f}")
        for b in (1, 8):
            if raw.get(f"vision_device_ms_b{b}") is not None:
                parts.append(f"{title} b{b} {raw[f'vision_device_ms_b{b}']:.2f}")
    if not parts:
        return []
    return ["Vision encoder ms without host copies (mmrun: inside its generation; HF: device "
            "time): " + ", ".join(parts) + "."]


def device_memory_lines(cols):
    """mmrun's device memory after its last generation: the three shares against what the
    device reports (cudaMemGetInfo, less what it reported before the first allocation)."""
    m = cols["mmrun"].get("gen", {}).get("memory", {})
    keys = ("weights_bytes", "kv_cache_bytes", "arena_bytes", "device_bytes",
            "device_reported_bytes")
    if not all(isinstance(m.get(k), (int, float)) for k in keys) or not m["device_reported_bytes"]:
        return []
    mib = {k: m[k] / 2**20 for k in keys}
    return [f"Device memory after a generation (mmrun, CUDA graphs on): weights "
            f"{mib['weights_bytes']:.1f} + KV cache {mib['kv_cache_bytes']:.1f} + arena "
            f"{mib['arena_bytes']:.1f} = {mib['device_bytes']:.1f} MiB; the device reports "
            f"{mib['device_reported_bytes']:.1f} MiB in use since before the first allocation "
            f"(the three are {100 * m['device_bytes'] / m['device_reported_bytes']:.1f} % of it)."]


def context_lines(cols, gbs, wbytes, source, roof, inputs, new_tokens):
    """The lines under the table: roofline inputs, prompt, memory definitions, token checks."""
    lines = []
    if gbs and wbytes:
        lines.append(f"Copy bandwidth {gbs:.0f} GB/s (1 GiB device-to-device copy, read + write "
                     f"bytes, median of 20); decode weight bytes {wbytes} ({wbytes / 2**30:.3f} "
                     f"GiB, {source}); roofline {roof:.0f} tokens/s.")
    if inputs:
        lines.append(f"Prompt: {inputs.get('prompt_tokens')} tokens (bos + "
                     f"{inputs.get('image_features')} image tokens + "
                     f"{inputs.get('text_tokens')} text tokens), {inputs.get('image_size')} px image.")
    lines.append("Peak device memory: mmrun's memory.peak_device_mib; HF: torch.cuda."
                 "max_memory_reserved (its caching allocator; the CUDA context is not counted).")
    lines += device_memory_lines(cols)
    lines += device_only_vision(cols)
    lines += token_notes(cols, new_tokens)
    comp = cols["hf_compile"]["raw"]
    if "generate_dynamo_graphs" in comp:
        lines.append(f"HF torch.compile: {comp['generate_dynamo_graphs']} dynamo graphs from "
                     f"generate, warm-up (compilation) {comp.get('generate_warmup_s', 0):.0f} s.")
    return lines


def provenance(results):
    """Versions, phase times and the exact commands, as printed under the table."""
    out = ["", "Versions:"]
    versions = load(os.path.join(results, "versions.json"), []) or {}
    out += [f"- {k}: {v}" for k, v in versions.items()]
    phases = read_text(os.path.join(results, "phases.tsv"))
    if phases:
        out += ["", "Phases (name, status, seconds):", phases.rstrip()]
    out += ["", "Commands:"]
    for p in PHASE_ORDER:
        text = read_text(os.path.join(results, f"commands_{p}.txt"))
        if text:
            out.append(text.rstrip())
    return out, versions


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", required=True)
    ap.add_argument("--model", help="model folder (safetensors header: decode weight bytes)")
    ap.add_argument("--new-tokens", type=int, default=128)
    ap.add_argument("--summary", help="JSON summary path (default $OUT/gpu_bench_summary.json)")
    a = ap.parse_args()
    notes = []
    cols = collect(a.results, notes)
    bw = load(os.path.join(a.results, "bandwidth.json"), notes) or {}
    inputs = load(os.path.join(a.results, "inputs.json"), notes) or {}
    wbytes, source = weight_bytes(a.model, cols["hf_eager"]["raw"], notes)
    gbs = bw.get("copy_bandwidth_gbs")
    roof = gbs * 1e9 / wbytes if gbs and wbytes else None
    for c, _ in COLUMNS:
        cols[c]["roofline"] = ratio(cols[c].get("decode_tok_s"), roof)
    rows = [("vision encoder ms, batch 1", "vision_b1", "ms"),
            ("vision encoder ms, batch 8", "vision_b8", "ms"),
            (f"TTFT ms, 1 image + {inputs.get('text_tokens', 32)} text tokens", "ttft_ms", "ms"),
            (f"decode tokens/s over {a.new_tokens} tokens", "decode_tok_s", "tok"),
            ("peak device memory MiB", "peak_mib", "mib"),
            ("decode / bandwidth roofline", "roofline", "frac")]
    checks = acceptance(cols)
    lines = table(cols, rows) + [""] + context_lines(cols, gbs, wbytes, source, roof, inputs,
                                                     a.new_tokens)
    lines.append("Acceptance (issue 7): " + "; ".join(
        f"{c['check']}: {'n/a' if c['pass'] is None else ('PASS' if c['pass'] else 'FAIL')}"
        + ("" if c["value"] is None else f" ({c['value']:.3g})") for c in checks))
    lines += [f"Note: {n}" for n in notes]
    tail, versions = provenance(a.results)
    path = a.summary or (os.path.join(os.environ["OUT"], "gpu_bench_summary.json")
                         if os.environ.get("OUT") else None)
    if path:
        summary = {"rows": {m: {c: cols[c].get(m) for c, _ in COLUMNS} for _, m, _ in rows},
                   "copy_bandwidth_gbs": gbs, "decode_weight_bytes": wbytes,
                   "roofline_tok_s": roof, "acceptance": checks, "notes": notes,
                   "versions": versions, "inputs": inputs, "table_markdown": "\n".join(lines)}
        with open(path, "w") as f:
            json.dump(summary, f, indent=1)
    print("\n".join(lines + tail))


if __name__ == "__main__":
    main()
