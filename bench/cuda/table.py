#!/usr/bin/env python3
"""One table from bench_rows' CSV: each served kernel's bandwidth, its share of the device-to-device
copy of the same tensor measured the same way (and of a 1 GiB copy), and PyTorch's own op beside it,
timed by the same method (inputs rotated through sets that together hold 4x the L2, back-to-back
launches between two events, the median of 7 timings), and for layer norm torch.compile's kernel of
the same op too. Then every variant the benchmark swept.
Usage: table.py bench_rows.csv [--no-torch]"""
import csv
import math
import os
import sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
use_torch = "--no-torch" not in sys.argv
big = next((r for r in rows if r["kernel"] == "copy/memcpy_1GiB"), None)
big_gbps = float(big["GBps"]) if big else float("nan")
by_shape = defaultdict(list)
for r in rows:
    if r["kernel"] != "copy/memcpy_1GiB":
        by_shape[(int(r["rows"]), int(r["cols"]))].append(r)


def copy_ref(shape_rows):
    """The faster of the two copies of one input tensor at this shape (the stricter reference)."""
    c = [r for r in shape_rows if r["kernel"].startswith("copy/")]
    best = max(c, key=lambda r: float(r["GBps"]))
    return float(best["GBps"]), best["kernel"], int(best["variant"].split("=")[1])


torch_us = {}
compiled_us = {}  # torch.compile of the op, where the table has a column for it (layer norm)
torch_note = "torch not run"
if use_torch:
    try:
        import torch
        import torch.nn.functional as F

        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # bench/cuda: the shared timing method
        from torch_timing import time_us

        for (R, C), srows in sorted(by_shape.items()):
            _, _, sets = copy_ref(srows)
            reps = max(40, 2 * sets)
            g = torch.Generator(device="cuda").manual_seed(1)
            xs = [(torch.rand(R, C, device="cuda", generator=g) * 8 - 4).to(torch.bfloat16) for _ in range(sets)]
            rs = [(torch.rand(R, C, device="cuda", generator=g) * 8 - 4).to(torch.bfloat16) for _ in range(sets)]
            ws = [(torch.rand(C, device="cuda", generator=g) * 8 - 4).to(torch.bfloat16) for _ in range(sets)]
            bs = [(torch.rand(C, device="cuda", generator=g) * 8 - 4).to(torch.bfloat16) for _ in range(sets)]
            names = {r["kernel"] for r in srows}
            # fp32 copies only where the fp32 layer norm ran (8192 x 16384: 512 MiB a set)
            f32 = "layer_norm/f32" in names
            x32s = [x.float() for x in xs] if f32 else []
            w32s = [w.float() for w in ws] if f32 else []
            b32s = [b.float() for b in bs] if f32 else []
            ops = {
                "rms_norm/bf16_out": lambda i: F.rms_norm(xs[i], (C,), ws[i], 1e-6),
                "softmax/bf16": lambda i: torch.softmax(xs[i], -1),
                "softmax/bf16_long": lambda i: torch.softmax(xs[i], -1),
                "topk/bf16_k8": lambda i: torch.topk(xs[i], 8, -1),
                "topk/bf16_k64": lambda i: torch.topk(xs[i], 64, -1),
                "argmax/bf16": lambda i: torch.argmax(xs[i], -1),
                "max/bf16": lambda i: torch.amax(xs[i], -1),
                "sum/f32": lambda i: torch.sum(xs[i], -1, dtype=torch.float32),
                "dot/f32": lambda i: torch.mv(xs[i], ws[i]),
                "swiglu/bf16": lambda i: F.silu(xs[i]) * rs[i],
                "geglu/bf16": lambda i: F.gelu(xs[i]) * rs[i],
                "add_rms_norm/rounded": lambda i: F.rms_norm(xs[i] + rs[i], (C,), ws[i], 1e-6),
                "layer_norm/bf16": lambda i: F.layer_norm(xs[i], (C,), ws[i], bs[i], 1e-5),
                "layer_norm/f32": lambda i: F.layer_norm(x32s[i], (C,), w32s[i], b32s[i], 1e-5),
            }
            for k, f in ops.items():
                if k not in names:
                    continue
                try:
                    torch_us[(k, R, C)] = time_us(f, sets, reps)
                except Exception as e:  # an op this torch lacks: say so in the table
                    print(f"torch {k}: {e}", file=sys.stderr)
            # torch.compile of layer_norm, compiled afresh for this shape (dynamic=False: no
            # shape-generic kernel); the first calls (in time_us's warm-up) compile it.
            args = {"layer_norm/bf16": (xs, ws, bs), "layer_norm/f32": (x32s, w32s, b32s)}
            for k, (a, b, c) in args.items():
                if k not in names:
                    continue
                try:
                    torch._dynamo.reset()
                    ln = torch.compile(lambda x, w, b: F.layer_norm(x, (C,), w, b, 1e-5), dynamic=False)
                    compiled_us[(k, R, C)] = time_us(lambda i: ln(a[i], b[i], c[i]), sets, reps)
                except Exception as e:  # no compiler backend here (triton): say so
                    print(f"torch.compile {k}: {e}", file=sys.stderr)
            del xs, rs, ws, bs, x32s, w32s, b32s
            torch.cuda.empty_cache()
        torch_note = f"torch {torch.__version__}"
    except ImportError as e:
        torch_note = f"no torch: {e}"

