#!/usr/bin/env bash
# run_fuzz.sh FUZZER FIXTURE_DIR SECONDS [OBJCOPY]: seeds a corpus with the .ze_info sections of the fixtures'
# zebins, then runs the fuzzer for a bounded time. Fails on a crash, a sanitizer report or a leak.
set -euo pipefail
fz=$1; fx=$2; secs=$3; objcopy=${4:-llvm-objcopy-19}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus"
n=0
for z in "$fx"/*.zebin; do
  "$objcopy" --dump-section .ze_info="$work/corpus/seed$n" "$z" /dev/null; n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "no fixtures in $fx"; exit 1; }
exec "$fz" -max_total_time="$secs" -rss_limit_mb=1024 -max_len=65536 "$work/corpus"
