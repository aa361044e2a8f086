"""pytest plugin: ``pytest --kernel-contract PATH`` collects one test an entry of the contract files
under PATH, each run as ``python -m kernel_contract FILE --only ENTRY --exact`` in a process of its
own (a crash or hang fails that test alone, named). A test fails with the entry's gate lines; JUnit
XML comes from pytest's own ``--junitxml`` (each gate a property of its test case). Under
pytest-xdist each worker pins one GPU (CUDA_VISIBLE_DEVICES, round robin over the GPUs visible).
An entry whose backend is absent here is skipped with the backend's own reason: never a pass.
"""
from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from . import gpu


def pytest_addoption(parser):
    g = parser.getgroup("kernel-contract")
    g.addoption("--kernel-contract", action="append", default=[], metavar="PATH",
                help="contract files or folders: one test an entry they register")
    g.addoption("--kc-args", default="", metavar="ARGS",
                help="options for every entry's run, e.g. '--seeds 3 --timeout 10'")


def pytest_configure(config):
    paths = config.getoption("kernel_contract")
    if not paths:
        return
    # A pytest-xdist worker takes one GPU for itself before anything in it opens CUDA (the backend's
    # probe included); every entry it runs inherits it.
    worker = getattr(config, "workerinput", {}).get("workerid")  # set in xdist's workers alone
    pinned = gpu.pinned_devices(worker, os.environ.get("CUDA_VISIBLE_DEVICES"), gpu.gpu_count())
    if pinned is not None:
        os.environ["CUDA_VISIBLE_DEVICES"] = pinned
    config._kc_paths = [Path(p).resolve() for p in paths]
    for p in config._kc_paths:
        if not p.exists():
            raise pytest.UsageError(f"--kernel-contract: no file or folder '{p}'")
    if not config.option.file_or_dir:  # no test paths given: the contracts are the collection
        config.args = [str(p) for p in config._kc_paths]


def _is_contract(config, path: Path) -> bool:
    roots = getattr(config, "_kc_paths", [])
    return path.suffix == ".py" and any(path == r or r in path.parents for r in roots)


def pytest_collect_file(file_path, parent):
    if _is_contract(parent.config, Path(file_path)):
        return ContractFile.from_parent(parent, path=Path(file_path))
    return None


class ContractFile(pytest.File):
    def collect(self):
        from . import registry

        for r in registry.load(self.path):
            yield ContractItem.from_parent(self, name=f"{r.backend}/{r.name}", entry=r)


class ContractFailure(Exception):
    pass


class ContractItem(pytest.Item):
    def __init__(self, *, entry, **kw):
        super().__init__(**kw)
        self.entry = entry
        self.lines: list[str] = []

    def runtest(self):
        from . import backend_absent

        why = backend_absent(self.entry.backend)
        if why:
            pytest.skip(f"backend {self.entry.backend} is absent here: {why}")
        with tempfile.TemporaryDirectory(prefix="kc-pytest-") as tmp:
            report = Path(tmp) / "entry.jsonl"
            cmd = [sys.executable, "-m", "kernel_contract", str(self.path), "--backend", self.entry.backend,
                   "--only", self.entry.name, "--exact", "--reporter", "json", "--out", str(report),
                   *shlex.split(self.config.getoption("kc_args"))]
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            events = _events(report)
        self.lines = [ln for ln in p.stdout.splitlines() if self.entry.name in ln or ln.startswith(("SUMMARY", "ERROR"))]
        for e in events:
            if e.get("type") == "gate" and e.get("entry") == self.entry.name:
                self.user_properties.append((f"gate{e['gate']} {e['gate_name']}", f"{e['status']} {e['detail']}"))
        if p.returncode != 0:
            raise ContractFailure(f"exit {p.returncode}", "\n".join(self.lines) or p.stdout[-4000:])

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, ContractFailure):
            code, lines = excinfo.value.args
            return f"{self.entry.backend}/{self.entry.name} ({code}):\n{lines}"
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, self.entry.line, f"{self.entry.backend}/{self.entry.name}"


def _events(path: Path) -> list[dict]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            pass  # a run cut off mid-line: the lines before it stand
    return out
