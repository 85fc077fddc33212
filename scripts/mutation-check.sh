#!/usr/bin/env bash
# The mutation check (issue 19): builds (scripts/setup.sh) and injects known faults into the
# fused IR of test/models/tiny-llava-rand-ts, each of which the suite's end-to-end check must
# catch; prints "N of N mutants killed" and exits 1 when one survives (test/mutation/mutate.py
# lists the mutants). The same runs as the ctest `mutation` (label mutation).
# Usage: scripts/mutation-check.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
"$root/scripts/setup.sh" "$build"
exec /usr/bin/python3 "$root/test/mutation/mutate.py" "$build/bin/mmc" "$build/bin/mmc-opt" \
  "$build/bin/mmrun" "$root/test/models/tiny-llava-rand-ts" "$build/test/mutation"
