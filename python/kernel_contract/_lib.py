"""The harness's C ABI (python/capi/kc_capi.h) through ctypes: loading the library, its prototypes,
and the callbacks it makes into Python.

One library serves every Python version: it names no interpreter. Callbacks are five module-level
trampolines; what each calls is a key (``ud``) into a table of Python callables, so no ctypes
function object is made per hook. A hook that raises leaves the exception's last traceback line
(with where it was raised) as the harness's error text, which the run prints on the entry's line.
"""
from __future__ import annotations

import ctypes
import itertools
import json
import os
import threading
import traceback
from pathlib import Path

CAPI_VERSION = 1

# kc::DType's order; the library is asked at load time that it agrees.
DTYPES = ("f64", "f32", "f16", "bf16", "i64", "i32", "u32", "u16", "u8", "i8")
ROLES = ("in", "out")

SHAPE_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_double))
LAUNCH_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
TEXT_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
VOID_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
FACTORY_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))

_lock = threading.Lock()
_lib = None


class HarnessError(RuntimeError):
    """An error the harness reported: a bad spec, an unknown family or argument, named."""


def library_path() -> str:
    """KC_CAPI_LIBRARY where set (a build's own library), else the one installed in the package."""
    env = os.environ.get("KC_CAPI_LIBRARY")
    if env:
        return env
    return str(Path(__file__).parent / "_lib" / "libkernel_contract.so")


