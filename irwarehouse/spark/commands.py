"""What the commands of the Spark engine do: the bodies of `irw export campaign`,
`irw eval --engine spark` and `irw sql --engine spark` (irwarehouse.cli.analyst and
irwarehouse.cli.eval_body read the options and print). Heavy imports (duckdb, sqlglot, pyspark)
happen inside the functions, as everywhere behind the CLI."""

from __future__ import annotations

import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path


def export(warehouse: str, campaign: str, out: Path, *, replace: bool = False) -> str:
    """`irw export campaign`: write the export; returns the line the command prints."""
    from ..store.connection import connect
    from .export import export_campaign
    con = connect(warehouse, read_only=True, create=False)
    try:
        manifest = export_campaign(con, campaign, out, replace=replace)
    finally:
        con.close()
    rows = sum(t["rows"] for t in manifest["tables"].values())
    return f"wrote {len(manifest['tables'])} tables ({rows} rows) of campaign {campaign} to {out}"


def _local(master: str | None) -> bool:
    return master is None or master.startswith("local")


@contextmanager
def campaign_data(data: Path | None, warehouse: str, campaigns: list[str] | None,
                  master: str | None):
    """The folder of an export to read: `data`, or a fresh export of `campaigns` (None: every
    campaign) of the warehouse in a temporary folder, removed afterwards."""
    from ..errors import IrwError
    if data is not None:
        yield Path(data)
        return
    if not _local(master):
        raise IrwError("with a cluster master, give --data DIR: an `irw export campaign` "
                       "folder on storage the cluster reads")
    from ..store.connection import connect
    from .export import export_campaign
    tmp = Path(tempfile.mkdtemp(prefix="irw-spark-"))
    try:
        con = connect(warehouse, read_only=True, create=False)
        try:
            export_campaign(con, campaigns, tmp / "data")
        finally:
            con.close()
        yield tmp / "data"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def eval_spark(*, campaign: str | None, measure_names: list[str], opts, runs, qrels,
               store: bool, warehouse: str, data: Path | None, master: str | None,
               ntcir, progress):
    """`irw eval --engine spark`: the EvalResult of the measures on Spark; with `store`, the
    per-topic values go into the warehouse's score table as any evaluation's."""
    from ..errors import IrwError
    from ..measures import parse_measures, wants_runid
    from .engine import evaluate_spark, register_export, spark_session
    from .export import read_manifest
    requests = parse_measures(measure_names, version=opts.version, ntcir=ntcir)
    if data is not None:
        exported = read_manifest(data)["campaigns"]
        campaign = campaign or (exported[0] if len(exported) == 1 else None)
        if campaign not in exported:
            raise IrwError(f"{data} holds campaign(s) {', '.join(exported)}, not "
                           f"{campaign!r}" if campaign else f"{data} holds several campaigns "
                           f"({', '.join(exported)}); choose one with --campaign")
    if campaign is None:
        raise IrwError("--engine spark evaluates a stored campaign: give --campaign C "
                       "(and --data DIR for an export)")
    from .engine import refuse_unportable
    refuse_unportable(requests)                  # before Spark starts: it takes seconds
    if data is None or store:
        # the campaign and its qrels choice, checked in the warehouse before Spark starts, in
        # the words of `irw eval` (an export given with --data is checked by the metric SQL)
        from ..store.connection import connect
        from ..store.lookup import qrels_id
        con = connect(warehouse, read_only=True, create=False)
        try:
            qrels_id(con, campaign, qrels)
        finally:
            con.close()
    with campaign_data(data, warehouse, [campaign], master) as folder:
        spark = spark_session(master)
        register_export(spark, folder)
        result = evaluate_spark(spark, campaign, requests, opts, qrels=qrels, runs=runs,
                                progress=progress)
    result.runid = wants_runid(measure_names)
    if store:
        from .store import store_result
        store_result(warehouse, campaign, result, qrels=qrels)
    return result


def transpile_query(text: str, *, pretty: bool = True) -> str:
    """An analyst's DuckDB query, its macro calls (irw_<measure>(...), ...) inlined, as Spark
    SQL."""
    import sqlglot
    from sqlglot.errors import SqlglotError

    from ..errors import IrwError
    from .dialect import to_spark
    from .inline import InlineError, Inliner, mark_index_shift
    try:
        tree = sqlglot.parse_one(text, read="duckdb")
    except SqlglotError as exc:
        raise IrwError(f"sqlglot cannot read the query: {str(exc).splitlines()[0]}") from None
    tree = tree.transform(mark_index_shift)
    try:
        return to_spark(Inliner(portable=True).expand(tree), pretty=pretty)
    except InlineError as exc:
        raise IrwError(str(exc)) from None


def sql_spark(*, text: str, warehouse: str, data: Path | None, master: str | None):
    """`irw sql --engine spark`: the (guarded) query run on Spark over `data` (default: an
    export of the warehouse), as a pyarrow Table for `irw sql`'s writers."""
    from .engine import collect_arrow, register_export, run_sql, spark_session
    spark_sql = transpile_query(text, pretty=False)
    with campaign_data(data, warehouse, None, master) as folder:
        spark = spark_session(master)
        register_export(spark, folder)
        return collect_arrow(run_sql(spark, spark_sql))
