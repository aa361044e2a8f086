#!/usr/bin/env bash
# The CUDA rows kernels on an H200: the contract of every rows/ entry and control on the cuda
# backend (gates 1-4 on the device, gate 5 from the binary; its SUMMARY line), the CUDA device
# tests (planted illegal address and hang, each followed by a passing entry), the planted illegal
# address through the command line (planted-contract: the run goes on in fresh processes), and the
# benchmark against the device's copy bandwidth and PyTorch's own ops.
# Run from the repository root on the GPU machine, with a build configured -DKC_CUDA_SMS=90a:
#   scripts/h200_contract.sh [BUILD_DIR] [OUT_DIR]
# BUILD_DIR (default build-h200) holds bin/kernel-contract, bin/cuda_tests, bin/planted-contract,
# bin/planted_contract_tests and bin/bench_rows
# (bench_rows is compiled here with nvcc when absent). Logs land in OUT_DIR (default $OUT or ./out-cuda).
set -u
B=${1:-build-h200}
O=${2:-${OUT:-out-cuda}}
mkdir -p "$O"
. "$(dirname "${BASH_SOURCE[0]}")/h200_env.sh"
nvidia-smi -L > "$O/device.txt" 2>&1

if [ "${KC_SKIP_CONTRACT:-0}" != 1 ]; then
  start=$(date +%s)
  timeout "${KC_CONTRACT_TIMEOUT:-300}" "$B/bin/kernel-contract" --backend cuda --only "${KC_ONLY:-rows/}" \
    --reporter console --out "$O/contract.txt" > "$O/contract.log" 2>&1
  echo "exit $? after $(( $(date +%s) - start )) s" >> "$O/contract.log"
  grep -E "^(FAIL|ERROR|GREEN|FIXED)|SUMMARY|^exit" "$O/contract.log" | cut -c1-600
fi

if [ "${KC_SKIP_TESTS:-0}" != 1 ]; then
  # The planted hang runs in its own process: should a reset ever fail to end it, the rest still ran.
  timeout 120 "$B/bin/cuda_tests" --gtest_filter=-*Hang* > "$O/cuda_tests.log" 2>&1
  echo "cuda_tests exit $?" >> "$O/cuda_tests.log"
  timeout 60 "$B/bin/cuda_tests" --gtest_filter=*Hang* > "$O/cuda_tests_hang.log" 2>&1
  echo "cuda_tests (hang) exit $?" >> "$O/cuda_tests_hang.log"
  grep -hE "^\[  (PASSED|FAILED|SKIPPED) |Failure|cuda_tests.*exit|^(nonfinite|repeat|shapes|sums) " \
    "$O/cuda_tests.log" "$O/cuda_tests_hang.log" | cut -c1-300 | head -40
fi

if [ "${KC_SKIP_PLANTED:-0}" != 1 ] && [ -x "$B/bin/planted-contract" ]; then
  # The planted illegal address through the whole command line: named by CUDA, and the entries after
  # it (a second planted fault among them) run on in fresh processes and count in one SUMMARY.
  timeout 180 "$B/bin/planted-contract" --backend cuda --no-limits --timeout 20 > "$O/planted_contract.log" 2>&1
  echo "planted-contract exit $?" >> "$O/planted_contract.log"
  grep -E "^(ERROR|FAIL|GREEN|RED)|fresh process|SUMMARY|exit" "$O/planted_contract.log" | cut -c1-400
  if [ -x "$B/bin/planted_contract_tests" ]; then
    timeout 240 "$B/bin/planted_contract_tests" > "$O/planted_contract_tests.log" 2>&1
    echo "planted_contract_tests exit $?" >> "$O/planted_contract_tests.log"
    grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|exit" "$O/planted_contract_tests.log" | cut -c1-300
  fi
fi

if [ "${KC_SKIP_BENCH:-0}" != 1 ]; then
  bench="$B/bin/bench_rows"
  if [ ! -x "$bench" ]; then
    bench="$O/bench_rows"
    nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/cuda/bench_rows.cu -o "$bench" > "$O/bench_build.log" 2>&1 ||
      { echo "bench build failed"; tail -5 "$O/bench_build.log"; }
  fi
  timeout 120 "$bench" "${KC_BENCH_ROWS:-8192}" "${KC_BENCH_COLS:-4096}" > "$O/bench_rows.csv" 2> "$O/bench_rows.err"
  echo "bench exit $?" >> "$O/bench_rows.err"
  timeout 180 python3 bench/cuda/table.py "$O/bench_rows.csv" > "$O/bench.txt" 2> "$O/bench_torch.err"
  cat "$O/bench.txt"
fi
