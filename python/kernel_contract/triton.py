"""Triton kernels held to the contract.

``launch(name, kernel, signature, configs)`` declares a Triton kernel's launch: its record name (give it
to the entry's ``.launches(name)``), the kernel (``@jit``, or ``@autotune`` over one: every config is
audited), the types of its run-time arguments and the constexprs of each config.

Gate 5 offline: each config is compiled without a GPU for every served SM (Triton's own compiler and
ptxas) and its cubin audited by the harness's readers against the chip table and the records beside
the contract (``records/cuda``, written by ``python -m kernel_contract FILE --write-triton-records``).
Each config on each SM is its own launch record, ``NAME[c<config>/sm_<sm>]``: the configs share one
kernel name, which a single audit would take for kernels that differ. On a GPU the launch watch
knows the kernel by its name (gate 5 at run time), within the most threads and dynamic shared bytes
of its configs.

Without Triton the module still imports: ``jit``, ``autotune``, ``Config`` and ``tl`` stand in, so a
contract registers (its entries are on the cuda backend, which says by name why it cannot run) and
its gate 5 says it did not run and why.
"""
from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from . import _lib

SERVED_SMS = (80, 86, 89, 90, 100, 120, 121)  # limits/chips/cuda.tsv's chips
OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")  # Triton's compile options; the rest are constexprs

try:
    import triton as _triton
    import triton.language as tl

    jit, autotune, Config = _triton.jit, _triton.autotune, _triton.Config
    ABSENT = ""
except ImportError as e:  # the stand-ins below
    _triton = None
    ABSENT = f"Triton is not installed here ({e})"

    class _Stub:
        """Any attribute, any call: what a kernel's annotations (tl.constexpr) evaluate against."""

        def __init__(self, name):
            self._name = name

        def __getattr__(self, a):
            return _Stub(f"{self._name}.{a}")

        def __call__(self, *a, **k):
            return _Stub(f"{self._name}(...)")

        def __repr__(self):
            return self._name

    tl = _Stub("triton.language")

    class Config:
        def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, **more):
            self.kwargs, self.num_warps, self.num_stages, self.num_ctas = dict(kwargs), num_warps, num_stages, num_ctas

    class _Absent:
        """A kernel that cannot be compiled or launched here; its launch raises, naming why."""

        def __init__(self, fn, configs=None):
            self.fn, self.configs, self.__name__ = fn, configs, getattr(fn, "__name__", "kernel")

        def __getitem__(self, grid):
            def launch(*a, **k):
                raise RuntimeError(f"Triton kernel {self.__name__} cannot launch: {ABSENT}")
            return launch

    def jit(fn=None, **_):
        return _Absent(fn) if fn is not None else (lambda f: _Absent(f))

    def autotune(configs, key=None, **_):
        return lambda k: _Absent(k.fn if isinstance(k, _Absent) else k, configs)


@dataclass
class Launch:
    name: str
    kernel: object
    signature: dict
    configs: list
    records: Path
    flags: str = "optin"
    where: str = ""
    numbers: dict = field(default_factory=dict)  # symbol, threads, dyn_smem once compiled


declared: list[Launch] = []
_compiled = False  # gate 5 has compiled the declared launches: a launch declared later would escape it


def launch(name: str, kernel, signature: dict, configs=None, records=None, flags: str = "optin") -> str:
    """Declares a Triton launch; returns ``name`` for the entry's ``.launches(name)``.

    signature: each run-time argument's Triton type (``{"x": "*fp32", "cols": "i32"}``); configs: each
    a dict of constexprs with ``num_warps``/``num_stages`` (an ``@autotune`` kernel's own configs when
    omitted); records: the records folder (default ``records/cuda`` beside the calling file); flags:
    gate 5's (``optin``: Triton raises the dynamic shared limit itself)."""
    import inspect

    caller = Path(inspect.stack()[1].filename).resolve()
    if _compiled:
        raise RuntimeError(f"Triton launch {name} is declared after gate 5 compiled the declared launches: declare it "
                           f"when its module is imported (at the top level of {caller.name}), not inside an entry's function")
    if any(d.name == name for d in declared):
        raise ValueError(f"Triton launch {name} is declared twice")
    if not isinstance(signature, dict) or not signature:
        raise ValueError(f"Triton launch {name}: signature must map each run-time argument to its Triton type")
    if configs is None:
        configs = getattr(kernel, "configs", None)
        if not configs:
            raise ValueError(f"Triton launch {name}: give its configs (the kernel is not autotuned)")
    declared.append(Launch(name, kernel, dict(signature), [_config(c, name) for c in configs],
                           Path(records) if records else caller.parent / "records" / "cuda", flags, str(caller)))
    return name


def _config(c, name) -> dict:
    if isinstance(c, dict):
        return dict(c)
    if hasattr(c, "kwargs"):
        d = dict(c.kwargs)
        for k in OPTIONS:
            if getattr(c, k, None) is not None:
                d[k] = getattr(c, k)
        return d
    raise TypeError(f"Triton launch {name}: a config is a dict or a triton.Config, not {type(c).__name__}")


