"""`irw export campaign C --format parquet DIR`: a campaign's tables as Parquet, laid out for a
cluster to read in parallel.

DIR/<table>/ holds one table each, with the warehouse's columns and ids, so that the metric SQL
(inlined and transpiled, irwarehouse.spark.dialect) runs on them unchanged:

    campaign/ qrels/ topic/ intent/ doc/ run/ run_list/ judged_pair/    one file each
    judgment_sample/                     (strata, probabilities of sampled qrels) one file
    judgment/qrels_id=<id>/                                              one folder per qrels
    run_row/run_id=<id>/  judged_row/run_id=<id>/                        one folder per run
    session_row/run_id=<id>/, session_log/, preference/, known_doc/, pool*/, interleav*/
                                                                        only when present

Run rows are partitioned by run (Hive-style `run_id=<id>` folders, which Spark, DuckDB and
pyarrow read as a column): a cluster reads each run's rows as separate splits, a query about
some runs reads only their folders, and the per-list windows (partitioned by run and topic)
need no shuffle of a run's rows across partitions it does not have. DIR/_irw_export.json records
the campaign, the row counts and the digest of the SQL the warehouse was built with.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

import duckdb

from ..errors import WarehouseError

MANIFEST = "_irw_export.json"
_BATCH_ROWS = 1 << 20

# (table, which rows belong to the campaign, Hive partition column, written even when empty)
_CAMPAIGN = "list_contains($cids, campaign_id)"
_QRELS = "qrels_id IN (SELECT qrels_id FROM qrels WHERE list_contains($cids, campaign_id))"
_RUNS = "run_id IN (SELECT run_id FROM run WHERE list_contains($cids, campaign_id))"
_POOLS = "pool_id IN (SELECT pool_id FROM pool WHERE list_contains($cids, campaign_id))"
_INTERLEAVINGS = ("interleaving_id IN (SELECT interleaving_id FROM interleaving "
                  "WHERE list_contains($cids, campaign_id))")
TABLES = (
    ("campaign", _CAMPAIGN, None, True),
    ("campaign_profile", _CAMPAIGN, None, True),     # the metric macros' default options
    ("qrels", _CAMPAIGN, None, True),
    ("judgment", _QRELS, "qrels_id", True),
    ("judgment_sample", _QRELS, None, True),      # strata / probabilities of sampled qrels
    ("topic", _CAMPAIGN, None, True),
    ("topic_alpha", _CAMPAIGN, None, True),        # per-topic alphas of alpha-nDCG-Pr
    ("intent", _CAMPAIGN, None, True),
    ("doc", _CAMPAIGN, None, True),
    ("run", _CAMPAIGN, None, True),
    ("run_row", _RUNS, "run_id", True),
    ("judged_row", _RUNS, "run_id", True),
    ("judged_pair", _RUNS, None, True),
    ("run_list", _RUNS, None, True),
    ("pool", _CAMPAIGN, None, False),
    ("pool_doc", _POOLS, None, False),
    ("pool_run", _POOLS, None, False),
    ("session_log", _CAMPAIGN, None, False),
    ("session_row", _RUNS, "run_id", False),
    ("preference", _CAMPAIGN, None, False),
    ("known_doc", _CAMPAIGN, None, False),
    ("interleaving", _CAMPAIGN, None, False),
    ("interleaved_row", _INTERLEAVINGS, None, False),
    ("interleaving_outcome", _INTERLEAVINGS, None, False),
)


def export_campaign(con: duckdb.DuckDBPyConnection, campaign: str | list[str] | None,
                    out: str | Path, *, replace: bool = False) -> dict:
    """Write campaign `campaign` (or several, or every one with None) of the warehouse on
    `con` under `out` (see the module doc); returns the manifest. The folder is written beside
    `out` and moved into place at the end, so a failed export leaves nothing half-written; an
    existing `out` is replaced only with `replace` and only when it holds an earlier export."""
    out = Path(out)
    names = [campaign] if isinstance(campaign, str) else campaign
    known = dict(con.execute("SELECT name, campaign_id FROM campaign ORDER BY name").fetchall())
    if names is None:
        names = list(known)
    missing = [n for n in names if n not in known]
    if missing:
        raise WarehouseError(f"no campaign {missing[0]!r} in the warehouse")
    cids = [known[n] for n in names]
    if out.exists() and any(out.iterdir()):
        if not replace:
            raise WarehouseError(f"{out} is not empty (use --replace to overwrite an export)")
        if not (out / MANIFEST).is_file():
            raise WarehouseError(f"{out} holds files that are not an irw export; not replacing")
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        tables = {}
        for table, where, partition, always in TABLES:
            n = _export_table(con, work, table, where, partition, always, cids)
            if n is not None:
                tables[table] = {"rows": n, "partitioned_by": partition}
        manifest = _manifest(con, names, tables)
        (work / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        if out.exists():
            shutil.rmtree(out)
        work.rename(out)
    except OSError as exc:          # named by the folder asked for, not the temporary one
        shutil.rmtree(work, ignore_errors=True)
        from ..outfiles import named
        raise named(exc, out) from None
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return manifest


def _export_table(con, work: Path, table: str, where: str, partition: str | None,
                  always: bool, cids: list[int]) -> int | None:
    """Write one table's rows of the campaign; None when an optional table has none (or the
    warehouse predates it). Table names are the module's constants, the campaign ids are bound,
    and the rows stream to pyarrow's writer (no path in SQL text)."""
    import pyarrow.dataset as ds
    try:
        n = con.execute(f"SELECT count(*) FROM {table} WHERE {where}",
                        {"cids": cids}).fetchall()[0][0]
    except duckdb.CatalogException:
        if always:
            raise
        return None
    if n == 0 and not always:
        return None
    order = f" ORDER BY {partition}" if partition else ""
    parts = con.execute(f"SELECT count(DISTINCT {partition}) FROM {table} WHERE {where}",
                        {"cids": cids}).fetchall()[0][0] if partition else 0
    reader = con.sql(f"SELECT * FROM {table} WHERE {where}{order}",
                     params={"cids": cids}).to_arrow_reader(_BATCH_ROWS)
    if partition and n > 0:
        ds.write_dataset(reader, work / table, format="parquet", partitioning=[partition],
                         partitioning_flavor="hive", max_partitions=max(parts, 1),
                         max_open_files=64, existing_data_behavior="error",
                         basename_template="part-{i}.parquet")
    else:
        # an empty table is still one file, with the columns and types (Spark reads the schema)
        import pyarrow.parquet as pq
        (work / table).mkdir()
        with pq.ParquetWriter(str(work / table / "part-0.parquet"), reader.schema) as writer:
            for batch in reader:
                writer.write_batch(batch)
    return n


