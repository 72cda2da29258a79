"""The `irw` command. Heavy imports (duckdb, pyarrow) happen inside the commands so that
`irw --help` stays fast. Every IrwError becomes one line on stderr and exit code 1."""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from .cliopts import TIE_RULE_HELP, Missing, TableFormat, TieRule
from .spark.cli import DATA_HELP, ENGINE_HELP, MASTER_HELP, Engine

app = typer.Typer(help="irwarehouse: IR evaluation in a DuckDB warehouse.", no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False)
ingest_app = typer.Typer(help="Put qrels and runs into the warehouse.", no_args_is_help=True)
app.add_typer(ingest_app, name="ingest")
from .meta.cli import meta_app  # noqa: E402
app.add_typer(meta_app, name="meta")

WarehouseOpt = Annotated[Optional[Path], typer.Option(
    "--warehouse", "-w", help="Warehouse file (default: $IRW_WAREHOUSE or ./irw.duckdb).")]
DEBUG = {"on": False}


class Format(str, Enum):
    trec_eval = "trec_eval"
    tsv = "tsv"
    csv = "csv"
    json = "json"
    ndeval = "ndeval"
    ntcireval = "ntcireval"


class Order(str, Enum):
    score = "score"
    rank = "rank"
    file = "file"


class DiversityKind(str, Enum):
    D = "D"
    DIN = "DIN"
    IA = "IA"


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
    """Run a command body, turning domain errors into one line and exit code 1."""
    from .errors import IrwError
    try:
        return fn()
    except IrwError as exc:
        _fail(exc)
    except KeyboardInterrupt:
        typer.echo("irw: interrupted; nothing was written", err=True)
        raise typer.Exit(130)


from .texts.cli import register as _register_texts  # noqa: E402  (rouge, nuggets, ingest texts)
_register_texts(app, ingest_app, _guard, _warehouse_path)


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


class Scheme(str, Enum):
    uniform = "uniform"
    seed001 = "seed001"


@ingest_app.command("intents")
def ingest_intents(
    campaign: Annotated[str, typer.Option("--campaign", "-C", help="Campaign name.")],
    file: Annotated[Optional[Path], typer.Argument(
        help="Intent file: NTCIREVAL Iprob (topic intent prob) or DINprob (topic intent prob "
        "inf|nav).")] = None,
    normalise: Annotated[bool, typer.Option(help="Rescale a topic's probabilities that do "
                                            "not sum to 1 (otherwise an error).")] = False,
    scheme: Annotated[Optional[Scheme], typer.Option(
        help="Instead of a file: probabilities for every intent of the campaign's diversity "
        "qrels, uniform or seed 001's 2^(n-j+1)/sum 2^k.")] = None,
    warehouse: WarehouseOpt = None,
):
    """Ingest intent probabilities and types (diversity measures) into a campaign."""
    def body():
        from .api import Warehouse
        from .errors import IrwError
        if (file is None) == (scheme is None):
            raise IrwError("give an intent FILE or --scheme")
        with Warehouse(_warehouse_path(warehouse)) as wh:
            if file is not None:
                n = wh.ingest_intents(file, campaign, normalise=normalise)
                typer.echo(f"ingested {n} intents from {file} into campaign {campaign}")
            else:
                n = wh.assign_intent_probabilities(campaign, scheme=scheme.value)
                typer.echo(f"{scheme.value} probabilities for {n} intents of campaign "
                           f"{campaign}")
    _guard(body)


class LengthUnit(str, Enum):
    words = "words"
    chars = "chars"


