#!/usr/bin/env python3
"""The CUDA contract's budget: one whole run of kernel-contract, its wall time against the sum of its
kernels' own time (the runner's kernel phase: each launch from its start to the end of the wait
for it, poison and guards included), with every phase's sum and the ten slowest entries, from the
run's JSON Lines report. A benchmark, not a test: it needs a GPU and prints what it measured; the
table it keeps is bench/contract_time.md (the command, the date and the device with each row).

Usage: contract_time.py [--budget-s 60] [--budget-ratio 2] [--keep DIR] [--backend cuda] KERNEL_CONTRACT [ARGS...]
ARGS go to kernel-contract after `--backend B --reporter json --out FILE` (e.g. --seed 7); the options
come before the executable.
Exit status: 0 within both budgets, 1 over either, 2 when the run itself failed or printed no summary.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

PHASES = ("inputs", "upload", "kernel", "fetch", "reference", "check")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--budget-s", type=float, default=60.0, help="the whole run's wall time at most (s)")
    ap.add_argument("--budget-ratio", type=float, default=2.0, help="the run's time over its kernels' at most")
    ap.add_argument("--keep", help="a folder to keep the run's console output and JSON Lines report in")
    ap.add_argument("--backend", default="cuda", help="the backend to time (cuda; cpu to try the script)")
    ap.add_argument("exe", help="the kernel-contract executable")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="arguments for kernel-contract")
    a = ap.parse_args()
    extra = a.args
    out_dir = a.keep or tempfile.mkdtemp(prefix="contract_time.")
    os.makedirs(out_dir, exist_ok=True)
    report = os.path.join(out_dir, "run.jsonl")
    cmd = [a.exe, "--backend", a.backend, "--reporter", "json", "--out", report] + extra
    t0 = time.monotonic()
    with open(os.path.join(out_dir, "console.txt"), "w") as console:
        rc = subprocess.call(cmd, stdout=console, stderr=subprocess.STDOUT)
    wall = time.monotonic() - t0
    sums = {p: 0.0 for p in PHASES}
    summaries, slowest, device = [], [], ""
    try:
        lines = [json.loads(l) for l in open(report) if l.strip()]
    except (OSError, ValueError) as e:
        print(f"contract_time: no readable report from {' '.join(cmd)}: {e}", file=sys.stderr)
        return 2
    for j in lines:
        t = j.get("type")
        if t == "gate" and j.get("backend") == a.backend:
            for p in PHASES:
                sums[p] += j.get("phases", {}).get(p, 0.0)
        elif t == "backend" and j.get("backend") == a.backend:
            device = j.get("device", "")
        elif t == "summary":
            summaries.append(j)
        elif t == "timings":
            slowest = j.get("slowest", [])
    mine = [s for s in summaries if s.get("backend") == a.backend]
    if not mine:
        print(f"contract_time: the run printed no {a.backend} summary (exit {rc}); see {out_dir}", file=sys.stderr)
        return 2
    if mine[0].get("absent"):
        print(f"contract_time: the {a.backend} backend is absent here: {mine[0]['absent']}", file=sys.stderr)
        return 2
    summary_lines = [l.rstrip("\n") for l in open(os.path.join(out_dir, "console.txt")) if l.startswith("SUMMARY")]
    kernel = sums["kernel"]
    ratio = wall / kernel if kernel > 0 else float("inf")
    print(f"device: {device}")
    print(f"command: {' '.join(cmd)}")
    for l in summary_lines:
        print(l)
    print(f"exit code: {rc}")
    print(f"wall: {wall:.1f} s; kernels (the kernel phase): {kernel:.1f} s; ratio {ratio:.2f}")
    print("phases: " + ", ".join(f"{p} {sums[p]:.1f} s" for p in PHASES))
    print("slowest entries:")
    for s in slowest:
        ph = ", ".join(f"{p} {s['phases'].get(p, 0):.1f}" for p in PHASES if s["phases"].get(p, 0) >= 0.05)
        print(f"  {s['entry']}: {s['seconds']:.1f} s ({ph})")
    print("table row: | {:.1f} | {:.1f} | {:.2f} | {} |".format(wall, kernel, ratio,
                                                                " | ".join(f"{sums[p]:.1f}" for p in PHASES)))
    ok = wall <= a.budget_s and ratio <= a.budget_ratio
    print(f"budget ({a.budget_s:g} s and {a.budget_ratio:g}x the kernels): {'kept' if ok else 'OVER'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
