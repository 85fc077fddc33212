#!/usr/bin/env python3
"""Compiles every model folder under MODELS and runs every graph on each of its
onnx/<graph>_test_data_set_N folders with `mmrun --compare-dir` (atol 1e-4, rtol 1e-3).
Models with reference/generation.json are also checked end to end (check_generation.py,
with image features and prefill logits).

usage: check_test_data.py MMC MMRUN MODELS WORK_DIR [--device cpu|cuda] [--target cpu|cuda] [--no-cuda-graphs]
                          [--no-fused-launches]
With --device cuda the plans are compiled with --target cuda and run with --device cuda;
--target cuda on the CPU runs the CUDA plans (their lowered ops) on the CPU runtime.
Prints one PASS/FAIL line per check; exits 1 on any failure.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("mmc")
ap.add_argument("mmrun")
ap.add_argument("models")
ap.add_argument("work")
ap.add_argument("--device", default="cpu")
ap.add_argument("--target", default=None, help="mmc compile --target (default: the device's)")
ap.add_argument("--no-cuda-graphs", action="store_true")
ap.add_argument("--no-fused-launches", action="store_true")
args = ap.parse_args()
mmc, mmrun, models, work = args.mmc, args.mmrun, args.models, args.work
os.makedirs(work, exist_ok=True)
target = ["--target", args.target or ("cuda" if args.device == "cuda" else "cpu")]
device = ["--device", args.device] + (["--no-cuda-graphs"] if args.no_cuda_graphs else []) + \
    (["--no-fused-launches"] if args.no_fused_launches else [])
ok = True
count = 0
for model in sorted(glob.glob(os.path.join(models, "*", "onnx"))):
    model = os.path.dirname(model)
    name = os.path.basename(model)
    plan = os.path.join(work, name + ".plan")
    c = subprocess.run([mmc, "compile", model, "-o", plan] + target, capture_output=True, text=True)
    if c.returncode != 0:
        print(f"FAIL {name}: mmc compile: {c.stderr.strip()}")
        ok = False
        continue
    for data in sorted(glob.glob(os.path.join(model, "onnx", "*_test_data_set_*"))):
        graph = re.sub(r"_test_data_set_\d+$", "", os.path.basename(data))
        r = subprocess.run([mmrun, plan, "--function", graph, "--input-dir", data, "--compare-dir", data,
                            "--atol", "1e-4", "--rtol", "1e-3"] + device, capture_output=True, text=True)
        count += 1
        lines = [l.strip() for l in r.stdout.splitlines() if l.startswith("compare")]
        if r.returncode == 0:
            print(f"PASS {name}/{os.path.basename(data)}: " + "; ".join(lines))
        else:
            print(f"FAIL {name}/{os.path.basename(data)}: " + "; ".join(lines) + " " + r.stderr.strip())
            ok = False
    if os.path.exists(os.path.join(model, "reference", "generation.json")):
        g = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "check_generation.py"),
                            mmrun, plan, model, os.path.join(work, name + ".dump"), "--intermediates"]
                           + [f"--mmrun-arg={a}" for a in device],
                           capture_output=True, text=True)
        for line in g.stdout.splitlines():
            print(f"{name}: {line}")
        ok &= g.returncode == 0
print(f"{count} test data sets checked")
sys.exit(0 if ok and count > 0 else 1)
