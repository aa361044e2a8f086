#!/usr/bin/env bash
# Everything a GPU must prove, in one run on an H200, most important first (each step has its own time
# limit, so a slow step cannot hide the ones before it):
#   1. README command 1's binary with no arguments: every backend (the CPU, CUDA's gates 1-4 on the
#      device, the absent backends' gate 5 controls) and gate 5 from the binaries: its SUMMARY lines;
#   2. the planted illegal addresses and hang through the command line (the entries after each run
#      on in fresh processes and count in one SUMMARY);
#   3. the dense and prompt-attention entries again with KC_CUDA_NO_WGMMA=1: the mma.sync forms every
#      SM but sm_90a runs (the GEMV's, the prompt GEMM's, prompt attention's), checked on this GPU too;
#   4. compute-sanitizer's racecheck and synccheck over the affine decode's bulk-copy form (its
#      cuda_tests, where blocks walk many tiles): its producer, consumers and tile meetings share
#      shared memory through mbarriers only, which the contract's gates cannot watch;
#   5. the benchmarks: rows against copy bandwidth and PyTorch, decode projections against copy and
#      cuBLAS, prompt GEMM and affine tiles against cuBLAS, decode attention against copy bandwidth,
#      PyTorch's SDPA backends and FlexAttention, prompt attention against the same peers, the FP8
#      GEMM against torch._scaled_mm and the FP8 and FP4 GEMVs against copy bandwidth.
# The CUDA backend's contract alone (--backend cuda) took 459 s on the H200's host (the eighteen
# affine/qmm entries at 8,192 x 16,384 x 16,384 are most of it); KC_CONTRACT_TIMEOUT sets its limit,
# KC_BENCH_TIMEOUT each benchmark's.
# Run from the repository root on the GPU machine:  scripts/h200_all.sh [BUILD_DIR] [OUT_DIR]
# BUILD_DIR (default build-h200, configured -DKC_CUDA_SMS=90a) holds bin/kernel-contract,
# bin/planted-contract, bin/cuda_tests and the benchmarks bin/bench_rows, bin/bench_dense,
# bin/bench_prompt (the build makes them for sm_90a wherever nvcc is: bench/CMakeLists.txt).
# Logs land in OUT_DIR.
set -u
B=${1:-build-h200}
O=${2:-${OUT:-out-h200}}
mkdir -p "$O"
. "$(dirname "${BASH_SOURCE[0]}")/h200_env.sh"
nvidia-smi -L > "$O/device.txt" 2>&1

step() {  # step NAME SECONDS COMMAND...: runs it with a limit, logs to $O/NAME.log, says how it ended
  local name=$1 limit=$2 start
  shift 2
  start=$(date +%s)
  timeout "$limit" "$@" > "$O/$name.log" 2>&1
  echo "$name: exit $? after $(( $(date +%s) - start )) s" | tee -a "$O/$name.log"
}

step contract "${KC_CONTRACT_TIMEOUT:-1500}" "$B/bin/kernel-contract"
grep -E "^(FAIL|ERROR|GREEN|FIXED)|SUMMARY" "$O/contract.log" | cut -c1-400

step planted 120 "$B/bin/planted-contract" --backend cuda --no-limits --timeout 5
grep -E "^(ERROR|FAIL|GREEN|RED)|fresh process|SUMMARY" "$O/planted.log" | cut -c1-300

KC_CUDA_NO_WGMMA=1 step mma_sync 300 "$B/bin/kernel-contract" --only dense --backend cuda
grep -E "^(FAIL|ERROR|GREEN|FIXED)|SUMMARY" "$O/mma_sync.log" | cut -c1-400
KC_CUDA_NO_WGMMA=1 step mma_sync_prompt 120 "$B/bin/kernel-contract" --only attention/prompt --backend cuda --no-limits
grep -E "^(FAIL|ERROR|GREEN|FIXED)|SUMMARY" "$O/mma_sync_prompt.log" | cut -c1-400

for tool in racecheck synccheck; do
  step "$tool" 300 compute-sanitizer --tool "$tool" --error-exitcode 1 "$B/bin/cuda_tests" --gtest_filter='Qmv90.*'
  grep -E "SUMMARY|PASSED|FAILED|SKIPPED" "$O/$tool.log" | cut -c1-200
  # The attention split (its cp.async ring, the scores and P through shared memory) and merge: the
  # decode benchmark's launches once each, and the ring entry's (8 rows: the keys only some rows see).
  step "attention_$tool" 150 compute-sanitizer --tool "$tool" --error-exitcode 1 "$B/bin/bench_decode_attention" --once 3 1000 8 4096
  step "attention_ring_$tool" 200 compute-sanitizer --tool "$tool" --error-exitcode 1 "$B/bin/kernel-contract" --backend cuda \
    --only attention/decode/ring_f32 --no-limits
  # The prompt kernels (mma.sync's cp.async double buffer; the wgmma form's producer and consumers,
  # whose stages pass through mbarriers only): the benchmark's launches once.
  step "prompt_$tool" 150 compute-sanitizer --tool "$tool" --error-exitcode 1 "$B/bin/bench_prompt_attention" \
    --once 2 1000 128 1 1 700 256 1 1 300 64 0
  grep -E "SUMMARY" "$O/attention_$tool.log" "$O/attention_ring_$tool.log" "$O/prompt_$tool.log" | cut -c1-200
done

if [ "${KC_SKIP_BENCH:-0}" != 1 ]; then
  bt=${KC_BENCH_TIMEOUT:-120}
  timeout "$bt" "$B/bin/bench_rows" > "$O/bench_rows.csv" 2> "$O/bench_rows.err"
  echo "bench_rows: exit $?" | tee -a "$O/bench_rows.err"
  timeout 120 python3 bench/cuda/table.py "$O/bench_rows.csv" > "$O/rows_table.txt" 2>&1
  cat "$O/rows_table.txt"
  step bench_dense "$bt" "$B/bin/bench_dense"
  cat "$O/bench_dense.log"
  step bench_prompt "$bt" "$B/bin/bench_prompt"
  cat "$O/bench_prompt.log"
  timeout "$bt" "$B/bin/bench_decode_attention" > "$O/bench_decode.csv" 2> "$O/bench_decode.err"
  echo "bench_decode_attention: exit $?" | tee -a "$O/bench_decode.err"
  timeout 300 python3 bench/cuda/attention/table.py "$O/bench_decode.csv" > "$O/decode_table.txt" 2>&1
  cat "$O/decode_table.txt"
  timeout "$bt" "$B/bin/bench_prompt_attention" > "$O/bench_prompt_attention.csv" 2> "$O/bench_prompt_attention.err"
  echo "bench_prompt_attention: exit $?" | tee -a "$O/bench_prompt_attention.err"
  timeout 300 python3 bench/cuda/attention/table_prompt.py "$O/bench_prompt_attention.csv" > "$O/prompt_attention_table.txt" 2>&1
  cat "$O/prompt_attention_table.txt"
  timeout 300 "$B/bin/bench_fp8" > "$O/bench_fp8.csv" 2> "$O/bench_fp8.err"
  echo "bench_fp8: exit $?" | tee -a "$O/bench_fp8.err"
  timeout 300 python3 bench/cuda/blockscaled/table.py "$O/bench_fp8.csv" > "$O/fp8_table.txt" 2>&1
  cat "$O/fp8_table.txt"
fi
