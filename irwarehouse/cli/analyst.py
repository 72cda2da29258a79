"""The analyst's commands: `irw sql`, `irw schema`, `irw export`, `irw report`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from .common import (
    TIE_RULE_HELP,
    Campaign,
    Engine,
    EngineOpt,
    SparkDataOpt,
    SparkMasterOpt,
    TieRule,
    WarehouseOpt,
    _guard,
    _warehouse_path,
    app,
    choices,
    export_app,
    note,
    open_warehouse,
)
from ..store.storage import VERSIONS as STORAGE_FORMATS
from .options import evaluation_options

# -- analyst commands (issue 7): sql, schema, export, ingest runs, report ----------------------
SqlFormat = choices("SqlFormat", "table", "csv", "json", "parquet")


@app.command("sql")
def sql_cmd(
    query: Annotated[str | None, typer.Argument(help="One read-only query ('-' reads it "
                     "from standard input).")] = None,
    file: Annotated[Path | None, typer.Option("--file", "-f", exists=True, dir_okay=False,
                    help="Read the query from a file.")] = None,
    fmt: Annotated[SqlFormat, typer.Option("--format", help="Output format.")] = SqlFormat.table,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write to a file "
                   "(needed for parquet).")] = None,
    max_rows: Annotated[int, typer.Option(help="Rows shown by the table format.")] = 40,
    write: Annotated[bool, typer.Option("--write", help="Allow statements that change the "
                     "warehouse or read files (no guard, read-write connection).")] = False,
    timeout: Annotated[float, typer.Option("--timeout", min=0, help="Stop the query after "
                       "this many seconds (0: no limit).")] = 300.0,
    memory_limit: Annotated[str | None, typer.Option("--memory-limit", help="Memory the "
                            "query may use, e.g. 4GB, 512MiB or 25% (default: half of the "
                            "machine's memory).")] = None,
    warehouse: WarehouseOpt = None,
    engine: EngineOpt = Engine.duckdb,
    explain: Annotated[bool, typer.Option("--explain", help="--engine spark: print the query "
                       "as Spark SQL (metric macros inlined) instead of running it.")] = False,
    spark_master: SparkMasterOpt = None,
    data: SparkDataOpt = None,
):
    """Run analyst SQL on the warehouse: one read-only query unless --write.

    The result is streamed (a long result is never counted or held whole first); the query
    stops at --timeout and at --memory-limit. With --engine spark, the query's macros are
    inlined and it runs on Spark (or --explain prints it)."""
    def body():
        from ..analyst.query import query_stream, write_result
        from ..errors import IrwError
        if (query is None) == (file is None):
            raise IrwError('give a query or --file, e.g. irw sql "SELECT * FROM run_score"')
        text = file.read_text(encoding="utf-8") if file else query
        if text == "-":
            text = sys.stdin.read()
        if engine == Engine.spark:
            _sql_spark(text, explain, write, warehouse, data, spark_master, fmt, out, max_rows)
            return
        if explain or spark_master or data:
            raise IrwError("--explain, --spark-master and --data are for --engine spark")
        with query_stream(_warehouse_path(warehouse), text, write=write, timeout=timeout,
                          memory=memory_limit, hard_limit=True) as result:
            write_result(result, fmt.value, out=out, max_rows=max_rows)
    _guard(body)


def _sql_spark(text, explain, write, warehouse, data, spark_master, fmt, out, max_rows):
    """`irw sql --engine spark`: the guarded query transpiled (--explain: printed) or run."""
    from ..analyst.query import write_result
    from ..analyst.sqlguard import check_query
    from ..errors import IrwError
    from ..spark.commands import sql_spark, transpile_query
    if write:
        raise IrwError("--write is for the warehouse itself, not --engine spark")
    check_query(text)
    if explain:
        typer.echo(transpile_query(text))
        return
    table = sql_spark(text=text, warehouse=_warehouse_path(warehouse), data=data,
                      master=spark_master)
    write_result(table, fmt.value, out=out, max_rows=max_rows)


@app.command("schema")
def schema_cmd(
    name: Annotated[str | None, typer.Argument(help="One table, view or macro in full.")]
    = None,
    warehouse: Annotated[Path | None, typer.Option("--warehouse", "-w", help="Describe this "
                         "warehouse file (default: the schema of a new warehouse).")] = None,
):
    """List the warehouse's tables, views and macros with their columns and docs."""
    def body():
        from ..analyst.schema_doc import describe, schema_text
        from ..errors import IrwError
        if warehouse:
            from ..store.connection import connect
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


