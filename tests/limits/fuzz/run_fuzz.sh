#!/usr/bin/env bash
# Builds one libFuzzer target per reader (ELF, cubin, fatbin) with clang, ASan and UBSan, and runs each
# for a bounded time on a copy of its seed corpus (real files the limits_fixtures test compiled).
# A crash, a sanitizer report, a leak or an exception other than FormatError fails the test.
# Usage: run_fuzz.sh CLANGXX SOURCE_DIR WORK_DIR CORPUS_DIR SECONDS_PER_TARGET
set -euo pipefail
cxx=$1 src=$2 work=$3 corpus=$4 secs=$5
mkdir -p "$work"
readers=("$src/limits/src/elf.cpp" "$src/limits/src/cubin.cpp" "$src/limits/src/fatbin.cpp")
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -I"$src/limits/include" -I"$src/core/include")
for t in elf cubin fatbin; do
  [ -d "$corpus/$t" ] || { echo "run_fuzz: no seed corpus $corpus/$t" >&2; exit 1; }
  echo "== building fuzz_$t"
  "$cxx" "${flags[@]}" "$src/tests/limits/fuzz/fuzz_$t.cpp" "${readers[@]}" -lzstd -llz4 -o "$work/fuzz_$t"
  rm -rf "$work/corpus_$t" && mkdir -p "$work/corpus_$t" && cp "$corpus/$t"/* "$work/corpus_$t/"
  echo "== running fuzz_$t for ${secs}s on $(ls "$work/corpus_$t" | wc -l) seeds"
  (cd "$work" && "./fuzz_$t" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=262144 \
      -print_final_stats=1 "corpus_$t" 2>&1 | tail -n 15)
  # libFuzzer exits non-zero on any finding; pipefail carries it out.
done
echo "run_fuzz: every reader survived its bounded run"
