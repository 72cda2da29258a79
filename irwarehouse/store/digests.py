"""A digest of every table's rows, recorded by each write and verified by `irw check`.

DuckDB checksums every block, but its checksum is the XOR of the block's 8-byte words times a
constant, so any permutation of the words passes it (two values of a column swapped, a score
moved to another run). irw therefore keeps, in `irw_digest`, for every table and every value of
its partition column (the table's owner id: run_id, qrels_id, ...; one partition for a table
without one), the number of rows and the sum of DuckDB's 64-bit hash() of each whole row
(`hash(*COLUMNS(*))`: every column in order, so the digest needs no list of columns and follows
a table whose columns change). A write marks what it changed (`touch`) and the transaction
re-records those partitions before its COMMIT (`seal`, from store.ingest.transaction): the
cost of a write is a scan of the partitions it wrote, never of the whole warehouse.

hash() is not promised to stay the same across DuckDB releases, so each digest starts with the
hash of a fixed probe row: a digest whose probe this DuckDB computes otherwise is reported as
not verifiable, never as damage.
"""

from __future__ import annotations

from collections.abc import Iterable

import duckdb

from .rollback import rollback

# The owner columns a table's digest is partitioned by, the first a table has: a run's rows
# are re-digested when that run is written, not every run's.
PARTITION_COLUMNS = ("run_id", "qrels_id", "owner_id", "interleaving_id", "pool_id",
                     "campaign_id")
DIGEST_TABLE = "irw_digest"
_PROBE = "SELECT hash('irwarehouse', 1.5::DOUBLE, -7::BIGINT, NULL::BIGINT, 'é')"


def probe(con: duckdb.DuckDBPyConnection) -> str:
    """This DuckDB's hash() of a fixed row, in hex: the prefix of every digest it records
    (computed once per process: one DuckDB library is loaded)."""
    global _probe
    if _probe is None:
        _probe = f"{con.execute(_PROBE).fetchall()[0][0]:016x}"
    return _probe


_probe: str | None = None


def data_tables(con: duckdb.DuckDBPyConnection) -> dict[str, str | None]:
    """{table: its partition column (None: one partition)} of every table of the warehouse
    but irw_digest (names from DuckDB's catalog, never user input): the table's own id
    (run.run_id), else the first of PARTITION_COLUMNS it has that is never NULL."""
    rows = con.execute("""
        SELECT t.table_name, coalesce(list(c.column_name) FILTER (WHERE NOT c.is_nullable), [])
        FROM duckdb_tables() t
        JOIN duckdb_columns() c USING (database_name, schema_name, table_name)
        WHERE t.database_name = current_database() AND t.schema_name = 'main'
          AND NOT t.temporary AND t.table_name <> $d
        GROUP BY t.table_name ORDER BY t.table_name""", {"d": DIGEST_TABLE}).fetchall()
    return {table: next((c for c in (f"{table}_id", *PARTITION_COLUMNS) if c in columns),
                        None) for table, columns in rows}


def partition_digests(con: duckdb.DuckDBPyConnection, table: str, column: str | None,
                      parts: list[int] | None = None) -> dict[int | None, tuple[int, str]]:
    """{part: (rows, digest)} of `table` as stored now: every partition, or those in
    `parts`. A table without a partition column is part 0."""
    key = f'"{column}"' if column else "0"
    where = f"WHERE {key} IN (SELECT unnest($parts))" if parts is not None else ""
    prefix = probe(con)
    rows = con.execute(f"""
        SELECT {key}, count(*), CAST(sum(hash(*COLUMNS(*))) AS VARCHAR)
        FROM "{table}" {where} GROUP BY ALL""",
                       {"parts": parts} if parts is not None else {}).fetchall()
    return {part: (n, f"{prefix}:{s}") for part, n, s in rows}


def recorded(con: duckdb.DuckDBPyConnection) -> dict[tuple[str, int | None], tuple[int, str]]:
    """{(table, part): (rows, digest)} as irw_digest records them."""
    return {(t, p): (n, d) for t, p, n, d in con.execute(
        f"SELECT table_name, part, num_rows, digest FROM {DIGEST_TABLE}").fetchall()}


