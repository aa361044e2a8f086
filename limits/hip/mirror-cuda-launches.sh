#!/usr/bin/env bash
# Gate 5's HIP launch rows, derived by the build from the CUDA ones (a .hip file builds the same device
# source for AMD chips, so its launches are that source's CUDA launches):
#   limits/hip/mirror-cuda-launches.sh ROOT CUDA_ROWS OUT
# CUDA_ROWS: the rows kernel-contract --launch-rows derives from the KC_CUDA_LAUNCH declarations, each
# ending "# <file>:<line>" (the file that declares it). For each .hip under ROOT/kernels and
# ROOT/controls, every `#include "<path>"` it makes gives the rows that file declares, or, where it
# declares none (a kernel's .cuh, whose launches its .cu declares), the rows declared in its folder.
# Each becomes
#   hip <launch> <symbol as HIP spells it> <threads> <dyn_smem> image=<the .hip's image>[,scratch=<bytes>]
# (__nv_bfloat16 -> __bf16, __half -> _Float16), with the scratch budget ROOT/limits/hip/scratch.tsv
# states for it, if any (what clang-19 spills on RDNA: a HIP fact, not the CUDA row's). A row for one
# CUDA SM only (only=<sm>: a body in that SM's image alone, such as wgmma's) has no HIP twin. A .hip
# that includes a CUDA source and gets no row is an error, naming it: its kernels would go unaudited.
# .hip files that include no CUDA source (the HIP gate 5 controls) keep their own launches.tsv.
set -euo pipefail
root=$1 rows=$2 out=$3
[ -f "$rows" ] || { echo "mirror: no CUDA rows $rows (kernel-contract --launch-rows writes them)" >&2; exit 1; }
budgets=$root/limits/hip/scratch.tsv
cd "$root"
{
  echo "# HIP launch rows, mirrored from the CUDA rows of the sources the .hip files include (written by"
  echo "# limits/hip/mirror-cuda-launches.sh at build time). Columns: hip launch symbol threads dyn_lds flags"
} > "$out.part"
bad=0
while IFS= read -r h; do
  dir=$(dirname "$h")
  incs=()
  while IFS= read -r inc; do
    incs+=("$(realpath -m --relative-to=. "$dir/$inc")")
  done < <(sed -n 's/^#include "\(.*\.\(cu\|cuh\)\)"$/\1/p' "$h")
  ((${#incs[@]})) || continue
  image=${h%.hip}
  image=${image//\//.}
  got=$(awk -v image="$image" -v incs="${incs[*]}" '
    FNR == 1 { file++ }
    file == 1 { n = split($0, kv, " "); if (n >= 2 && kv[1] !~ /^#/) budget[kv[1]] = kv[2]; next }
    file == 2 {
      if ($1 != "cuda") next
      at = index($0, "#"); if (!at) next
      src = substr($0, at + 1); sub(/^ +/, "", src); sub(/:[0-9]+ *$/, "", src)
      split(substr($0, 1, at - 1), c, " "); nc = 0; for (k in c) nc++
      if (c[nc] ~ /(^|,)only=/) next
      sym = c[3]; for (i = 4; i <= nc - 4; ++i) sym = sym " " c[i]
      gsub(/__nv_bfloat16/, "__bf16", sym); gsub(/__half/, "_Float16", sym)
      row[++rows] = c[2] "\t" sym "\t" c[nc - 3] "\t" c[nc - 2]; from[rows] = src
      d = src; sub(/\/[^\/]*$/, "", d); folder[rows] = d; declares[src] = 1
      next
    }
    END {
      m = split(incs, inc, " ")
      for (i = 1; i <= m; ++i) {
        d = inc[i]; sub(/\/[^\/]*$/, "", d)
        for (r = 1; r <= rows; ++r) {
          if (!((inc[i] in declares) ? from[r] == inc[i] : folder[r] == d)) continue
          split(row[r], f, "\t")
          if (f[1] in seen) continue
          seen[f[1]] = 1
          printf "hip  %s  %s  %s  %s  image=%s%s\n", f[1], f[2], f[3], f[4], image, (f[1] in budget) ? ",scratch=" budget[f[1]] : ""
        }
      }
    }' "$budgets" "$rows")
  if [ -z "$got" ]; then
    echo "mirror: $h includes ${incs[*]}, which declare no CUDA launch in $rows" >&2
    bad=1
  fi
  printf '%s\n' "$got" >> "$out.part"
done < <(find kernels controls -name '*.hip' | sort)
((bad)) && { rm -f "$out.part"; exit 1; }
mv "$out.part" "$out"
