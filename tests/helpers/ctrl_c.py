"""Ctrl-C stops `pytest` at once, with its summary (a pytest plugin, loaded by conftest.py).

Two things swallowed the interrupt and let the suite run on:
- a test that runs `irw` in this process (typer's CliRunner) runs it as the command line
  does: irw's own SIGINT handler (store.interrupts) turns the interrupt into `irw:
  interrupted` and exit code 130, which the runner hands to the test as a result;
- a KeyboardInterrupt raised while Python runs a weakref callback or a __del__ (a DuckDB
  connection collected: store.interrupts keeps them in a WeakSet) is "ignored", printed as
  an unraisable exception, and the test goes on.
So every SIGINT is noted (`seen`), re-raised as soon as a CliRunner command returns, and sent
again every half second until pytest has taken it (its pytest_keyboard_interrupt hook ran): a
repeat lands outside the callback that swallowed the first.

And pytest itself crashed without its summary when the interrupt came during a test's setup:
tmp_path's teardown reads what pytest_runtest_makereport records, which the interrupted
setup never recorded (KeyError); the record is made empty before each setup.
"""

from __future__ import annotations

import os
import signal
import threading

import pytest

_state = {"seen": False, "taken": False}


def _seen() -> None:
    """A SIGINT arrived: until pytest takes it, send it again every half second."""
    if _state["seen"]:
        return
    _state["seen"] = True

    def resend() -> None:
        while not _state["taken"]:
            threading.Event().wait(0.5)
            if not _state["taken"]:
                os.kill(os.getpid(), signal.SIGINT)
    threading.Thread(target=resend, name="ctrl-c-resend", daemon=True).start()


def _on_sigint(signum, frame) -> None:
    _seen()
    raise KeyboardInterrupt


def pytest_configure(config) -> None:
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _on_sigint)
    from typer.testing import CliRunner

    from irwarehouse.store import interrupts
    irw_handler = interrupts._on_sigint

    def irw_on_sigint(signum, frame):
        _seen()
        irw_handler(signum, frame)
    interrupts._on_sigint = irw_on_sigint
    invoke = CliRunner.invoke

    def invoke_then_stop(self, *args, **kwargs):
        result = invoke(self, *args, **kwargs)
        if _state["seen"]:
            raise KeyboardInterrupt
        return result
    CliRunner.invoke = invoke_then_stop


@pytest.hookimpl(tryfirst=True)
def pytest_keyboard_interrupt(excinfo) -> None:
    _state["taken"] = True


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item) -> None:
    try:
        from _pytest.tmpdir import tmppath_result_key
    except ImportError:         # another pytest: nothing to work around
        return
    item.stash.setdefault(tmppath_result_key, {})
