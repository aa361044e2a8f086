#!/usr/bin/env bash
# run_fuzz.sh FUZZER FIXTURE_DIR SECONDS [OBJCOPY]: seeds a corpus with the NT_AMDGPU_METADATA descriptors of the
# fixtures' code objects (the .note section less its 20-byte header and "AMDGPU" name), then runs the
# fuzzer for a bounded time. Fails on a crash, a sanitizer report or a leak.
set -euo pipefail
fz=$1; fx=$2; secs=$3; objcopy=${4:-llvm-objcopy-19}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus"
n=0
for co in "$fx"/*.co; do
  "$objcopy" --dump-section .note="$work/note" "$co" /dev/null
  tail -c +21 "$work/note" > "$work/corpus/seed$n"; n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "no fixtures in $fx"; exit 1; }
exec "$fz" -max_total_time="$secs" -rss_limit_mb=1024 -max_len=16384 "$work/corpus"
