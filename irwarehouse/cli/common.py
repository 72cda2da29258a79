"""What the `irw` command groups share: the typer apps, the options and choices declared once
(typer validates them on the parameter), and the guard that turns every domain error into one
line on stderr and exit code 1 (a traceback only with --debug)."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ..formats import QRELS_FORMATS
from ..meta.render import FORMATS as TABLE_FORMATS
from ..request.layouts import LAYOUTS, PAPER

app = typer.Typer(help="irwarehouse: IR evaluation in a DuckDB warehouse.", no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False)
ingest_app = typer.Typer(help="Put qrels and runs into the warehouse.", no_args_is_help=True)
export_app = typer.Typer(help="Write scores, runs or a whole campaign as Parquet, CSV or Arrow, "
                         "or the whole warehouse for another DuckDB version.",
                         no_args_is_help=True)
meta_app = typer.Typer(help="Meta-evaluation: which metric to trust (discriminative power, swap "
                       "method, rank correlation, concordance, pools, leave-one-out).",
                       no_args_is_help=True)
app.add_typer(ingest_app, name="ingest")
app.add_typer(export_app, name="export")
app.add_typer(meta_app, name="meta")


def choices(name: str, *values: str) -> type[Enum]:
    """The choices of an option, as the str Enum typer validates and lists in --help (a value
    with '-' is reached as the member with '_')."""
    return Enum(name, [(v.replace("-", "_"), v) for v in values], type=str)


# -- choices shared by several command groups ---------------------------------------------------
# the tables of every command that prints records: its own table, and the plain layouts every
# evaluating command prints (request.layouts.PLAIN)
TableFormat = choices("TableFormat", *TABLE_FORMATS)
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
TIE_RULE_HELP = ("Tukey HSD: count a permuted range equal to the pair's difference (ge, the "
                 "default) or not (gt, the '>' of Sakai's Fig 15 / Fig 4); matters on coarse "
                 "measures such as P@10 (docs/stats.md).")

# -- options shared by several command groups ---------------------------------------------------
# the numbers of a paper's table (--format latex|markdown; writers.paper.Style)
DigitsOpt = Annotated[int | None, typer.Option(
    "--digits", min=0, max=12, help="--format latex|markdown: decimals printed (default 4, "
    "or 2 with --percent).")]
PercentOpt = Annotated[bool, typer.Option(
    "--percent", help="--format latex|markdown: values times 100.")]
Campaign = Annotated[str, typer.Option("--campaign", "-C", help="Campaign name.")]
TableFormatOpt = Annotated[TableFormat, typer.Option("--format", "-f", help="Output format.")]
WarehouseOpt = Annotated[Path | None, typer.Option(
    "--warehouse", "-w", help="Warehouse file (default: $IRW_WAREHOUSE or ./irw.duckdb).")]

# -- the engine an evaluation or query runs on (irwarehouse.spark, issue 18) ---------------------
Engine = choices("Engine", "duckdb", "spark")
EngineOpt = Annotated[Engine, typer.Option(
    "--engine", help="duckdb (default) or spark: the same metric SQL, its macros inlined and "
    "transpiled by sqlglot, run on Apache Spark (pip install 'irwarehouse[spark]'; Java 17+).")]
SparkMasterOpt = Annotated[str | None, typer.Option(
    "--spark-master", help="--engine spark: the Spark master URL (default local[*]).")]
SparkDataOpt = Annotated[Path | None, typer.Option(
    "--data", help="--engine spark: read the tables from this `irw export campaign` folder "
    "(any path the cluster reads) instead of exporting them from the warehouse first.")]


def paper_style(fmt: str, digits: int | None, percent: bool):
    """The writers.paper.Style of --digits/--percent, which apply to the paper layouts only
    (given with another layout they would be ignored silently: an error instead)."""
    from ..errors import IrwError
    from ..writers.paper import Style
    if fmt not in PAPER and (digits is not None or percent):
        raise IrwError("--digits and --percent shape the paper tables: give --format latex "
                       "or --format markdown")
    return Style(digits=digits, percent=percent)


def note(text: str) -> None:
    """A line on stderr saying what a command used (e.g. which stored option set)."""
    typer.echo(f"irw: {text}", err=True)


def warn(text: str) -> None:
    typer.echo(f"irw: warning: {text}", err=True)


DEBUG = {"on": False}


def open_warehouse(path: Path | None, **options):
    """The warehouse a command works on (--warehouse, $IRW_WAREHOUSE or ./irw.duckdb), opened
    with irwarehouse.api.Warehouse's options (create, read_only, macros)."""
    from ..api import Warehouse
    return Warehouse(_warehouse_path(path), **options)


