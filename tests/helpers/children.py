"""No test leaves a process running (a pytest plugin, loaded by conftest.py). A child process
still running when its Popen object is collected makes Python warn ("subprocess N is still
running"), and with warnings as errors that failed whichever later test the collection fell
in: a failed test's traceback keeps its Popen alive until the garbage collector runs, most
often in a test that allocates much. So it went in a full run after the Ctrl-C tests had left
theirs (test_smoke's test_eval_files_like_trec_eval, test_tour's test; and, as a leaked child
followed by an allocating test reproduces, most likely the two 4-thread bit-reproducibility
tests that failed once at load 15-17 with no assertion text). Each test's own leftovers are
stopped when it ends, and the test that left them fails, naming them."""

from __future__ import annotations

import os
import signal

import pytest


def running_children() -> set[int]:
    """This process's children that are still running (not zombies), from /proc."""
    pids: set[int] = set()
    try:
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children") as f:
                pids |= {int(p) for p in f.read().split()}
    except OSError:                     # no /proc children: nothing to watch
        return set()
    return {pid for pid in pids if _state(pid) not in ("Z", "X", None)}


def _state(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def _command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()[:120]
    except OSError:
        return "?"


@pytest.fixture(autouse=True)
def _no_process_left_running():
    before = running_children()
    yield
    left = running_children() - before
    if not left:
        return
    names = [f"{pid} ({_command(pid)})" for pid in sorted(left)]
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass
    pytest.fail(f"the test left {len(left)} process(es) running (now stopped): "
                f"{', '.join(names)}")
