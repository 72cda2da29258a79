"""A process of one command (the `irw` console script, irwarehouse/entry.py, which ends with
os._exit): `irw eval QRELS RUN` leaves its private in-memory warehouse to that exit instead of
closing it (store.connection.leave_to_exit), unless DuckDB spilled to its temporary directory
(closing removes it); any other process (a host: tests, notebooks, programs) closes it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from irwarehouse.api import evaluate_files
from irwarehouse.store import connection, lifetime
from tests.helpers.paths import REPO, TEST_DATA

QRELS, RUN = TEST_DATA / "trec_eval" / "qrels.test", TEST_DATA / "trec_eval" / "results.test"


@pytest.fixture
def left(monkeypatch, tmp_path):
    """The connections left to the exit during the test (closed afterwards), in an empty
    working directory (DuckDB's temporary directory, '.tmp', is relative to it)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(connection, "_LEFT_TO_EXIT", [])
    yield connection._LEFT_TO_EXIT
    for con in connection._LEFT_TO_EXIT:
        con.close()


def _map(result) -> float:
    return next(r["value"] for r in result.summary.to_pylist() if r["measure"] == "map")


def test_a_host_process_closes_the_private_warehouse(left):
    assert not lifetime.ONE_COMMAND["on"]
    evaluate_files(QRELS, [RUN], ["map"])
    assert left == []


def test_one_command_leaves_it_open_for_the_exit(left, monkeypatch):
    monkeypatch.setitem(lifetime.ONE_COMMAND, "on", True)
    closed = evaluate_files(QRELS, [RUN], ["map"])
    assert len(left) == 1
    (con,) = left
    assert con.execute("SELECT count(*) FROM judgment").fetchone()[0] > 0    # still open
    monkeypatch.setitem(lifetime.ONE_COMMAND, "on", False)
    assert _map(closed) == _map(evaluate_files(QRELS, [RUN], ["map"]))


def test_one_command_closes_it_when_duckdb_made_its_temporary_directory(left, monkeypatch,
                                                                        tmp_path):
    monkeypatch.setitem(lifetime.ONE_COMMAND, "on", True)
    (tmp_path / ".tmp").mkdir()          # DuckDB's: closing removes the files it spilled there
    evaluate_files(QRELS, [RUN], ["map"])
    assert left == []


def test_the_console_script_prints_the_values_and_leaves_no_file(tmp_path):
    """The process as a user starts it: its values are those of the closed warehouse, and
    nothing is left in its working directory."""
    done = subprocess.run([sys.executable, "-c", "from irwarehouse.entry import main; main()",
                           "eval", "-m", "map", "-m", "P.10", str(QRELS), str(RUN)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    host = evaluate_files(QRELS, [RUN], ["map", "P.10"])
    lines = {line.split()[0]: line.split()[-1] for line in done.stdout.splitlines()}
    values = {r["measure"]: r["value"] for r in host.summary.to_pylist()}
    assert float(lines["map"]) == pytest.approx(values["map"], abs=5e-5)
    assert float(lines["P_10"]) == pytest.approx(values["P_10"], abs=5e-5)
    assert list(tmp_path.iterdir()) == []
