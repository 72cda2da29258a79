"""The `irw` command. Heavy imports (duckdb, pyarrow) happen inside the commands so that
`irw --help` stays fast. Every IrwError becomes one line on stderr and exit code 1."""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

app = typer.Typer(help="irwarehouse: IR evaluation in a DuckDB warehouse.", no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False)
ingest_app = typer.Typer(help="Put qrels and runs into the warehouse.", no_args_is_help=True)
app.add_typer(ingest_app, name="ingest")

WarehouseOpt = Annotated[Optional[Path], typer.Option(
    "--warehouse", "-w", help="Warehouse file (default: $IRW_WAREHOUSE or ./irw.duckdb).")]
DEBUG = {"on": False}


class Format(str, Enum):
    trec_eval = "trec_eval"
    tsv = "tsv"
    csv = "csv"
    json = "json"
    ntcireval = "ntcireval"


class Order(str, Enum):
    score = "score"
    rank = "rank"
    file = "file"


class QrelsFormat(str, Enum):
    qrels = "qrels"
    diversity = "diversity"
    ntcir_qrels = "ntcir_qrels"


def _warehouse_path(path: Optional[Path]) -> str:
    from .warehouse import default_path
    return str(path) if path else default_path()


def _fail(exc: Exception) -> None:
    if DEBUG["on"]:
        raise exc
    typer.echo(f"irw: error: {exc}", err=True)
    raise typer.Exit(1)


def _guard(fn):
    """Run a command body, turning domain errors into one line and exit code 1."""
    from .errors import IrwError
    try:
        return fn()
    except IrwError as exc:
        _fail(exc)
    except KeyboardInterrupt:
        typer.echo("irw: interrupted; nothing was written", err=True)
        raise typer.Exit(130)


@app.callback()
def main_options(debug: Annotated[bool, typer.Option(help="Show tracebacks.")] = False):
    DEBUG["on"] = debug


@app.command()
def init(warehouse: WarehouseOpt = None):
    """Create a warehouse file (or bring an existing one's schema up to date)."""
    def body():
        from .warehouse import connect
        path = _warehouse_path(warehouse)
        connect(path).close()
        typer.echo(f"warehouse ready: {path}")
    _guard(body)


@ingest_app.command("qrels")
def ingest_qrels(
    file: Annotated[Path, typer.Argument(help="Qrels file (may be gzipped).")],
    campaign: Annotated[str, typer.Option("--campaign", "-C", help="Campaign name.")],
    name: Annotated[Optional[str], typer.Option(help="Name of this judgment set "
                                                "(default: the file name).")] = None,
    fmt: Annotated[QrelsFormat, typer.Option("--format", help="qrels: topic iter doc rel; "
                   "diversity: topic subtopic doc rel; ntcir_qrels: topic doc Lx.")]
    = QrelsFormat.qrels,
    replace: Annotated[bool, typer.Option(help="Replace a qrels of the same name.")] = False,
    warehouse: WarehouseOpt = None,
):
    """Ingest judgments into a campaign (one transaction)."""
    def body():
        from .api import Warehouse
        with Warehouse(_warehouse_path(warehouse)) as wh:
            qid = wh.ingest_qrels(file, campaign, name=name, fmt=fmt.value, replace=replace)
            n = wh.con.execute("SELECT num_rows FROM qrels WHERE qrels_id = ?", [qid]).fetchone()
        typer.echo(f"ingested {n[0]} judgments from {file} into campaign {campaign}")
    _guard(body)


@ingest_app.command("run")
def ingest_run(
    file: Annotated[Path, typer.Argument(help="TREC run file (may be gzipped).")],
    campaign: Annotated[str, typer.Option("--campaign", "-C", help="Campaign name.")],
    name: Annotated[Optional[str], typer.Option(help="Run name (default: its run tag).")] = None,
    team: Annotated[Optional[str], typer.Option(help="Team that submitted the run.")] = None,
    replace: Annotated[bool, typer.Option(help="Replace a run of the same name.")] = False,
    keep_first: Annotated[bool, typer.Option(help="Keep the first of duplicate documents "
                                             "instead of refusing the file.")] = False,
    warehouse: WarehouseOpt = None,
):
    """Ingest a run into a campaign (one transaction)."""
    def body():
        from .api import Warehouse
        with Warehouse(_warehouse_path(warehouse)) as wh:
            rid = wh.ingest_run(file, campaign, name=name, team=team, replace=replace,
                                keep_first=keep_first)
            row = wh.con.execute("SELECT name, num_rows FROM run WHERE run_id = ?",
                                 [rid]).fetchone()
        typer.echo(f"ingested run {row[0]} ({row[1]} rows) from {file} into campaign {campaign}")
    _guard(body)