def _manifest(con, campaigns: list[str], tables: dict) -> dict:
    from .. import __version__
    from ..sqlfiles import sql_digest
    return {"campaign": campaigns[0] if len(campaigns) == 1 else None, "campaigns": campaigns,
            "irwarehouse": __version__, "sql_sha256": sql_digest(),
            "exported_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "tables": tables}


def read_manifest(folder: str | Path) -> dict:
    path = Path(folder) / MANIFEST
    if not path.is_file():
        raise WarehouseError(f"{folder} is not an irw export (no {MANIFEST}; write one with "
                             "`irw export campaign C --format parquet DIR`)")
    return json.loads(path.read_text(encoding="utf-8"))


def exported_profile(folder: str | Path, campaign: str | None):
    """The evaluation profile a campaign's export carries (its campaign_profile table; an
    export made before profiles were exported carries none): empty settings when there is
    none."""
    from ..engine.settings import load_profile
    from ..options import EvalSettings
    folder = Path(folder)
    if campaign is None:
        exported = read_manifest(folder)["campaigns"]
        campaign = exported[0] if len(exported) == 1 else None
    if campaign is None or not (folder / "campaign_profile").is_dir():
        return EvalSettings()
    con = duckdb.connect()
    try:
        for table in ("campaign", "campaign_profile", "qrels"):
            con.read_parquet(str(folder / table / "*.parquet")).create_view(table)
        return load_profile(con, campaign)
    finally:
        con.close()
