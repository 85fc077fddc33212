#!/usr/bin/env bash
# Idempotent setup: install the Debian packages mmc needs (only those missing), configure
# with Ninja (Release) and build.
# Usage: scripts/setup.sh [build-dir] [extra cmake args...]
#        scripts/setup.sh --deps-only      (only install the packages)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
deps_only=
if [ "${1:-}" = --deps-only ]; then deps_only=1; shift; fi
build=${1:-$root/build}
shift || true

packages=(libmlir-19-dev mlir-19-tools llvm-19-dev llvm-19-tools libonnx-dev libprotobuf-dev
  protobuf-compiler libflatbuffers-dev flatbuffers-compiler nlohmann-json3-dev ninja-build
  libgtest-dev zlib1g-dev libzstd-dev libopenblas-dev libpng-dev libjpeg62-turbo-dev cmake g++
  python3-onnx python3-numpy libpcre2-dev libutf8proc-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi
[ -z "$deps_only" ] || exit 0

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-19/lib/cmake/mlir "$@"
fi
cmake --build "$build" -j "${MM_JOBS:-$(nproc)}"  # MM_JOBS: parallel compile jobs