@ingest_app.command("doclengths")
def ingest_doclengths(
    file: Annotated[Path, typer.Argument(help="Lengths: docno<TAB>length (in --unit), or "
                                         "docno<TAB>words<TAB>chars; may be gzipped.")],
    campaign: Annotated[str, typer.Option("--campaign", "-C", help="Campaign name.")],
    unit: Annotated[LengthUnit, typer.Option(help="Unit of a 2-field line: words (TBG) or "
                    "chars (U-measure).")] = LengthUnit.words,
    warehouse: WarehouseOpt = None,
):
    """Ingest document lengths (for TBG and the U-measure) into a campaign (one transaction)."""
    def body():
        from .api import Warehouse
        with Warehouse(_warehouse_path(warehouse)) as wh:
            n = wh.ingest_doclengths(file, campaign, unit=unit.value)
        typer.echo(f"ingested {n} document lengths ({unit.value}) from {file} into campaign "
                   f"{campaign}")
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
    # -- diversity (ndeval / NTCIREVAL): irwarehouse.diversity -----------------------------
    alpha: Annotated[Optional[float], typer.Option(help="Diversity: ndeval's alpha (novelty "
                     "discount; default 0.5).")] = None,
    beta: Annotated[Optional[float], typer.Option(help="Diversity: ndeval's beta (NRBP "
                    "persistence; default 0.5).")] = None,
    diversity: Annotated[Optional[DiversityKind], typer.Option(
        help="NTCIREVAL diversity measures (default set when no -m): D (.Dnev), DIN (.DINnev) "
        "or IA (.nevIA).")] = None,
    intents: Annotated[Optional[Path], typer.Option(help="Intent probabilities/types "
                       "(NTCIREVAL Iprob or DINprob) for QRELS RUN files.")] = None,
    gamma: Annotated[Optional[float], typer.Option(help="Diversity: weight of I-rec in the "
                     "# measures (default 0.5).")] = None,
    cutoffs: Annotated[Optional[str], typer.Option(
        help="NTCIREVAL cutoffs for the @k measures, e.g. 1,10 (default 10 for --diversity).")]
    = None,
    gains: Annotated[Optional[str], typer.Option(
        "--gains", "-g", help="NTCIREVAL gain per level: 1:2 (L1=1, L2=2, as ntcir_eval -g) "
        "or pairs 1:1,2:3,3:7 / S:3,A:2,B:1, or exp:3 (2^level-1). Default: gain = level.")]
    = None,
    doclengths: Annotated[Optional[Path], typer.Option(
        help="Document lengths in words (docno<TAB>words, or docno<TAB>words<TAB>chars) for "
        "TBG and U with QRELS RUN files.")] = None,
    doclengths_chars: Annotated[Optional[Path], typer.Option(
        help="Document lengths in characters (docno<TAB>chars) for the U-measure with QRELS "
        "RUN files.")] = None,
    # -- Spark (irwarehouse.spark) -----------------------------------------------------------
    engine: Annotated[Engine, typer.Option(help=ENGINE_HELP)] = Engine.duckdb,
    spark_master: Annotated[Optional[str], typer.Option("--spark-master", help=MASTER_HELP)]
    = None,
    data: Annotated[Optional[Path], typer.Option("--data", help=DATA_HELP)] = None,
):
    """Evaluate runs, like trec_eval: `irw eval QRELS RUN -m map -m P.10` or `--campaign C`.
    `--format ntcireval` prints ntcir_eval's .nev (its full set when no -m is given), over the
    first 1000 documents (-M 1000) of every judged topic (-c), as NTCIREVAL."""
    def body():
        from .diversity import cli_measures
        from .errors import IrwError
        from .evaluate import EvalOptions
        from .output import render
        measure_names = cli_measures(measure or [], fmt.value, alpha=alpha, beta=beta,
                                     gamma=gamma, kind=diversity.value if diversity else None,
                                     cutoffs=cutoffs)
        if intents is not None and campaign:
            raise IrwError("--intents is for QRELS RUN files; store a campaign's intents with "
                           "`irw ingest intents`")
        if (doclengths or doclengths_chars) and campaign:
            raise IrwError("--doclengths is for QRELS RUN files; store a campaign's document "
                           "lengths with `irw ingest doclengths`")
        # ntcir_eval's .nev: its full ad hoc set, the first 1000 documents (-M 1000) of every
        # judged topic (-c). The diversity layouts (--diversity) have their own defaults.
        nev = fmt == Format.ntcireval and diversity is None
        ntcir = _ntcir_settings(gains, None if diversity else cutoffs, nev,
                                monotone=diversity is None)
        opts = EvalOptions(threshold=level, judged_only=judged_only,
                           depth=1000 if nev and depth is None else depth,
                           complete=complete or nev, order=order.value, version=trec_eval_version,
                           gains=_diversity_gains(gains))
        # the whole .Dnev / .DINnev / .nevIA files need NTCIREVAL's gcompute blocks
        blocks = fmt == Format.ntcireval
        if engine == Engine.spark:
            if files or blocks:
                raise IrwError("--engine spark evaluates a stored campaign (--campaign C, "
                               "--data DIR), in any layout but --format ntcireval")
            from .spark.cli import eval_spark
            result = eval_spark(campaign=campaign, measure_names=measure_names, opts=opts,
                                runs=run, qrels=qrels, store=store,
                                warehouse=_warehouse_path(warehouse), data=data,
                                master=spark_master, ntcir=ntcir,
                                progress=_progress_bar("evaluating on Spark"))
            sys.stdout.write(render(result, fmt.value, per_topic=query))
            return
        if spark_master or data:
            raise IrwError("--spark-master and --data are for --engine spark")
        if campaign:
            if files:
                raise IrwError("give either files or --campaign, not both")
            from .api import Warehouse
            with Warehouse(_warehouse_path(warehouse), create=False, macros=False) as wh:
                result = wh.evaluate(measure_names, campaign=campaign, runs=run, qrels=qrels,
                                     store=store, options=opts, ntcir=ntcir,
                                     progress=_progress_bar("evaluating"), gcompute=blocks,
                                     arrow=False)
        else:
            if not files or len(files) < 2:
                raise IrwError("usage: irw eval QRELS RUN [RUN ...] (or --campaign NAME)")
            if store:
                raise IrwError("--store needs --campaign (files are evaluated without a "
                               "warehouse)")
            from .api import evaluate_files
            result = evaluate_files(files[0], files[1:], measure_names, options=opts,
                                    qrels_format=qrels_format.value, keep_first=keep_first,
                                    intents=intents, ntcir=ntcir,
                                    doclengths=doclengths, doclengths_chars=doclengths_chars,
                                    progress=_progress_bar("evaluating"), gcompute=blocks,
                                    arrow=False)
        sys.stdout.write(render(result, fmt.value, per_topic=query))
    _guard(body)


