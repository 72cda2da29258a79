"""The warehouse the workspace's tests serve."""

from __future__ import annotations

import shutil

import pytest

from tests.helpers.paths import DATA
from tests.serve.server import irw

XSS = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="session")
def served_template(sample_warehouse_template, tmp_path_factory):
    """The sample warehouse (3 topics, STANDARD and sys1-3, both qrels) with its profile's
    qrels chosen, and a run named like an HTML injection."""
    folder = tmp_path_factory.mktemp("served")
    path = folder / "w.duckdb"
    shutil.copy(sample_warehouse_template, path)
    irw("campaign", "set", "sample", "--qrels", "graded", "-w", path)
    irw("ingest", "run", DATA / "runs" / "STANDARD.results.trunc", "-C", "sample", "--name",
        XSS, "--team", XSS, "-w", path)
    return path


@pytest.fixture
def served(served_template, tmp_path):
    path = tmp_path / "w.duckdb"
    shutil.copy(served_template, path)
    return path


