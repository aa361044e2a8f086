#!/usr/bin/env bash
# Gate 5 (CUDA) on a real GPU: for every kernel in the given binaries (the served kernels and
# controls of a -DKC_CUDA_SMS=90a build) and in tests/limits/fixtures/forced.cu (compiled here), compare
# the reader's numbers with `cuobjdump --dump-resource-usage` and with the driver's function
# attributes (cuFuncGetAttribute on each extracted sm_90 cubin loaded by cuModuleLoadData: the
# attributes cudaFuncGetAttributes reports): registers, static shared bytes (cuobjdump counts the
# reserved 1 KiB in, the driver does not), local bytes, and max threads a block (which the driver
# derives from registers and the bound: it checks the audit's register allocation rule). Then launch
# the controls past their limits, and probe the shared-memory opt-in edges, to check the audit's rules
# against what the driver refuses. Every mismatch is printed and fails the script (exit 1).
# Usage: scripts/h200_limits_check.sh BUILD_DIR [OUT_DIR]   (run from the repository root; needs nvcc,
#        cuobjdump, python3 and an sm_90 GPU)
set -euo pipefail
build=${1:?usage: h200_limits_check.sh BUILD_DIR [OUT_DIR]}
out=${2:-${OUT:-/tmp/h200_limits}}
mkdir -p "$out"
tool=$build/bin/kernel-contract-limits
bins=()
[ -x "$build/bin/kernel-contract" ] && bins+=("$build/bin/kernel-contract")
[ ${#bins[@]} -eq 0 ] && [ -d "$build/CMakeFiles/kc_entries.dir" ] && bins+=("$build/CMakeFiles/kc_entries.dir")
[ ${#bins[@]} -eq 0 ] && { echo "h200_limits_check: no kernel-contract or kc_entries objects in $build" >&2; exit 2; }

nvcc -cubin -O3 -gencode arch=compute_90,code=sm_90 tests/limits/fixtures/forced.cu -o "$out/forced_90.cubin"
# Reader: every kernel of every sm_90 image (KERNEL lines), and the cubins themselves.
"$tool" --sm 90 --kernels --extract "$out/cubins" --launches kernels --launches controls --records "$out/no-records" \
  "${bins[@]}" "$out/forced_90.cubin" > "$out/reader.txt" || true
grep '^KERNEL sm_90 ' "$out/reader.txt" > "$out/kernels.txt"
echo "reader: $(wc -l < "$out/kernels.txt") sm_90 kernels in $(ls "$out/cubins" | wc -l) cubins"
: > "$out/cuobjdump.txt"
for c in "$out"/cubins/*.cubin; do
  echo "== $c" >> "$out/cuobjdump.txt"
  cuobjdump --dump-resource-usage "$c" >> "$out/cuobjdump.txt"
done

cat > "$out/attrs.cu" <<'CU'
// Driver-side attributes of each listed kernel, and launches at the limits' edges.
#include <cuda.h>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>
#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s; cuGetErrorName(r_, &s); \
  std::printf("FATAL %s: %s\n", #x, s); return 2; } } while (0)
static std::map<std::string, CUmodule> mods;
static std::map<std::string, CUfunction> by_sym;
static const char* name(CUresult r) { const char* s = "?"; cuGetErrorName(r, &s); return s; }
// One launch; prints what the driver said and whether that is what the audit expects.
static int launch(const char* what, const std::string& sym, unsigned threads, unsigned dyn, int set_max_dyn, bool expect_ok,
                  std::vector<void*> args) {
  auto it = by_sym.find(sym);
  if (it == by_sym.end()) { std::printf("LAUNCH %s SKIPPED: %s not loaded\n", what, sym.c_str()); return 1; }
  CUresult sr = CUDA_SUCCESS;
  if (set_max_dyn >= 0) sr = cuFuncSetAttribute(it->second, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, set_max_dyn);
  CUresult r = sr != CUDA_SUCCESS ? sr : cuLaunchKernel(it->second, 1, 1, 1, threads, 1, 1, dyn, 0, args.data(), nullptr);
  if (r == CUDA_SUCCESS) r = cuCtxSynchronize();
  const bool ok = r == CUDA_SUCCESS;
  std::printf("LAUNCH %s threads=%u dyn=%u max_dyn=%d: %s (%s) %s\n", what, threads, dyn, set_max_dyn, ok ? "ran" : "refused", name(r),
              ok == expect_ok ? "AS-AUDITED" : "MISMATCH");
  return ok == expect_ok ? 0 : 1;
}
int main(int argc, char** argv) {
  CK(cuInit(0));
  CUdevice dev; CK(cuDeviceGet(&dev, 0));
  CUcontext ctx; CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
  int optin = 0, smem_sm = 0, reserved = 0, regs_block = 0;
  cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev);
  cuDeviceGetAttribute(&smem_sm, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, dev);
  cuDeviceGetAttribute(&reserved, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, dev);
  cuDeviceGetAttribute(&regs_block, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, dev);
  std::printf("DEVICE optin=%d smem_sm=%d reserved=%d regs_block=%d\n", optin, smem_sm, reserved, regs_block);
  std::ifstream in(argv[1]);
  std::string cubin, sym;
  while (in >> cubin >> sym) {
    if (!mods.count(cubin)) {
      std::ifstream f(cubin, std::ios::binary);
      std::stringstream ss; ss << f.rdbuf();
      std::string data = ss.str();
      CUmodule m; CK(cuModuleLoadData(&m, data.data()));
      mods[cubin] = m;
    }
    CUfunction fn; CK(cuModuleGetFunction(&fn, mods[cubin], sym.c_str()));
    by_sym[sym] = fn;
    int regs, shared, maxt, local, cnst;
    CK(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn));
    CK(cuFuncGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn));
    CK(cuFuncGetAttribute(&maxt, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn));
    CK(cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn));
    CK(cuFuncGetAttribute(&cnst, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, fn));
    std::printf("ATTR %s %s regs=%d shared=%d maxthreads=%d local=%d const=%d\n", cubin.c_str(), sym.c_str(), regs, shared, maxt, local, cnst);
  }
  // Launch edges: the controls, and shared memory around the opt-in maximum.
  CUdeviceptr x, y; const size_t n = 1 << 20;
  CK(cuMemAlloc(&x, n * 4)); CK(cuMemAlloc(&y, n * 4)); CK(cuMemsetD32(x, 0, n));
  int nn = (int)n, zero = 0;
  int bad = 0;
  bad += launch("control past_bounds at its bound", "_Z18kc_ctl_past_boundsPKfPfi", 128, 0, -1, true, {&x, &y, &zero});
  bad += launch("control past_bounds as declared", "_Z18kc_ctl_past_boundsPKfPfi", 256, 0, -1, false, {&x, &y, &zero});
  bad += launch("control many_regs at 512", "_Z16kc_ctl_many_regsPKfPfi", 512, 0, -1, true, {&x, &y, &nn});
  bad += launch("control many_regs as declared", "_Z16kc_ctl_many_regsPKfPfi", 1024, 0, -1, false, {&x, &y, &nn});
  // fx_plain: no static shared. Default limit 48 KiB; opt-in up to `optin` (static + dynamic).
  bad += launch("fx_plain dyn 48K", "fx_plain", 64, 49152, -1, true, {&y});
  bad += launch("fx_plain dyn 48K+1 no optin", "fx_plain", 64, 49153, -1, false, {&y});
  bad += launch("fx_plain dyn optin", "fx_plain", 64, optin, optin, true, {&y});
  bad += launch("fx_plain set optin+1", "fx_plain", 64, optin + 1, optin + 1, false, {&y});
  // fx_bounds: 4096 static bytes; static + dynamic must stay within optin.
  // (the default, before any opt-in: static + dynamic <= 48 KiB)
  bad += launch("fx_bounds dyn 48K-4096 no optin", "_Z9fx_boundsPKfPf", 256, 49152 - 4096, -1, true, {&x, &y});
  bad += launch("fx_bounds dyn 48K-4095 no optin", "_Z9fx_boundsPKfPf", 256, 49152 - 4095, -1, false, {&x, &y});
  bad += launch("fx_bounds dyn optin-4096", "_Z9fx_boundsPKfPf", 256, optin - 4096, optin - 4096, true, {&x, &y});
  bad += launch("fx_bounds dyn optin-4095", "_Z9fx_boundsPKfPf", 256, optin - 4095, optin - 4095, false, {&x, &y});
  bad += launch("fx_bounds past its bound", "_Z9fx_boundsPKfPf", 288, 0, -1, false, {&x, &y});
  // fx_regs80: 80 registers, 2560 a warp. With the block's warps rounded up to 4, 768 threads is the
  // most (24 warps); without the rounding 800 (25 warps) would fit.
  bad += launch("fx_regs80 at 768", "_Z9fx_regs80PKfPfi", 768, 0, -1, true, {&x, &y, &nn});
  bad += launch("fx_regs80 at 800", "_Z9fx_regs80PKfPfi", 800, 0, -1, false, {&x, &y, &nn});
  std::printf("LAUNCHES %d mismatches\n", bad);
  return bad ? 1 : 0;
}
CU
nvcc -O2 -o "$out/attrs" "$out/attrs.cu" -lcuda
python3 - "$out/kernels.txt" > "$out/attr_list.txt" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    f = dict(re.findall(r'(\w+)=(\S+)', line.split(' name=')[0]))
    print(f['cubin'], f['symbol'])
PY
set +e
"$out/attrs" "$out/attr_list.txt" > "$out/attrs.txt" 2>&1
attrs_rc=$?
set -e
grep -E "^(DEVICE|LAUNCH|FATAL)" "$out/attrs.txt" || true

set +e
python3 - "$out/kernels.txt" "$out/cuobjdump.txt" "$out/attrs.txt" <<'PY' | tee "$out/compare.txt"
import re, sys
kern, cuo, att = sys.argv[1:4]
reader = {}
for line in open(kern):
    f = dict(re.findall(r'(\w+)=(\S+)', line.split(' name=')[0]))
    reader[(f['cubin'], f['symbol'])] = f
dump = {}
cur = None; fn = None
for line in open(cuo):
    if line.startswith('== '): cur = line[3:].strip(); continue
    m = re.match(r'\s*Function (\S+):', line)
    if m: fn = m.group(1); continue
    m = re.search(r'REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+)', line)
    if m and fn: dump[(cur, fn)] = dict(zip(('REG', 'STACK', 'SHARED', 'LOCAL'), map(int, m.groups()))); fn = None
attrs = {}
for line in open(att):
    if line.startswith('ATTR '):
        p = line.split()
        attrs[(p[1], p[2])] = {k: int(v) for k, v in re.findall(r'(\w+)=(-?\d+)', line)}
def predicted_max_threads(regs, bound):
    # The audit's rule: regs rounded so a warp takes a multiple of 256, warps rounded up to 4.
    best = 0
    for t in range(32, min(1024, bound) + 1, 32):
        if -(-regs * 32 // 256) * 256 * (-(-(t // 32) // 4) * 4) <= 65536: best = t
    return best
bad = 0; n = 0
for key, f in sorted(reader.items()):
    n += 1
    regs, shared, section, frame, bound = (int(f[k]) for k in ('regs', 'shared', 'section', 'frame', 'bound'))
    d = dump.get(key); a = attrs.get(key)
    probs = []
    if d is None: probs.append('not in cuobjdump')
    else:
        if d['REG'] != regs: probs.append(f"cuobjdump REG {d['REG']} != reader {regs}")
        if d['SHARED'] != section: probs.append(f"cuobjdump SHARED {d['SHARED']} != reader section {section}")
        if d['STACK'] != frame: probs.append(f"cuobjdump STACK {d['STACK']} != reader frame {frame}")
    if a is None: probs.append('no driver attributes')
    else:
        if a['regs'] != regs: probs.append(f"driver regs {a['regs']} != reader {regs}")
        if a['shared'] != shared: probs.append(f"driver shared {a['shared']} != reader {shared}")
        if a['local'] != frame: probs.append(f"driver local {a['local']} != reader frame {frame}")
        pm = predicted_max_threads(regs, bound)
        if a['maxthreads'] != pm: probs.append(f"driver maxThreadsPerBlock {a['maxthreads']} != audit's {pm} (regs {regs}, bound {bound})")
    if probs:
        bad += 1
        print('MISMATCH', key[1], key[0], '; '.join(probs))
print(f'COMPARE {n} kernels (sm_90): {bad} with mismatches; reader vs cuobjdump (REG, SHARED incl. 1 KiB, STACK) and vs the driver (regs, shared, local, maxThreadsPerBlock)')
sys.exit(1 if bad else 0)
PY
cmp_rc=${PIPESTATUS[0]}
set -e
echo "h200_limits_check: compare rc=$cmp_rc, launches rc=$attrs_rc"
[ "$cmp_rc" -eq 0 ] && [ "$attrs_rc" -eq 0 ]
