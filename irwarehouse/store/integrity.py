"""The warehouse's own integrity checks (`irw check`) and its compaction (`irw compact`).

DuckDB checksums every block, but its checksum is an XOR of the block's 8-byte words
multiplied by a constant, so two equal words changed alike (a 16-byte flip) pass unseen. irw
therefore records, when a run or a qrels is ingested, a digest of its stored rows beside their
count (`run.rows_digest`, `qrels.rows_digest`): the sum of DuckDB's 64-bit hash() of every row,
a change to any row changes it (but for a chance of 2^-64). hash() is not promised to stay the
same across DuckDB releases, so each digest starts with the hash of a fixed probe row: a
digest whose probe this DuckDB computes otherwise is reported as not verifiable, never as
damage. Recording costs a scan of the rows just written (0.2 s for 5M rows).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

# The stored rows of a run and of a qrels, and the derived rows rebuilt from them, as the
# digest sees them (every column but the owner's id).
_ROWS = {
    "run": ("run_row", "run_id", "topic, doc, score, rank, file_order, score_rank"),
    "qrels": ("judgment", "qrels_id", "topic, intent, doc, rel"),
}
_PROBE = "SELECT hash('irwarehouse', 1.5::DOUBLE, -7::BIGINT, NULL::BIGINT, 'é')"


def probe(con: duckdb.DuckDBPyConnection) -> str:
    """This DuckDB's hash() of a fixed row, in hex: the prefix of every digest it records."""
    return f"{con.execute(_PROBE).fetchone()[0]:016x}"


def digests(con: duckdb.DuckDBPyConnection, kind: str, ids: list[int]) -> dict[int, tuple]:
    """{id: (rows, digest)} of the runs or qrels `ids` (kind "run" or "qrels"), as stored now."""
    table, key, columns = _ROWS[kind]
    prefix = probe(con)
    rows = con.execute(f"""
        SELECT {key}, count(*), CAST(sum(hash({columns})) AS VARCHAR)
        FROM {table} WHERE {key} IN (SELECT unnest($ids)) GROUP BY {key}""",
                       {"ids": list(ids)}).fetchall()
    return {i: (n, f"{prefix}:{s}") for i, n, s in rows}


def record_digests(con: duckdb.DuckDBPyConnection, kind: str, ids: list[int]) -> None:
    """Store the digest of the rows of runs or qrels `ids` just written (inside the
    transaction that writes them)."""
    if not ids or _in_memory(con):          # files evaluated in a throw-away warehouse
        return
    found = digests(con, kind, ids)
    con.executemany(f"UPDATE {kind} SET rows_digest = ? WHERE {kind}_id = ?",
                    [(digest, i) for i, (_, digest) in found.items()])


def _in_memory(con: duckdb.DuckDBPyConnection) -> bool:
    return not con.execute("SELECT path FROM duckdb_databases() "
                           "WHERE database_name = current_database()").fetchone()[0]


def backfill_digests(con: duckdb.DuckDBPyConnection) -> None:
    """Digests for the runs and qrels of an older warehouse whose stored rows number what was
    recorded at their ingestion (upgrade; rows that do not are left for `irw check`)."""
    for kind, (table, key, _) in _ROWS.items():
        ids = [i for (i,) in con.execute(f"""
            SELECT o.{key} FROM {kind} o JOIN (SELECT {key}, count(*) AS n FROM {table}
                                               GROUP BY {key}) c USING ({key})
            WHERE o.rows_digest IS NULL AND o.num_rows = c.n""").fetchall()]
        record_digests(con, kind, ids)


# -- irw check -----------------------------------------------------------------------------------
@dataclass
class CheckReport:
    """What `irw check` found: `lines` (status, text) in order, `problems` the damage."""
    path: str
    lines: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def ok(self, text: str) -> None:
        self.lines.append(("ok", text))

    def note(self, text: str) -> None:
        self.lines.append(("note", text))

    def fail(self, text: str) -> None:
        self.lines.append(("FAILED", text))
        self.problems.append(text)

    def text(self) -> str:
        return "".join(f"{status:<7} {text}\n" for status, text in self.lines)


