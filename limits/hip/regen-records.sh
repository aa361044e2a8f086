#!/usr/bin/env bash
# Re-derives the HIP and XPU records sets from the committed tree (HEAD), not from a working tree
# that may hold others' uncommitted edits: exports HEAD, builds its code objects, zebins and
# kernel-contract-limits there, checks the HIP launch rows mirror the CUDA rows, writes
# records/hip/clang-<N>.txt and records/xpu/ocloc-<version>.txt into this checkout and shows the diff.
#   limits/hip/regen-records.sh [WORK_DIR]        (default: a fresh temporary folder, removed after)
# Commit the records it writes when the diff is what the kernel changes explain.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=${1:-$(mktemp -d)}
[ -n "${1:-}" ] || trap 'rm -rf "$work"' EXIT
src="$work/src" bld="$work/build"
rm -rf "$src" && mkdir -p "$src"
git -C "$here" archive HEAD | tar -x -C "$src"
"$src/limits/hip/mirror-cuda-launches.sh" --check "$src"
cmake -S "$src" -B "$bld" -G Ninja -DKC_CUDA=OFF >/dev/null
cmake --build "$bld" --target kc_hip_objects kc_xpu_zebins kernel-contract-limits -j"$(nproc)" >/dev/null
cd "$src"
"$bld/bin/kernel-contract-limits" --kind hip --write-records records/hip
"$bld/bin/kernel-contract-limits" --kind xpu --write-records records/xpu
"$bld/bin/kernel-contract-limits" --kind hip | tail -1
"$bld/bin/kernel-contract-limits" --kind xpu | tail -1
for d in hip xpu; do
  for f in records/$d/*.txt; do
    cmp -s "$f" "$here/$f" || { cp "$f" "$here/$f"; echo "updated $f"; }
  done
done
git -C "$here" diff --stat -- records/hip records/xpu
