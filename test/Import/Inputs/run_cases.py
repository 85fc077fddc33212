#!/usr/bin/env python3
"""Compiles every <case>/model.onnx under a folder and runs it on its test_data_set_0,
comparing the outputs with mmrun --compare-dir.

usage: run_cases.py MMC MMRUN CASES_DIR WORK_DIR [--atol A] [--rtol R] [--mmc-arg=ARG ...]
Prints "PASS <case>" or "FAIL <case>: <why>" per case, then "N of M cases match"; exits 1
when any case fails or the folder holds none.
"""
import argparse
import os
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("mmc")
ap.add_argument("mmrun")
ap.add_argument("cases")
ap.add_argument("work")
ap.add_argument("--atol", default="1e-5")
ap.add_argument("--rtol", default="1e-4")
ap.add_argument("--mmc-arg", action="append", default=[])
args = ap.parse_args()
names = sorted(n for n in os.listdir(args.cases) if os.path.isfile(os.path.join(args.cases, n, "model.onnx")))
passed = 0
for name in names:
    d = os.path.join(args.cases, name)
    plan = os.path.join(args.work, name + ".plan")
    c = subprocess.run([args.mmc, "compile", os.path.join(d, "model.onnx"), "-o", plan] + args.mmc_arg,
                       capture_output=True, text=True)
    if c.returncode != 0:
        print(f"FAIL {name}: mmc: {c.stderr.strip()}")
        continue
    data = os.path.join(d, "test_data_set_0")
    r = subprocess.run([args.mmrun, plan, "--input-dir", data, "--compare-dir", data,
                        "--atol", args.atol, "--rtol", args.rtol], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL {name}: mmrun: {(r.stdout + r.stderr).strip()}")
        continue
    passed += 1
    print(f"PASS {name}")
print(f"{passed} of {len(names)} cases match")
sys.exit(0 if names and passed == len(names) else 1)
