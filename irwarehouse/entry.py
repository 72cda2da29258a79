"""The `irw` console script. It installs a Ctrl-C handler before anything heavy is imported, so
that Ctrl-C at any moment (while the command line is read, before a command's own handler is
installed, or after it is removed: store.interrupts) exits 130 with one line rather than a
traceback of the import under way."""

from __future__ import annotations

import gc
import os
import signal
import sys

# Python's cyclic garbage collector runs every 700 new container objects by default. Starting
# `irw eval QRELS RUN` makes about 40,000 (the modules of duckdb and irw, their functions and
# classes), which cost ~50 collections and 4-7 ms of CPU while freeing a few hundred objects
# (issue 32 target 1, bench/README.md); a process of one command collects every 100,000 instead
# (still every so often in a long command, for cycles it leaves behind).
GC_THRESHOLD = 100_000


def _early_interrupt(signum, frame) -> None:
    """Ctrl-C outside a command's guarded body: nothing is being written at this moment; say
    what the command kept before, if it kept anything."""
    interrupts = sys.modules.get("irwarehouse.store.interrupts")
    summary = interrupts.summary() if interrupts else "nothing was written"
    try:
        sys.stderr.write(f"irw: interrupted; {summary}\n")
        sys.stderr.flush()
    finally:
        os._exit(130)


def _plain_help_when_piped() -> None:
    """`irw ... --help` into a file or a pager: click's plain text, not rich's boxes (typer
    reads TYPER_USE_RICH when it is first imported; a user's setting wins)."""
    try:
        piped = not os.isatty(sys.stdout.fileno())
    except (OSError, ValueError):
        piped = True
    if piped:
        os.environ.setdefault("TYPER_USE_RICH", "0")


def main() -> None:
    """Run `irw`. The process ends with os._exit once the command is done (its files closed,
    its output flushed): Python's own shutdown, during which a Ctrl-C would kill the process
    with no word, is skipped."""
    _plain_help_when_piped()
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        from .cli import main as cli_main  # embedded: leave the host's handler alone
        cli_main()
        return
    signal.signal(signal.SIGINT, _early_interrupt)
    # the process is this command's: collect less often, and leave to os._exit what it frees
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    from .store import lifetime
    lifetime.ONE_COMMAND["on"] = True
    from .cli import main as cli_main
    try:
        cli_main()
        code = 0
    except SystemExit as exc:
        code = _exit_code(exc.code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:                 # `irw ... | head`: the reader left
        pass
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    _exit(code)


def _exit(code: int) -> None:
    """End the process, unless a Ctrl-C came first. A SIGINT caught in the last instructions
    before os._exit would never reach its Python handler; with SIGINT blocked, one already
    caught runs its handler on entry to this function, and a later one waits in sigpending."""
    if signal.SIGINT in signal.sigpending():
        _early_interrupt(signal.SIGINT, None)
    os._exit(code)


def _exit_code(code) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    sys.stderr.write(f"{code}\n")
    return 1
