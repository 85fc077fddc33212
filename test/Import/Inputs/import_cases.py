#!/usr/bin/python3
"""Imports ONNX backend node test cases with mmc and reports which fail.

Usage: import_cases.py MMC CASES_DIR LIST_FILE
LIST_FILE names one case folder (CASES_DIR/<name>/model.onnx) per line. Prints
"imported N of M" and, for each failure, the case and mmc's first error line; exits 1 when
any case fails.
"""
import subprocess
import sys


def main():
    mmc, cases, listing = sys.argv[1:4]
    names = [n.strip() for n in open(listing) if n.strip() and not n.startswith("#")]
    failed = []
    for name in names:
        p = subprocess.run([mmc, "import", "--no-fold", f"{cases}/{name}/model.onnx", "-o", "/dev/null"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            failed.append((name, (p.stderr.strip().splitlines() or ["(no message)"])[0]))
    print(f"imported {len(names) - len(failed)} of {len(names)}")
    for name, err in failed:
        print(f"FAILED {name}: {err}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
