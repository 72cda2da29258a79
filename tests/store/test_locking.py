"""Writers wait for a lock (store.locking): `--wait SECONDS` (default 30) with one progress line
while waiting, then a message naming the process that holds the file; a reader (`irw sql`)
holds the file only while it runs."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from irwarehouse.store.locking import DEFAULT_WAIT, holder, open_waiting
from tests.helpers.faults import irw, one_line
from tests.helpers.paths import DATA

RUN = DATA / "runs" / "STANDARD.results.test"
HOLD = """
import duckdb, sys, time
con = duckdb.connect(sys.argv[1], read_only=sys.argv[2] == "ro")
print("holding", flush=True)
time.sleep(float(sys.argv[3]))
con.close()
"""


def _holder(path, seconds: float, mode: str = "rw") -> subprocess.Popen:
    """Another process that holds `path` for `seconds` (read-write or read-only)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path), mode, str(seconds)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "holding"
    proc.stdout.close()
    return proc


@pytest.fixture
def warehouse(tmp_path):
    path = tmp_path / "w.duckdb"
    assert irw("init", "--warehouse", path).exit_code == 0
    return path


def test_the_default_wait_is_30_seconds():
    assert DEFAULT_WAIT == 30


def test_a_writer_waits_for_the_lock_and_then_succeeds(warehouse):
    proc = _holder(warehouse, 2.0)
    start = time.monotonic()
    result = irw("ingest", "run", RUN, "--campaign", "c", "--warehouse", warehouse,
                 "--wait", 20)
    proc.wait()
    assert result.exit_code == 0, result.output
    assert time.monotonic() - start >= 1.0
    waiting = [line for line in result.stderr.splitlines() if "waiting up to 20 s" in line]
    assert len(waiting) == 1 and f"process {proc.pid}" in waiting[0], result.stderr


def test_after_the_wait_the_message_names_the_holder(warehouse):
    proc = _holder(warehouse, 6.0)
    try:
        result = irw("ingest", "run", RUN, "--campaign", "c", "--warehouse", warehouse,
                     "--wait", 1)
    finally:
        proc.kill()
        proc.wait()
    assert result.exit_code == 3
    line = one_line(result)
    assert f"in use by process {proc.pid}" in line and "waited 1 s" in line, line
    assert "\n" not in line and "import duckdb" in line        # its command line, one line


def test_a_reader_waits_for_a_writer_too(warehouse):
    proc = _holder(warehouse, 1.5)
    result = irw("sql", "SELECT count(*) AS n FROM run", "--warehouse", warehouse, "--wait", 20)
    proc.wait()
    assert result.exit_code == 0, result.output


def test_open_waiting_in_threads_of_one_process(warehouse):
    """The API waits as well (Warehouse(path, wait=...))."""
    proc = _holder(warehouse, 1.0)
    got = {}

    def open_it():
        con = open_waiting(warehouse, read_only=False, wait=20)
        got["ok"] = con.execute("SELECT 1").fetchone()[0]
        con.close()
    thread = threading.Thread(target=open_it)
    thread.start()
    thread.join(30)
    proc.wait()
    assert got == {"ok": 1}


def test_holder_reads_duckdbs_message():
    assert holder("IO Error: Could not set lock on file \"x\": Conflicting lock is held in "
                  "/usr/bin/python3 (PID 999999999) by user root.") == "process 999999999"
    assert holder("no pid here") == "another process"