ExportFormat = choices("ExportFormat", "parquet", "csv", "arrow")
ExportFormatOpt = Annotated[ExportFormat, typer.Option("--format", help="File format (arrow = "
                            "Arrow IPC file).")]
OutFile = Annotated[Path, typer.Option("--out", "-o", help="Output file.")]


def _export(kind: str, campaign: str, fmt: ExportFormat, out: Path, measure, warehouse) -> None:
    def body():
        with open_warehouse(warehouse, read_only=True, create=False) as wh:
            n = wh.export(kind, campaign, out, fmt=fmt.value, measure=measure)
        typer.echo(f"wrote {n} {kind} rows of campaign {campaign} to {out}", err=True)
    _guard(body)


@export_app.command("scores")
def export_scores(
    campaign: Campaign,
    out: OutFile,
    fmt: ExportFormatOpt = ExportFormat.parquet,
    measure: Annotated[str | None, typer.Option("--measure", "-m", help="Only this stored "
                       "measure (e.g. map, P_10).")] = None,
    warehouse: WarehouseOpt = None,
):
    """Per-topic scores of a campaign (the topic_score view)."""
    _export("scores", campaign, fmt, out, measure, warehouse)


@export_app.command("runs")
def export_runs(
    campaign: Campaign,
    out: OutFile,
    fmt: ExportFormatOpt = ExportFormat.parquet,
    warehouse: WarehouseOpt = None,
):
    """Ranked rows of every run of a campaign (campaign, run, team, topic, doc, rank, score)."""
    _export("runs", campaign, fmt, out, None, warehouse)


@export_app.command("run")
def export_run(
    run: Annotated[str, typer.Argument(help="Run name.")],
    campaign: Campaign,
    out: OutFile,
    metadata: Annotated[bool, typer.Option(help="Write the run's ir_metadata (ir-metadata.org) "
                        "at the head of the file, between `# ir_metadata.start` and "
                        "`# ir_metadata.end`, as ir_metadata specifies.")] = False,
    warehouse: WarehouseOpt = None,
):
    """One run as a TREC run file (topic Q0 doc rank score tag, in the order of the file it
    came from), with its ir_metadata header with --metadata."""
    def body():
        from ..writers.trec_run import write_run
        with open_warehouse(warehouse, read_only=True, create=False) as wh:
            n = write_run(wh.con, campaign, run, out, metadata=metadata)
        typer.echo(f"wrote {n} rows of run {run} of campaign {campaign} to {out}"
                   + (" with its ir_metadata" if metadata else ""), err=True)
    _guard(body)


CampaignFormat = choices("CampaignFormat", "parquet")


@export_app.command("campaign")
def export_campaign(
    campaign: Annotated[str, typer.Argument(help="Campaign name.")],
    out: Annotated[Path, typer.Argument(help="Folder to write (one sub-folder per table; run "
                                        "rows partitioned by run).")],
    fmt: Annotated[CampaignFormat, typer.Option("--format", help="File format.")]
    = CampaignFormat.parquet,
    replace: Annotated[bool, typer.Option(help="Overwrite an earlier export in OUT.")] = False,
    warehouse: WarehouseOpt = None,
):
    """A campaign's tables (qrels and judgments, runs and their rows, topics, intents, document
    lengths, sessions and pools when present) as Parquet, partitioned for a cluster's parallel
    reads (irwarehouse.spark.export); what `irw eval --engine spark --data OUT` reads."""
    def body():
        from ..spark.commands import export
        typer.echo(export(_warehouse_path(warehouse), campaign, out, replace=replace),
                   err=True)
    _guard(body)


