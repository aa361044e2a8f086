#!/usr/bin/env bash
# Runs each reader's libFuzzer target (ELF, cubin, fatbin; built by the build with clang, ASan and
# UBSan: tests/limits/CMakeLists.txt) for a bounded time on a copy of its seed corpus (real files the
# build compiled as the limits fixtures). A crash, a sanitizer report, a leak or an exception other
# than FormatError fails the test.
# Usage: run_fuzz.sh FUZZ_DIR CORPUS_DIR SECONDS_PER_TARGET
set -euo pipefail
dir=$1 corpus=$2 secs=$3
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
for t in elf cubin fatbin; do
  [ -x "$dir/fuzz_$t" ] || { echo "run_fuzz: no fuzz target $dir/fuzz_$t (the build makes it)" >&2; exit 1; }
  [ -d "$corpus/$t" ] || { echo "run_fuzz: no seed corpus $corpus/$t" >&2; exit 1; }
  mkdir -p "$work/corpus_$t" && cp "$corpus/$t"/* "$work/corpus_$t/"
  echo "== running fuzz_$t for ${secs}s on $(ls "$work/corpus_$t" | wc -l) seeds"
  (cd "$work" && "$dir/fuzz_$t" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=262144 \
      -print_final_stats=1 "corpus_$t" 2>&1 | tail -n 15)
  # libFuzzer exits non-zero on any finding; pipefail carries it out.
done
echo "run_fuzz: every reader survived its bounded run"
