"""What the `irw` command bodies share that needs no typer: the choices of the options (str
Enums, which typer validates where common.py declares the options), the guard that turns every
domain error into one line on stderr and its exit code (a traceback only with --debug), the
lines a command writes on stderr, and the warehouse a command opens.

typer is imported by the declarations (common.py and each group's module), never here, so
that `irw eval QRELS RUN` parsed by cli/fast.py runs its body (cli/eval_body.py) without
typer's start-up (13-16 ms of CPU: click, subprocess, the shell-completion classes; bench/
README.md, "The everyday run after bc281ee"). tests/cli/test_fast.py checks that it stays so."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path

from ..formats import QRELS_FORMATS
from ..request.layouts import LAYOUTS, PAPER


def choices(name: str, *values: str) -> type[Enum]:
    """The choices of an option, as the str Enum typer validates and lists in --help (a value
    with '-' is reached as the member with '_')."""
    return Enum(name, [(v.replace("-", "_"), v) for v in values], type=str)


# -- choices shared by several command groups (common.TableFormat, the tables of records, is
# declared beside typer's options: its values come from meta.render, which the everyday run
# does not otherwise import) -------------------------------------------------------------------
# irw eval's layouts, as request.layouts declares them
Format = choices("Format", *LAYOUTS)
# a paper's table (writers.paper), where a command's own output is not a table (irw meta report)
PaperFormat = choices("PaperFormat", *PAPER)
DiversityKind = choices("DiversityKind", "D", "DIN", "IA")
QrelsFormat = choices("QrelsFormat", *QRELS_FORMATS)
Test = choices("Test", "bootstrap", "tukey", "randomisation", "t", "wilcoxon", "sign")
# none: no correction (the default), so that a script can say so; Tukey HSD takes only none
Correction = choices("Correction", "none", "bonferroni", "holm", "bh")
# What to do with topics a run lacks in a score matrix (irwarehouse.engine.matrix).
Missing = choices("Missing", "error", "drop", "zero")
# How randomised Tukey HSD counts a permuted range equal to a pair's difference
# (irwarehouse.stats.tukey_hsd): ge counts it, gt (the '>' of Sakai, PROMISE 2014) does not.
TieRule = choices("TieRule", "ge", "gt")
# the engine an evaluation or query runs on (irwarehouse.spark, issue 18)
Engine = choices("Engine", "duckdb", "spark")


def paper_style(fmt: str, digits: int | None, percent: bool):
    """The writers.paper.Style of --digits/--percent, which apply to the paper layouts only
    (given with another layout they would be ignored silently: an error instead); None for
    the other layouts, which take no style."""
    if fmt not in PAPER:
        if digits is not None or percent:
            from ..errors import IrwError
            raise IrwError("--digits and --percent shape the paper tables: give --format "
                           "latex or --format markdown")
        return None
    from ..writers.paper import Style
    return Style(digits=digits, percent=percent)


# -- lines on stderr ----------------------------------------------------------------------------
def echo_err(text: str) -> None:
    """`text` and a newline on stderr, byte for byte as typer.echo(text, err=True) writes it.
    typer does more only for an ANSI code off a terminal (stripped), a stream without an
    encoding and errors or with an ASCII one (re-encoded) and Windows' console: those, and
    every line while typer is loaded anyway, go through typer.echo itself."""
    stream = sys.stderr
    if "typer" in sys.modules or "\x1b" in text or sys.platform.startswith("win") or \
            stream is None or not _plain_stream(stream):
        import typer
        typer.echo(text, err=True)
        return
    stream.write(text + "\n")
    stream.flush()


def _plain_stream(stream) -> bool:
    import codecs
    encoding, errors = getattr(stream, "encoding", None), getattr(stream, "errors", None)
    if not encoding or errors is None:
        return False
    try:
        return codecs.lookup(encoding).name != "ascii"
    except LookupError:
        return True


def note(text: str) -> None:
    """A line on stderr saying what a command used (e.g. which stored option set)."""
    echo_err(f"irw: {text}")


def warn(text: str) -> None:
    echo_err(f"irw: warning: {text}")


# -- the warehouse ------------------------------------------------------------------------------
def open_warehouse(path: Path | None, **options):
    """The warehouse a command works on (--warehouse, $IRW_WAREHOUSE or ./irw.duckdb), opened
    with irwarehouse.api.Warehouse's options (create, read_only, macros)."""
    from ..api import Warehouse
    return Warehouse(_warehouse_path(path), **options)


