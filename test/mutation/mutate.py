#!/usr/bin/python3
"""The mutation check (issue 19): known faults injected into the compiled IR of a test
model, each compiled to a plan and run through the suite's own end-to-end check
(test/e2e/Inputs/check_generation.py: greedy tokens, image features within 1e-4, prefill
logits within 1e-3). A fault the check does not see is a hole in the tests.

usage: mutate.py MMC MMC_OPT MMRUN MODEL_DIR WORK_DIR [cpu|cuda]
(cuda: the plans are compiled with --target cuda and run with mmrun --device cuda)
MODEL_DIR: a LLaVA folder with references (test/models/tiny-llava-rand-ts: its biases and
norm scales are random, so faults in them show). The unmutated plan must pass the check;
then each mutant must fail it. Prints one line per mutant and "N of N mutants killed";
exits 1 when a mutant survives, one cannot be made, or the unmutated plan fails.

Mutants (each changes one op of the fused IR, -mm-fold-shapes then -mm-fuse-all):
  attention-scale    the decoder's first mm.attention scale x 0.9
  drop-bias          the vision encoder's out_proj-like mm.linear loses its bias
  qkv-bias-order     CLIP's merged q/k/v bias concat with k and v swapped
  norm-scale-ones    the decoder's first mm.rms_norm scale replaced by ones
  gelu-approx        the projector's erf GELU epilogue made the tanh one
  rotary-half-swap   the first mm.rotary reads -sin (rotate_half's halves swapped)
  mask-shift         the decoder's causal comparison t <= s made t < s (the mask off by one)
Each mutant but gelu-approx runs twice: as an f32 plan through the check above, and as a
bf16 plan (--dtype bf16) through the low-precision check (check_generation.py --teacher-eps
2**-7: teacher-forced logits within 2.5 bf16 epsilons of onnxruntime's f32 ones, tokens at
the steps without a near tie). gelu-approx is f32 only: erf and tanh GELU differ by less
than bf16 rounds (its bf16 plan's logits are as close to the reference as the unmutated
one's, 1.3 eps), so no bf16 check can see it.
Two more live in the runtime, not the IR; they run the unmutated plan with the runtime's
fault switch set (MM_INJECT_FAULT, runtime/core/InjectedFault.h):
  kv-append-off-by-one  the prefill advances the KV cache one position too far: each decode
                        step's row lands one past where it belongs (f32 and bf16)
  kv-bf16-as-f16        the decode step's attention over the bf16 KV cache runs as f16
                        (bf16 only: an f32 cache has nothing to misread)
"""
import os
import re
import subprocess
import sys

MMC, MMC_OPT, MMRUN, MODEL, WORK = sys.argv[1:6]
DEVICE = (sys.argv[6:] or ["cpu"])[0]
if DEVICE not in ("cpu", "cuda"):
    sys.exit(f"mutate.py: device '{DEVICE}' is not cpu or cuda")
HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "..", "e2e", "Inputs", "check_generation.py")


def functions(text):
    """{function name: (start, end)} character spans of each func.func in the module."""
    spans, starts = {}, [(m.start(), m.group(1)) for m in re.finditer(r"func\.func @(\w+)", text)]
    for i, (s, name) in enumerate(starts):
        spans[name] = (s, starts[i + 1][0] if i + 1 < len(starts) else len(text))
    return spans


def edit_first(text, function, pattern, make):
    """Replaces the first line of `function` that matches `pattern` with make(match) (a
    string of one or more lines); None when no line matches."""
    s, e = functions(text)[function]
    body = text[s:e]
    m = re.search(pattern, body, re.M)
    if not m:
        return None
    line_start = body.rfind("\n", 0, m.start()) + 1
    line_end = body.find("\n", m.end())
    new_line = make(m, body[line_start:line_end])
    return text[:s] + body[:line_start] + new_line + body[line_end:] + text[e:]


def scale_attention(m, line):
    v = float(m.group(1))
    return line.replace(m.group(0), f"scale = {v * 0.9:.6e} : f32", 1)


def drop_bias(m, line):
    # mm.linear %x, %w, %b : tx, tw, tb -> tr   ->   mm.linear %x, %w : tx, tw -> tr
    lhs, types = line.split(" : ", 1)
    ins, out = types.rsplit(" -> ", 1)
    operands = lhs.split(", ")
    tys = ins.split(", ")
    return ", ".join(operands[:-1]) + " : " + ", ".join(tys[:-1]) + " -> " + out


def swap_kv_bias(m, line):
    return line.replace(m.group(0), f"mm.concat {m.group(1)}, {m.group(3)}, {m.group(2)} {{axis = 0", 1)


def ones_scale(m, line):
    indent = line[:len(line) - len(line.lstrip())]
    ones = f"{indent}%mut_ones = mm.constant dense<1.000000e+00> : {m.group(2)}\n"
    return ones + line.replace(f", {m.group(1)} {{", ", %mut_ones {", 1)


def tanh_gelu(m, line):
    return line.replace("#mm.activation<gelu>", "#mm.activation<gelu_tanh>", 1)


def negate_sin(m, line):
    indent = line[:len(line) - len(line.lstrip())]
    sin, sin_type = m.group(2), m.group(3)
    neg = f"{indent}%mut_negsin = mm.neg {sin} : {sin_type}\n"
    return neg + line.replace(f", {sin} :", ", %mut_negsin :", 1)


