"""Registration, as KC_KERNEL and KC_CONTROL do it: a decorated function returns its entry when the
harness asks (so a bad spec is that entry's ERROR, never a failure at import), and contract files
are loaded in a fixed order, the same in every process of a run (the fresh processes each entry
runs in load them again and find the same entries)."""
from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from . import _lib
from .entry import BACKENDS, Entry


@dataclass(frozen=True)
class Registered:
    name: str
    backend: str
    control: bool
    file: str
    line: int


registered: list[Registered] = []
_loaded: dict[str, list[Registered]] = {}


def _where(fn) -> tuple[str, int]:
    code = getattr(fn, "__code__", None)
    if code is None:
        return "<python>", 0
    rel = os.path.relpath(code.co_filename)
    return (code.co_filename if rel.startswith("..") else rel), code.co_firstlineno


def _register(name: str, backend: str, control: bool, factory) -> None:
    if not isinstance(name, str) or not name:
        raise ValueError(f"an entry needs a name, not {name!r}")
    if backend not in BACKENDS:
        raise ValueError(f"{name}: a Python entry runs on {' or '.join(BACKENDS)}, not '{backend}'")
    if not callable(factory):
        raise TypeError(f"{name}: register a function that returns the entry, not {type(factory).__name__}")
    file, line = _where(factory)

    def make():
        e = factory()
        if not isinstance(e, Entry):
            raise TypeError(f"{name}'s function returned {type(e).__name__}, not an Entry (start from a family: "
                            f"kc.rows.sum(...))")
        return e._give(backend)

    _lib.check(_lib.lib().kc_register(name.encode(), backend.encode(), file.encode(), line, int(control),
                                      _lib.factory_tramp, _lib.hook(make)), name)
    registered.append(Registered(name, backend, control, file, line))


def kernel(name: str, backend: str = "cpu"):
    """Registers a kernel: the decorated function returns its ``Entry``.

    >>> @kernel("mine/row_sum/f32")
    ... def row_sum():
    ...     return kc.rows.sum("f32", "f32").served(rows=[1, 7], cols=[64]).launch(...)
    """
    def deco(factory):
        _register(name, backend, False, factory)
        return factory
    return deco


def control(name: str, backend: str = "cpu"):
    """Registers a planted control: its entry must call ``.control(gate, why)``."""
    def deco(factory):
        _register(name, backend, True, factory)
        return factory
    return deco


def contract_files(paths) -> list[Path]:
    """Each path a .py file, or a folder whose .py files (recursively, sorted) are contracts."""
    out: list[Path] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            out += sorted(q for q in path.rglob("*.py") if "__pycache__" not in q.parts)
        elif path.is_file():
            out.append(path)
        else:
            raise FileNotFoundError(f"no contract file or folder '{p}'")
    return [q.resolve() for q in out]


def load(path) -> list[Registered]:
    """Imports a contract file once a process; the entries it registered."""
    key = str(Path(path).resolve())
    if key in _loaded:
        return _loaded[key]
    before = len(registered)
    name = f"kc_contract_{len(_loaded)}_{Path(key).stem}"
    spec = importlib.util.spec_from_file_location(name, key)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import contract file {key}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    _loaded[key] = registered[before:]
    return _loaded[key]