def check_warehouse(con: duckdb.DuckDBPyConnection, path: str,
                    recorded: str | None) -> CheckReport:
    """Verify an open warehouse whose recorded SQL digest is `recorded`: its schema, every
    table read in full (DuckDB verifies each
    block's checksum as it reads it), every run's and qrels' row count and digest, and the
    derived rows (run_list, judged_row) against the rows they are made from."""
    report = CheckReport(path)
    _check_schema(con, recorded, report)
    if not _read_everything(con, report):
        return report
    for kind in _ROWS:
        _check_rows(con, kind, report)
    _check_derived(con, report)
    return report


def _check_schema(con, recorded: str | None, report: CheckReport) -> None:
    from ..sqlfiles import sql_digest
    missing = _missing_columns(con) if recorded == sql_digest() else []
    if missing:
        report.fail(f"schema: missing {', '.join(missing[:5])}"
                    + (f" and {len(missing) - 5} more" if len(missing) > 5 else ""))
    elif recorded == sql_digest():
        report.ok(f"schema: up to date (sql {recorded[:12]})")
    else:
        report.note("schema: made by another version of irw (a read-write open, e.g. "
                    "`irw init`, upgrades it)")


def _missing_columns(con) -> list[str]:
    """Tables and columns of this version's schema that a file claiming this version lacks (an
    older file's are a version note: _check_schema)."""
    fresh = duckdb.connect(":memory:")
    try:
        from ..sqlfiles import read_sql
        fresh.execute(read_sql("schema.sql"))
        want = set(fresh.execute("SELECT table_name, column_name FROM duckdb_columns() "
                                 "WHERE NOT internal AND schema_name = 'main'").fetchall())
    finally:
        fresh.close()
    have = set(con.execute("SELECT table_name, column_name FROM duckdb_columns() "
                           "WHERE NOT internal AND schema_name = 'main' "
                           "AND database_name = current_database()").fetchall())
    return sorted(f"{t}.{c}" for t, c in want - have)


