"""Arrow/Parquet/pandas at the warehouse boundary: exporting scores and runs, and importing a
run from a table (validated like a run file, stored in one transaction)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb
import pyarrow as pa

from ..errors import InputError, WarehouseError
from ..formats.lines import check_path
from ..outfiles import written
from ..store.ingest import store_staged_qrels, store_staged_run

EXPORT_FORMATS = ("parquet", "csv", "arrow")
# the characters no key may hold (none can come from a file: formats.lines refuses them)
_CONTROLS = r"[\x00-\x1f\x7f-\x{9f}\x{feff}]"
EXPORT_KINDS = ("scores", "runs")

# The exported relations; a campaign (and, for scores, a measure) is a bound parameter.
_EXPORT_SQL = {
    "scores": """
        SELECT campaign, run, team, qrels, topic, measure, family, params, options, value, text,
               computed_at
        FROM topic_score
        WHERE campaign = $campaign AND ($measure IS NULL OR measure = $measure)
        ORDER BY run, measure, topic""",
    "runs": """
        SELECT i.campaign, i.run, i.team, rr.topic, rr.doc, rr.rank, rr.score, rr.file_order
        FROM run_row rr JOIN run_info i USING (run_id)
        WHERE i.campaign = $campaign
        ORDER BY i.run, rr.file_order""",
}


def export_reader(con: duckdb.DuckDBPyConnection, kind: str, campaign: str,
                  measure: str | None = None) -> pa.RecordBatchReader:
    """A stream of record batches of the scores or run rows of a campaign."""
    if kind not in EXPORT_KINDS:
        raise WarehouseError(f"unknown export {kind!r}; use one of {', '.join(EXPORT_KINDS)}")
    if not con.execute("SELECT count(*) FROM campaign WHERE name = ?", [campaign]).fetchall()[0][0]:
        raise WarehouseError(f"no campaign {campaign!r} in the warehouse")
    params = {"campaign": campaign}
    if kind == "scores":
        params["measure"] = measure
    elif measure:
        raise WarehouseError("--measure applies to score exports only")
    return con.sql(_EXPORT_SQL[kind], params=params).to_arrow_reader()


def write_stream(reader: pa.RecordBatchReader, fmt: str, out: str | Path) -> int:
    """Write a batch stream as Parquet, CSV or an Arrow IPC file; returns the row count.
    Written to a temporary name first, so a failed export leaves no half file."""
    if fmt not in EXPORT_FORMATS:
        raise WarehouseError(f"unknown format {fmt!r}; use one of {', '.join(EXPORT_FORMATS)}")
    rows = 0
    with written(out) as tmp, batch_writer(fmt, tmp, reader.schema) as writer:
        for batch in reader:
            writer.write_batch(batch)
            rows += batch.num_rows
    return rows


def batch_writer(fmt: str, path: Path, schema: pa.Schema):
    """pyarrow's writer of `fmt` (parquet, csv, arrow) to `path`, a context manager."""
    if fmt == "parquet":
        import pyarrow.parquet as pq
        return pq.ParquetWriter(str(path), schema)
    if fmt == "csv":
        import pyarrow.csv as pacsv
        return pacsv.CSVWriter(str(path), schema)
    from pyarrow import ipc
    return ipc.new_file(str(path), schema)


# -- import ------------------------------------------------------------------------------------
def run_frame(table, what: str = "run"):
    """A run given as a Parquet file path or in memory (formats.inmemory.run_table: a pyarrow
    Table, a pandas or polars DataFrame, a dict of dicts, ir_measures' ScoredDoc tuples, a ranx
    Run) as (formats.inmemory.Frame, sha256)."""
    from ..formats import is_path
    from ..formats.inmemory import run_table
    if is_path(table):
        arrow, source, digest = as_arrow(table)
        return run_table(arrow, source=source), digest
    frame = run_table(table, what)
    return frame, table_digest(frame.table)


def as_arrow(table) -> tuple[pa.Table, str, str]:
    """(Arrow table, source description, sha256) of a Parquet file or a pyarrow Table."""
    if isinstance(table, pa.Table):
        return table, "<arrow table>", table_digest(table)
    import pyarrow.parquet as pq
    path = Path(table)
    check_path(path)
    try:
        arrow = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(path, None, f"not a readable Parquet file ({exc})") from None
    from ..formats.trec import sha256_of
    return arrow, str(path.resolve()), sha256_of(path)


