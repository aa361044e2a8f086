#!/usr/bin/env bash
# device-build.sh OUT -- COMMAND...: runs one device compile (clang-19 for a code object, ocloc for a
# zebin) for gate 5. A compile that fails does not stop the build of everything else: its log goes to
# OUT.failed and OUT is removed, and gate 5 (kernel-contract, kernel-contract-limits, the tests)
# reports it as an error naming the file, the chip and the first error line. OUT.stamp is the build's
# mark that the command ran.
set -u
out=$1; shift
[ "${1:-}" = "--" ] && shift
rm -f "$out.failed"
if log=$("$@" 2>&1); then
  [ -n "$log" ] && printf '%s\n' "$log" >&2   # warnings stay visible in the build
else
  rc=$?
  rm -f "$out"
  { echo "exit $rc: $*"; printf '%s\n' "$log"; } > "$out.failed"
  printf 'device build FAILED (gate 5 will report it): %s\n%s\n' "$out" "$(printf '%s\n' "$log" | grep -m3 -i error)" >&2
fi
touch "$out.stamp"
