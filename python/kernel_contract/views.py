"""What a hook sees: a shape, the harness's own buffers during a launch, a case's host copies.

A launch gets the harness's buffers themselves (fenced, guarded and poisoned as for a C++ entry),
never copies: on the CPU as NumPy arrays over the harness's memory (the array interface: NumPy 1.x
imports DLPack read-only, and an output must be written), on CUDA as PyTorch tensors through
DLPack. Each is flat, of the buffer's element count; reshape it (a view). bf16 has no NumPy type:
on the CPU a bf16 buffer is its bits as uint16 (``bf16_to_f32`` / ``f32_to_bf16`` convert).
The arrays are valid only while the launch runs: the harness frees the memory after it.
"""
from __future__ import annotations

import ctypes

from . import _lib

# DLPack's (code, bits) of each element type; code 0 int, 1 uint, 2 float, 4 bfloat.
_DLPACK = {"f64": (2, 64), "f32": (2, 32), "f16": (2, 16), "bf16": (4, 16), "i64": (0, 64), "i32": (0, 32),
           "u32": (1, 32), "u16": (1, 16), "u8": (1, 8), "i8": (0, 8)}
# The NumPy type of each (bf16: its bits).
_NUMPY = {"f64": "<f8", "f32": "<f4", "f16": "<f2", "bf16": "<u2", "i64": "<i8", "i32": "<i4", "u32": "<u4",
          "u16": "<u2", "u8": "|u1", "i8": "|i1"}
CPU, CUDA = 1, 2  # DLPack device types


class Shape(dict):
    """A named shape, in its dims' order: ``s["cols"]``; ``str(s)`` is ``rows:7/cols:4096``."""

    @classmethod
    def read(cls, handle) -> "Shape":
        L = _lib.lib()
        s = cls()
        name, value = ctypes.c_char_p(), ctypes.c_int64()
        for i in range(L.kc_shape_rank(handle)):
            _lib.check(L.kc_shape_dim(handle, i, ctypes.byref(name), ctypes.byref(value)), "shape")
            s[name.value.decode()] = value.value
        return s

    def __missing__(self, dim):
        raise KeyError(f"the shape {self} has no dim '{dim}' (it has {', '.join(self) or 'none'})")

    def __str__(self):
        return "/".join(f"{k}:{v}" for k, v in self.items())


class Slot:
    """One buffer: its name, element type, element count, role (in or out) and address."""

    __slots__ = ("name", "dtype", "count", "role", "ptr")

    def __init__(self, name, dtype, count, role, ptr):
        self.name, self.dtype, self.count, self.role, self.ptr = name, dtype, count, role, ptr

    @property
    def nbytes(self) -> int:
        return self.count * _lib.lib().kc_dtype_size(_lib.DTYPES.index(self.dtype))

    def __repr__(self):
        return f"Slot({self.name}: {self.dtype}[{self.count}] {self.role})"


def _slots(handle, size_fn, slot_fn) -> list[Slot]:
    L = _lib.lib()
    out = []
    name, dt, count, role, ptr = (ctypes.c_char_p(), ctypes.c_int(), ctypes.c_uint64(), ctypes.c_int(),
                                  ctypes.c_void_p())
    for i in range(size_fn(handle)):
        _lib.check(slot_fn(handle, i, ctypes.byref(name), ctypes.byref(dt), ctypes.byref(count), ctypes.byref(role),
                           ctypes.byref(ptr)), "buffer")
        out.append(Slot(name.value.decode(), _lib.DTYPES[dt.value], count.value, _lib.ROLES[role.value],
                        ptr.value or 0))
    return out


# --- DLPack ------------------------------------------------------------------------------------

_capi = ctypes.pythonapi
_capi.PyCapsule_New.restype = ctypes.py_object
_capi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_capi.PyCapsule_IsValid.restype = ctypes.c_int
_capi.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_capi.PyCapsule_GetPointer.restype = ctypes.c_void_p
_capi.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _capsule_gone(capsule):
    # A consumer renames the capsule "used_dltensor" and owns the tensor; one never consumed still
    # holds "dltensor", and its tensor is freed here. The capsule is a raw address: no reference
    # is taken on an object being destroyed.
    if _capi.PyCapsule_IsValid(capsule, b"dltensor"):
        _lib.lib().kc_dlpack_delete(_capi.PyCapsule_GetPointer(capsule, b"dltensor"))


