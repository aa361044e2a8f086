"""The Triton examples: where CUDA and Triton are, every entry passes, every control is red and gate
5 audits every config on every served SM (the GPU run); elsewhere each entry registers and validates
(--list builds it), is not run, and the cuda backend and gate 5 each say why by name."""
import pytest

import kernel_contract as kc
from conftest import EXAMPLES

pytestmark = pytest.mark.contract
TRITON = EXAMPLES / "triton"
ENTRIES = ["triton/softmax/f32", "triton/softmax/ctl/drops_nan", "triton/rms_norm/f32", "triton/rms_norm/ctl/half_sum",
           "triton/paged_decode/f32", "triton/paged_decode/ctl/masked_inf_nan"]


def test_every_entry_registers_and_builds(kc_run):
    r = kc_run(TRITON, "--list", "--backend", "cuda")
    assert r.rc == 0, r.out[-4000:]
    for name in ENTRIES:
        ln = r.line(f" {name} ")
        assert "ERROR" not in ln and ln.startswith("cuda")


def test_run(kc_run):
    r = kc_run(TRITON, "--backend", "cuda", timeout=1800)
    cuda = kc.backend_absent("cuda")
    if cuda or kc.triton.ABSENT:
        # Not run, never passed: the backend (or Triton) says why, and so does gate 5.
        if cuda:
            assert r.summary("cuda").startswith(
                "SUMMARY backend=cuda kernels=not-run(3) known=0 controls=0/0 controls_not_run=3 limit_problems=0")
            assert f'absent="{cuda}"' in r.summary("cuda")
        if kc.triton.ABSENT:
            assert "gate 5 of 6 Triton launches did not run: Triton is not installed" in r.out
        assert r.rc == 1  # --backend cuda was asked for by name
    else:
        assert r.summary("cuda") == "SUMMARY backend=cuda kernels=3/3 known=0 controls=3/3 limit_problems=0 failures=0 errors=0"
        for name in ENTRIES:
            assert f"{name}[c0/sm_90]" in r.out  # each config audited on each served SM
        assert r.rc == 0


def test_faulting_triton_kernel_is_isolated(kc_run):
    from conftest import CONTRACTS

    if kc.backend_absent("cuda") or kc.triton.ABSENT:
        pytest.skip(f"needs a CUDA device and Triton: {kc.backend_absent('cuda') or kc.triton.ABSENT}")
    r = kc_run(CONTRACTS / "triton_fault.py", "--backend", "cuda", "--timeout", "60", "--no-limits", timeout=900)
    ln = r.line("ERROR", "py/triton_fault/b_far_store")
    assert "illegal" in ln.lower() or "fault" in ln.lower(), ln
    for name in ("py/triton_fault/a_copy", "py/triton_fault/c_copy"):
        for g in (1, 2, 3, 4):
            assert r.line(name, f"gate{g} ").startswith("PASS")
    assert r.rc == 1
