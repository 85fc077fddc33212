#!/usr/bin/env bash
# Packs the CUDA test binaries and the micro-benchmark, built on this machine, with the
# shared libraries the GPU machine's image lacks (OpenBLAS for the CPU reference kernels,
# and its libgfortran/libquadmath), into dist-cuda/cuda-tests.tar.xz at the repo root
# (an ignored folder, carried to the GPU machine with the device tool's `carry`).
# cudart is linked statically; libcublasLt comes from the GPU machine's CUDA 13.
# Usage: test/unit/cuda/make_gpu_dist.sh <dir holding CudaKernelTest, CudaVsCpuTest,
#        CudaExecutorTest, cuda_kernel_bench>
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
bin=${1:?usage: make_gpu_dist.sh <binary dir>}
stage=$(mktemp -d)
mkdir -p "$stage/mmcuda"
for f in CudaKernelTest cuda_kernel_bench; do
  cp "$bin/$f" "$stage/mmcuda/"
done
if [ -f "$bin/CudaVsCpuTest" ]; then
  cp "$bin/CudaVsCpuTest" "$stage/mmcuda/"
  [ -f "$bin/CudaExecutorTest" ] && cp "$bin/CudaExecutorTest" "$stage/mmcuda/"
  for lib in libopenblas.so.0 libgfortran.so.5 libquadmath.so.0; do
    cp -L "$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ {print $NF; exit}')" "$stage/mmcuda/"
  done
fi
mkdir -p "$root/dist-cuda"
tar cJf "$root/dist-cuda/cuda-tests.tar.xz" -C "$stage" mmcuda
rm -rf "$stage"
ls -la "$root/dist-cuda/cuda-tests.tar.xz"
