#!/usr/bin/env bash
# CTest limits_releases: compiles probe.cu with two real nvcc releases from PyPI (scripts/nvcc_releases.sh
# installs them in a cache outside the build folder) and checks that
#   - the committed sets beside this script are what kernel-contract-limits --write-records writes now
#     from those images (so they come from the compilers, not from a hand);
#   - each release's images are checked against that release's own set, with 0 limit problems;
#   - without the newer release's set its differences show as stale records naming the file to write.
# A failed download or compile fails the test, naming what failed.
#   run_releases.sh TOOL SOURCE_ROOT WORK [--write]   (--write: re-derive the committed sets)
set -euo pipefail
tool=$1 root=$2 work=$3 mode=${4:-}
here=$root/tests/limits/releases
# The two releases and the one SM: the probe's kernel compiles differently there (README, "Records
# per nvcc release"), so each release's own set holds something the other's lacks.
old=13.0 new=13.5 sm=120
fail() { echo "limits_releases: FAIL: $*"; exit 1; }

# The releases' tools are cached outside the build folder (a fresh build or clone reuses them; set
# KC_NVCC_CACHE to move it); a release is downloaded only where its pinned wheels are not there yet.
tools=${KC_NVCC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kernel-contract/nvcc}
mkdir -p "$tools" "$work"
exec 9>"$tools/.lock" && flock 9  # one installer at a time (two build folders may test at once)
cd "$work"
rm -rf out derive check
"$root/scripts/nvcc_releases.sh" --tools "$tools" --out out --sms "$sm" --src "$here/probe.cu" "$old" "$new" ||
  fail "scripts/nvcc_releases.sh could not install or compile with nvcc $old and $new (its message is above)"

# Re-derive in a folder laid out as the committed one was written (relative names in the header).
mkdir -p derive/records
cp "$here/launches.tsv" derive/
ln -s ../out derive/out
(cd derive && "$tool" --launches launches.tsv --write-records records "out/$old" "out/$new") ||
  fail "kernel-contract-limits --write-records failed on the probe's images"
if [ "$mode" = --write ]; then
  rm -f "$here"/records/nvcc-*.txt
  cp derive/records/nvcc-*.txt "$here/records/"
  echo "limits_releases: wrote $(ls derive/records | tr '\n' ' ')"
  exit 0
fi
diff -r "$here/records" derive/records ||
  fail "the committed sets in tests/limits/releases/records differ from what kernel-contract-limits writes now (run: $0 TOOL ROOT WORK --write)"
[ -f "$here/records/nvcc-$new.txt" ] || fail "no set nvcc-$new.txt: the probe compiles the same with $old and $new on sm_$sm"
for r in "$old" "$new"; do
  v=$("$tools/$r/nvidia/cu13/bin/nvcc" --version | sed -n 's/.*, V\([0-9.]*\)$/\1/p')
  grep -qx "# Read from images of: Cuda compilation tools, release $r, V$v" "$here/records/nvcc-$r.txt" ||
    fail "nvcc-$r.txt's header does not name the compiler V$v"
done
if grep -nE '/(work|root|home|tmp)/' "$here"/records/*.txt "$root"/records/cuda/*.txt; then
  fail "a records file names a machine path (above)"
fi

# Each release against its own set; then both in one run.
cp -r "$here/records" check
for r in "$old" "$new" both; do
  dirs=("out/$r"); [ "$r" = both ] && dirs=("out/$old" "out/$new")
  rc=0
  log=$("$tool" --launches "$here/launches.tsv" --records check "${dirs[@]}" 2>&1) || rc=$?
  echo "$log" | grep -E '^(NOTE cuda records|LIMITS|ERROR)'
  [ $rc = 0 ] || fail "audit of nvcc $r images exited $rc"
  grep -q '^LIMITS cuda: .* 0 limit problems' <<<"$log" || fail "audit of nvcc $r images: no '0 limit problems' line"
  for x in "$old" "$new"; do
    [ "$r" = both ] || [ "$r" = "$x" ] || continue
    grep -q "^NOTE cuda records: images of nvcc $x (Cuda compilation tools, release $x, V.*) checked against its own set nvcc-$x.txt" <<<"$log" ||
      fail "audit of nvcc $r images does not say nvcc $x was checked against its own set nvcc-$x.txt"
  done
done

# Without the newer set: the newer images are checked against the older set, and differ.
rm "check/nvcc-$new.txt"
rc=0
log=$("$tool" --launches "$here/launches.tsv" --records check "out/$new" 2>&1) || rc=$?
[ $rc = 1 ] || fail "nvcc $new images without their set: exit $rc, want 1"
grep -q "^ERROR stale record for .* (nvcc $new, checked against nvcc-$old.txt, the newest set, below $new" <<<"$log" ||
  { echo "$log"; fail "nvcc $new images without their set show no stale record against nvcc-$old.txt (the audit's output is above)"; }
grep -q "nvcc $new has no set of its own: write nvcc-$new.txt with .*--write-records check" <<<"$log" ||
  { echo "$log"; fail "the stale records do not name the command that writes nvcc-$new.txt (the audit's output is above)"; }
echo "limits_releases: nvcc $old and $new images each checked against their own set on sm_$sm; $new without its set is stale"
