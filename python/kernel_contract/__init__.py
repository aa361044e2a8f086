"""kernel-contract for Python: Triton, PyTorch and NumPy kernels held to the same five gates as the
harness's C++ entries, each entry in a process of its own, from the command line or pytest.

    import kernel_contract as kc

    @kc.kernel("mine/row_sum/f32")            # backend "cpu" (NumPy) or "cuda" (torch, Triton)
    def row_sum():
        return (kc.rows.sum("f32", "f32")
                .served(rows=[1, 7], cols=[64, 1000]).tile("cols", 4)
                .sums("f32", lambda s: (s["cols"] + 3) // 4 + 2)
                .launch(lambda b: ...))        # b["x"], b["y"]: the harness's own buffers

``python -m kernel_contract FILE`` runs every gate and prints a SUMMARY line; ``pytest
--kernel-contract FILE`` makes each entry a test.
"""
from ._lib import DTYPES, HarnessError
from .entry import Entry
from .families import affine, attention, blockscaled, dense, rows
from .registry import control, kernel, load
from .views import Buffers, Case, DLPackBuffer, Shape, bf16_to_f32, f32_to_bf16


def __getattr__(name):
    # kc.triton on first use: importing Triton (and with it, often, PyTorch) costs a second, which
    # every pytest run that loads the plugin would otherwise pay at import.
    if name == "triton":
        import importlib

        return importlib.import_module(".triton", __name__)
    raise AttributeError(f"module 'kernel_contract' has no attribute '{name}'")


def main(argv=None) -> int:
    from .cli import main as _main

    return _main(argv)


def backend_absent(name: str):
    """"" where the backend can run kernels here, else why not; None for a name no backend has."""
    from . import _lib

    r = _lib.lib().kc_backend_absent(name.encode())
    return None if r is None else r.decode()


__all__ = ["DTYPES", "HarnessError", "Entry", "affine", "attention", "blockscaled", "dense", "rows", "control",
           "kernel", "load", "Buffers", "Case", "DLPackBuffer", "Shape", "bf16_to_f32", "f32_to_bf16", "triton",
           "main", "backend_absent"]
