"""Shared fixtures: paths to the bundled sample, the copied trec_eval test files and the real
data sets beside the repository (../shared/realdata, present in CI)."""

from pathlib import Path

import pytest

from _paths import REALDATA


@pytest.fixture
def realdata() -> Path:
    if not REALDATA.is_dir():
        pytest.skip("../shared/realdata is not beside the repository")
    return REALDATA


@pytest.fixture
def warehouse(tmp_path):
    from irwarehouse.api import Warehouse
    with Warehouse(tmp_path / "w.duckdb") as wh:
        yield wh
