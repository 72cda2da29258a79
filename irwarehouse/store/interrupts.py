"""Ctrl-C that stops at once, never half-writes, and knows what it kept.

DuckDB's Python client notices a SIGINT only when a statement finishes (a long read went on
for its whole length), and then raises `RuntimeError('Query interrupted')` instead of
KeyboardInterrupt. While `handling()` is active (the `irw` command), a SIGINT therefore
  - marks the request (`requested()`), so that no later commit goes through (`check`),
  - interrupts every open warehouse connection (DuckDB stops the statement at once),
  - raises KeyboardInterrupt in Python code, except inside `deferred()`: a COMMIT and the
    record of what it kept run to their end, then the interrupt is raised.
Every commit records what it kept (`kept`), so the command's last line can say it.
"""

from __future__ import annotations

import signal
import threading
import weakref
from contextlib import contextmanager, suppress

_connections: weakref.WeakSet = weakref.WeakSet()
_state = {"requested": False, "deferred": 0, "active": False}
_kept: list[str] = []


def track(con) -> None:
    """Interrupt `con` when the user presses Ctrl-C (every warehouse connection is tracked)."""
    _connections.add(con)


def requested() -> bool:
    return _state["requested"]


def check() -> None:
    """Raise KeyboardInterrupt if the user asked to stop (before a commit: never go on)."""
    if _state["requested"]:
        raise KeyboardInterrupt


def kept(what: str) -> None:
    """Record that a commit kept `what` (e.g. "run r1 of campaign c"), during a command."""
    if _state["active"]:
        _kept.append(what)


@contextmanager
def deferred():
    """A block Ctrl-C does not cut: a COMMIT and the record of what it kept. An interrupt that
    arrives meanwhile is raised when the block ends."""
    _state["deferred"] += 1
    try:
        yield
    finally:
        _state["deferred"] -= 1
    if _state["active"] and not _state["deferred"]:
        check()


def _on_sigint(signum, frame) -> None:
    _state["requested"] = True
    if _state["deferred"]:
        return
    for con in list(_connections):
        with suppress(Exception):       # a closed connection has nothing to stop
            con.interrupt()
    raise KeyboardInterrupt


@contextmanager
def handling():
    """Install the SIGINT handler for a command (main thread only; elsewhere a no-op) and start
    a fresh record of what is kept."""
    _state.update(requested=False, deferred=0)
    _kept.clear()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, _on_sigint)
    _state["active"] = True
    try:
        yield
    finally:
        _state["active"] = False
        signal.signal(signal.SIGINT, previous)


def summary(event: str = "the interrupt") -> str:
    """What the interrupted (or failed) command kept, for its last line."""
    if not _kept:
        return "nothing was written"
    named = list(dict.fromkeys(_kept))
    return "kept " + ", ".join(named) + f" (committed before {event}); nothing else " \
        "was written"