DuckdbVersion = choices("DuckdbVersion", *STORAGE_FORMATS)


@export_app.command("warehouse")
def export_warehouse(
    out: Annotated[Path, typer.Argument(help="The new warehouse file.")],
    duckdb_version: Annotated[DuckdbVersion, typer.Option(
        "--duckdb-version", help="The DuckDB line that must open it: 1.x (1.5 and later), 1.4 "
        "(the long-term-support line: its tables and views; most metric macros need 1.5) or "
        "2.x.")] = DuckdbVersion("1.x"),
    replace: Annotated[bool, typer.Option(help="Overwrite OUT if it exists.")] = False,
    warehouse: WarehouseOpt = None,
):
    """The whole warehouse (tables, views, metric macros, measure catalog) copied into a new
    file that DuckDB --duckdb-version opens: for a warehouse made before irw wrote DuckDB 1.x's
    storage format, or for an older client (docs/clients.md)."""
    def body():
        with open_warehouse(warehouse, read_only=True, create=False) as wh:
            storage = wh.export_warehouse(out, duckdb_version.value, replace=replace)
        typer.echo(f"wrote {out} (DuckDB storage format {storage}: DuckDB "
                   f"{duckdb_version.value} opens it)", err=True)
    _guard(body)


def _pair(text: str | None) -> tuple[str, str] | None:
    """'X,Y' -> (X, Y), splitting at the comma that leaves two parseable measure names."""
    if text is None:
        return None
    from ..errors import IrwError
    from ..measures import parse_measures
    for i, ch in enumerate(text):
        if ch == ",":
            left, right = text[:i].strip(), text[i + 1:].strip()
            try:
                parse_measures([left])
                parse_measures([right])
            except IrwError:
                continue
            return left, right
    if text.count(",") == 1:    # e.g. stored text scores (ROUGE-2-F,nuggetF): the report reads
        left, right = text.split(",")   # them by their stored names (report/textscores.py)
        return left.strip(), right.strip()
    raise IrwError(f"--scatter needs two measures 'X,Y', got {text!r}")


@app.command("report")
@evaluation_options()
def report_cmd(
    campaign: Campaign,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for report.html (irw "
                   "serve's report page; its other pages beside it), figures/ and queries/.")],
    measure: Annotated[list[str] | None, typer.Option("--measure", "-m", help="Measure; "
                       "repeatable; the first one drives the plots. Default: map, P.10, "
                       "ndcg_cut.10. ROUGE and nugget scores by their stored names "
                       "(ROUGE-1-R, nuggetF); a campaign of text outputs only: every stored "
                       "text score by default.")] = None,
    baseline: Annotated[str | None, typer.Option(help="Run to compare against (default: "
                        "the median run by the first measure).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the randomised Tukey HSD test.")] = 1,
    tie_rule: Annotated[TieRule, typer.Option("--tie-rule", help=TIE_RULE_HELP)] = TieRule.ge,
    scatter: Annotated[str | None, typer.Option(help="Two measures 'X,Y' whose per-run "
                       "means are plotted against each other (e.g. a diversity campaign's "
                       "D-nDCG@10 and I-rec@10).")] = None,
    warehouse: WarehouseOpt = None,
    *, settings,
):
    """Write the HTML report of a campaign: irw serve's pages as files (plots as PNG/SVG too).

    Missing scores are evaluated and stored first, under the campaign's evaluation profile
    (`irw campaign set`) unless the evaluation options say otherwise; stderr names the option
    set used."""
    def body():
        from ..api import Warehouse
        from ..serve.snapshot import write_report
        path = _warehouse_path(warehouse)
        with Warehouse(path, create=False) as wh:
            html_path = write_report(wh, campaign, out, measures=measure, baseline=baseline,
                                     warehouse_label=path, seed=seed, scatter=_pair(scatter),
                                     tie_rule=tie_rule.value, settings=settings, note=note)
        typer.echo(f"report written to {html_path} (with the campaign's other pages of "
                   "irw serve beside it)")
    _guard(body)
