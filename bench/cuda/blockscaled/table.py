#!/usr/bin/env python3
"""The block-scaled kernels against their peers, one table: bench_fp8's CSV (our FP8 wgmma GEMM in
three scale forms; the FP8 and FP4 GEMVs and the copy of the same weight bytes) beside PyTorch's
torch._scaled_mm (cuBLASLt) on the same shapes and scale forms: per tensor (scalar scales), rowwise
(scale_a [m, 1], scale_b [1, n]) for the per-channel form, and 1 x 128 / 128 x 128 blocks where this
torch offers them. Timed by the same method: inputs in sets holding together >= 4x the L2, launches
back to back between two events, the median of 7 timings.
Usage: table.py bench_fp8.csv [--no-torch]"""
import csv
import math
import os
import sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
use_torch = "--no-torch" not in sys.argv
gemm = {(r["form"], int(r["m"]), int(r["n"]), int(r["k"])): float(r["us"]) for r in rows if r["kernel"] == "gemm/wgmma"}
gemv = defaultdict(dict)
for r in rows:
    if r["kernel"] in ("gemv", "copy/memcpy"):
        gemv[(r["form"], int(r["m"]), int(r["n"]), int(r["k"]))][r["kernel"]] = r

peer = {}
layout_note = None
note = "torch not run"
if use_torch:
    try:
        import torch

        l2 = torch.cuda.get_device_properties(0).L2_cache_size

        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/cuda: the shared timing method
        from torch_timing import time_us

        for (form, m, n, k) in sorted(gemm):
            nbytes = m * k + n * k + 2 * m * n
            sets = int(min(16, max(1, math.ceil(4.0 * l2 / nbytes))))
            reps = int(max(3, min(200, 2e12 / (2.0 * m * n * k))))
            g = torch.Generator(device="cuda").manual_seed(1)
            xs = [(torch.rand(m, k, device="cuda", generator=g) * 2 - 1).to(torch.float8_e4m3fn) for _ in range(sets)]
            # b column-major: w [n, k] row-major, transposed (what cuBLASLt's FP8 path takes).
            ws = [(torch.rand(n, k, device="cuda", generator=g) * 2 - 1).to(torch.float8_e4m3fn).t() for _ in range(sets)]
            if form == "tensor":
                sa, sb = torch.tensor(0.01, device="cuda"), torch.tensor(0.02, device="cuda")
            elif form == "channel":
                sa, sb = torch.full((m, 1), 0.01, device="cuda"), torch.full((1, n), 0.02, device="cuda")
            else:  # 1 x 128 activation groups, 128 x 128 weight blocks: each shape and major order torch may take
                kb, nb = (k + 127) // 128, (n + 127) // 128
                sa = [torch.full((m, kb), 0.01, device="cuda"), torch.full((kb, m), 0.01, device="cuda").t()]
                sb = [torch.full(s_, 0.02, device="cuda") for s_ in ((nb, kb), (kb, nb))]
                sb += [t.t().contiguous().t() for t in sb]
                layouts = [(a_, b_) for a_ in sa for b_ in sb]
            try:
                if form != "block128":
                    layouts = [(sa, sb)]
                err = None
                for a_, b_ in layouts:
                    try:
                        torch._scaled_mm(xs[0], ws[0], scale_a=a_, scale_b=b_, out_dtype=torch.bfloat16)
                    except Exception as e:  # noqa: BLE001
                        err = e
                        continue
                    peer[(form, m, n, k)] = time_us(
                        lambda i: torch._scaled_mm(xs[i], ws[i], scale_a=a_, scale_b=b_, out_dtype=torch.bfloat16), sets, reps)
                    if form == "block128":
                        layout_note = f"block128 scales taken as a {tuple(a_.shape)} stride {a_.stride()}, b {tuple(b_.shape)} stride {b_.stride()}"
                    break
                else:
                    raise err
            except Exception as e:  # noqa: BLE001
                peer[(form, m, n, k)] = f"refused: {str(e).splitlines()[0][:70]}"
            del xs, ws
            torch.cuda.empty_cache()
        note = f"torch {torch.__version__}, torch._scaled_mm"
    except Exception as e:  # noqa: BLE001
        note = f"torch failed: {type(e).__name__}: {e}"

print(f"# peers: {note}")
print("FP8 GEMM, bf16 out: ours (wgmma, promoted to fp32 every 128 columns) and torch._scaled_mm, us and TFLOPS;")
print("'% peer' = the peer's time over ours.")
hdr = ["form", "m", "n", "k", "ours us", "TFLOPS", "peer us", "TFLOPS", "% peer"]
print(" ".join(f"{h:>9}" for h in hdr))
notes = []
for key in sorted(gemm, key=lambda t: (t[0], t[1], t[2], t[3])):
    form, m, n, k = key
    us = gemm[key]
    f = 2.0 * m * n * k
    p = peer.get(key)
    cells = [f"{form:>9}", f"{m:9d}", f"{n:9d}", f"{k:9d}", f"{us:9.1f}", f"{f / us * 1e-6:9.0f}"]
    if isinstance(p, float):
        cells += [f"{p:9.1f}", f"{f / p * 1e-6:9.0f}", f"{100 * p / us:8.1f}%"]
    else:
        cells += [f"{'-':>9}"] * 3
        if p:
            notes.append(f"{form} {m}x{n}x{k}: {p}")
    print(" ".join(cells))
print()
print("GEMVs (bf16 x, m rows): GB/s of the bytes they move and the copy's of the weight bytes (read + written).")
hdr = ["form", "m", "n", "k", "us", "GB/s", "copy GB/s", "% copy"]
print(" ".join(f"{h:>12}" for h in hdr))
for key in sorted(gemv):
    form, m, n, k = key
    v, c = gemv[key].get("gemv"), gemv[key].get("copy/memcpy")
    if not v or not c:
        continue
    print(" ".join([f"{form:>12}", f"{m:12d}", f"{n:12d}", f"{k:12d}", f"{float(v['us']):12.1f}", f"{float(v['GBps']):12.0f}",
                    f"{float(c['GBps']):12.0f}", f"{100 * float(v['GBps']) / float(c['GBps']):11.1f}%"]))
if layout_note:
    print("#", layout_note)
for n_ in notes:
    print("#", n_)
