"""``python -m kernel_contract FILE_OR_FOLDER... [options]``: the kernel-contract command line over the
entries those files register (every option of ``kernel-contract --help``), plus
``--write-triton-records`` (compile the Triton launches, write their gate 5 records, run nothing).

Each CPU entry runs in a fresh process this one supervises (this same command again, resumed at the
entry), so a launcher that crashes or hangs is an ERROR naming it and the run goes on; CUDA entries
run here and continue in a fresh process after a lost device, as the C++ command line's do.
"""
from __future__ import annotations

import json
import os
import sys

from . import _lib, registry, triton

USAGE = "usage: python -m kernel_contract FILE_OR_FOLDER... [kernel-contract options] [--write-triton-records]"
_NUMBERS = "KC_TRITON_NUMBERS"  # the parent's compiled Triton launches, for the fresh processes


def _cupti() -> None:
    """The launch watch opens CUPTI by soname; where the loader cannot find one, point it at the
    copy a CUDA toolkit or the nvidia-cuda-cupti wheel installed (KC_CUPTI, read by the backend)."""
    if os.environ.get("KC_CUPTI"):
        return
    import glob
    import importlib.util

    places = ["/usr/local/cuda/extras/CUPTI/lib64/libcupti.so*"]
    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations or []) if spec else []:
        places += [f"{root}/*/lib/libcupti.so*", f"{root}/cuda_cupti/lib/libcupti.so*"]
    for pattern in places:
        found = sorted(glob.glob(pattern))
        if found:
            os.environ["KC_CUPTI"] = found[-1]
            return


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    paths = []
    while args and not args[0].startswith("-"):
        paths.append(args.pop(0))
    if not paths:
        print(USAGE, file=sys.stderr)
        return 2
    write = "--write-triton-records" in args
    args = [a for a in args if a != "--write-triton-records"]
    try:
        files = registry.contract_files(paths)
    except FileNotFoundError as e:
        print(f"kernel-contract: {e}", file=sys.stderr)
        return 2
    for f in files:
        try:
            registry.load(f)
        except Exception as e:  # noqa: BLE001 - a contract that cannot load is named, with its traceback's line
            print(f"kernel-contract: cannot load {f}: {_lib.describe(e)}", file=sys.stderr)
            return 2
    fresh = any(a.startswith("--resume-at") for a in args)
    regen = " ".join(["python -m kernel_contract", *map(str, paths), "--write-triton-records"])
    if write:
        res = triton.gate5(write=True, regen=regen)
        for n in res["notes"]:
            print(f"NOTE {n}")
        for e in res["errors"]:
            print(f"ERROR {e}")
        return 1 if res["errors"] or not triton.declared else 0
    if fresh:  # gate 5 is the parent's; the launch watch needs the parent's numbers
        triton.set_numbers(json.loads(os.environ.get(_NUMBERS, "{}")))
    elif triton.declared and "--no-limits" not in args and "--list" not in args:
        only = next((a.split("=", 1)[1] for a in args if a.startswith("--only=")), "")
        if not only and "--only" in args[:-1]:
            only = args[args.index("--only") + 1]
        _lib.check(_lib.lib().kc_audit_results(json.dumps(triton.gate5(only=only, regen=regen)).encode()), "gate 5 (Triton)")
        os.environ[_NUMBERS] = json.dumps(triton.numbers())
    if triton.numbers() and _lib.lib().kc_backend_absent(b"cuda") == b"":
        triton.declare_module_launches()
        _cupti()
    self_cmd = [sys.executable, "-m", "kernel_contract", *map(str, files)]
    argv_c = ["kernel-contract", *args]
    sys.stdout.flush()
    sys.stderr.flush()
    arr = (len(argv_c) * _lib.ctypes.c_char_p)(*[a.encode() for a in argv_c])
    selfs = (len(self_cmd) * _lib.ctypes.c_char_p)(*[a.encode() for a in self_cmd])
    return _lib.lib().kc_main(len(argv_c), arr, len(self_cmd), selfs)
