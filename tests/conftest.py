"""Shared fixtures: paths to the bundled sample, the copied trec_eval test files and the real
data sets beside the repository (../shared/realdata, present in CI)."""

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.helpers.paths import DATA, REALDATA, private_copy
from tests.helpers.sample import build_sample, derived_runs

# Ctrl-C stops the suite at once; no test leaves a process running
pytest_plugins = ["tests.helpers.ctrl_c", "tests.helpers.children"]

# ir_datasets (the irds: tests, tests/store/test_irds.py) keeps its files in a folder of this
# test process, never the user's ~/.ir_datasets: it reads IR_DATASETS_HOME when first imported.
os.environ["IR_DATASETS_HOME"] = tempfile.mkdtemp(prefix="irw-tests-ir_datasets-")
atexit.register(shutil.rmtree, os.environ["IR_DATASETS_HOME"], ignore_errors=True)


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


# -- the sample warehouse of the analyst and report tests ----------------------------------
@pytest.fixture(scope="session")
def sample_warehouse_template(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("sample")
    return build_sample(folder / "sample.duckdb", folder)


@pytest.fixture
def sample_warehouse(sample_warehouse_template, tmp_path) -> Path:
    """A private copy of the sample warehouse (tests may try to damage it)."""
    return private_copy(sample_warehouse_template, tmp_path, "wh.duckdb")


@pytest.fixture
def make_runs():
    """derived_runs(folder, n, seed) -> list of run files (synthetic, never participant runs)."""
    return derived_runs


@pytest.fixture
def sample_data() -> Path:
    return DATA
