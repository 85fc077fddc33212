#!/usr/bin/env bash
# Build self-contained mmc, mmc-opt and mmrun and copy them into dist/ (ignored by git), to
# carry to a machine without LLVM/MLIR (e.g. the GPU machine).
#
#   scripts/dist.sh [extra cmake args...]     e.g. -DMM_ENABLE_CUDA=OFF
#
# Extra cmake args apply when build-portable/ is first configured (delete it to change them);
# MM_JOBS sets the number of parallel compile jobs (default: nproc).
#
# Configures build-portable/ with -DMM_PORTABLE=ON (cmake/Portable.cmake) and MM_ENABLE_CUDA
# as detected (AUTO: on when nvcc is found), builds the three tools, and checks the result.
#
# What is static: MLIR and LLVM (component libraries), libstdc++, libgcc, zlib, zstd,
# protobuf (libprotobuf-lite.a, ONNX importer), FlatBuffers (header-only + libflatbuffers.a),
# OpenBLAS (libopenblas.a, CPU GEMMs), the CUDA runtime (cudart_static).
# What stays dynamic: libc, libm, the loader (glibc >= this machine's, 2.36 on Debian 12);
# for a CUDA-enabled mmrun also libcublasLt (and libcuda, which cudart loads at run time).
# The script fails if a binary needs any other shared library.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-portable
dist=$root/dist
jobs=${MM_JOBS:-$(nproc)}

"$root/scripts/setup.sh" --deps-only
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-19/lib/cmake/mlir -DMM_PORTABLE=ON "$@"
fi
cmake --build "$build" --target mmc mmc-opt mmrun -- -j "$jobs"

mkdir -p "$dist"
for tool in mmc mmc-opt mmrun; do
  install -m 755 "$build/bin/$tool" "$dist/$tool"
done

# Direct shared-library dependencies (DT_NEEDED) must be on the allowed list.
status=0
for tool in mmc mmc-opt mmrun; do
  allowed='^(libc\.so\.6|libm\.so\.6|ld-linux-x86-64\.so\.2)$'
  [ "$tool" = mmrun ] && allowed='^(libc\.so\.6|libm\.so\.6|ld-linux-x86-64\.so\.2|libcublasLt\.so\.[0-9]+|libcuda\.so\.1)$'
  needed=$(readelf -d "$dist/$tool" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  extra=$(grep -vE "$allowed" <<<"$needed" || true)
  if [ -n "$extra" ]; then
    echo "dist: $tool needs shared libraries that a machine without LLVM may lack:" $extra >&2
    status=1
  fi
  echo "dist/$tool: $(du -h "$dist/$tool" | cut -f1), needs:" $needed
done
[ $status -eq 0 ] || exit 1
cuda=$(sed -n 's/^MM_ENABLE_CUDA:STRING=//p' "$build/CMakeCache.txt")
if [ "$cuda" = AUTO ]; then  # resolved at configure time: on when nvcc was found
  cuda=OFF; grep -q '^CMAKE_CUDA_COMPILER:.*nvcc' "$build/CMakeCache.txt" && cuda=ON
fi
echo "dist: ready in $dist (CUDA backend $cuda); copy the folder to the target machine"