def _prototype(lib):
    c = ctypes
    sigs = {
        "kc_capi_version": (c.c_int, []),
        "kc_last_error": (c.c_char_p, []),
        "kc_set_error": (None, [c.c_char_p]),
        "kc_dtype_name": (c.c_char_p, [c.c_int]),
        "kc_dtype_size": (c.c_size_t, [c.c_int]),
        "kc_entry_family": (c.c_void_p, [c.c_char_p, c.c_char_p, SHAPE_FN, c.c_void_p]),
        "kc_entry_free": (None, [c.c_void_p]),
        "kc_entry_apply": (c.c_int, [c.c_void_p, c.c_char_p, c.c_char_p]),
        "kc_entry_sums": (c.c_int, [c.c_void_p, c.c_int, SHAPE_FN, c.c_void_p, c.c_int, c.c_int]),
        "kc_entry_launch": (c.c_int, [c.c_void_p, LAUNCH_FN, c.c_void_p]),
        "kc_entry_replaces": (c.c_int, [c.c_void_p, c.c_char_p, LAUNCH_FN, c.c_void_p]),
        "kc_entry_picks": (c.c_int, [c.c_void_p, c.c_char_p, TEXT_FN, c.c_void_p]),
        "kc_entry_rule": (c.c_int, [c.c_void_p, c.c_char_p, TEXT_FN, c.c_void_p]),
        "kc_entry_release": (c.c_int, [c.c_void_p, VOID_FN, c.c_void_p]),
        "kc_entry_describe": (c.c_void_p, [c.c_void_p]),
        "kc_free_text": (None, [c.c_void_p]),
        "kc_call": (c.c_void_p, [c.c_char_p, c.c_char_p]),
        "kc_register": (c.c_int, [c.c_char_p, c.c_char_p, c.c_char_p, c.c_int, c.c_int, FACTORY_FN, c.c_void_p]),
        "kc_registered": (c.c_size_t, []),
        "kc_shape_rank": (c.c_int, [c.c_void_p]),
        "kc_shape_dim": (c.c_int, [c.c_void_p, c.c_int, c.POINTER(c.c_char_p), c.POINTER(c.c_int64)]),
        "kc_buffers_size": (c.c_int, [c.c_void_p]),
        "kc_buffers_slot": (c.c_int, [c.c_void_p, c.c_int, c.POINTER(c.c_char_p), c.POINTER(c.c_int),
                                      c.POINTER(c.c_uint64), c.POINTER(c.c_int), c.POINTER(c.c_void_p)]),
        "kc_buffers_shape": (c.c_void_p, [c.c_void_p]),
        "kc_buffers_stream": (c.c_void_p, [c.c_void_p]),
        "kc_case_size": (c.c_int, [c.c_void_p]),
        "kc_case_buffer": (c.c_int, [c.c_void_p, c.c_int, c.POINTER(c.c_char_p), c.POINTER(c.c_int),
                                     c.POINTER(c.c_uint64), c.POINTER(c.c_int), c.POINTER(c.c_void_p)]),
        "kc_case_shape": (c.c_void_p, [c.c_void_p]),
        "kc_dlpack_new": (c.c_void_p, [c.c_void_p, c.c_uint8, c.c_uint8, c.c_int64, c.c_int32, c.c_int32]),
        "kc_dlpack_delete": (None, [c.c_void_p]),
        "kc_backend_absent": (c.c_char_p, [c.c_char_p]),
        "kc_cuda_module_launch": (c.c_int, [c.c_char_p, c.c_char_p, c.c_int, c.c_uint64]),
        "kc_cuda_audit": (c.c_void_p, [c.c_char_p]),
        "kc_audit_results": (c.c_int, [c.c_char_p]),
        "kc_main": (c.c_int, [c.c_int, c.POINTER(c.c_char_p), c.c_int, c.POINTER(c.c_char_p)]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args


def lib():
    """The loaded library (loaded once, at first use: importing the package loads nothing)."""
    global _lib
    with _lock:
        if _lib is None:
            path = library_path()
            if not os.path.exists(path):
                raise ImportError(f"kernel_contract: the harness library {path} is missing: install the package with "
                                  f"`pip install python/` from the repository, or set KC_CAPI_LIBRARY to a build's "
                                  f"python/lib/libkernel_contract.so")
            # CDLL releases the GIL during each call: the harness calls back from its own threads.
            loaded = ctypes.CDLL(path)
            _prototype(loaded)
            if loaded.kc_capi_version() != CAPI_VERSION:
                raise ImportError(f"kernel_contract: {path} has C ABI version {loaded.kc_capi_version()}, this "
                                  f"package wants {CAPI_VERSION}: reinstall the package from one tree")
            names = tuple(loaded.kc_dtype_name(i).decode() for i in range(len(DTYPES)))
            if names != DTYPES or loaded.kc_dtype_name(len(DTYPES)) is not None:
                raise ImportError(f"kernel_contract: {path}'s element types {names} are not {DTYPES}")
            _lib = loaded
        return _lib


def error() -> str:
    return lib().kc_last_error().decode(errors="replace")


def check(rc: int, what: str = "") -> None:
    if rc != 0:
        raise HarnessError(f"{what}: {error()}" if what else error())


def take_text(ptr, what: str):
    """A JSON result the library allocated, parsed and freed."""
    if not ptr:
        raise HarnessError(f"{what}: {error()}")
    try:
        return json.loads(ctypes.string_at(ptr).decode())
    finally:
        lib().kc_free_text(ptr)


def call(fn: str, **args):
    """A family helper (kc_call): JSON in, JSON out."""
    return take_text(lib().kc_call(fn.encode(), json.dumps(args).encode()), fn)


# --- hooks -------------------------------------------------------------------------------------

_hooks: dict[int, object] = {}
_ids = itertools.count(1)


def hook(fn) -> int:
    """A key for a Python callable the harness may call back (kept for the process's life: an entry
    is built a few times a run, and its hooks are small)."""
    with _lock:
        k = next(_ids)
        _hooks[k] = fn
    return k


def describe(exc: BaseException) -> str:
    """The traceback's last line, and where it was raised: what an ERROR line shows of an exception."""
    last = traceback.format_exception_only(type(exc), exc)[-1].strip()
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        f = frames[-1]
        where = os.path.relpath(f.filename) if not os.path.relpath(f.filename).startswith("..") else f.filename
        return f"{last} (raised at {where}:{f.lineno}, in {f.name})"
    return last


def fail(exc: BaseException) -> int:
    lib().kc_set_error(describe(exc).encode(errors="replace"))
    return 1


def _text_out(text: str, out, cap: int) -> None:
    data = text.encode(errors="replace")[: max(0, cap - 1)]
    ctypes.memmove(out, data + b"\0", len(data) + 1)


@SHAPE_FN
def _shape_tramp(ud, shape, out):
    try:
        from .views import Shape
        out[0] = float(_hooks[ud](Shape.read(shape)))
        return 0
    except BaseException as e:  # noqa: BLE001 - every failure goes back to the harness, named
        return fail(e)


@LAUNCH_FN
def _launch_tramp(ud, buffers):
    try:
        _hooks[ud](buffers)
        return 0
    except BaseException as e:  # noqa: BLE001
        return fail(e)


@TEXT_FN
def _text_tramp(ud, arg, out, cap):
    try:
        text = _hooks[ud](arg)
        if not isinstance(text, str):
            raise TypeError(f"the hook returned {type(text).__name__}, not text")
        _text_out(text, out, cap)
        return 0
    except BaseException as e:  # noqa: BLE001
        return fail(e)


@VOID_FN
def _void_tramp(ud):
    try:
        _hooks[ud]()
        return 0
    except BaseException as e:  # noqa: BLE001
        return fail(e)


@FACTORY_FN
def _factory_tramp(ud, out):
    try:
        out[0] = _hooks[ud]()
        return 0
    except BaseException as e:  # noqa: BLE001
        return fail(e)


shape_tramp, launch_tramp, text_tramp, void_tramp, factory_tramp = (
    _shape_tramp, _launch_tramp, _text_tramp, _void_tramp, _factory_tramp)
NO_SHAPE_FN = SHAPE_FN()  # a null function pointer: "no dot depth"