@app.command("eval")
def eval_cmd(
    files: Annotated[Optional[list[Path]], typer.Argument(
        help="QRELS RUN [RUN ...] to evaluate files directly (no warehouse).")] = None,
    measure: Annotated[Optional[list[str]], typer.Option(
        "--measure", "-m", help="Measure (trec_eval or ir_measures name); repeatable. "
        "Default: trec_eval's official set; all_trec for everything.")] = None,
    query: Annotated[bool, typer.Option("-q", help="Per-topic values too.")] = False,
    complete: Annotated[bool, typer.Option("-c", help="Average over every judged topic "
                                           "(absent topics score 0).")] = False,
    level: Annotated[int, typer.Option("-l", help="Relevance threshold: level >= l is "
                                       "relevant.")] = 1,
    judged_only: Annotated[bool, typer.Option("-J", help="Judged documents only "
                                              "(condensed lists).")] = False,
    depth: Annotated[Optional[int], typer.Option("-M", help="Evaluate the top M documents "
                                                 "only.")] = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
    = Format.trec_eval,
    order: Annotated[Order, typer.Option(help="Ranking: score (trec_eval: score desc, docno "
                     "desc), rank (the rank column), file (file order, NTCIREVAL).")]
    = Order.score,
    trec_eval_version: Annotated[int, typer.Option(
        "--trec-eval-version", help="9 (9.0.8, as pytrec_eval) or 10 semantics.")] = 9,
    qrels_format: Annotated[QrelsFormat, typer.Option(help="Format of a QRELS file.")]
    = QrelsFormat.qrels,
    keep_first: Annotated[bool, typer.Option(help="Keep the first of duplicate documents.")]
    = False,
    campaign: Annotated[Optional[str], typer.Option("--campaign", "-C", help="Evaluate the "
                        "stored runs of this campaign.")] = None,
    run: Annotated[Optional[list[str]], typer.Option("--run", help="Only these stored runs.")]
    = None,
    qrels: Annotated[Optional[str], typer.Option("--qrels", help="Which stored qrels.")] = None,
    store: Annotated[bool, typer.Option(help="Materialise per-topic scores into the score "
                                        "table.")] = False,
    warehouse: WarehouseOpt = None,
    # NTCIREVAL options (ntcir_eval's -g and -cutoffs)
    gains: Annotated[Optional[str], typer.Option(
        "--gains", "-g", help="NTCIREVAL gain per level: 1:2 (L1=1, L2=2, as ntcir_eval -g) "
        "or pairs 1:1,2:3,3:7 / S:3,A:2,B:1. Default: gain = level.")] = None,
    cutoffs: Annotated[Optional[str], typer.Option(
        help="NTCIREVAL cutoffs for the @k measures, e.g. 1,10 (default 1000).")] = None,
):
    """Evaluate runs, like trec_eval: `irw eval QRELS RUN -m map -m P.10` or `--campaign C`.
    `--format ntcireval` prints ntcir_eval's .nev (its full set when no -m is given), over the
    first 1000 documents (-M 1000) of every judged topic (-c), as NTCIREVAL."""
    def body():
        from .errors import IrwError
        from .evaluate import EvalOptions
        from .output import render
        ntcir = _ntcir_settings(gains, cutoffs, fmt == Format.ntcireval)
        nev = fmt == Format.ntcireval
        opts = EvalOptions(threshold=level, judged_only=judged_only,
                           depth=1000 if nev and depth is None else depth,
                           complete=complete or nev, order=order.value, version=trec_eval_version)
        if campaign:
            if files:
                raise IrwError("give either files or --campaign, not both")
            from .api import Warehouse
            with Warehouse(_warehouse_path(warehouse), create=False) as wh:
                result = wh.evaluate(measure or [], campaign=campaign, runs=run, qrels=qrels,
                                     store=store, options=opts, ntcir=ntcir)
        else:
            if not files or len(files) < 2:
                raise IrwError("usage: irw eval QRELS RUN [RUN ...] (or --campaign NAME)")
            if store:
                raise IrwError("--store needs --campaign (files are evaluated without a "
                               "warehouse)")
            from .api import evaluate_files
            result = evaluate_files(files[0], files[1:], measure or [], options=opts,
                                    qrels_format=qrels_format.value, keep_first=keep_first,
                                    ntcir=ntcir)
        sys.stdout.write(render(result, fmt.value, per_topic=query))
    _guard(body)


def _ntcir_settings(gains: Optional[str], cutoffs: Optional[str], prefer: bool):
    from .measures import NtcirSettings, parse_cutoffs, parse_gains
    return NtcirSettings(gains=parse_gains(gains) if gains else {},
                         cutoffs=parse_cutoffs(cutoffs) if cutoffs else (1000,), prefer=prefer)


@app.command()
def measures():
    """List the measures the SQL files define."""
    def body():
        from .measures import registry
        for mdef in registry().values():
            params = ", ".join(f"{p.name} {p.type} = {p.default}" for p in mdef.params)
            typer.echo(f"{mdef.name:<24}{mdef.family + '.sql':<20}{params}")
    _guard(body)


@app.command()
def demo(
    warehouse: Annotated[Path, typer.Option(help="Where to build the demo warehouse.")]
    = Path("demo.duckdb"),
):
    """Build a warehouse from the bundled sample campaign (data/) and evaluate it."""
    def body():
        from .api import Warehouse
        from .output import render
        data = _data_dir()
        if warehouse.exists():
            warehouse.unlink()
        with Warehouse(warehouse) as wh:
            wh.ingest_qrels(data / "qrels.test", "sample", name="binary")
            wh.ingest_qrels(data / "qrels.rel_level", "sample", name="graded")
            for run in sorted(data.glob("runs/*")):
                wh.ingest_run(run, "sample", team=run.name.split(".")[0])
            result = wh.evaluate(["map", "P.10", "ndcg_cut.10", "recip_rank", "bpref"],
                                 campaign="sample", qrels="graded", store=True)
            typer.echo(render(result, "trec_eval", per_topic=False))
            n = wh.con.execute("SELECT count(*) FROM score").fetchone()[0]
        typer.echo(f"{n} per-topic scores stored in {warehouse}; try:\n"
                   f"  duckdb {warehouse} \"SELECT * FROM run_score\"")
    _guard(body)


def _data_dir() -> Path:
    from .errors import IrwError
    for cand in (Path(os.environ.get("IRW_DATA", "data")),
                 Path(__file__).resolve().parent.parent / "data"):
        if (cand / "qrels.test").is_file():
            return cand
    raise IrwError("cannot find the sample data folder (data/)")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
