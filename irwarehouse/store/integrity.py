"""The warehouse's own integrity checks (`irw check`) and its compaction (`irw compact`).

`irw check` reads every table in full (DuckDB verifies each block's checksum as it reads it)
and compares, table by table and owner by owner, the number of rows and their digest with
those the writes recorded (irwarehouse.store.digests: the checksum's blind spot, words moved
within a block, changes the digest); then the derived rows (run_list, judged_row, relevant_row)
against the rows they are made from.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from ..failures import plain
from . import digests

_OWNERS = {"run_id": "run", "qrels_id": "qrels", "campaign_id": "campaign", "pool_id": "pool",
           "interleaving_id": "interleaving"}
_SHOWN_PER_TABLE = 5        # FAILED lines per table; the rest are counted


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
    table read in full against its recorded digests, and the derived rows (run_list,
    judged_row) against the rows they are made from."""
    report = CheckReport(path)
    _check_schema(con, recorded, report)
    if not _check_tables(con, report):
        return report
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


def _check_tables(con, report: CheckReport) -> bool:
    """Read every column of every table, per owner, and compare the rows' number and digest
    with irw_digest's. False when a table cannot be read (a damaged block)."""
    tables = digests.data_tables(con)
    now, total = {}, 0
    for table, column in tables.items():
        try:
            now[table] = digests.partition_digests(con, table, column)
        except duckdb.Error as exc:
            report.fail(f"table {table}: cannot be read: {str(exc).splitlines()[0]}")
            continue
        total += sum(n for n, _ in now[table].values())
    if report.problems:
        return False
    if not digests.has_digests(con):
        report.ok(f"tables: {len(tables)} tables read in full ({total:,} rows)")
        report.note("digests: this file records none yet (made by an older irw; a read-write "
                    "open, e.g. `irw init`, records them)")
        return True
    try:
        recorded = digests.recorded(con)
    except duckdb.Error as exc:
        report.fail(f"table {digests.DIGEST_TABLE}: cannot be read: {str(exc).splitlines()[0]}")
        return False
    prefix = digests.probe(con) + ":"
    other_hash, before = set(), len(report.problems)
    for table, column in tables.items():
        wrong = []
        for part in sorted(set(now[table]) | {p for t, p in recorded if t == table},
                           key=lambda p: (p is None, p)):
            found, kept = now[table].get(part), recorded.get((table, part))
            if kept is not None and found is not None and found[0] == kept[0] \
                    and not kept[1].startswith(prefix):
                other_hash.add(table)
            elif found != kept:
                wrong.append(_difference(con, table, column, part, found, kept))
        for text in wrong[:_SHOWN_PER_TABLE]:
            report.fail(text)
        if len(wrong) > _SHOWN_PER_TABLE:
            report.fail(f"{table}: and {len(wrong) - _SHOWN_PER_TABLE} more owners whose rows "
                        "differ from those recorded")
    for table in sorted({t for t, _ in recorded} - set(tables)):
        report.fail(f"{digests.DIGEST_TABLE}: digests recorded for a table {plain(table)} "
                    "that the warehouse does not have")
    if len(report.problems) == before:
        report.ok(f"tables: {len(tables)} tables read in full ({total:,} rows); their rows "
                  "match the digests recorded when they were written")
    if other_hash:
        report.note(f"digests of {len(other_hash)} table(s) ({', '.join(sorted(other_hash))}) "
                    "were recorded by a DuckDB whose hash() differs from this one's; their row "
                    "counts match but their rows cannot be verified")
    return True


def _difference(con, table: str, column: str | None, part, found, kept) -> str:
    """One line on a partition whose rows are not those recorded."""
    where = f"{table}: {_owner(con, column, part)}"
    if kept is None:
        return f"{where}: {found[0]:,} rows that no write recorded"
    if found is None:
        return f"{where}: the {kept[0]:,} rows recorded are gone"
    if found[0] != kept[0]:
        return f"{where}: {found[0]:,} rows stored, {kept[0]:,} recorded"
    return f"{where}: the stored rows differ from those written (digest)"