class DLPackBuffer:
    """One harness buffer for any DLPack consumer (``torch.from_dlpack``, ``np.from_dlpack``, CuPy,
    JAX), without a copy; on the CPU also NumPy's array interface (writeable)."""

    def __init__(self, slot: Slot, device_type: int, device_id: int = 0):
        self.slot, self.device = slot, (device_type, device_id)

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        # The harness's stream already holds every write to the buffers (it synchronises before a
        # launch), so no consumer stream need wait: `stream` asks nothing of us.
        if copy:
            raise BufferError(f"{self.slot.name}: a launch works on the harness's buffer itself, never a copy")
        if dl_device is not None and tuple(dl_device) != self.device:
            raise BufferError(f"{self.slot.name} lives on device {self.device}, not {tuple(dl_device)}")
        code, bits = _DLPACK[self.slot.dtype]
        m = _lib.lib().kc_dlpack_new(self.slot.ptr, code, bits, self.slot.count, *self.device)
        return _capi.PyCapsule_New(m, b"dltensor", ctypes.cast(_capsule_gone, ctypes.c_void_p))

    @property
    def __array_interface__(self):
        if self.device[0] != CPU:
            raise AttributeError("a device buffer has no NumPy array interface: take it through DLPack")
        return {"shape": (self.slot.count,), "typestr": _NUMPY[self.slot.dtype], "data": (self.slot.ptr, False),
                "version": 3}


def _numpy(slot: Slot):
    import numpy as np

    if slot.count == 0:
        return np.empty(0, dtype=_NUMPY[slot.dtype])
    return np.asarray(DLPackBuffer(slot, CPU))


class Buffers:
    """The harness's buffers for one launch: ``b["x"]`` (or ``b.x``) is buffer x as a NumPy array on
    the CPU and a torch tensor on CUDA, flat; ``b.shape`` the case's shape; ``b.stream`` the stream
    every launch must use (CUDA; the launch already runs inside ``torch.cuda.stream`` of it)."""

    def __init__(self, handle, backend: str):
        L = _lib.lib()
        self.backend = backend
        self.shape = Shape.read(L.kc_buffers_shape(handle))
        self.stream = L.kc_buffers_stream(handle) or 0
        self.slots = {s.name: s for s in _slots(handle, L.kc_buffers_size, L.kc_buffers_slot)}
        self._views: dict[str, object] = {}

    def slot(self, name: str) -> Slot:
        try:
            return self.slots[name]
        except KeyError:
            raise KeyError(f"no buffer '{name}' (this entry's buffers: {', '.join(self.slots)})") from None

    def dlpack(self, name: str) -> DLPackBuffer:
        return DLPackBuffer(self.slot(name), CUDA if self.backend == "cuda" else CPU)

    def __getitem__(self, name: str):
        if name not in self._views:
            s = self.slot(name)
            if self.backend == "cuda":
                import torch

                self._views[name] = torch.from_dlpack(self.dlpack(name))
            else:
                self._views[name] = _numpy(s)
        return self._views[name]

    def __getattr__(self, name: str):
        if name.startswith("_") or name not in self.__dict__.get("slots", {}):
            raise AttributeError(name)
        return self[name]

    def __contains__(self, name: str) -> bool:
        return name in self.slots


class Case:
    """A case's host copies, read by a stated rule's check: ``c["y"]`` as a NumPy array (bf16: bits)."""

    def __init__(self, handle):
        L = _lib.lib()
        self.shape = Shape.read(L.kc_case_shape(handle))
        self.slots = {s.name: s for s in _slots(handle, L.kc_case_size, L.kc_case_buffer)}

    def __getitem__(self, name: str):
        try:
            return _numpy(self.slots[name])
        except KeyError:
            raise KeyError(f"no buffer '{name}' (this case's buffers: {', '.join(self.slots)})") from None


def bf16_to_f32(bits):
    """bf16 bits (uint16) as float32 values, exactly."""
    import numpy as np

    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)


def f32_to_bf16(x):
    """float32 values rounded to bf16 (to nearest, ties to even; NaN stays NaN), as bits (uint16)."""
    import numpy as np

    u = np.asarray(x, dtype=np.float32).view(np.uint32)
    rounded = ((u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)).astype(np.uint16)
    nan = (u & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)
    return np.where(nan, ((u >> np.uint32(16)) | np.uint32(0x40)).astype(np.uint16), rounded)
