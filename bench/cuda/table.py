#!/usr/bin/env python3
"""Runs PyTorch's own ops at the shapes bench_rows measured (RMS norm, softmax, top-k, argmax, and a
copy), with the same L2 flush and median-of-25 event timing, and prints one table: each of our
kernels' bandwidth, its share of the measured device-to-device copy, and PyTorch's op beside it.
Usage: table.py ours.csv"""
import csv
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
copy = next(r for r in rows if r["kernel"].startswith("copy_d2d"))
copy_gbps = float(copy["GBps"])
tensor_copy = next((r for r in rows if r["kernel"] == "copy_d2d_tensor"), None)

torch_us = {}
try:
    import torch

    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")

    def time_us(f, reps=25):
        for _ in range(3):
            f()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t = []
        for i in range(reps):
            flush.fill_(i & 0xFF)
            a.record()
            f()
            b.record()
            b.synchronize()
            t.append(a.elapsed_time(b) * 1e3)
        t.sort()
        return t[len(t) // 2]

    shapes = {(int(r["rows"]), int(r["cols"])) for r in rows if r["rows"] != "0"}
    for R, C in sorted(shapes):
        x = (torch.rand(R, C, device="cuda") * 8 - 4).to(torch.bfloat16)
        w = (torch.rand(C, device="cuda") * 8 - 4).to(torch.bfloat16)
        ops = {
            "rms_norm/bf16_out": lambda: torch.nn.functional.rms_norm(x, (C,), w, 1e-6),
            "softmax/bf16": lambda: torch.softmax(x, -1),
            "softmax/bf16_long": lambda: torch.softmax(x, -1),
            "topk/bf16_k8": lambda: torch.topk(x, 8, -1),
            "topk/bf16_k64": lambda: torch.topk(x, 64, -1),
            "argmax/bf16": lambda: torch.argmax(x, -1),
            "max/bf16": lambda: torch.amax(x, -1),
            "sum/f32": lambda: torch.sum(x, -1, dtype=torch.float32),
            "swiglu/bf16": lambda: torch.nn.functional.silu(x) * x,
            "geglu/bf16": lambda: torch.nn.functional.gelu(x) * x,
        }
        for k, f in ops.items():
            try:
                torch_us[(k, R, C)] = time_us(f)
            except Exception as e:  # an op this torch lacks: say so in the table
                torch_us[(k, R, C)] = None
                print(f"torch {k}: {e}", file=sys.stderr)
    torch_note = f"torch {torch.__version__}"
except ImportError as e:
    torch_note = f"no torch: {e}"

print(f"device-to-device copy: {copy_gbps:.0f} GB/s (1 GiB memcpy, read + write); {torch_note}")
if tensor_copy:
    print(f"the same copy of one {tensor_copy['rows']}x{tensor_copy['cols']} bf16 tensor: {float(tensor_copy['GBps']):.0f} GB/s "
          f"({float(tensor_copy['us']):.1f} us, launch included as in every row below)")
hdr = f"{'kernel':28} {'rows x cols':>12} {'ours us':>9} {'GB/s':>7} {'% copy':>7} {'torch us':>9} {'torch GB/s':>10} {'ours/torch':>10}"
print(hdr)
print("-" * len(hdr))
for r in rows:
    if r is copy or r is tensor_copy:
        continue
    k, R, C = r["kernel"], int(r["rows"]), int(r["cols"])
    us, gb = float(r["us"]), float(r["GBps"])
    t = torch_us.get((k, R, C))
    tcol = f"{t:9.1f} {float(r['bytes']) / t * 1e-3:10.0f} {t / us:9.2f}x" if t else f"{'-':>9} {'-':>10} {'-':>10}"
    print(f"{k:28} {f'{R}x{C}':>12} {us:9.1f} {gb:7.0f} {100 * gb / copy_gbps:6.1f}% {tcol}")
print("torch's swiglu/geglu rows are silu(x)*x / gelu(x)*x in one bf16 pass each op (not MLX's steps);"
      " its sum reads bf16 into an fp32 sum; bytes are ours (the same tensors) for both.")