class Test(str, Enum):
    bootstrap = "bootstrap"
    tukey = "tukey"
    randomisation = "randomisation"
    t = "t"
    wilcoxon = "wilcoxon"
    sign = "sign"


class Correction(str, Enum):
    bonferroni = "bonferroni"
    holm = "holm"
    bh = "bh"


@app.command()
def compare(
    campaign: Annotated[list[str], typer.Option("--campaign", "-C", help="Campaign(s); "
                        "repeat to compare runs across campaigns on shared topics.")],
    measure: Annotated[str, typer.Option("--measure", "-m", help="Measure to compare on.")],
    test: Annotated[Test, typer.Option(help="Significance test.")] = Test.bootstrap,
    correction: Annotated[Optional[Correction], typer.Option(
        help="Multiple-comparison correction of the pairwise p-values.")] = None,
    resamples: Annotated[Optional[int], typer.Option("-B", help="Resamples (default: 1000 "
                         "bootstrap, 5000 Tukey, 10000 randomisation).")] = None,
    tie_rule: Annotated[TieRule, typer.Option("--tie-rule", help=TIE_RULE_HELP)] = TieRule.ge,
    seed: Annotated[Optional[int], typer.Option(help="Random seed (recorded; a fresh one "
                    "is drawn and printed when not given).")] = None,
    alpha: Annotated[float, typer.Option(help="Significance level.")] = 0.05,
    run: Annotated[Optional[list[str]], typer.Option("--run", help="Only these runs.")] = None,
    missing: Annotated[Missing, typer.Option(help="Topics missing in a run: error, drop or "
                           "zero.")] = Missing.error,
    fmt: Annotated[TableFormat, typer.Option("--format", "-f")] = TableFormat.table,
    store: Annotated[bool, typer.Option(help="Store the results in table `significance`.")]
    = False,
    warehouse: WarehouseOpt = None,
):
    """Significance tests between every pair of runs: a run x run table of differences."""
    def body():
        from . import compare as cmp
        from .api import Warehouse
        with Warehouse(_warehouse_path(warehouse), create=False) as wh:
            matrix = cmp.matrix_for(wh, campaign, measure, run, missing.value)
            with typer.progressbar(length=100, label=f"{test.value}", file=sys.stderr,
                                   hidden=not sys.stderr.isatty()) as bar:
                state = {"shown": 0}

                def progress(done, total):
                    now = int(100 * done / max(total, 1))
                    bar.update(now - state["shown"])
                    state["shown"] = now
                result = cmp.run_tests(matrix, test=test.value,
                                       correction=correction.value if correction else None,
                                       alpha=alpha, B=resamples, seed=seed, progress=progress,
                                       tie_rule=tie_rule.value)
            if store:
                cmp.store(wh, result, ",".join(campaign), measure)
        sys.stdout.write(cmp.render(result, matrix, fmt.value))
    _guard(body)


