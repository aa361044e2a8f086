"""Each CPU entry runs in a fresh process: a launcher that segfaults, raises or hangs is an ERROR
naming it and why, and every entry after it still runs (contracts/crashing.py)."""
import pytest

pytestmark = pytest.mark.contract


@pytest.fixture(scope="module")
def crashing():
    from conftest import CONTRACTS, run

    return run(CONTRACTS / "crashing.py", "--backend", "cpu", "--timeout", "2")


def test_segfault_is_an_error_naming_the_entry_and_signal(crashing):
    ln = crashing.line("ERROR", "py/iso/b_segfault", "gate1")
    assert "SIGSEGV" in ln and "at address 0x0" in ln and "in the launch of py/iso/b_segfault" in ln


def test_exception_is_an_error_with_its_traceback_line(crashing):
    ln = crashing.line("ERROR", "py/iso/c_raises", "gate1")
    assert "the launch threw: ZeroDivisionError: integer division or modulo by zero" in ln
    assert "crashing.py:39, in launch" in ln


def test_hang_is_cut_off_by_the_timeout(crashing):
    ln = crashing.line("ERROR", "py/iso/d_hangs", "gate1")
    assert "did not return within 2 s (--timeout): cut off" in ln


def test_bad_spec_is_an_error_naming_the_dim(crashing):
    assert "has no dimension 'cols'" in crashing.line("ERROR", "py/iso/e_bad_spec", "gate1")


def test_entries_after_the_failures_run_and_pass(crashing):
    for name in ("py/iso/a_first", "py/iso/f_last"):
        for g in (1, 2, 3, 4):
            assert crashing.line(name, f"gate{g} ").startswith("PASS")
    # The last entry ran after the crash, in the fresh process the supervisor started after it.
    crash = crashing.lines.index(crashing.line("ERROR", "py/iso/b_segfault", "gate1"))
    assert crashing.lines.index(crashing.line("PASS", "py/iso/f_last", "gate4")) > crash
    assert "continue in another fresh process" in crashing.line("py/iso/b_segfault. The remaining")


def test_summary_counts_every_entry(crashing):
    assert crashing.rc == 1
    assert crashing.summary() == "SUMMARY backend=cpu kernels=2/6 known=0 controls=0/0 limit_problems=0 failures=0 errors=9"