def table_digest(arrow: pa.Table) -> str:
    """The sha256 of a table's Arrow IPC stream: the provenance of rows that had no file."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, arrow.schema) as writer:
        writer.write_table(arrow)
    return hashlib.sha256(sink.getvalue().to_pybytes()).hexdigest()


def stage_run_table(con: duckdb.DuckDBPyConnection, arrow: pa.Table, source: str, *,
                    keep_first: bool = False) -> str | None:
    """Validate a run table (columns topic, doc, score; optional rank and tag) and stage it as
    TEMP table stage_run, exactly like a run file. Row numbers in errors count from 1.
    Returns the table's single tag, if it has a tag column."""
    cols = set(arrow.column_names)
    missing = [c for c in ("topic", "doc", "score") if c not in cols]
    if missing:
        raise InputError(source, None, f"missing column(s) {', '.join(missing)} "
                         "(a run table needs topic, doc, score; rank and tag are optional)")
    if arrow.num_rows == 0:
        raise InputError(source, None, "no run rows (empty table)")
    keep = [c for c in ("topic", "doc", "score", "rank", "tag") if c in cols]
    con.register("stage_run_input", _numbered(arrow.select(keep)))
    try:
        # an integral rank (1, 1.0, '1'); 2.5 is refused, not rounded
        rank = ("CASE WHEN TRY_CAST(rank_input AS DOUBLE) = TRY_CAST(TRY_CAST(rank_input AS "
                "DOUBLE) AS BIGINT) THEN TRY_CAST(TRY_CAST(rank_input AS DOUBLE) AS BIGINT) END"
                ) if "rank" in cols else \
            "row_number() OVER (PARTITION BY CAST(topic AS VARCHAR) ORDER BY file_order)"
        tag = "CAST(tag AS VARCHAR)" if "tag" in cols else "NULL::VARCHAR"
        con.execute(f"""
            CREATE OR REPLACE TEMP TABLE stage_run_checked AS
            SELECT *, {rank} AS rank_value
            FROM (SELECT CAST(topic AS VARCHAR) AS topic, CAST(doc AS VARCHAR) AS doc,
                         TRY_CAST(score AS DOUBLE) AS score_value, score AS score_input,
                         {"rank" if "rank" in cols else "NULL"} AS rank_input, {tag} AS tag,
                         row_index AS file_order
                  FROM stage_run_input)""")
    finally:
        con.unregister("stage_run_input")
    # a key holds no control character (none can come from a run file, where tab, vertical
    # tab and form feed separate fields and the others are refused: formats.lines)
    bad = con.execute("""
        SELECT file_order + 1, CASE
            WHEN topic IS NULL OR trim(topic) = '' THEN 'empty topic'
            WHEN doc IS NULL OR trim(doc) = '' THEN 'empty doc'
            WHEN regexp_matches(topic || doc || coalesce(tag, ''), $controls)
                THEN 'control character in the topic, doc or tag'
            WHEN score_input IS NULL OR isnan(score_value) THEN 'score is missing (NaN or None)'
            WHEN score_value IS NULL THEN 'score ' || coalesce(CAST(score_input AS VARCHAR),
                                                                'NULL') || ' is not a number'
            WHEN NOT isfinite(score_value) THEN 'score ' || CAST(score_value AS VARCHAR)
                                                 || ' is not finite'
            WHEN rank_value IS NULL THEN 'rank ' || coalesce(CAST(rank_input AS VARCHAR), 'NULL')
                                         || ' is not an integer'
            END AS problem
        FROM stage_run_checked WHERE problem IS NOT NULL
        ORDER BY file_order LIMIT 1""", {"controls": _CONTROLS}).fetchall()
    bad = bad[0] if bad else None
    if bad:
        raise InputError(source, None, f"row {bad[0]}: {bad[1]}")
    dup = con.execute("""
        SELECT topic, doc, min(file_order) + 1, (list(file_order ORDER BY file_order))[2] + 1
        FROM stage_run_checked GROUP BY topic, doc HAVING count(*) > 1
        ORDER BY 4 LIMIT 1""").fetchall()
    dup = dup[0] if dup else None
    if dup and not keep_first:
        raise InputError(source, None, f"row {dup[3]}: document {dup[1]!r} appears twice for "
                         f"topic {dup[0]!r} (first at row {dup[2]})")
    con.execute("""
        CREATE OR REPLACE TEMP TABLE stage_run AS
        SELECT topic, doc, score_value AS score, rank_value AS rank, tag
        FROM stage_run_checked
        QUALIFY row_number() OVER (PARTITION BY topic, doc ORDER BY file_order) = 1
        ORDER BY file_order""")
    con.execute("DROP TABLE stage_run_checked")
    tags = [t for (t,) in con.execute("SELECT tag FROM stage_run WHERE tag IS NOT NULL "
                                      "GROUP BY tag ORDER BY min(rowid)").fetchall()]
    if len(tags) > 1:
        raise InputError(source, None, f"several run tags in one table ({', '.join(tags[:3])}"
                         f"{', ...' if len(tags) > 3 else ''}); ingest one run at a time")
    return tags[0] if tags else None


def _numbered(arrow: pa.Table) -> pa.Table:
    """The table with its row positions (row_index, from 0): the order the rows were given in,
    which a scan in parallel threads need not keep."""
    return arrow.append_column("row_index", pa.array(range(arrow.num_rows), pa.int64()))


