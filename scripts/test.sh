#!/usr/bin/env bash
# Set up (scripts/setup.sh), build, and run every test (lit + GoogleTest) through ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
"$root/scripts/setup.sh" "$build"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
