#!/usr/bin/env bash
# Writes the hip launch rows of every HIP build that includes a CUDA source, from that source's
# folder's CUDA rows (one command regenerates them all; run it after CUDA launch rows change):
#   limits/hip/mirror-cuda-launches.sh [--check] [REPO_ROOT]
# --check writes nothing and fails (naming the file) when a hip launches.tsv differs from what it
# would write: the test suite runs it, so a CUDA launch added without its HIP row is caught.
# For each folder holding *.hip files, every `#include "<path>"` that names a .cu/.cuh gives the CUDA
# launches.tsv beside that path (only the rows of the launches that file declares itself, where it
# declares any with a literal name); each cuda row becomes
#   hip <launch> <symbol as HIP spells it> <threads> <dyn_smem> image=<the .hip's image>
# (__nv_bfloat16 -> __bf16, __half -> _Float16; a parenthesised symbol loses its parentheses), plus
# the scratch=<bytes> budget the hip row already declares, if any. A row for one CUDA SM only
# (only=<sm>: a body in that SM's image alone, such as wgmma's) has no HIP twin and is skipped.
# Folders whose .hip files include no CUDA source (the HIP gate 5 controls) are left alone.
set -euo pipefail
check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
root=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd)
stale=0
cd "$root"
mapfile -t dirs < <(find kernels controls -name '*.hip' -printf '%h\n' | sort -u)
for d in "${dirs[@]}"; do
  out="$d/launches.tsv"
  rows=""
  # A row's scratch=<bytes> budget is HIP's own fact (what clang-19 spills on RDNA), not the CUDA
  # row's: it is kept from the row as it stands.
  budgets=$( [ -f "$out" ] && awk '$1 == "hip" && match($NF, /scratch=[0-9]+/) { print $2, substr($NF, RSTART, RLENGTH) }' "$out" || true)
  for h in "$d"/*.hip; do
    inc=$(sed -n 's/^#include "\(.*\.cuh\?\)"$/\1/p' "$h" | head -1)
    [ -n "$inc" ] || continue
    src="$d/$(dirname "$inc")/launches.tsv"
    [ -f "$src" ] || { echo "mirror: $h includes $inc but $src does not exist" >&2; exit 1; }
    rel=${h%.hip}
    image=${rel//\//.}
    # The included file's own KC_CUDA_LAUNCH names, where it declares its launches itself (one
    # control of a folder that holds several): only those rows. Else every row of the folder.
    own=$(grep -o 'KC_CUDA_LAUNCH("[^"]*",' "$d/$inc" | sed 's/.*("//; s/",$//' | tr '\n' ' ' || true)
    rows+=$(awk -v image="$image" -v budgets="$budgets" -v own="$own" '
      BEGIN { n = split(budgets, b, "\n"); for (i = 1; i <= n; ++i) { split(b[i], kv, " "); keep[kv[1]] = kv[2] }
              m = split(own, o, " "); for (i = 1; i <= m; ++i) mine[o[i]] = 1 }
      $1 == "cuda" && $NF !~ /(^|,)only=/ && (m == 0 || ($2 in mine)) {
        sym = $3; for (i = 4; i <= NF - 4; ++i) sym = sym " " $i
        gsub(/__nv_bfloat16/, "__bf16", sym); gsub(/__half/, "_Float16", sym)
        if (sym ~ /^\(.*\)$/) sym = substr(sym, 2, length(sym) - 2)
        printf "hip  %s  %s  %s  %s  image=%s%s\n", $2, sym, $(NF - 3), $(NF - 2), image, ($2 in keep) ? "," keep[$2] : ""
      }' "$src")$'\n'
  done
  [ -n "$rows" ] || continue
  text=$({
    echo "# HIP launches of the CUDA sources the .hip files here include; written by"
    echo "# limits/hip/mirror-cuda-launches.sh from their CUDA rows. Columns: hip launch symbol threads dyn_lds flags"
    printf '%s' "$rows"
  })
  if ((check)); then
    if [ ! -f "$out" ] || [ "$(cat "$out")" != "$text" ]; then
      echo "mirror: $out is not what the CUDA rows give (run limits/hip/mirror-cuda-launches.sh)" >&2
      stale=1
    fi
  else
    printf '%s\n' "$text" > "$out"
    echo "wrote $out ($(grep -c '^hip' "$out") rows)"
  fi
done
if ((check)); then
  ((stale)) && exit 1
  echo "mirror: every hip launches.tsv matches the CUDA rows"
fi