def _warehouse_path(path: Path | None) -> str:
    from ..store.connection import default_path
    return str(path) if path else default_path()


def _fail(exc: BaseException) -> None:
    """End the command on `exc`: one line on stderr and its exit code (failures.describe; the
    codes are listed in docs/reliability.md), the traceback only with --debug."""
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
        raise typer.Exit(141)
    code, message = describe(exc)
    if code == EXIT_STORAGE and not isinstance(exc, IrwError):
        message += f"; {interrupts.summary('the error')}"    # disk full, I/O: what was kept
    typer.echo(f"irw: error: {message}", err=True)
    raise typer.Exit(code)


def _interrupted() -> None:
    """Ctrl-C: one line saying what was kept, exit code 130."""
    from ..failures import EXIT_INTERRUPTED
    from ..store import interrupts
    typer.echo(f"irw: interrupted; {interrupts.summary()}", err=True)
    raise typer.Exit(EXIT_INTERRUPTED)


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
    from typer.exceptions import Abort, Exit, TyperException

    from ..store import interrupts
    with interrupts.handling():
        try:
            result = fn()
            interrupts.check()
            return result
        except (Exit, Abort, TyperException):
            raise
        except BaseException as exc:            # every failure ends in one line
            if interrupts.requested() or isinstance(exc, KeyboardInterrupt) or \
                    _is_interrupt(exc):
                if DEBUG["on"]:
                    raise
                _interrupted()
            _fail(exc)


def _is_interrupt(exc: BaseException) -> bool:
    """DuckDB's forms of an interrupt (its InterruptException, or the RuntimeError its client
    raises when a signal arrives during a statement)."""
    if isinstance(exc, RuntimeError) and str(exc) == "Query interrupted":
        return True
    duckdb = sys.modules.get("duckdb")
    return duckdb is not None and isinstance(exc, duckdb.InterruptException)


# -- --wait on every command that opens a warehouse ---------------------------------------------
WaitOpt = Annotated[float | None, typer.Option(
    "--wait", min=0, help="Seconds to wait for a warehouse another process holds (default 30); "
    "the message then names that process.")]


def add_wait_options(typer_app: typer.Typer) -> None:
    """Give every command of `typer_app` (and its sub-apps) that takes --warehouse a --wait
    option, which sets how long opening the warehouse waits for another process's lock
    (store.locking). One wrapper here rather than one more parameter in thirty signatures."""
    for info in typer_app.registered_commands:
        info.callback = _with_wait(info.callback)
    for group in typer_app.registered_groups:
        add_wait_options(group.typer_instance)


def _with_wait(callback):
    import functools
    import inspect
    signature = inspect.signature(callback, eval_str=True)
    if "warehouse" not in signature.parameters or "wait" in signature.parameters:
        return callback

    @functools.wraps(callback)
    def with_wait(*args, wait: float | None = None, **kwargs):
        from ..store.locking import set_default_wait
        set_default_wait(wait)
        return callback(*args, **kwargs)

    wait = inspect.Parameter("wait", inspect.Parameter.KEYWORD_ONLY, default=None,
                             annotation=WaitOpt)
    with_wait.__signature__ = signature.replace(
        parameters=[*signature.parameters.values(), wait])
    with_wait.__annotations__ = {**callback.__annotations__, "wait": WaitOpt}
    return with_wait
