"""CUDA from Python: the harness's stream as PyTorch's current one during a launch, and the GPUs
this machine has (for pinning one a pytest-xdist worker)."""
from __future__ import annotations

import contextlib
import os


@contextlib.contextmanager
def on_stream(ptr: int):
    """PyTorch's current stream is the harness's while the block runs, so a torch op or a Triton
    kernel (which launches on torch's current stream) runs on it; a launch elsewhere is an ERROR
    (gate 5 at run time: why=stream)."""
    import torch

    with torch.cuda.stream(torch.cuda.ExternalStream(ptr)) as s:
        yield s


def gpu_count() -> int:
    """NVIDIA GPUs the driver shows (no CUDA library is loaded to count them), within
    CUDA_VISIBLE_DEVICES where it is set."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return len([v for v in visible.split(",") if v.strip() and not v.strip().startswith("-")])
    try:
        return len(os.listdir("/proc/driver/nvidia/gpus"))
    except OSError:
        return 0


def pinned_devices(worker: str | None, visible: str | None, count: int) -> str | None:
    """The CUDA_VISIBLE_DEVICES of a pytest-xdist worker ("gw3"): one GPU each, round robin over the
    GPUs visible to the run (its own CUDA_VISIBLE_DEVICES list, or 0..count-1); None where there is
    no worker or no GPU (nothing to pin)."""
    if not worker or not worker.startswith("gw") or not worker[2:].isdigit():
        return None
    ids = [v.strip() for v in visible.split(",") if v.strip()] if visible else [str(i) for i in range(count)]
    if not ids:
        return None
    return ids[int(worker[2:]) % len(ids)]
