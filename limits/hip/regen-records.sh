#!/usr/bin/env bash
# Re-derives the HIP and XPU records sets from the committed tree (HEAD), not from a working tree
# that may hold others' uncommitted edits: exports HEAD, builds its code objects, zebins, launch rows
# (the HIP rows mirror the CUDA launches, derived from kernel-contract: a CUDA build, for one SM as
# the rows do not depend on it) and kernel-contract-limits there, writes records/hip/clang-<N>.txt and
# records/xpu/ocloc-<version>.txt into this checkout and shows the diff.
#   limits/hip/regen-records.sh [WORK_DIR]        (default: a fresh temporary folder, removed after)
# Commit the records it writes when the diff is what the kernel changes explain. Exit 1, copying
# nothing, when the audits of the new records find limit problems (each named on stderr).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=${1:-$(mktemp -d)}
[ -n "${1:-}" ] || trap 'rm -rf "$work"' EXIT
src="$work/src" bld="$work/build"
rm -rf "$src" && mkdir -p "$src"
git -C "$here" archive HEAD | tar -x -C "$src"
command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || { echo "regen-records: no nvcc: the HIP rows are derived from a CUDA build" >&2; exit 1; }
cmake -S "$src" -B "$bld" -G Ninja -DKC_CUDA_SMS=90a >/dev/null
cmake --build "$bld" --target kc_launch_rows kc_hip_objects kc_xpu_zebins kernel-contract-limits -j"$(nproc)" >/dev/null
cd "$src"
"$bld/bin/kernel-contract-limits" --kind hip --write-records records/hip
"$bld/bin/kernel-contract-limits" --kind xpu --write-records records/xpu
# The new records are copied into this checkout only when both audits are clean; otherwise the
# PROBLEM lines say which launch on which chip, and nothing is copied.
problems=0
for kind in hip xpu; do
  audit=$("$bld/bin/kernel-contract-limits" --kind "$kind") || problems=1
  grep ' PROBLEM ' <<<"$audit" | sed 's/ \[[^]]*\]$//' >&2 || true
  tail -1 <<<"$audit"
done
if [ "$problems" != 0 ]; then
  echo "regen-records: the audit of the new records failed (see its LIMITS line and PROBLEM lines above)," \
    "so no records were copied into $here. For a PROBLEM, raise the budget it names (the launch's" \
    "scratch bytes in limits/hip/scratch.tsv) or change the kernel; commit; run this again." >&2
  exit 1
fi
for d in hip xpu; do
  for f in records/$d/*.txt; do
    cmp -s "$f" "$here/$f" || { cp "$f" "$here/$f"; echo "updated $f"; }
  done
done
git -C "$here" diff --stat -- records/hip records/xpu