def _warehouse_path(path: Path | None) -> str:
    from ..store.connection import default_path
    return str(path) if path else default_path()


# -- the guard ----------------------------------------------------------------------------------
DEBUG = {"on": False}


def _fail(exc: BaseException) -> None:
    """End the command on `exc`: one line on stderr and its exit code (failures.describe; the
    codes are listed in docs/reliability.md), the traceback only with --debug. The exit is a
    SystemExit, which typer (and click under it) lets through as it is."""
    import os

    from ..errors import IrwError
    from ..failures import EXIT_STORAGE, describe
    from ..store import interrupts
    if DEBUG["on"]:
        raise exc
    if isinstance(exc, BrokenPipeError):           # `irw ... | head`: the reader left, quietly
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        raise SystemExit(141)
    code, message = describe(exc)
    if code == EXIT_STORAGE and not isinstance(exc, IrwError):
        message += f"; {interrupts.summary('the error')}"    # disk full, I/O: what was kept
    echo_err(f"irw: error: {message}")
    raise SystemExit(code)


def _interrupted() -> None:
    """Ctrl-C: one line saying what was kept, exit code 130."""
    from ..failures import EXIT_INTERRUPTED
    from ..store import interrupts
    echo_err(f"irw: interrupted; {interrupts.summary()}")
    raise SystemExit(EXIT_INTERRUPTED)


def _progress_bar(label: str):
    """A `progress(done, total)` callback drawing a bar on stderr, only on a terminal (so that
    piped output and tests stay clean); None otherwise."""
    if not sys.stderr.isatty():
        return None

    def progress(done: int, total: int) -> None:
        width = 30
        filled = int(width * done / max(total, 1))
        sys.stderr.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done >= total:
            sys.stderr.write("\r" + " " * (width + len(label) + 16) + "\r")
        sys.stderr.flush()
    return progress


def _guard(fn):
    """Run a command body so that every failure is one line on stderr and a documented exit
    code (a traceback only with --debug): the errors a user causes exit 1, the warehouse's
    and the system's (disk full, I/O, damage, a busy file) 3, an unexpected one 4 (and asks
    for --debug); Ctrl-C stops at once and exits 130 saying what was kept, and a command whose
    Ctrl-C something swallowed still stops rather than reporting success."""
    from ..store import interrupts
    with interrupts.handling():
        try:
            result = fn()
            interrupts.check()
            return result
        except BaseException as exc:            # every failure ends in one line
            if _exits(exc):
                raise
            if interrupts.requested() or isinstance(exc, KeyboardInterrupt) or \
                    _is_interrupt(exc):
                if DEBUG["on"]:
                    raise
                _interrupted()
            _fail(exc)


def _exits(exc: BaseException) -> bool:
    """An exit a body chose: a SystemExit (a nested guard's), or typer's Exit, Abort and its
    other exceptions (a body under typer raises them; none exists while typer is not
    loaded)."""
    if isinstance(exc, SystemExit):
        return True
    typer_exceptions = sys.modules.get("typer.exceptions")
    return typer_exceptions is not None and isinstance(
        exc, (typer_exceptions.Exit, typer_exceptions.Abort, typer_exceptions.TyperException))


def _is_interrupt(exc: BaseException) -> bool:
    """DuckDB's forms of an interrupt (its InterruptException, or the RuntimeError its client
    raises when a signal arrives during a statement)."""
    if isinstance(exc, RuntimeError) and str(exc) == "Query interrupted":
        return True
    duckdb = sys.modules.get("duckdb")
    return duckdb is not None and isinstance(exc, duckdb.InterruptException)