def _diversity_gains(gains: Optional[str]) -> tuple:
    """`-g` for the NTCIREVAL diversity measures: the gain of L1, L2, ... as DIN-splitqrels'
    L1G..L9G table (`1:2:3`, or pairs `1:1,2:3`, `exp:3`); levels not listed keep gain =
    level, the script's default. The table need not increase with the level."""
    from .measures import parse_gains
    return tuple(sorted(parse_gains(gains, monotone=False).items())) if gains else ()


def _ntcir_settings(gains: Optional[str], cutoffs: Optional[str], prefer: bool,
                    monotone: bool = True):
    from .measures import NtcirSettings, parse_cutoffs, parse_gains
    return NtcirSettings(gains=parse_gains(gains, monotone=monotone) if gains else {},
                         cutoffs=parse_cutoffs(cutoffs) if cutoffs else (1000,), prefer=prefer)


@app.command()
def measures():
    """List the measures the SQL files define."""
    def body():
        from .measures import registry
        for mdef in registry().values():
            params = ", ".join(f"{p.name} {p.type} = {p.default}" for p in mdef.params)
            typer.echo(f"{mdef.name:<24} {mdef.family + '.sql':<24} {params}")
    _guard(body)


@app.command()
def demo(
    warehouse: Annotated[Path, typer.Option(help="Where to build the demo warehouse.")]
    = Path("demo.duckdb"),
):
    """Build a warehouse from the bundled sample campaign (data/: NIST's trec_eval test files),
    evaluate its two runs with trec_eval's and NTCIREVAL's measures, store the per-topic scores,
    and query and compare them."""
    def body():
        from . import compare as cmp
        from .api import Warehouse
        from .output import render
        data = _data_dir()
        if warehouse.exists():
            warehouse.unlink()
        with Warehouse(warehouse) as wh:
            wh.ingest_qrels(data / "qrels.test", "sample", name="binary")
            wh.ingest_qrels(data / "qrels.rel_level", "sample", name="graded")
            for run in sorted(data.glob("runs/*")):
                # both files carry the tag STANDARD: name them after the file
                wh.ingest_run(run, "sample", name=run.name, team="nist")
            result = wh.evaluate(["runid", "map", "P.10", "ndcg_cut.10", "recip_rank", "bpref",
                                  "Q", "nERR@10"], campaign="sample", qrels="graded",
                                 store=True)
            typer.echo(render(result, "trec_eval", per_topic=False))
            typer.echo("SELECT run, measure, round(mean, 4) FROM run_score "
                       "WHERE measure IN ('map', 'Q'):")
            for row in wh.con.execute("SELECT run, measure, round(mean, 4) FROM run_score "
                                      "WHERE measure IN ('map', 'Q') ORDER BY ALL").fetchall():
                typer.echo("  " + "  ".join(map(str, row)))
            matrix = cmp.matrix_for(wh, ["sample"], "map", None, "drop")
            comparison = cmp.run_tests(matrix, test="t", correction=None, alpha=0.05, B=None,
                                       seed=None)
            typer.echo("\n" + cmp.table_text(comparison, matrix))
            n = wh.con.execute("SELECT count(*) FROM score").fetchone()[0]
        typer.echo(f"{n} per-topic scores stored in {warehouse}; try:\n"
                   f"  irw sql -w {warehouse} \"SELECT * FROM run_score\"")
    _guard(body)