def _jit_of(kernel):
    """The JITFunction under autotune and heuristics wrappers."""
    k = kernel
    while not hasattr(k, "arg_names") and hasattr(k, "fn"):
        k = k.fn
    return k


def _compile(L: Launch, cfg: dict, sm: int):
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    fn = _jit_of(L.kernel)
    consts = {k: v for k, v in cfg.items() if k not in OPTIONS}
    sig = {}
    for a in fn.arg_names:
        if a in consts:
            sig[a] = "constexpr"
        elif a in L.signature:
            sig[a] = L.signature[a]
        else:
            raise ValueError(f"argument '{a}' has no type in the signature and no value in the config")
    # The harness's buffers start 256-byte aligned: pointers are specialised as Triton's JIT does.
    attrs = {(i,): [["tt.divisibility", 16]] for i, a in enumerate(fn.arg_names) if sig[a].startswith("*")}
    src = ASTSource(fn=fn, signature=sig, constexprs=consts, attrs=attrs)
    opts = {k: cfg[k] for k in OPTIONS if k in cfg}
    return _triton.compile(src, target=GPUTarget("cuda", sm, 32), options=opts)


def gate5(write: bool = False, sms=SERVED_SMS, only: str = "", regen: str = "python -m kernel_contract FILE --write-triton-records"):
    """Compiles every declared config for every SM and audits each cubin (writing the records where
    ``write``): the results for ``kc_audit_results`` (lines, notes, errors). ``regen`` is the command
    that writes the records, for their headers and the errors' hints."""
    global _compiled
    _compiled = True
    todo = [d for d in declared if not only or only in d.name]
    res = {"backend": "cuda", "lines": [], "notes": [], "errors": []}
    if not todo:
        return res
    if _triton is None:
        res["notes"].append(f"triton: gate 5 of {len(todo)} Triton launches did not run: {ABSENT}")
        return res
    work = Path(tempfile.mkdtemp(prefix="kc-triton-"))
    units, rows = [], {}  # (record name, cubin folder, records folder, sm); rows by records folder
    for L in todo:
        for ci, cfg in enumerate(L.configs):
            for sm in sms:
                unit = f"{L.name}[c{ci}/sm_{sm}]"
                try:
                    k = _compile(L, cfg, sm)
                except Exception as e:  # noqa: BLE001 - a config that does not compile is a problem, named
                    res["errors"].append(f"{unit}: Triton could not compile it ({L.where}): {_lib.describe(e)}")
                    continue
                md = k.metadata
                threads, shared, cluster = md.num_warps * 32, md.shared, getattr(md, "num_ctas", 1) or 1
                folder = work / f"u{len(units)}"
                folder.mkdir()
                (folder / f"{md.name}.cubin").write_bytes(k.asm["cubin"])
                rows.setdefault(L.records, []).append(f"cuda {unit} {md.name} {threads} {shared} {cluster} {L.flags}")
                units.append((unit, folder, L.records, sm))
                n = L.numbers
                n["symbol"], n["threads"] = md.name, max(n.get("threads", 0), threads)
                n["dyn_smem"] = max(n.get("dyn_smem", 0), shared)
    row_files = {}
    for i, (records, lines) in enumerate(rows.items()):
        (work / f"rows{i}").mkdir()
        row_files[records] = work / f"rows{i}" / "launches.tsv"
        row_files[records].write_text("# Triton launches, one a config and SM (kernel_contract.triton)\n"
                                      + "\n".join(lines) + "\n")
        if write:
            records.mkdir(parents=True, exist_ok=True)
    notes = []
    for unit, folder, records, sm in units:
        r = _lib.take_text(_lib.lib().kc_cuda_audit(json.dumps({
            "binaries": [str(folder)], "launches": [str(row_files[records])], "records": str(records), "sms": [sm],
            "only": unit, "write": write, "regen": regen}).encode()), unit)
        picked = [x for x in r["lines"] if x["launch"] == unit]
        if len(picked) != len(r["lines"]):
            res["errors"].append(f"{unit}: its name is part of another launch's: the audit read more than it")
        res["lines"] += picked
        res["errors"] += r["errors"]
        notes += [f"written {w}" for w in r["written"]]
    res["errors"] = list(dict.fromkeys(res["errors"]))  # a missing records folder is one error, not one a cubin
    res["notes"] = [f"triton: {len(units)} cubins of {sum(len(d.configs) for d in todo)} configs audited, one a "
                    f"config and SM ({', '.join(f'sm_{s}' for s in sms)})"] + sorted(set(notes))
    return res


def declare_module_launches() -> None:
    """Tells the CUDA backend's launch watch each compiled launch by its kernel's name."""
    for L in declared:
        n = L.numbers
        if n:
            _lib.check(_lib.lib().kc_cuda_module_launch(L.name.encode(), n["symbol"].encode(), n["threads"],
                                                        n["dyn_smem"]), L.name)


def numbers() -> dict:
    return {d.name: d.numbers for d in declared if d.numbers}


def set_numbers(saved: dict) -> None:
    for d in declared:
        if d.name in saved:
            d.numbers = dict(saved[d.name])
