#!/usr/bin/env bash
# The dense and affine families on an H200: the CUDA contract of every dense/ and affine/ entry and
# control (gates 1-5, SUMMARY lines), after the benchmark against copy bandwidth and cuBLAS.
# Run from the repository root on the GPU machine:
#   scripts/h200_dense.sh [BUILD_DIR] [OUT_DIR]
# BUILD_DIR (default build-dense-h200, configured with -DKC_CUDA_SMS=90a) holds bin/kernel-contract;
# bin/bench_dense is used when present, else bench/cuda/dense/bench_dense.cu is compiled with nvcc.
# Every log lands in OUT_DIR (default $OUT, else ./out-dense).
set -u
B=${1:-build-dense-h200}
O=${2:-${OUT:-out-dense}}
mkdir -p "$O"
. "$(dirname "${BASH_SOURCE[0]}")/h200_env.sh"
nvidia-smi -L > "$O/device.txt" 2>&1
bench="$B/bin/bench_dense"
if [ ! -x "$bench" ]; then
  bench="$O/bench_dense"
  nvcc -O3 -arch=sm_90 -std=c++17 bench/cuda/dense/bench_dense.cu -lcublas -o "$bench" > "$O/bench_build.log" 2>&1 ||
    { echo "bench build failed"; tail -5 "$O/bench_build.log"; }
fi
timeout "${KC_BENCH_TIMEOUT:-120}" "$bench" > "$O/bench_dense.txt" 2>&1
echo "bench exit $?" >> "$O/bench_dense.txt"
for fam in ${KC_FAMILIES:-dense affine}; do
  log="$O/contract_$fam.log"
  start=$(date +%s)
  timeout "${KC_CONTRACT_TIMEOUT:-280}" "$B/bin/kernel-contract" --backend cuda --only "$fam/" > "$log" 2>&1
  echo "exit $? after $(( $(date +%s) - start )) s" >> "$log"
  grep -E "SUMMARY|^exit" "$log"
done
cat "$O/bench_dense.txt"