def _owner(con, column: str | None, part) -> str:
    """`run R of campaign C` for a partition of run_id R, and so on (ids that name nothing,
    as damage may leave, by number)."""
    if column is None:
        return "its rows"
    kind = _OWNERS.get(column)
    if part is None:
        return f"rows without a {column}"
    row = None
    if kind in ("run", "qrels", "pool", "interleaving"):
        row = _lookup(con, f"SELECT o.name, c.name FROM {kind} o JOIN campaign c "
                      f"USING (campaign_id) WHERE o.{column} = ?", part)
        if row:
            return f"{kind} {plain(row[0])} of campaign {plain(row[1])}"
    elif kind == "campaign":
        row = _lookup(con, "SELECT name, NULL FROM campaign WHERE campaign_id = ?", part)
        if row:
            return f"campaign {plain(row[0])}"
    return f"the rows of {column} {part}" + (f" (no such {kind})" if kind else "")


def _lookup(con, sql: str, part):
    try:
        return con.execute(sql, [part]).fetchone()
    except duckdb.Error:
        return None


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
    # per qrels, the runs judged_pair pairs it with (a qrels derived later, such as a kept
    # leave-one-out qrels, is paired with the runs ingested after it only)
    pairs = con.execute("""
        SELECT qrels_id, list(run_id ORDER BY run_id) FROM judged_pair GROUP BY qrels_id
        ORDER BY qrels_id""").fetchall()
    wrong = 0
    for qrels_id, run_ids in pairs:
        stored, rebuilt = con.execute("""
            SELECT (SELECT sum(hash(qrels_id, run_id, topic, score_rank, rel)) FROM judged_row
                    WHERE qrels_id = $q AND run_id IN (SELECT unnest($r))),
                   (SELECT sum(hash(qrels_id, run_id, topic, score_rank, rel))
                    FROM ev_make_judged_rows([$q], $r))""",
                                      {"q": qrels_id, "r": run_ids}).fetchone()
        wrong += stored != rebuilt
    if wrong:
        report.fail(f"judged_row: the judged rows of {wrong} qrels differ from run_row and "
                    "judgment")
    # relevant_row against judged_row (store/relevant.py), for the pairs relevant_pair lists
    wrong_relevant = con.execute("""
        SELECT count(*) FROM (
            (SELECT * FROM relevant_row EXCEPT ALL SELECT r.* FROM ev_make_relevant_rows(
                 (SELECT list(DISTINCT qrels_id) FROM relevant_pair),
                 (SELECT list(DISTINCT run_id) FROM relevant_pair)) r
             SEMI JOIN relevant_pair p USING (qrels_id, run_id))
            UNION ALL
            (SELECT r.* FROM ev_make_relevant_rows(
                 (SELECT list(DISTINCT qrels_id) FROM relevant_pair),
                 (SELECT list(DISTINCT run_id) FROM relevant_pair)) r
             SEMI JOIN relevant_pair p USING (qrels_id, run_id)
             EXCEPT ALL SELECT * FROM relevant_row))""").fetchone()[0]
    if wrong_relevant:
        report.fail(f"relevant_row: {wrong_relevant} rows differ from judged_row")
    if not wrong_lists and not wrong and not wrong_relevant:
        report.ok("derived rows: run_list, judged_row and relevant_row match run_row and "
                  "judgment")


# -- irw compact ---------------------------------------------------------------------------------
def compact(con: duckdb.DuckDBPyConnection, path: Path) -> tuple[int, int]:
    """Rewrite the warehouse open on `con` (read-write, so no one else holds it) into a new
    file with only its live data, in the storage format it had (store.storage), check that
    every table came across unchanged, and put it in place of the old one (an atomic rename
    while the old file is still locked). Returns the sizes before and after. On any failure
    the old file is left as it was."""
    from .storage import copy_database, fsync, storage_version
    path = Path(path)
    con.execute("CHECKPOINT")
    before = path.stat().st_size
    tmp = path.with_name(f".{path.name}.compact")
    try:
        copy_database(con, tmp, storage_version(con))
        os.replace(tmp, path)
        fsync(path.parent)
    except BaseException:
        for leftover in (tmp, tmp.with_name(tmp.name + ".wal")):
            leftover.unlink(missing_ok=True)
        raise
    return before, path.stat().st_size
