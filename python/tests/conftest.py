import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"
CONTRACTS = HERE / "contracts"


class Run:
    def __init__(self, p: subprocess.CompletedProcess):
        self.rc, self.out = p.returncode, p.stdout
        self.lines = p.stdout.splitlines()

    def line(self, *parts: str) -> str:
        """The one output line holding every part; fails naming them otherwise."""
        found = [ln for ln in self.lines if all(x in ln for x in parts)]
        assert len(found) == 1, f"want one line with {parts}, found {len(found)}:\n" + self.out[-6000:]
        return found[0]

    def summary(self, backend="cpu") -> str:
        return self.line(f"SUMMARY backend={backend} ")


def run(*args, env=None, timeout=300) -> Run:
    """python -m kernel_contract ARGS..., the installed package, from a scratch folder."""
    e = dict(os.environ, **(env or {}))
    e.pop("KC_CAPI_LIBRARY", None)
    p = subprocess.run([sys.executable, "-m", "kernel_contract", *map(str, args)], env=e, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=timeout)
    return Run(p)


@pytest.fixture
def kc_run():
    return run