# -- analyst commands (issue 7): sql, schema, export, ingest runs, report ----------------------
class SqlFormat(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"
    parquet = "parquet"


@app.command("sql")
def sql_cmd(
    query: Annotated[Optional[str], typer.Argument(help="One read-only query ('-' reads it "
                     "from standard input).")] = None,
    file: Annotated[Optional[Path], typer.Option("--file", "-f", exists=True, dir_okay=False,
                    help="Read the query from a file.")] = None,
    fmt: Annotated[SqlFormat, typer.Option("--format", help="Output format.")] = SqlFormat.table,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write to a file "
                   "(needed for parquet).")] = None,
    max_rows: Annotated[int, typer.Option(help="Rows shown by the table format.")] = 40,
    write: Annotated[bool, typer.Option("--write", help="Allow statements that change the "
                     "warehouse or read files (no guard, read-write connection).")] = False,
    warehouse: WarehouseOpt = None,
    engine: Annotated[Engine, typer.Option(help=ENGINE_HELP)] = Engine.duckdb,
    explain: Annotated[bool, typer.Option("--explain", help="--engine spark: print the query "
                       "as Spark SQL (metric macros inlined) instead of running it.")] = False,
    spark_master: Annotated[Optional[str], typer.Option("--spark-master", help=MASTER_HELP)]
    = None,
    data: Annotated[Optional[Path], typer.Option("--data", help=DATA_HELP)] = None,
):
    """Run analyst SQL on the warehouse: one read-only query unless --write."""
    def body():
        from .analyst.query import query_stream, write_result
        from .errors import IrwError
        if (query is None) == (file is None):
            raise IrwError('give a query or --file, e.g. irw sql "SELECT * FROM run_score"')
        text = file.read_text(encoding="utf-8") if file else query
        if text == "-":
            text = sys.stdin.read()
        if engine == Engine.spark:
            if write:
                raise IrwError("--write is for the warehouse itself, not --engine spark")
            from .spark.cli import sql_spark
            shown = sql_spark(text=text, explain=explain, warehouse=_warehouse_path(warehouse),
                              data=data, master=spark_master, fmt=fmt.value, out=out,
                              max_rows=max_rows)
            if shown is not None:
                typer.echo(shown)
            return
        if explain or spark_master or data:
            raise IrwError("--explain, --spark-master and --data are for --engine spark")
        with query_stream(_warehouse_path(warehouse), text, write=write) as result:
            write_result(result, fmt.value, out=out, max_rows=max_rows)
    _guard(body)


@app.command("schema")
def schema_cmd(
    name: Annotated[Optional[str], typer.Argument(help="One table, view or macro in full.")]
    = None,
    warehouse: Annotated[Optional[Path], typer.Option("--warehouse", "-w", help="Describe this "
                         "warehouse file (default: the schema of a new warehouse).")] = None,
):
    """List the warehouse's tables, views and macros with their columns and docs."""
    def body():
        from .analyst.schema_doc import describe, schema_text
        from .errors import IrwError
        if warehouse:
            from .warehouse import connect
            con = connect(warehouse, read_only=True, create=False)
            try:
                relations = describe(con)
            finally:
                con.close()
        else:
            relations = describe()
        if name and name not in {r.name for r in relations}:
            raise IrwError(f"no table, view or macro {name!r} (see `irw schema`)")
        typer.echo(schema_text(relations, name=name), nl=False)
    _guard(body)


