#!/usr/bin/env python3
"""Decode attention against its peers, one table: bench_decode's CSV (ours over a linear and a paged
cache, and the copy of the same K and V bytes) beside PyTorch's scaled_dot_product_attention with each
backend it offers for the shape (flash, efficient, cuDNN, math; enable_gqa=True, so every backend reads
the 8 kv heads, not copies of them) and FlexAttention (torch.compile'd), timed by the same method:
inputs in sets holding together >= 4x the L2, launches back to back between two events, the median of
7 timings. One query row a sequence, 32 q heads over 8 kv heads, d 128, bf16, every sequence full.
Usage: table.py bench_decode.csv [--no-torch]"""
import csv
import math
import os
import sys
import warnings
from collections import defaultdict

warnings.filterwarnings("ignore")  # SDPA explains each backend it declines; the table says which

rows = list(csv.DictReader(open(sys.argv[1])))
use_torch = "--no-torch" not in sys.argv
by_shape = defaultdict(dict)
for r in rows:
    by_shape[(int(r["batch"]), int(r["keys"]))][r["kernel"]] = r

QH, KVH, D = 32, 8, 128
peers = {}  # (batch, keys) -> {name: us or error text}
note = "torch not run"
if use_torch:
    try:
        import torch
        import torch.nn.functional as F
        from torch.nn.attention import SDPBackend, sdpa_kernel

        l2 = torch.cuda.get_device_properties(0).L2_cache_size

        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/cuda: the shared timing method
        from torch_timing import time_us

        try:
            from torch.nn.attention.flex_attention import flex_attention
            import torch._dynamo
            # One compiled kernel a shape (past the default limit of 8 recompiles dynamo falls back to
            # the unfused eager form, which is not what a user of FlexAttention runs).
            torch._dynamo.config.cache_size_limit = 64
            torch._dynamo.config.recompile_limit = 64
            flex = torch.compile(flex_attention, dynamic=False)
        except Exception as e:  # noqa: BLE001
            flex = None
            flex_err = f"{type(e).__name__}"

        backends = [("sdpa/flash", SDPBackend.FLASH_ATTENTION), ("sdpa/efficient", SDPBackend.EFFICIENT_ATTENTION),
                    ("sdpa/cudnn", SDPBackend.CUDNN_ATTENTION), ("sdpa/math", SDPBackend.MATH)]
        for (b, k) in sorted(by_shape):
            kv_bytes = 2.0 * b * k * KVH * D * 2
            sets = int(min(64, max(1, math.ceil(4.0 * l2 / kv_bytes))))
            reps = int(max(5, min(400, 2e9 / kv_bytes)))
            g = torch.Generator(device="cuda").manual_seed(1)
            qs = [torch.rand(b, QH, 1, D, device="cuda", dtype=torch.bfloat16, generator=g) * 4 - 2 for _ in range(sets)]
            ks = [torch.rand(b, KVH, k, D, device="cuda", dtype=torch.bfloat16, generator=g) * 4 - 2 for _ in range(sets)]
            vs = [torch.rand(b, KVH, k, D, device="cuda", dtype=torch.bfloat16, generator=g) * 4 - 2 for _ in range(sets)]
            res = {}
            for name, be in backends:
                if name == "sdpa/math" and kv_bytes > 2**31:
                    res[name] = "skipped (math over > 2 GiB of K and V)"
                    continue
                try:
                    with sdpa_kernel([be]):
                        res[name] = time_us(lambda i: F.scaled_dot_product_attention(qs[i], ks[i], vs[i], enable_gqa=True),
                                            sets, reps)
                except Exception as e:  # noqa: BLE001
                    res[name] = f"refused: {str(e).splitlines()[0][:60]}"
            if flex is None:
                res["flex"] = f"unavailable: {flex_err}"
            else:
                try:
                    res["flex"] = time_us(lambda i: flex(qs[i], ks[i], vs[i], enable_gqa=True), sets, reps)
                except Exception as e:  # noqa: BLE001
                    res["flex"] = f"failed: {type(e).__name__}: {str(e).splitlines()[0][:50]}"
            peers[(b, k)] = res
            del qs, ks, vs
            torch.cuda.empty_cache()
        note = f"torch {torch.__version__}"
    except Exception as e:  # noqa: BLE001
        note = f"torch failed: {type(e).__name__}: {e}"

print(f"# peers: {note}")
print("'% copy' = our GB/s over the copy's (cudaMemcpyAsync of the same K and V bytes: read + written);")
print("peers in us; 'vs best' = the fastest peer's time over ours (> 1: ours faster).")
hdr = ["batch", "keys", "KV MiB", "copy GB/s", "linear us", "GB/s", "% copy", "paged us", "% copy",
       "flash", "efficient", "cudnn", "math", "flex", "vs best"]
print(" ".join(f"{h:>10}" for h in hdr))
notes = []
for (b, k), m in sorted(by_shape.items()):
    lin, pg, cp = m.get("decode/linear"), m.get("decode/paged16"), m.get("copy/memcpy")
    copy_gbps = float(cp["GBps"]) if cp else float("nan")
    res = peers.get((b, k), {})
    cells = []
    best = math.inf
    for name in ["sdpa/flash", "sdpa/efficient", "sdpa/cudnn", "sdpa/math", "flex"]:
        v = res.get(name)
        if isinstance(v, float):
            cells.append(f"{v:10.1f}")
            best = min(best, v)
        else:
            cells.append(f"{'-':>10}")
            if v:
                notes.append(f"{b}x{k} {name}: {v}")
    lin_us = float(lin["us"]) if lin else float("nan")
    line = [f"{b:10d}", f"{k:10d}", f"{2.0 * b * k * KVH * D * 2 / 2**20:10.1f}", f"{copy_gbps:10.0f}",
            f"{lin_us:10.1f}", f"{float(lin['GBps']):10.0f}", f"{100 * float(lin['GBps']) / copy_gbps:9.1f}%",
            f"{float(pg['us']):10.1f}", f"{100 * float(pg['GBps']) / copy_gbps:9.1f}%"] + cells
    line.append(f"{best / lin_us:9.2f}x" if best < math.inf else f"{'-':>10}")
    print(" ".join(line))
for n in notes:
    print("#", n)