def has_digests(con: duckdb.DuckDBPyConnection) -> bool:
    return bool(con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = "
                            "current_database() AND table_name = ?", [DIGEST_TABLE]
                            ).fetchall()[0][0])


def in_file(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether `con` is a warehouse file, not the throw-away in-memory warehouse of files
    evaluated without one (which keeps no digests, and nothing a Ctrl-C should name)."""
    return bool(con.execute("SELECT path FROM duckdb_databases() "
                            "WHERE database_name = current_database()").fetchall()[0][0])


def _partitions(con: duckdb.DuckDBPyConnection) -> dict[str, str | None] | None:
    """data_tables, kept for the connection's life in a TEMP table (4 ms less per touch; the
    tables change only in a schema upgrade, which drops it); None in memory (no digests)."""
    con.execute("CREATE TEMP TABLE IF NOT EXISTS irw_partition_column "
                "(table_name VARCHAR, column_name VARCHAR)")
    rows = con.execute("SELECT table_name, column_name FROM irw_partition_column").fetchall()
    if not rows:
        tables = data_tables(con) if in_file(con) else {}
        rows = list(tables.items()) or [("", None)]     # ('', NULL): not recording
        con.execute("INSERT INTO irw_partition_column SELECT unnest($t), unnest($c)",
                    {"t": [t for t, _ in rows], "c": [c for _, c in rows]})
    return None if rows == [("", None)] else dict(rows)


def forget_tables(con: duckdb.DuckDBPyConnection) -> None:
    """Drop _partitions' copy (the schema upgrade changes the tables)."""
    con.execute("DROP TABLE IF EXISTS temp.irw_partition_column")


# -- writes --------------------------------------------------------------------------------------
def touch(con: duckdb.DuckDBPyConnection, table: str, where: str | None = None,
          params: Iterable | dict = ()) -> None:
    """Mark the partitions of `table` that hold the rows matching `where` (SQL over its
    columns, with `params`; None: the whole table) as written by the open transaction, whose
    COMMIT re-records their digests. Call it after an INSERT or UPDATE and before a DELETE.
    `table` and `where` are this package's own SQL, never user input."""
    partitioned = _partitions(con)
    if partitioned is None:
        return
    _touched_table(con)
    column = partitioned.get(table)
    whole = where is None or column is None
    con.execute("INSERT INTO irw_touched VALUES (?, NULL, ?)", [table, whole])
    if not whole:
        con.execute(f'INSERT INTO irw_touched SELECT DISTINCT \'{table}\', "{column}", false '
                    f'FROM "{table}" WHERE {where}',
                    params if isinstance(params, dict) else list(params))


def touch_owner(con: duckdb.DuckDBPyConnection, column: str, ids: list) -> None:
    """touch, in every table with a column `column` (run_id, qrels_id, campaign_id, ...), the
    rows whose `column` is one of `ids`: all that hangs on those runs, qrels, campaigns."""
    if _partitions(con) is None:
        return
    for table in tables_having(con, column):
        touch(con, table, f'list_contains($ids, "{column}")', {"ids": list(ids)})


def tables_having(con: duckdb.DuckDBPyConnection, column: str) -> list[str]:
    """The warehouse's tables with a column `column` (names from DuckDB's catalog, never user
    input)."""
    return [t for (t,) in con.execute("""
        SELECT c.table_name FROM duckdb_columns() c JOIN duckdb_tables() t
          ON t.database_name = c.database_name AND t.schema_name = c.schema_name
         AND t.table_name = c.table_name
        WHERE c.database_name = current_database() AND c.schema_name = 'main'
          AND c.column_name = ? AND NOT t.temporary
        ORDER BY c.table_name""", [column]).fetchall()]


