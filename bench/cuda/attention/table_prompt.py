#!/usr/bin/env python3
"""Prompt (prefill) attention against its peers, one table: bench_prompt_attention's CSV (ours over
a linear cache, every sequence a whole prompt, causal or not) beside PyTorch's
scaled_dot_product_attention (is_causal as ours, enable_gqa=True) with each backend it offers for
the shape (flash, efficient, cuDNN; math only below 1 GiB of scores) and FlexAttention
(torch.compile'd, a causal block mask or none), timed by the same method: inputs in sets holding
together >= 4x the L2, launches back to back between two events, the median of 7 timings. 32 q heads
over 8 kv heads, bf16, the CSV's head dims. Usage: table_prompt.py bench_prompt.csv [--no-torch]"""
import csv
import math
import os
import sys
import warnings

warnings.filterwarnings("ignore")  # SDPA explains each backend it declines; the table says which

ours = {}  # (batch, seq, d, causal) -> {form: row}
for r in csv.DictReader(open(sys.argv[1])):
    ours.setdefault((int(r["batch"]), int(r["seq"]), int(r["d"]), int(r["causal"])), {})[r["form"]] = r
use_torch = "--no-torch" not in sys.argv
QH, KVH = 32, 8
NAMES = ["sdpa/flash", "sdpa/efficient", "sdpa/cudnn", "sdpa/math", "flex"]
peers, note = {}, "torch not run"
if use_torch:
    try:
        import torch
        import torch.nn.functional as F
        from torch.nn.attention import SDPBackend, sdpa_kernel

        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/cuda
        from torch_timing import time_us

        l2 = torch.cuda.get_device_properties(0).L2_cache_size
        try:
            from torch.nn.attention.flex_attention import create_block_mask, flex_attention
            import torch._dynamo
            torch._dynamo.config.cache_size_limit = 64
            torch._dynamo.config.recompile_limit = 64
            flex, flex_err = torch.compile(flex_attention, dynamic=False), ""
        except Exception as e:  # noqa: BLE001
            flex, flex_err = None, type(e).__name__
        backends = list(zip(NAMES[:4], [SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
                                        SDPBackend.CUDNN_ATTENTION, SDPBackend.MATH]))
        for (b, s, D, causal) in sorted(ours):
            set_bytes = (2.0 * b * s * KVH * D + 2.0 * b * s * QH * D) * 2
            sets = int(min(64, max(1, math.ceil(4.0 * l2 / set_bytes))))
            flops = 4.0 * D * QH * b * (s * (s + 1) / 2 if causal else s * s)
            reps = int(max(3, min(200, 2e12 / flops)))
            g = torch.Generator(device="cuda").manual_seed(1)
            rnd = lambda h: torch.rand(b, h, s, D, device="cuda", dtype=torch.bfloat16, generator=g) * 4 - 2  # noqa: E731
            qs, ks, vs = [rnd(QH) for _ in range(sets)], [rnd(KVH) for _ in range(sets)], [rnd(KVH) for _ in range(sets)]
            res = {}
            for name, be in backends:
                if name == "sdpa/math" and 4.0 * b * QH * s * s > 2**30:
                    res[name] = "skipped (math over > 1 GiB of scores)"
                    continue
                try:
                    with sdpa_kernel([be]):
                        res[name] = time_us(lambda i: F.scaled_dot_product_attention(
                            qs[i], ks[i], vs[i], is_causal=bool(causal), enable_gqa=True), sets, reps)
                except Exception as e:  # noqa: BLE001
                    res[name] = f"refused: {str(e).splitlines()[0][:60]}"
            if flex is None:
                res["flex"] = f"unavailable: {flex_err}"
            else:
                try:
                    bm = create_block_mask(lambda b_, h_, qi, ki: qi >= ki, None, None, s, s, device="cuda") if causal else None
                    res["flex"] = time_us(lambda i: flex(qs[i], ks[i], vs[i], block_mask=bm, enable_gqa=True), sets, reps)
                except Exception as e:  # noqa: BLE001
                    res["flex"] = f"failed: {type(e).__name__}: {str(e).splitlines()[0][:50]}"
            peers[(b, s, D, causal)] = res
            del qs, ks, vs
            torch.cuda.empty_cache()
        note = f"torch {torch.__version__}"
    except Exception as e:  # noqa: BLE001
        note = f"torch failed: {type(e).__name__}: {e}"

print(f"# peers: {note}")
print("TFLOP/s (of our fastest form) = 4 d (row, visible key) pairs a q head over the time; peers in us;")
print("'vs best' = the fastest peer's time over our fastest form's (> 1: ours faster).")
hdr = ["batch", "seq", "d", "causal", "mma us", "wgmma us", "TFLOP/s", "flash", "efficient", "cudnn", "math", "flex", "vs best"]
print(" ".join(f"{h:>10}" for h in hdr))
notes = []
for (b, s, D, causal), forms in sorted(ours.items(), key=lambda kv: (kv[0][2] != 128, -kv[0][3], kv[0][2], kv[0][1])):
    r = min(forms.values(), key=lambda x: float(x["us"]))  # our fastest form: TFLOP/s and 'vs best'
    us = float(r["us"])
    mine = [f"{float(forms[f]['us']):10.1f}" if f in forms else f"{'-':>10}" for f in ("mma", "wgmma")]
    cells, best = [], math.inf
    for name in NAMES:
        v = peers.get((b, s, D, causal), {}).get(name)
        if isinstance(v, float):
            cells.append(f"{v:10.1f}")
            best = min(best, v)
        else:
            cells.append(f"{'-':>10}")
            if v:
                notes.append(f"{b}x{s} d{D}{'' if causal else ' non-causal'} {name}: {v}")
    line = [f"{b:10d}", f"{s:10d}", f"{D:10d}", f"{'yes' if causal else 'no':>10}"] + mine + [f"{float(r['TFLOPs']):10.1f}"] + cells
    line.append(f"{best / us:9.2f}x" if best < math.inf else f"{'-':>10}")
    print(" ".join(line))
for n in notes:
    print("#", n)
