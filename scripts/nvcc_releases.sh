#!/usr/bin/env bash
# Installs nvcc releases from PyPI into a tools folder (off PATH) and compiles the device code of every
# kernels/ and controls/ .cu with each, so gate 5's records per release (records/cuda/nvcc-<r>.txt)
# come from real compilers (limits/README.md, "Records per nvcc release").
#
#   scripts/nvcc_releases.sh [--install-only] [--keep] [--reverse] [--tools DIR] [--out DIR] [--sms "80 90a"]
#                            [--src FILE]... RELEASE...
#
# RELEASE is 13.0 ... 13.5 (the table below). Tools land in DIR/<release>/ (default .nvcc/, gitignored;
# wheels cached in DIR/wheels/); fatbins in OUT/<release>/ (default build/nvcc-releases/). --src
# compiles only those files (the CI fixture); --sms only those SMs; --keep leaves fatbins already there
# (to resume, or to let a second run take the list from its end with --reverse). Then, per release:
#   build/bin/kernel-contract-limits --write-records records/cuda build/nvcc-releases/<release>
# Exit: 0 done; 1 a download, install or compile failed (the message names it); 2 usage.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The wheels a release needs for `nvcc -fatbin` of our sources, and why each is there:
#   nvidia-cuda-nvcc     nvcc, cudafe++, ptxas, fatbinary (the compiler driver and the device assembler)
#   nvidia-nvvm          cicc and libdevice (nvcc's front end to PTX); nvcc's wheel depends on it
#   nvidia-cuda-crt      include/crt/*.h (host_defines.h, host_config.h): every .cu includes them
#   nvidia-cuda-runtime  cuda_runtime.h, cuda_bf16.h, cuda_fp16.h, cooperative_groups.h (the kernels'
#                        headers); its versions are numbered apart from nvcc's, hence its own column
#   nvidia-cuda-cccl     nv/target, which cuda_fp16.hpp and cuda_bf16.hpp include (PyPI has no cccl
#                        numbered 13.4 or 13.5: those use the newest, 13.3.5.0.6; we use nothing else of it)
# Versions: the newest nvcc of each minor release PyPI serves, with its matching headers.
#   release nvcc      crt       nvvm      runtime   cccl
table="
13.0    13.0.88   13.0.88   13.0.88   13.0.88   13.0.85
13.1    13.1.115  13.1.115  13.1.115  13.1.80   13.1.115
13.2    13.2.86   13.2.86   13.2.86   13.2.86   13.2.86
13.3    13.3.73   13.3.73   13.3.73   13.3.29   13.3.5.0.6
13.4    13.4.92   13.4.92   13.4.92   13.4.92   13.3.5.0.6
13.5    13.5.37   13.5.37   13.5.37   13.5.37   13.3.5.0.6
"
# The build's device flags (CMakeLists.txt: KC_CUDA_SMS with sm_90 as sm_90a, CMAKE_CUDA_FLAGS,
# Release's -O3 -DNDEBUG, C++20; kernels/ and controls/ get these include folders), as its
# compile_commands.json shows them for every kernels/ and controls/ .cu.
# The served SMs are the chip table's rows (limits/chips/cuda.tsv), sm_90 as 90a as the build has it.
sms=$(awk '!/^#/ && NF { sub(/^sm_/, "", $1); print ($1 == "90" ? "90a" : $1) }' "$here/limits/chips/cuda.tsv" | xargs)
flags=(-I"$here/backends/opencl/include" -I"$here/backends/cuda/include" -I"$here/core/include"
       --expt-relaxed-constexpr -O3 -DNDEBUG -std=c++20 -x cu)

tools=$here/.nvcc
out=$here/build/nvcc-releases
install_only=0 keep=0 reverse=0
srcs=()
releases=()
die() { echo "nvcc_releases: $*" >&2; exit 1; }
while (($#)); do
  case $1 in
    --install-only) install_only=1 ;;
    --keep) keep=1 ;;
    --reverse) reverse=1 ;;
    --tools) tools=$2; shift ;;
    --out) out=$2; shift ;;
    --sms) sms=$2; shift ;;
    --src) srcs+=("$2"); shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    -*) echo "nvcc_releases: unknown option $1" >&2; exit 2 ;;
    *) releases+=("$1") ;;
  esac
  shift
