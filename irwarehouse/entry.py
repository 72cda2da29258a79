"""The `irw` console script. It installs a Ctrl-C handler before anything heavy is imported, so
that Ctrl-C at any moment (while the command line is read, before a command's own handler is
installed, or after it is removed: store.interrupts) exits 130 with one line rather than a
traceback of the import under way."""

from __future__ import annotations

import os
import signal
import sys


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


def main() -> None:
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _early_interrupt)
    from .cli import main as cli_main
    cli_main()
