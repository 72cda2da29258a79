"""What the `irw` command groups share: the typer apps, the options and choices declared once
(typer validates them on the parameter), and the guard that turns every domain error into one
line on stderr and exit code 1 (a traceback only with --debug)."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(help="irwarehouse: IR evaluation in a DuckDB warehouse.", no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False)
ingest_app = typer.Typer(help="Put qrels and runs into the warehouse.", no_args_is_help=True)
export_app = typer.Typer(help="Write scores, runs or a whole campaign as Parquet, CSV or Arrow.",
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
TableFormat = choices("TableFormat", "table", "json", "csv")
Format = choices("Format", "trec_eval", "tsv", "csv", "json", "ndeval", "ntcireval")
Order = choices("Order", "score", "rank", "file")
DiversityKind = choices("DiversityKind", "D", "DIN", "IA")
QrelsFormat = choices("QrelsFormat", "qrels", "diversity", "ntcir_qrels")
Test = choices("Test", "bootstrap", "tukey", "randomisation", "t", "wilcoxon", "sign")
Correction = choices("Correction", "bonferroni", "holm", "bh")
# What to do with topics a run lacks in a score matrix (irwarehouse.engine.matrix).
Missing = choices("Missing", "error", "drop", "zero")
# How randomised Tukey HSD counts a permuted range equal to a pair's difference
# (irwarehouse.stats.tukey_hsd): ge counts it, gt (the '>' of Sakai, PROMISE 2014) does not.
TieRule = choices("TieRule", "ge", "gt")
TIE_RULE_HELP = ("Tukey HSD: count a permuted range equal to the pair's difference (ge, the "
                 "default) or not (gt, the '>' of Sakai's Fig 15 / Fig 4); matters on coarse "
                 "measures such as P@10 (docs/stats.md).")

# -- options shared by several command groups ---------------------------------------------------
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


DEBUG = {"on": False}


def open_warehouse(path: Path | None, **options):
    """The warehouse a command works on (--warehouse, $IRW_WAREHOUSE or ./irw.duckdb), opened
    with irwarehouse.api.Warehouse's options (create, read_only, macros)."""
    from ..api import Warehouse
    return Warehouse(_warehouse_path(path), **options)


def _warehouse_path(path: Path | None) -> str:
    from ..store.connection import default_path
    return str(path) if path else default_path()


def _fail(exc: Exception) -> None:
    if DEBUG["on"]:
        raise exc
    typer.echo(f"irw: error: {exc}", err=True)
    raise typer.Exit(1)


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
    """Run a command body, turning domain errors into one line and exit code 1: IrwError, and
    the ValueError with which the statistics (irwarehouse.stats) refuse bad options (B, alpha,
    a test the command does not run)."""
    from ..errors import IrwError
    try:
        return fn()
    except (IrwError, ValueError) as exc:
        _fail(exc)
    except KeyboardInterrupt:
        typer.echo("irw: interrupted; nothing was written", err=True)
        raise typer.Exit(130)
