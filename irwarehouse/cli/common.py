"""What the `irw` command groups share: the typer apps and the options declared once (typer
validates them on the parameter). What the command bodies share without typer (the choices of
the options, the guard that turns every domain error into one line on stderr and exit code 1,
a traceback only with --debug) is in plain.py, and named here too for the groups' modules."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..meta.render import FORMATS as TABLE_FORMATS
from .plain import (  # noqa: F401  (the groups' modules import them from here)
    DEBUG,
    Correction,
    DiversityKind,
    Engine,
    Format,
    Missing,
    PaperFormat,
    QrelsFormat,
    Test,
    TieRule,
    _fail,
    _guard,
    _interrupted,
    _is_interrupt,
    _progress_bar,
    _warehouse_path,
    choices,
    note,
    open_warehouse,
    paper_style,
    warn,
)

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


# -- choices (plain.py has the others) ------------------------------------------------------------
# the tables of every command that prints records: its own table, and the plain layouts every
# evaluating command prints (request.layouts.PLAIN)
TableFormat = choices("TableFormat", *TABLE_FORMATS)
# the --tie-rule of the commands that run Tukey HSD
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
EngineOpt = Annotated[Engine, typer.Option(
    "--engine", help="duckdb (default) or spark: the same metric SQL, its macros inlined and "
    "transpiled by sqlglot, run on Apache Spark (pip install 'irwarehouse[spark]'; Java 17+).")]
SparkMasterOpt = Annotated[str | None, typer.Option(
    "--spark-master", help="--engine spark: the Spark master URL (default local[*]).")]
SparkDataOpt = Annotated[Path | None, typer.Option(
    "--data", help="--engine spark: read the tables from this `irw export campaign` folder "
    "(any path the cluster reads) instead of exporting them from the warehouse first.")]


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


# -- a command whose body is declared without typer ---------------------------------------------
def declared(body, **options):
    """Give a command function `body`'s parameters, their defaults as `body` declares them,
    with typer's declarations `options` (flags, help) as their annotations: the function then
    only calls `body` (`irw eval`: eval_body.py, which cli/fast.py calls without typer).
    Every parameter of `body` but `settings` (cli/options.py's EvalSettings) is declared."""
    import inspect
    signature = inspect.signature(body)
    undeclared = set(signature.parameters) - set(options) - {"settings"}
    unknown = set(options) - set(signature.parameters)
    if undeclared or unknown:
        raise TypeError(f"{body.__name__}: no typer declaration for {sorted(undeclared)}, "
                        f"no parameter for {sorted(unknown)}")

    def decorate(command):
        params = [p.replace(annotation=options.get(p.name, inspect.Parameter.empty))
                  for p in signature.parameters.values()]
        command.__signature__ = signature.replace(parameters=params,
                                                  return_annotation=inspect.Signature.empty)
        command.__annotations__ = dict(options)
        return command
    return decorate
