#!/usr/bin/env bash
# The CUDA contract in parts, each part under its own time limit, for device sessions whose calls are
# shorter than one whole run: scripts/h200_parts.sh BUILD_DIR OUT_DIR PATTERN:SECONDS ...
# Each part is `kernel-contract --backend cuda --no-limits --only PATTERN`, logged to
# OUT_DIR/part-N.log with its SUMMARY line and exit status echoed (gate 5 reads the binaries, not
# the device: it runs offline, in CI). Each gate line ends with where its time went.
set -u
B=$1 O=$2
shift 2
mkdir -p "$O"
. "$(dirname "${BASH_SOURCE[0]}")/h200_env.sh"
n=0
for part in "$@"; do
  n=$((n + 1))
  pat=${part%:*} limit=${part##*:} log="$O/part-$n.log" start=$(date +%s)
  timeout "$limit" "$B/bin/kernel-contract" --backend cuda --no-limits --only "$pat" > "$log" 2>&1
  rc=$?
  echo "part $n ($pat): exit $rc after $(( $(date +%s) - start )) s" | tee -a "$log"
  grep -E "^(FAIL|ERROR|GREEN|FIXED)" "$log" | cut -c1-300
  grep SUMMARY "$log"
done
