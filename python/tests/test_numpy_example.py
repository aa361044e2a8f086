"""The NumPy example the README shows: its kernels pass gates 1-4, its controls are red at their
gates, and a control that is not broken is GREEN and fails the run (controls can fail)."""
import json

import pytest

from conftest import CONTRACTS, EXAMPLES

pytestmark = pytest.mark.contract


@pytest.fixture(scope="module")
def example():
    from conftest import run

    return run(EXAMPLES / "numpy_rows.py", "--backend", "cpu")


def test_summary(example):
    assert example.rc == 0, example.out[-4000:]
    assert example.summary() == "SUMMARY backend=cpu kernels=2/2 known=0 controls=2/2 limit_problems=0 failures=0 errors=0"


def test_kernels_pass_every_gate(example):
    for g in (1, 2, 3, 4):
        assert example.line("py/rows/sum4/f32 ", f"gate{g} ").startswith("PASS")
    assert example.line("py/rows/max/f32 ", "gate4 ").startswith("N/A")  # a max has no sums


def test_controls_red_at_their_gates(example):
    tail = example.line("py/rows/sum4/ctl/lost_tail", "gate3 ")
    assert tail.startswith("RED") and " bound at " in tail
    fmax = example.line("py/rows/max/ctl/fmax", "gate1 ")
    assert fmax.startswith("RED") and "class_mismatch" in fmax and "want NaN" in fmax


def test_json_report_streams_every_gate(kc_run, tmp_path):
    out = tmp_path / "run.jsonl"
    r = kc_run(EXAMPLES / "numpy_rows.py", "--backend", "cpu", "--only", "py/rows/max", "--reporter", "json",
               "--out", out)
    assert r.rc == 0
    events = [json.loads(ln) for ln in out.read_text().splitlines()]
    gates = [(e["entry"], e["gate"], e["status"]) for e in events if e["type"] == "gate"]
    assert ("py/rows/max/f32", 1, "PASS") in gates and ("py/rows/max/ctl/fmax", 1, "RED") in gates
    assert len(gates) == 8


def test_green_control_fails_the_run(kc_run):
    r = kc_run(CONTRACTS / "green_control.py", "--backend", "cpu")
    assert r.rc == 1
    ln = r.line("py/green/max_is_right", "gate1 ")
    assert ln.startswith("GREEN") and "stayed green" in ln
    assert r.summary() == "SUMMARY backend=cpu kernels=0/0 known=0 controls=0/1 limit_problems=0 failures=1 errors=0"


def test_filter_matching_nothing_is_an_error(kc_run):
    r = kc_run(EXAMPLES / "numpy_rows.py", "--backend", "cpu", "--only", "no/such/entry")
    assert r.rc == 3 and "matches --only 'no/such/entry'" in r.out


def test_stated_rule_checked_on_the_case(kc_run):
    r = kc_run(CONTRACTS / "rules.py", "--backend", "cpu")
    assert r.line("py/rule/kept", "gate1 ").startswith("PASS")
    broken = r.line("py/rule/broken", "gate1 ")
    assert broken.startswith("FAIL") and "rule_broken" in broken and "a max is not finite" in broken
    assert r.rc == 1
