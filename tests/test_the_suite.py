"""The suite's own promises (issue 31). Ctrl-C stops `python -m pytest` at once, with pytest's
summary: during a test that runs `irw` in pytest's own process (whose SIGINT handler turns the
interrupt into exit code 130), and during a test where the interrupt lands in a weakref
callback (a DuckDB connection collected), which Python swallows (tests/helpers/ctrl_c.py). A
test that leaves a process running fails, naming it, and the process is stopped, rather than
a later test failing on Python's "subprocess is still running" (tests/helpers/children.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.test_interrupts import default_sigint

REPO = Path(__file__).resolve().parent.parent
CASES = {
    "irw_in_process": '''
from typer.testing import CliRunner
from irwarehouse.cli import app

def test_long_query(tmp_path):
    w = tmp_path / "w.duckdb"
    assert CliRunner().invoke(app, ["init", "-w", str(w)]).exit_code == 0
    print("STARTED", flush=True)
    result = CliRunner().invoke(app, ["sql", "SELECT count(*) FROM range(1000000000000)",
                                      "--timeout", "0", "-w", str(w)])
    assert result.exit_code == 130

def test_after():
    raise AssertionError("the suite went on after Ctrl-C")
''',
    "weakref_callbacks": '''
import duckdb
from irwarehouse.store import interrupts

def test_many_connections():
    print("STARTED", flush=True)
    for _ in range(10**7):          # connections tracked in a WeakSet, then collected
        con = duckdb.connect()
        interrupts.track(con)
        con.close()
        del con

def test_after():
    raise AssertionError("the suite went on after Ctrl-C")
''',
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_ctrl_c_stops_pytest_at_once_with_its_summary(tmp_path, case):
    (tmp_path / f"test_{case}.py").write_text(CASES[case])
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-s", "-p", "tests.helpers.ctrl_c",
         "-p", "no:cacheprovider", "--rootdir", str(tmp_path), str(tmp_path)],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)}, start_new_session=True,
        preexec_fn=default_sigint)
    lines = []
    for line in proc.stdout:                    # wait until the test runs
        lines.append(line)
        if "STARTED" in line:
            break
    time.sleep(1.0)
    sent = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    try:
        rest, _ = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("pytest went on for a minute after Ctrl-C")
    stopped = time.monotonic() - sent
    output = "".join(lines) + rest
    assert proc.returncode == 2, output         # pytest's "interrupted"
    assert "KeyboardInterrupt" in output and " in " in output.splitlines()[-1], output
    assert "the suite went on" not in output and "Traceback" not in output, output
    assert stopped < 15, stopped


def test_a_test_that_leaves_a_process_running_fails_naming_it(tmp_path):
    (tmp_path / "test_leak.py").write_text(
        "import subprocess\n\n"
        "def test_leaks():\n"
        "    subprocess.Popen(['sleep', '300'])\n\n"
        "def test_next():\n"
        "    pass\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "tests.helpers.children",
         "-p", "no:cacheprovider", "-W", "error", "--rootdir", str(tmp_path), str(tmp_path)],
        cwd=REPO, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 1, done.stdout
    assert "1 passed, 1 error" in done.stdout, done.stdout
    assert "left 1 process(es) running (now stopped)" in done.stdout and "sleep 300" in done.stdout
