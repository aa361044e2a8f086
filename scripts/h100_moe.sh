#!/usr/bin/env bash
# The moe, scan and sampling families on an H100: the contract of every entry and control of each on
# the cuda backend (gates 1-4 on the device, gate 5 from the binary; a SUMMARY line a family and the
# seconds each took), then bench/cuda/moe/bench_moe.py's tables (PyTorch with a CUDA toolkit: it
# builds the kernels as a torch extension).
# Run from the repository root on the GPU machine, with a build configured -DKC_CUDA_SMS=90a:
#   scripts/h100_moe.sh [BUILD_DIR] [OUT_DIR]
# BUILD_DIR (default build) holds bin/kernel-contract; logs land in OUT_DIR (default $OUT or ./out-moe).
set -u
B=${1:-build}
O=${2:-${OUT:-out-moe}}
mkdir -p "$O"
nvidia-smi -L > "$O/device.txt" 2>&1
status=0
for family in moe/ scan/ sampling/; do
  log=$O/contract-${family%/}.log
  start=$(date +%s%N)
  timeout 300 "$B/bin/kernel-contract" --backend cuda --only "$family" > "$log" 2>&1
  rc=$?
  [ $rc = 0 ] || status=1
  echo "exit $rc after $(( ($(date +%s%N) - start) / 1000000 )) ms" >> "$log"
  grep -E "^(FAIL|ERROR|GREEN|FIXED)|SUMMARY|^exit" "$log" | cut -c1-600
done
python3 bench/cuda/moe/bench_moe.py > "$O/h100_moe.txt" 2> "$O/bench.log" || { status=1; tail -5 "$O/bench.log"; }
cat "$O/h100_moe.txt"
exit $status
