"""The benchmarks' timing method for PyTorch peers, the same as kc_bench::time_us (bench_check.cuh):
f(i) launches on input set i; a warm pass over the sets, then 7 trials of `reps` back-to-back launches
rotating through them between two CUDA events; the median trial, in us a launch."""
import torch


def time_us(f, sets, reps):
    for i in range(sets):
        f(i)
    torch.cuda.synchronize()
    ts = []
    for trial in range(7):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for i in range(reps):
            f((trial * reps + i) % sets)
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) * 1e3 / reps)
    return sorted(ts)[len(ts) // 2]