class ExportFormat(str, Enum):
    parquet = "parquet"
    csv = "csv"
    arrow = "arrow"


export_app = typer.Typer(help="Write scores, runs or a whole campaign as Parquet, CSV or Arrow.",
                         no_args_is_help=True)
app.add_typer(export_app, name="export")
from .spark.cli import register as _register_spark  # noqa: E402  (export campaign)
_register_spark(export_app, _guard, _warehouse_path)


def _export(kind: str, campaign: str, fmt: ExportFormat, out: Path, measure, warehouse) -> None:
    def body():
        from .api import Warehouse
        with Warehouse(_warehouse_path(warehouse), read_only=True, create=False) as wh:
            n = wh.export(kind, campaign, out, fmt=fmt.value, measure=measure)
        typer.echo(f"wrote {n} {kind} rows of campaign {campaign} to {out}", err=True)
    _guard(body)


@export_app.command("scores")
def export_scores(
    campaign: Annotated[str, typer.Option("--campaign", "-C", help="Campaign name.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output file.")],
    fmt: Annotated[ExportFormat, typer.Option("--format", help="File format (arrow = Arrow "
                   "IPC file).")] = ExportFormat.parquet,
    measure: Annotated[Optional[str], typer.Option("--measure", "-m", help="Only this stored "
                       "measure (e.g. map, P_10).")] = None,
    warehouse: WarehouseOpt = None,
):
    """Per-topic scores of a campaign (the topic_score view)."""
    _export("scores", campaign, fmt, out, measure, warehouse)


@export_app.command("runs")
def export_runs(
    campaign: Annotated[str, typer.Option("--campaign", "-C", help="Campaign name.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output file.")],
    fmt: Annotated[ExportFormat, typer.Option("--format", help="File format (arrow = Arrow "
                   "IPC file).")] = ExportFormat.parquet,
    warehouse: WarehouseOpt = None,
):
    """Ranked rows of every run of a campaign (campaign, run, team, topic, doc, rank, score)."""
    _export("runs", campaign, fmt, out, None, warehouse)


class RunNames(str, Enum):
    tag = "tag"
    file = "file"


@ingest_app.command("runs")
def ingest_runs(
    folder: Annotated[Path, typer.Argument(help="Folder of TREC run files (may be gzipped).",
                      exists=True, file_okay=False)],
    campaign: Annotated[str, typer.Option("--campaign", "-C", help="Campaign name.")],
    team_pattern: Annotated[Optional[str], typer.Option(
        help="Regex on the file name; its first group is the team (default: the run name up "
        "to its first digit or dot).")] = None,
    glob: Annotated[str, typer.Option(help="Only files matching this glob.")] = "*",
    names: Annotated[RunNames, typer.Option(help="Name runs by their run tag or by their "
                     "file name (for runs that share a tag).")] = RunNames.tag,
    year: Annotated[Optional[int], typer.Option(help="Record the campaign's year.")] = None,
    venue: Annotated[Optional[str], typer.Option(help="Record the campaign's venue.")] = None,
    replace: Annotated[bool, typer.Option(help="Replace runs of the same name.")] = False,
    skip_existing: Annotated[bool, typer.Option(help="Skip runs already stored.")] = False,
    keep_going: Annotated[bool, typer.Option(help="Ingest the good files and list the bad "
                          "ones at the end (exit 1) instead of stopping.")] = False,
    keep_first: Annotated[bool, typer.Option(help="Keep the first of duplicate documents.")]
    = False,
    warehouse: WarehouseOpt = None,
):
    """Ingest every run file of a folder (one transaction per run), with a progress bar."""
    def body():
        from .analyst.bulk import StderrProgress, ingest_folder, run_files, set_campaign_info
        from .api import Warehouse
        files = run_files(folder, glob)
        with Warehouse(_warehouse_path(warehouse)) as wh:
            set_campaign_info(wh.con, campaign, year=year, venue=venue)
            bar = StderrProgress(len(files), "ingesting runs")
            result = ingest_folder(wh.con, folder, campaign, team_pattern=team_pattern,
                                   glob=glob, replace=replace, skip_existing=skip_existing,
                                   keep_going=keep_going, keep_first=keep_first,
                                   names=names.value, progress=bar.step)
        for name, run, team in result.stored:
            typer.echo(f"{name}\t{run}\tteam={team or ''}")
        for name, why in result.skipped:
            typer.echo(f"skipped {name}: {why}", err=True)
        for name, error in result.failed:
            typer.echo(f"irw: error: {error}", err=True)
        typer.echo(f"{len(result.stored)} runs stored in campaign {campaign}"
                   + (f", {len(result.skipped)} skipped" if result.skipped else "")
                   + (f", {len(result.failed)} failed" if result.failed else ""), err=True)
        if result.failed:
            raise typer.Exit(1)
    _guard(body)