def strict_less(m, line):
    return line.replace("mm.less_or_equal", "mm.less", 1)


BF16_EPS = 2.0 ** -7
F32_ONLY = {"gelu-approx"}
MUTANTS = [
    ("attention-scale", "decoder_model_merged", r"scale = ([0-9.eE+-]+) : f32", scale_attention),
    ("drop-bias", "vision_encoder",
     r"mm\.linear %\w+, %\w+, %\w+ : tensor<\?x17x64xf32>, tensor<64x64xf32>, tensor<64xf32>", drop_bias),
    ("qkv-bias-order", "vision_encoder", r"mm\.concat (%\w+), (%\w+), (%\w+) \{axis = 0", swap_kv_bias),
    ("norm-scale-ones", "decoder_model_merged", r"mm\.rms_norm %\w+, (%\w+) \{.*: tensor<[^>]*>, (tensor<[^>]*>) ->",
     ones_scale),
    ("gelu-approx", "vision_encoder", r"#mm\.activation<gelu>", tanh_gelu),
    ("rotary-half-swap", "decoder_model_merged",
     r"mm\.rotary (%\w+), %\w+, (%\w+) : [^,]*, [^,]*, (tensor<[^>]*>) ->", negate_sin),
    ("mask-shift", "decoder_model_merged", r"mm\.less_or_equal", strict_less),
]


RUNTIME_MUTANTS = [("kv-append-off-by-one", ("f32", "bf16")), ("kv-bf16-as-f16", ("bf16",))]


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def check(plan, name, dtype, fault=None):
    """(passed, its FAIL lines): the suite's check on `plan`, the low-precision one for bf16;
    with `fault`, mmrun runs with that runtime fault injected."""
    extra = ["--intermediates"] if dtype == "f32" else ["--teacher-eps", repr(BF16_EPS)]
    extra += ["--mmrun-arg=--device", f"--mmrun-arg={DEVICE}"]
    env = dict(os.environ)
    env.pop("MM_INJECT_FAULT", None)
    if fault:
        env["MM_INJECT_FAULT"] = fault
    r = run([sys.executable, CHECK, MMRUN, plan, MODEL, os.path.join(WORK, f"{name}-{dtype}.dump")] + extra,
            env=env)
    return r.returncode == 0, " ".join(l for l in r.stdout.splitlines() if l.startswith("FAIL"))


def compile_plan(text, name, dtype):
    src = os.path.join(WORK, name + ".mlir")
    with open(src, "w") as f:
        f.write(text)
    plan = os.path.join(WORK, f"{name}-{dtype}.plan")
    c = run([MMC, "compile", src, "-o", plan, "--config", os.path.join(MODEL, "config.json"), "--dtype", dtype,
             "--target", DEVICE])
    return (plan, "") if c.returncode == 0 else (None, c.stderr.strip())


def cases():
    """(mutant name, function, pattern, make, dtype) for every mutant run."""
    for name, function, pattern, make in MUTANTS:
        for dtype in ("f32",) if name in F32_ONLY else ("f32", "bf16"):
            yield name, function, pattern, make, dtype


def main():
    os.makedirs(WORK, exist_ok=True)
    imported = os.path.join(WORK, "model.mlir")
    if run([MMC, "import", MODEL, "-o", imported]).returncode != 0:
        sys.exit(f"cannot import {MODEL}")
    fused = run([MMC_OPT, imported, "-mm-fuse-all"])
    if fused.returncode != 0:
        sys.exit(f"mmc-opt -mm-fuse-all failed: {fused.stderr.strip()}")
    text = fused.stdout
    baseline = {}
    for dtype in ("f32", "bf16"):
        plan, err = compile_plan(text, "baseline", dtype)
        ok, why = check(plan, "baseline", dtype) if plan else (False, err)
        if not ok:
            print(f"FAIL baseline {dtype}: the unmutated plan fails the check: {why}")
            sys.exit(1)
        print(f"PASS baseline {dtype}: the unmutated plan passes the check")
        baseline[dtype] = plan
    killed = total = 0
    for fault, dtypes in RUNTIME_MUTANTS:
        for dtype in dtypes:
            total += 1
            ok, why = check(baseline[dtype], fault, dtype, fault)
            killed += not ok
            print(f"SURVIVED {fault} ({dtype}): the check passes with this fault" if ok
                  else f"KILLED {fault} ({dtype}): {why}")
    for name, function, pattern, make, dtype in cases():
        total += 1
        label = f"{name} ({dtype})"
        mutated = edit_first(text, function, pattern, make)
        if mutated is None:
            print(f"FAIL {label}: no op to mutate in @{function} (pattern {pattern!r})")
            continue
        plan, err = compile_plan(mutated, name, dtype)
        if not plan:
            print(f"FAIL {label}: the mutant does not compile: {err}")
            continue
        ok, why = check(plan, name, dtype)
        if ok:
            print(f"SURVIVED {label}: the check passes with this fault")
        else:
            killed += 1
            print(f"KILLED {label}: {why}")
    print(f"{killed} of {total} mutants killed")
    sys.exit(0 if killed == total else 1)


if __name__ == "__main__":
    main()