def ingest_run_table(con: duckdb.DuckDBPyConnection, table, campaign: str, *,
                     name: str | None = None, team: str | None = None, replace: bool = False,
                     keep_first: bool = False, default_name: str | None = None) -> int:
    """Store a run given as a Parquet file or in memory (run_frame): its name is `name`, else
    the table's tag, else a ranx Run's name, else `default_name`."""
    frame, digest = run_frame(table)
    tag = stage_run_table(con, frame.table, frame.source, keep_first=keep_first)
    name = name if name is not None else tag or frame.name or default_name
    if name is None:
        raise WarehouseError(f"{frame.source}: a run without a tag column needs a name "
                             "(name=...)")
    return store_staged_run(con, campaign, name=name, team=team, source=frame.source,
                            digest=digest, replace=replace)


# -- qrels ---------------------------------------------------------------------------------------
def stage_qrels_table(con: duckdb.DuckDBPyConnection, arrow: pa.Table, source: str) -> int:
    """Validate judgments (columns topic, doc, rel; intent optional: formats.inmemory.
    qrels_table) and stage them as TEMP table stage_qrels(topic, intent, doc, rel), as
    formats.trec.stage_qrels stages a qrels file. Returns the number of judgments."""
    if arrow.num_rows == 0:
        raise InputError(source, None, "no judgments (empty table)")
    intent = "CAST(intent AS VARCHAR)" if "intent" in arrow.column_names else "''"
    con.register("stage_qrels_input", _numbered(arrow))
    try:
        # an integral level (1, 1.0, '1'; negative levels are judged non-relevant, as in
        # trec_eval); 0.5 is refused, not rounded
        con.execute(f"""
            CREATE OR REPLACE TEMP TABLE stage_qrels_checked AS
            SELECT CAST(topic AS VARCHAR) AS topic, {intent} AS intent,
                   CAST(doc AS VARCHAR) AS doc, rel AS rel_input,
                   CASE WHEN TRY_CAST(rel AS DOUBLE) = TRY_CAST(TRY_CAST(rel AS DOUBLE) AS INTEGER)
                        THEN TRY_CAST(TRY_CAST(rel AS DOUBLE) AS INTEGER) END AS rel,
                   row_index
            FROM stage_qrels_input""")
    finally:
        con.unregister("stage_qrels_input")
    bad = con.execute("""
        SELECT row_index + 1, CASE
            WHEN topic IS NULL OR trim(topic) = '' THEN 'empty topic'
            WHEN doc IS NULL OR trim(doc) = '' THEN 'empty doc'
            WHEN intent IS NULL OR (intent <> '' AND trim(intent) = '') THEN 'empty subtopic'
            WHEN regexp_matches(topic || doc || intent, $controls)
                THEN 'control character in the topic, subtopic or doc'
            WHEN rel_input IS NULL THEN 'relevance level is missing (NaN or None)'
            WHEN rel IS NULL THEN 'relevance level ' || CAST(rel_input AS VARCHAR)
                                  || ' is not an integer'
            END AS problem
        FROM stage_qrels_checked WHERE problem IS NOT NULL
        ORDER BY row_index LIMIT 1""", {"controls": _CONTROLS}
                      ).fetchall()
    if bad:
        raise InputError(source, None, f"row {bad[0][0]}: {bad[0][1]}")
    dup = con.execute("""
        SELECT topic, intent, doc, min(row_index) + 1, (list(row_index ORDER BY row_index))[2] + 1
        FROM stage_qrels_checked GROUP BY topic, intent, doc HAVING count(*) > 1
        ORDER BY 5 LIMIT 1""").fetchall()
    if dup:
        topic, intent, doc, first, again = dup[0]
        under = f" subtopic {intent!r}" if intent else ""
        raise InputError(source, None, f"row {again}: document {doc!r} judged twice for topic "
                         f"{topic!r}{under} (first at row {first})")
    con.execute("""
        CREATE OR REPLACE TEMP TABLE stage_qrels AS
        SELECT topic, intent, doc, rel FROM stage_qrels_checked ORDER BY row_index""")
    con.execute("DROP TABLE stage_qrels_checked")
    return arrow.num_rows


def ingest_qrels_table(con: duckdb.DuckDBPyConnection, table, campaign: str, *,
                       name: str | None = None, fmt: str | None = None,
                       replace: bool = False, source: str | None = None) -> int:
    """Store judgments held in memory (formats.inmemory.qrels_table) as qrels `name` (default
    'qrels') of `campaign`: trec_eval qrels, or diversity qrels when they have a subtopic
    column. `source`: where they came from, as provenance and messages name it (default:
    `qrels (pandas DataFrame)`, ...). Returns the qrels_id."""
    from ..formats.inmemory import qrels_table
    frame = qrels_table(table, source=source)
    has_intent = "intent" in frame.table.column_names
    kind = "diversity" if has_intent else "qrels"
    if fmt not in (None, kind):
        want = "a subtopic column (intent, subtopic or subtopic_id)" if fmt == "diversity" \
            else "no subtopic column"
        raise InputError(frame.source, None, f"fmt={fmt!r} in memory needs {want}; "
                         "the other qrels formats are files")
    n = stage_qrels_table(con, frame.table, frame.source)
    return store_staged_qrels(con, campaign, name=name or "qrels", fmt=kind,
                              source=frame.source, digest=table_digest(frame.table),
                              num_rows=n, replace=replace)