def _pair(text: Optional[str]) -> Optional[tuple[str, str]]:
    """'X,Y' -> (X, Y), splitting at the comma that leaves two parseable measure names."""
    if text is None:
        return None
    from .errors import IrwError
    from .measures import parse_measures
    for i, ch in enumerate(text):
        if ch == ",":
            left, right = text[:i].strip(), text[i + 1:].strip()
            try:
                parse_measures([left])
                parse_measures([right])
            except IrwError:
                continue
            return left, right
    raise IrwError(f"--scatter needs two measures 'X,Y', got {text!r}")


@app.command("report")
def report_cmd(
    campaign: Annotated[str, typer.Option("--campaign", "-C", help="Campaign name.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for report.html, figures/ "
                   "and queries/.")],
    measure: Annotated[Optional[list[str]], typer.Option("--measure", "-m", help="Measure; "
                       "repeatable; the first one drives the plots. Default: map, P.10, "
                       "ndcg_cut.10.")] = None,
    baseline: Annotated[Optional[str], typer.Option(help="Run to compare against (default: "
                        "the median run by the first measure).")] = None,
    qrels: Annotated[Optional[str], typer.Option("--qrels", help="Which stored qrels.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the randomised Tukey HSD test.")] = 1,
    tie_rule: Annotated[TieRule, typer.Option("--tie-rule", help=TIE_RULE_HELP)] = TieRule.ge,
    scatter: Annotated[Optional[str], typer.Option(help="Two measures 'X,Y' whose per-run "
                       "means are plotted against each other (e.g. a diversity campaign's "
                       "D-nDCG@10 and I-rec@10).")] = None,
    warehouse: WarehouseOpt = None,
):
    """Write a self-contained HTML report (plots as PNG/SVG too); missing scores are evaluated
    and stored first."""
    def body():
        from .analyst.report import build_report
        from .api import Warehouse
        path = _warehouse_path(warehouse)
        with Warehouse(path, create=False) as wh:
            html_path = build_report(wh, campaign, out, measures=measure, baseline=baseline,
                                     qrels=qrels, warehouse_label=path, seed=seed,
                                     scatter=_pair(scatter), tie_rule=tie_rule.value)
        typer.echo(f"report written to {html_path}")
    _guard(body)


def _data_dir() -> Path:
    from .errors import IrwError
    for cand in (Path(os.environ.get("IRW_DATA", "data")),
                 Path(__file__).resolve().parent.parent / "data"):
        if (cand / "qrels.test").is_file():
            return cand
    raise IrwError("cannot find the sample data folder (data/)")


# -- online evaluation (issue 16): sessions, clicks, interleaving, preferences -----------------
from .online.cli import register as _register_online  # noqa: E402

_register_online(app, ingest_app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
