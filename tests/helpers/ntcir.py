"""What the NTCIREVAL tests share: the real data sets they read (NTCIR-16 WWW-4, the NTCIREVAL
190111 sample, pyNTCIREVAL's fixtures) and the comparison at NTCIREVAL's printed precision."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import strategies as st

from irwarehouse.formats.ntcir import FACTS
from tests.helpers.paths import REALDATA

WWW4 = REALDATA / "ntcir16_www4_english"
SAMPLE190111 = REALDATA / "ntcireval_190111_sample"
PYNTCIREVAL = REALDATA / "pyntcireval_tests"
WWW4_RUNS = ["KASYS-CO-REV-6", "SLWWW-CO-NEW-4", "THUIR-CO-NEW-2", "baseline"]

# ntcir_eval's parameters drawn by the property tests: its defaults and values around them
NTCIR_PARAMS = st.fixed_dictionaries({
    "beta": st.sampled_from([1.0, 0.0, 0.5, 2.0]),
    "gamma": st.sampled_from([0.95, 0.5, 1.0]),
    "logb": st.sampled_from([2.0, 0.0, 3.0, 10.0]),
    "rbp_p": st.sampled_from([0.95, 0.8, 0.5]),
    "rbu_p": st.sampled_from([0.99, 0.9]),
})


def need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"real data not available: {path}")
    return path


def www4_run_path(run: str) -> Path:
    for cand in (WWW4 / "runs" / run, WWW4 / "runs" / (run + ".gz")):
        if cand.exists():
            return cand
    pytest.skip(f"run {run} not available")


def assert_printed(expected: dict, got: dict, where: str, rename=None) -> int:
    """Every printed value of `expected` in `got`: the facts (syslen, jrel, ...) exactly, the
    measures as ntcir_eval prints them (%.4f). Returns the number of values compared."""
    n = 0
    for name, value in expected.items():
        key = rename(name) if rename else name
        assert key in got, f"{where}: no {name}"
        if name in FACTS:
            assert got[key] == value, f"{where} {name}: {got[key]} != {value}"
        else:
            assert f"{got[key]:.4f}" == f"{value:.4f}", f"{where} {name}: {got[key]!r} vs {value}"
        n += 1
    return n