print("Method: every buffer in NS sets holding together >= 4x the L2, launches rotating through them back to back")
print("on one stream between two events (launch gaps included), time = elapsed / launches, median of 7 timings.")
print("'% copy' = our GB/s over the faster of cudaMemcpyAsync and a 16-byte copy kernel copying one input-sized")
print(f"bf16 tensor of the same shape, timed the same way; '% 1GiB' over a 1 GiB memcpy ({big_gbps:.0f} GB/s). "
      f"Bytes: each input read once, each output written once. {torch_note}; its rows use our byte counts.")
hdr = (f"{'kernel':26} {'rows x cols':>12} {'shape':>16} {'us':>8} {'GB/s':>6} {'% copy':>7} {'% 1GiB':>7} "
       f"{'torch us':>9} {'ours/torch':>10} {'compile us':>10} {'ours/comp':>9}")
for (R, C), srows in sorted(by_shape.items(), key=lambda kv: (-kv[0][0], kv[0][1])):
    ref, refname, sets = copy_ref(srows)
    print()
    print(f"== {R} x {C} (bf16 tensor {R * C * 2 / 2**20:.0f} MiB, {sets} sets): copy {ref:.0f} GB/s ({refname})"
          + ("" if R * C * 2 * sets >= 60 * 2**20 else "  [all sets fit in the L2: decode-sized, cache-resident]"))
    print(hdr)
    print("-" * len(hdr))
    for r in srows:
        if r["kernel"].startswith("copy/") or not r["variant"].startswith("served"):
            continue
        k, us, gb = r["kernel"], float(r["us"]), float(r["GBps"])
        shape = r["variant"].replace("served", "").strip() or "-"
        t = torch_us.get((k, R, C))
        tcol = f"{t:9.1f} {t / us:9.2f}x" if t else f"{'-':>9} {'-':>10}"
        tc = compiled_us.get((k, R, C))
        ccol = f"{tc:10.1f} {tc / us:8.2f}x" if tc else f"{'-':>10} {'-':>9}"
        print(f"{k:26} {f'{R}x{C}':>12} {shape:>16} {us:8.1f} {gb:6.0f} {100 * gb / ref:6.1f}% "
              f"{100 * gb / big_gbps:6.1f}% {tcol} {ccol}")

print()
print("Every variant swept (forced shapes; 'served' is the contract's):")
for (R, C), srows in sorted(by_shape.items(), key=lambda kv: (-kv[0][0], kv[0][1])):
    ref, _, _ = copy_ref(srows)
    for r in srows:
        print(f"  {r['kernel']:26} {R:>6}x{C:<6} {r['variant']:>26} {float(r['us']):8.1f} us "
              f"{float(r['GBps']):6.0f} GB/s {100 * float(r['GBps']) / ref:6.1f}%")
print()
print("torch's swiglu/geglu are silu(g)*u / gelu(g)*u (two bf16 ops, not MLX's steps); its add_rms_norm is x+r then")
print("rms_norm (two kernels); its dot is torch.mv (bf16 out); its sum reads bf16 into an fp32 sum. Its layer_norm")
print("returns y alone (ours writes mean and rstd too: 8 bytes a row); 'compile' is torch.compile of F.layer_norm.")