done
((${#releases[@]})) || { echo "nvcc_releases: name at least one release (one of:$(awk 'NF{printf " %s",$1}' <<<"$table"))" >&2; exit 2; }
python3 -m pip --version >/dev/null 2>&1 || die "python3 -m pip is missing (Debian: python3-pip; scripts/setup installs it)"

# Extracts a wheel keeping its files' modes (zipfile's own extract drops the executable bits).
unwheel() {
  python3 - "$1" "$2" <<'EOF'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for i in z.infolist():
        p = z.extract(i, sys.argv[2])
        mode = (i.external_attr >> 16) & 0o777
        if mode and not i.is_dir():
            os.chmod(p, mode)
EOF
}

# install RELEASE: DIR/<release>/nvidia/cu13/bin/nvcc, once (a stamp names the wheels installed).
install() {
  local r=$1 row
  row=$(awk -v r="$r" '$1 == r' <<<"$table")
  [ -n "$row" ] || die "release $r is not in this script's table (one of:$(awk 'NF{printf " %s",$1}' <<<"$table"))"
  read -r _ v_nvcc v_crt v_nvvm v_rt v_cccl <<<"$row"
  local want="nvidia-cuda-nvcc==$v_nvcc nvidia-cuda-crt==$v_crt nvidia-nvvm==$v_nvvm nvidia-cuda-runtime==$v_rt nvidia-cuda-cccl==$v_cccl"
  local dest=$tools/$r
  if [ -f "$dest/.installed" ] && [ "$(cat "$dest/.installed")" = "$want" ]; then return; fi
  rm -rf "$dest"
  mkdir -p "$tools/wheels/$r" "$dest"
  for w in $want; do
    # --no-deps: the table pins every wheel; an unpinned dependency would bring another release's.
    if ! python3 -m pip download -q --no-deps --only-binary :all: -d "$tools/wheels/$r" "$w" >&2; then
      die "download of $w from PyPI failed (needed for nvcc $r)"
    fi
  done
  for w in $want; do
    local name=${w%%==*} ver=${w##*==} f
    f=$(ls "$tools/wheels/$r/${name//-/_}-$ver-"*.whl 2>/dev/null | head -1)
    [ -n "$f" ] || die "wheel $w not found in $tools/wheels/$r after download"
    unwheel "$f" "$dest" || die "cannot extract $f"
  done
  local got
  got=$("$dest/nvidia/cu13/bin/nvcc" --version 2>&1 | sed -n 's/.*release [0-9.]*, V\([0-9.]*\)$/\1/p' || true)
  [ "$got" = "$v_nvcc" ] || die "nvcc in $dest says '${got:-nothing}', want $v_nvcc"
  echo "$want" >"$dest/.installed"
  echo "nvcc_releases: installed nvcc $v_nvcc in $dest" >&2
}

gencode=()
for sm in $sms; do gencode+=("--generate-code=arch=compute_$sm,code=[sm_$sm]"); done
if ((${#srcs[@]} == 0)); then
  mapfile -t srcs < <(cd "$here" && find kernels controls -name '*.cu' | sort)
fi
if ((reverse)); then
  mapfile -t srcs < <(printf '%s\n' "${srcs[@]}" | tac)
fi

for r in "${releases[@]}"; do
  install "$r"
  ((install_only)) && continue
  nvcc=$tools/$r/nvidia/cu13/bin/nvcc
  mkdir -p "$out/$r"
  n=0
  for s in "${srcs[@]}"; do
    f=$s; [[ $f = /* ]] || f=$here/$s
    rel=${f#"$here"/}
    o=$out/$r/${rel//\//_}; o=${o%.cu}.fatbin
    if ((keep)) && [ -f "$o" ]; then continue; fi
    # Written aside and renamed, so a fatbin in OUT is always whole (another run may be reading it).
    nice -n 10 "$nvcc" "${flags[@]}" "${gencode[@]}" -fatbin "$f" -o "$o.part" || die "nvcc $r failed on $rel"
    mv "$o.part" "$o"
    n=$((n + 1))
  done
  echo "nvcc_releases: nvcc $r compiled $n sources for$(printf ' sm_%s' $sms) into $out/$r" >&2
done