def _read_everything(con, report: CheckReport) -> bool:
    """Read every column of every table (a damaged block is an error naming the table)."""
    tables = [t for (t,) in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = 'main' ORDER BY table_name").fetchall()]
    total = 0
    for table in tables:
        try:
            total += con.execute(f'SELECT count(*), sum(hash(COLUMNS(*))) FROM "{table}"'
                                 ).fetchone()[0]
        except duckdb.Error as exc:
            report.fail(f"table {table}: cannot be read: {str(exc).splitlines()[0]}")
    if len(report.problems):
        return False
    report.ok(f"tables: {len(tables)} tables read in full ({total:,} rows)")
    return True


def _check_rows(con, kind: str, report: CheckReport) -> None:
    key = _ROWS[kind][1]
    if not _has_column(con, kind, "rows_digest"):       # made before digests were recorded
        report.note(f"{kind}: this file records no digests yet (made by an older irw; a "
                    "read-write open, e.g. `irw init`, records them)")
        return
    owners = con.execute(f"""
        SELECT o.{key}, o.name, c.name, o.num_rows, o.rows_digest
        FROM {kind} o JOIN campaign c USING (campaign_id)
        ORDER BY c.name, o.name""").fetchall()
    recorded = [o for o in owners if o[4] is not None]
    now = digests(con, kind, [o[0] for o in recorded])
    prefix = probe(con)
    rows, bad, other_hash = 0, 0, 0
    for oid, name, campaign, num_rows, digest in recorded:
        n, current = now.get(oid, (0, f"{prefix}:0"))
        rows += n
        where = f"{kind} {name} of campaign {campaign}"
        if n != num_rows:
            report.fail(f"{where}: {n:,} rows stored, {num_rows:,} ingested")
            bad += 1
        elif not digest.startswith(prefix + ":"):
            other_hash += 1
        elif digest != current:
            report.fail(f"{where}: the stored rows differ from those ingested (digest)")
            bad += 1
    if recorded and not bad:
        n = len(recorded) - other_hash
        report.ok(f"{kind}: {n} {kind}{'s' if n != 1 and kind == 'run' else ''} ({rows:,} "
                  "rows): counts and digests match")
    if other_hash:
        report.note(f"{kind}: {other_hash} digests were recorded by a DuckDB whose hash() "
                    "differs from this one's; their row counts match but their rows cannot be "
                    "verified")
    if len(owners) > len(recorded):
        report.note(f"{kind}: {len(owners) - len(recorded)} without stored rows or digest "
                    "(texts, sessions, derived qrels, or rows written by hand)")


def _has_column(con, table: str, column: str) -> bool:
    return bool(con.execute("SELECT count(*) FROM duckdb_columns() WHERE database_name = "
                            "current_database() AND table_name = ? AND column_name = ?",
                            [table, column]).fetchone()[0])


def _check_derived(con, report: CheckReport) -> None:
    """run_list and judged_row are rebuilt from run_row and judgment and compared."""
    wrong_lists = con.execute("""
        SELECT count(*) FROM run_list l
        FULL JOIN (SELECT run_id, topic, count(*) AS n FROM run_row
                   WHERE run_id IN (SELECT run_id FROM run_list) GROUP BY ALL) r
          USING (run_id, topic)
        WHERE l.num_docs IS DISTINCT FROM r.n""").fetchone()[0]
    if wrong_lists:
        report.fail(f"run_list: {wrong_lists} list lengths differ from run_row")
    pairs = con.execute("""
        SELECT q.campaign_id, list(DISTINCT p.qrels_id), list(DISTINCT p.run_id)
        FROM judged_pair p JOIN qrels q USING (qrels_id) GROUP BY ALL""").fetchall()
    wrong = 0
    for _, qrels_ids, run_ids in pairs:
        stored, rebuilt = con.execute("""
            SELECT (SELECT sum(hash(qrels_id, run_id, topic, score_rank, rel)) FROM judged_row
                    WHERE qrels_id IN (SELECT unnest($q)) AND run_id IN (SELECT unnest($r))),
                   (SELECT sum(hash(qrels_id, run_id, topic, score_rank, rel))
                    FROM ev_make_judged_rows($q, $r))""",
                                      {"q": qrels_ids, "r": run_ids}).fetchone()
        wrong += stored != rebuilt
    if wrong:
        report.fail(f"judged_row: the judged rows of {wrong} campaign(s) differ from run_row "
                    "and judgment")
    if not wrong_lists and not wrong:
        report.ok("derived rows: run_list and judged_row match run_row and judgment")


# -- irw compact ---------------------------------------------------------------------------------
def table_digests(con, database: str) -> dict[str, tuple]:
    """{table: (rows, digest of all columns)} of every table of `database`."""
    tables = [t for (t,) in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = ? AND schema_name = "
        "'main' ORDER BY table_name", [database]).fetchall()]
    out = {}
    for table in tables:
        n, *sums = con.execute(f'SELECT count(*), sum(hash(COLUMNS(*))) '
                               f'FROM "{database}".main."{table}"').fetchone()
        out[table] = (n, tuple(sums))
    return out


def compact(con: duckdb.DuckDBPyConnection, path: Path) -> tuple[int, int]:
    """Rewrite the warehouse open on `con` (read-write, so no one else holds it) into a new
    file with only its live data, check that every table came across unchanged, and put it in
    place of the old one (an atomic rename while the old file is still locked). Returns the
    sizes before and after. On any failure the old file is left as it was."""
    from ..errors import StorageError
    path = Path(path)
    con.execute("CHECKPOINT")
    before = path.stat().st_size
    tmp = path.with_name(f".{path.name}.compact")
    for leftover in (tmp, tmp.with_name(tmp.name + ".wal")):
        leftover.unlink(missing_ok=True)
    source = con.execute("SELECT current_database()").fetchone()[0]
    try:
        con.execute("ATTACH $p AS irw_compact", {"p": str(tmp)})
        try:
            con.execute(f'COPY FROM DATABASE "{source}" TO irw_compact')
            if table_digests(con, source) != table_digests(con, "irw_compact"):
                raise StorageError(f"compacting {path} changed its tables; the file is left "
                                   "as it was")
        finally:
            con.execute("DETACH irw_compact")
        _fsync(tmp)
        os.replace(tmp, path)
        _fsync(path.parent)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return before, path.stat().st_size


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
