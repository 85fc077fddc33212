#!/usr/bin/env bash
# On the GPU machine: unpacks dist-cuda/cuda-tests.tar.xz (make_gpu_dist.sh), runs the
# CUDA kernel tests, the CUDA-vs-CPU cross-checks, compute-sanitizer memcheck/racecheck on
# the kernels with cross-block or shared-memory logic, and the micro-benchmark. Full logs
# go to $OUT (or /tmp/mmcuda-out); a short summary is printed last.
# Usage (repo root): test/unit/cuda/run_on_gpu.sh
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${OUT:-/tmp/mmcuda-out}
mkdir -p "$out" /tmp/mmcuda-run
tar xJf "$root/dist-cuda/cuda-tests.tar.xz" -C /tmp/mmcuda-run || exit 1
d=/tmp/mmcuda-run/mmcuda
export LD_LIBRARY_PATH=$d:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=$PATH:/usr/local/cuda/bin
summary=$out/summary.txt
: > "$summary"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a "$summary"

for t in CudaKernelTest CudaVsCpuTest CudaExecutorTest; do
  [ -x "$d/$t" ] || continue
  start=$(date +%s)
  timeout 150 "$d/$t" > "$out/$t.log" 2>&1
  rc=$?
  echo "== $t: exit $rc in $(( $(date +%s) - start )) s" | tee -a "$summary"
  grep -E "^\[  PASSED  \]|^\[  FAILED  \]|^\[  SKIPPED \] [0-9]|tests? from .* ran" "$out/$t.log" | tee -a "$summary"
  if [ $rc -ne 0 ]; then
    grep -B1 -A6 -E "Failure|exception|error" "$out/$t.log" | head -60 | tee -a "$summary"
  fi
done

if command -v compute-sanitizer > /dev/null; then
  filter='CudaAttentionTest.*:*Gemv*:*Splice*:*Gather*:*KvCache*:*RmsNorm*:*Rotary*'
  timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 "$d/CudaKernelTest" \
    --gtest_filter="$filter" > "$out/memcheck.log" 2>&1
  echo "== memcheck ($filter): exit $? $(grep -E 'ERROR SUMMARY' "$out/memcheck.log" | tail -1)" | tee -a "$summary"
  timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 "$d/CudaKernelTest" \
    --gtest_filter='CudaAttentionTest.DecodeMatchesReference:CudaAttentionTest.FusedStep*:*RepeatedSplitGemv*:*LayerNorm*' \
    > "$out/racecheck.log" 2>&1
  echo "== racecheck: exit $? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$out/racecheck.log" | tail -1)" | tee -a "$summary"
else
  echo "== compute-sanitizer not found" | tee -a "$summary"
fi

timeout 120 "$d/cuda_kernel_bench" > "$out/bench.log" 2>&1
echo "== cuda_kernel_bench: exit $?" | tee -a "$summary"
cat "$out/bench.log"
echo
echo "================ SUMMARY"
cat "$summary"
