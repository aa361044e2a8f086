"""The pytest plugin, run as a user runs it: one test an entry, gate lines on failure, JUnit XML
through pytest's --junitxml, one GPU a pytest-xdist worker."""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from conftest import CONTRACTS, EXAMPLES

pytestmark = pytest.mark.contract


def pytest_run(tmp_path, *args, env=None):
    e = dict(os.environ, **(env or {}))
    e.pop("KC_CAPI_LIBRARY", None)
    for k in [k for k in e if k.startswith("PYTEST_XDIST")]:  # this test's own worker is not the run's
        e.pop(k)
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *map(str, args)], cwd=tmp_path,
                       env=e, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    return p.returncode, p.stdout


def cases(xml):
    root = ET.parse(xml).getroot()
    return {c.get("name"): c for c in root.iter("testcase")}


def test_example_entries_are_tests_with_junit(tmp_path):
    rc, out = pytest_run(tmp_path, "--kernel-contract", EXAMPLES / "numpy_rows.py", "--junitxml", tmp_path / "j.xml")
    assert rc == 0, out[-4000:]
    got = cases(tmp_path / "j.xml")
    assert sorted(got) == ["cpu/py/rows/max/ctl/fmax", "cpu/py/rows/max/f32", "cpu/py/rows/sum4/ctl/lost_tail",
                           "cpu/py/rows/sum4/f32"]
    props = {p.get("name"): p.get("value") for p in got["cpu/py/rows/max/ctl/fmax"].iter("property")}
    assert props["gate1 nonfinite"].startswith("RED")
    assert all(c.find("failure") is None for c in got.values())


def test_failures_show_gate_lines(tmp_path):
    rc, out = pytest_run(tmp_path, "--kernel-contract", CONTRACTS / "crashing.py", "--kc-args=--timeout 2",
                         "--junitxml", tmp_path / "j.xml")
    assert rc == 1
    got = cases(tmp_path / "j.xml")
    failed = sorted(n for n, c in got.items() if c.find("failure") is not None)
    assert failed == ["cpu/py/iso/b_segfault", "cpu/py/iso/c_raises", "cpu/py/iso/d_hangs", "cpu/py/iso/e_bad_spec"]
    assert "SIGSEGV" in got["cpu/py/iso/b_segfault"].find("failure").get("message", "") + \
        got["cpu/py/iso/b_segfault"].find("failure").text
    assert "ZeroDivisionError" in got["cpu/py/iso/c_raises"].find("failure").text
    assert "2 passed" in out and "4 failed" in out


def test_xdist_pins_one_gpu_a_worker(tmp_path):
    out_dir = tmp_path / "seen"
    out_dir.mkdir()
    rc, out = pytest_run(tmp_path, "-n", "2", "--kernel-contract", CONTRACTS / "pinned.py",
                         env={"CUDA_VISIBLE_DEVICES": "3,5", "KC_TEST_PINNED": str(out_dir)})
    assert rc == 0, out[-4000:]
    seen = [ln.split() for f in out_dir.iterdir() for ln in f.read_text().splitlines()]
    assert len({f.name for f in out_dir.iterdir()}) == 4 and seen
    # Every launch saw its worker's one GPU, whichever worker xdist gave the entry: gw0 -> 3, gw1 -> 5.
    assert all(gpu == {"gw0": "3", "gw1": "5"}[worker] for worker, gpu in seen), seen


def test_absent_backend_is_skipped_with_its_reason_never_passed(tmp_path):
    if not kc_absent("cuda"):
        pytest.skip("this machine has a CUDA device: the entry runs instead")
    rc, out = pytest_run(tmp_path, "-rs", "--kernel-contract", CONTRACTS / "on_cuda.py")
    assert rc == 0 and "1 skipped" in out and "passed" not in out
    assert "backend cuda is absent here" in out


def kc_absent(name):
    import kernel_contract as kc

    return kc.backend_absent(name)
