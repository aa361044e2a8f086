"""An entry: a family's spec and rig, said in Python, with its launch.

The builder mirrors kc/spec.hpp's ``Entry`` method for method (``served``, ``tile``, ``sums``, ...);
every argument goes to the harness, which checks it and names what is wrong. Hooks (the launch,
depth, a pick, a rule) are Python callables the harness calls back.
"""
from __future__ import annotations

import json
import numbers

from . import _lib
from .views import Buffers, Case, Shape

BACKENDS = ("cpu", "cuda")  # where a Python callable can launch


class Entry:
    """An entry being built. Start from a family (``kc.rows.sum(...)``); each method returns it."""

    def __init__(self, family: str, args: dict, dot_depth=None):
        L = _lib.lib()
        fn, ud = _lib.NO_SHAPE_FN, None
        if dot_depth is not None:
            fn, ud = _lib.shape_tramp, _lib.hook(_number_hook(dot_depth, "dot_depth"))
        h = L.kc_entry_family(family.encode(), json.dumps(args).encode(), fn, ud)
        if not h:
            raise _lib.HarnessError(_lib.error())
        self._h = h
        self._launches: list[_Launch] = []

    def __del__(self):
        if getattr(self, "_h", None):
            _lib.lib().kc_entry_free(self._h)
            self._h = None

    def _handle(self):
        if not self._h:
            raise _lib.HarnessError("this entry was handed to the harness already: build a new one")
        return self._h

    def _apply(self, method: str, **args) -> "Entry":
        _lib.check(_lib.lib().kc_entry_apply(self._handle(), method.encode(), json.dumps(args).encode()), method)
        return self

    # --- the envelope ---------------------------------------------------------------------------
    def served(self, dims=None, **sizes) -> "Entry":
        """The sizes each dim is served at: ``served(rows=[1, 7], cols=[64, 4096])`` (in dim order), or a
        list of ``(dim, sizes)`` pairs."""
        pairs = list(dims.items() if isinstance(dims, dict) else dims or []) + list(sizes.items())
        return self._apply("served", dims=[[str(d), [int(v) for v in vs]] for d, vs in pairs])

    def tile(self, dim: str, tile: int, step: int = 1, least: int = 1) -> "Entry":
        return self._apply("tile", dim=dim, tile=int(tile), step=int(step), least=int(least))

    def range(self, dim: str, least: int, step: int = 1) -> "Entry":
        return self._apply("range", dim=dim, least=int(least), step=int(step))

    # --- the accumulation -----------------------------------------------------------------------
    def sums(self, acc: str, depth, ops: int = 0, mids: int = 0) -> "Entry":
        """Sums in ``acc`` (gate 4 applies); ``depth``: the longest chain of roundings, a number or a
        function of the shape (``lambda s: s["cols"]``)."""
        fn = _number_hook(depth, "sums depth")
        _lib.check(_lib.lib().kc_entry_sums(self._handle(), _dtype(acc), _lib.shape_tramp, _lib.hook(fn), int(ops),
                                            int(mids)), "sums")
        return self

    def ops(self, ops: int, mids: int = 0) -> "Entry":
        return self._apply("ops", ops=int(ops), mids=int(mids))

    def ulp(self, function: str, ulps: float) -> "Entry":
        return self._apply("ulp", function=function, ulps=float(ulps))

    def hidden(self, why: str) -> "Entry":
        return self._apply("hidden", why=why)

    # --- buffers and launches -------------------------------------------------------------------
    def in_place(self, out: str, inp: str) -> "Entry":
        return self._apply("in_place", out=out, **{"in": inp})

    def chained(self, *inputs: str) -> "Entry":
        return self._apply("chained", inputs=list(inputs))

    def launches(self, *names: str) -> "Entry":
        """Gate 5's launch records the launcher starts (``kc.triton.launch`` declares a Triton kernel's)."""
        return self._apply("launches", names=list(names))

    def picks(self, pick, forms=None) -> "Entry":
        """The launch the launcher takes at a shape: ``pick(shape) -> launch name``."""
        k = _lib.hook(lambda s: pick(Shape.read(s)))
        payload = json.dumps({"forms": list(forms)}).encode() if forms is not None else b""
        _lib.check(_lib.lib().kc_entry_picks(self._handle(), payload, _lib.text_tramp, k), "picks")
        return self

    def launch(self, fn) -> "Entry":
        """The launcher: ``fn(b)`` launches the kernel on the harness's buffers ``b`` (``views.Buffers``)."""
        hook = _Launch(fn)
        self._launches.append(hook)
        _lib.check(_lib.lib().kc_entry_launch(self._handle(), _lib.launch_tramp, _lib.hook(hook)), "launch")
        return self

    def replaces(self, name: str, fn) -> "Entry":
        """This kernel replaces ``name``, whose launcher ``fn(b)`` is given: gate 3 wants bit-equality."""
        hook = _Launch(fn)
        self._launches.append(hook)
        _lib.check(_lib.lib().kc_entry_replaces(self._handle(), name.encode(), _lib.launch_tramp, _lib.hook(hook)),
                   "replaces")
        return self

    def rule(self, text: str, check) -> "Entry":
        """A stated NaN rule: ``check(case) -> ""`` when kept, else what broke (gate 1 checks it)."""
        k = _lib.hook(lambda c: check(Case(c)))
        _lib.check(_lib.lib().kc_entry_rule(self._handle(), text.encode(), _lib.text_tramp, k), "rule")
        return self

    def release(self, fn) -> "Entry":
        _lib.check(_lib.lib().kc_entry_release(self._handle(), _lib.void_tramp, _lib.hook(fn)), "release")
        return self

    # --- verdicts -------------------------------------------------------------------------------
    def known(self, gate, what: str) -> "Entry":
        return self._apply("known", gate=gate, what=what)

    def control(self, gate, why: str) -> "Entry":
        """A planted control: it must fail ``gate`` (1-5 or its name) for ``why`` (bytes_differ, bound, ...)."""
        return self._apply("control", gate=gate, why=why)

    def note(self, text: str) -> "Entry":
        return self._apply("note", text=text)

    def describe(self) -> dict:
        """The spec so far, as the harness holds it (dims, launches, control)."""
        return _lib.take_text(_lib.lib().kc_entry_describe(self._handle()), "describe")

    # --- handing over ---------------------------------------------------------------------------
    def _give(self, backend: str):
        """The handle, for the harness to own; the launches learn where they run."""
        for hook in self._launches:
            hook.backend = backend
        h, self._h = self._handle(), None
        return h


class _Launch:
    """A launcher as the harness calls it: the buffers as arrays or tensors, on CUDA inside the
    harness's stream (so ``torch`` ops and Triton kernels launch on it)."""

    def __init__(self, fn):
        if not callable(fn):
            raise TypeError(f"a launcher must be callable, not {type(fn).__name__}")
        self.fn, self.backend = fn, "cpu"

    def __call__(self, handle):
        b = Buffers(handle, self.backend)
        if self.backend != "cuda":
            return self.fn(b)
        from .gpu import on_stream

        with on_stream(b.stream):
            return self.fn(b)


def _number_hook(value, what):
    if callable(value):
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        v = float(value)
        return lambda s: v
    raise TypeError(f"{what}: want a number or a function of the shape, not {type(value).__name__}")


def _dtype(name: str) -> int:
    try:
        return _lib.DTYPES.index(name)
    except ValueError:
        raise ValueError(f"'{name}' is not an element type ({', '.join(_lib.DTYPES)})") from None
