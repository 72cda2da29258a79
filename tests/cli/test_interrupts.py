"""Ctrl-C (SIGINT) at several moments of a real `irw` process: it exits 130 with one line saying
what was kept (nothing, or the run that was committed), never a traceback, and never goes on
after the user asked to stop; the warehouse holds all of the run or none of it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.helpers.faults import irw, state

# irw as its console script runs it, with one line of instrumentation: "irw-ready" on stderr
# once irw's own Ctrl-C handler is installed. Before that moment Python itself is starting (a
# SIGINT then is Python's "Failed to import the site module", not irw's), and on a loaded machine
# that can take longer than any fixed sleep: the tests time their interrupts from this line.
READY = "irw-ready"
IRW = [sys.executable, "-c", (
    "import os, signal, sys; sys.argv[0] = 'irw'; from irwarehouse import entry; "
    "install = signal.signal; "
    "signal.signal = lambda s, h: (install(s, h), h is entry._early_interrupt and "
    f"(os.write(2, b'{READY}\\n'), setattr(signal, 'signal', install)))[0]; "
    "entry.main()")]


def _big_run(path, rows: int) -> None:
    with open(path, "w") as f:
        f.writelines(f"{i // 1000} Q0 d{i} {i % 1000 + 1} {-i} big\n" for i in range(rows))


def default_sigint() -> None:
    """In the child before it runs: Ctrl-C's default disposition. A process started with
    SIGINT ignored (a background job of a script, as CI may run the suite: `nice .ci/run &`)
    passes SIG_IGN on to its children, and irw, seeing a handler that is not Python's default,
    leaves it alone as an embedded irw must: no `irw-ready`, and the first stderr line of the
    child was empty (the Ctrl-C tests that failed in a full run at load 10)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(args) -> subprocess.Popen:
    """Start irw and return once its Ctrl-C handler is installed."""
    proc = subprocess.Popen(IRW + [str(a) for a in args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    first = proc.stderr.readline()
    if first.strip() != READY:
        proc.kill()
        _, rest = proc.communicate()
        pytest.fail(f"irw did not say {READY}: {first + rest!r}")
    return proc


PF_EXITING = 0x4              # /proc/PID/stat flag of a process in the kernel's exit


def _state_and_flags(pid: int) -> tuple[str, int]:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return fields[0], int(fields[6])


def _interrupt(proc: subprocess.Popen) -> bool:
    """Press Ctrl-C in `proc` unless it has already ended; True when it was sent. Checking and
    then signalling would race the process (on a loaded machine it can end in between, and a
    signal to an ended process does nothing), so it is stopped first (SIGSTOP), looked at, and
    given SIGINT before it runs on: a process still running then must act on it."""
    os.kill(proc.pid, signal.SIGSTOP)
    deadline = time.monotonic() + 30
    while True:
        state, flags = _state_and_flags(proc.pid)
        if state in "ZX" or flags & PF_EXITING:
            os.kill(proc.pid, signal.SIGCONT)
            return False
        if state in "Tt":
            break
        assert time.monotonic() < deadline, "the process did not stop"
        time.sleep(0.001)
    os.kill(proc.pid, signal.SIGINT)
    os.kill(proc.pid, signal.SIGCONT)
    return True


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sigint")
    run = folder / "big.run"
    _big_run(run, 400_000)
    warehouse = folder / "w.duckdb"
    assert irw("init", "--warehouse", warehouse).exit_code == 0
    before = state(warehouse)
    # uninterrupted ingests, timed, to place the interrupts: the shorter of two, since the first
    # also loads DuckDB's library from disk
    durations = []
    for attempt in range(2):
        probe = folder / f"probe{attempt}.duckdb"
        probe.write_bytes(warehouse.read_bytes())
        proc = _start(["ingest", "run", run, "--campaign", "c", "--warehouse", probe])
        start = time.monotonic()
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        durations.append(time.monotonic() - start)
    return folder, run, warehouse, before, state(probe), min(durations)


@pytest.mark.slow
@pytest.mark.parametrize("fraction", [0.1, 0.2, 0.3, 0.45, 0.6, 0.75, 0.9])
def test_ctrl_c_at_any_moment_of_an_ingest(setup, fraction):
    folder, run, warehouse, before, after, duration = setup
    copy = folder / f"w{fraction}.duckdb"
    copy.write_bytes(warehouse.read_bytes())
    proc = _start(["ingest", "run", run, "--campaign", "c", "--warehouse", copy])
    time.sleep(duration * fraction)
    if not _interrupt(proc):
        proc.communicate()
        pytest.skip("the ingest ended before the interrupt")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (proc.returncode, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("irw: interrupted; "), err
    now = state(copy)
    if "nothing was written" in lines[0]:
        assert now == before
    else:
        assert "kept run big of campaign c" in lines[0] and now == after, lines[0]


def test_ctrl_c_stops_a_long_query_at_once(tmp_path):
    warehouse = tmp_path / "w.duckdb"
    assert irw("init", "--warehouse", warehouse).exit_code == 0
    proc = _start(["sql", "SELECT count(*) FROM range(1000000000000)", "--warehouse",
                   warehouse])
    time.sleep(4)
    assert proc.poll() is None
    start = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert time.monotonic() - start < 10
    assert proc.returncode == 130
    assert err.strip() == "irw: interrupted; nothing was written", err


def test_ctrl_c_while_the_command_line_is_read():
    """Before any command runs (Python importing irw's modules): one line, exit 130. (Python's
    own start, the first tens of milliseconds before any irw code runs, cannot be covered.)"""
    proc = _start(["--help"])
    time.sleep(0.05)
    if not _interrupt(proc):
        proc.communicate()
        pytest.skip("irw --help ended before the interrupt")   # pragma: no cover
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err, (proc.returncode, err)
    assert err.strip() == "irw: interrupted; nothing was written", err


def test_the_child_gets_ctrl_c_even_when_the_suite_ignores_it():
    """The suite run as a background job ignores SIGINT, and its children would inherit that:
    _start gives irw the default back (default_sigint), so that irw installs its handler."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        proc = _start(["--help"])           # asserts irw-ready
    finally:
        signal.signal(signal.SIGINT, previous)
    proc.communicate(timeout=60)
    assert proc.returncode == 0