def delete(con: duckdb.DuckDBPyConnection, table: str, where: str,
           params: Iterable | dict = ()) -> int:
    """DELETE FROM `table` WHERE `where`, its partitions touched first. Returns the number of
    rows deleted."""
    touch(con, table, where, params)
    return con.execute(f'DELETE FROM "{table}" WHERE {where}',
                       params if isinstance(params, dict) else list(params)).fetchall()[0][0]


def _touched_table(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("CREATE TEMP TABLE IF NOT EXISTS irw_touched "
                "(table_name VARCHAR, part BIGINT, whole BOOLEAN)")


def seal(con: duckdb.DuckDBPyConnection, tables: Iterable[str] | None = None) -> None:
    """Re-record, inside the open transaction, the digests of the partitions touched in it and
    of every partition of `tables`. Only those: a partition damaged before and not written
    now stays reported by `irw check`."""
    partitioned = _partitions(con)
    if partitioned is None:
        return
    _touched_table(con)
    todo: dict[str, set | None] = {t: None for t in (tables or ()) if t in partitioned}
    for table, part, whole in con.execute("SELECT DISTINCT table_name, part, whole "
                                          "FROM irw_touched").fetchall():
        if table not in partitioned:            # dropped in the transaction
            con.execute(f"DELETE FROM {DIGEST_TABLE} WHERE table_name = ?", [table])
            continue
        if whole or partitioned[table] is None:
            todo[table] = None
        elif todo.get(table, set()) is not None:
            todo.setdefault(table, set()).update([] if part is None else [part])
    for table, parts in todo.items():
        _record(con, table, partitioned[table], None if parts is None else sorted(parts))
    con.execute("DELETE FROM irw_touched")


def _record(con: duckdb.DuckDBPyConnection, table: str, column: str | None,
            parts: list | None) -> None:
    """Replace irw_digest's rows of `table` (of its partitions `parts`; None: all of it) by
    the digests of its rows as they are now."""
    found = partition_digests(con, table, column, parts)
    if parts is None:
        con.execute(f"DELETE FROM {DIGEST_TABLE} WHERE table_name = ?", [table])
    else:
        con.execute(f"DELETE FROM {DIGEST_TABLE} WHERE table_name = $t AND "
                    "list_contains($p, part)", {"t": table, "p": parts})
    if found:
        con.execute(f"""
            INSERT INTO {DIGEST_TABLE} (table_name, part, num_rows, digest)
            SELECT $t, unnest($parts), unnest($rows), unnest($digests)""",
                    {"t": table, "parts": list(found), "rows": [n for n, _ in found.values()],
                     "digests": [d for _, d in found.values()]})


def snapshot(con: duckdb.DuckDBPyConnection) -> dict[tuple[str, int | None], tuple[int, str]]:
    """{(table, part): (rows, digest)} of every partition of every table as stored now (a full
    read: for writes irw cannot follow, `irw sql --write`)."""
    return {(t, p): v for t, column in data_tables(con).items()
            for p, v in partition_digests(con, t, column).items()}


def record_changes(con: duckdb.DuckDBPyConnection, before: dict) -> None:
    """After writes irw could not follow (analyst SQL), in one transaction: record the
    digests of the partitions that changed since `before` (a snapshot) and were intact then
    (their digest was the recorded one); a partition that was already damaged stays
    reported."""
    forget_tables(con)                  # the SQL may have made or dropped tables
    if _partitions(con) is None or not has_digests(con):
        return
    now, kept = snapshot(con), recorded(con)
    changed = {key for key in set(before) | set(now) if before.get(key) != now.get(key)
               and (key not in before or kept.get(key) == before[key])}
    if not changed:
        return
    con.execute("BEGIN TRANSACTION")
    try:
        _touched_table(con)
        con.execute("INSERT INTO irw_touched SELECT unnest($t), unnest($p), false",
                    {"t": [t for t, _ in changed], "p": [p for _, p in changed]})
        tables = data_tables(con)
        for table, part in changed:
            if tables.get(table) is None:       # an unpartitioned table: all of it
                con.execute("INSERT INTO irw_touched VALUES (?, NULL, true)", [table])
        seal(con)
        con.execute("COMMIT")
    except BaseException:
        rollback(con)
        raise

