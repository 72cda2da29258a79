"""Which DuckDB versions can open a warehouse file: its storage format.

DuckDB 2.0 writes its own storage format (v2.0.0) by default, which no DuckDB 1.x opens
(DuckDB 1.5.6: "database file version 69, can read 64-68"). DuckDB writes an older format on
request: the setting `storage_compatibility_version` when a database is created, or
`ATTACH ... (STORAGE_VERSION 'v1.5.0')`; the file records it and every later checkpoint keeps it,
whichever setting the opening connection has (DuckDB 2.0 documentation, "Storage Versions and
Format"). So:

- a new warehouse is created in NEW_FILES (create), the format of the DuckDB 1.5 line (its cost, measured
  by bench/bench_storage.py, is in bench/README.md, "Storage format");
- a warehouse made before keeps its format (an open never rewrites it); `irw export warehouse
  --duckdb-version 1.x FILE` copies it into a file of the format asked for (export_warehouse);
- `irw compact` keeps the format of the file it rewrites.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import duckdb

from ..errors import StorageError, WarehouseError

NEW_FILES = "v1.5.0"

# --duckdb-version -> the storage format that version line opens (DuckDB's own names). 1.5 is
# the newest 1.x line; 1.4 its long-term-support release, which opens the tables and views but
# binds only 21 of the 184 metric macros (DuckDB 1.4.4: "Cannot mix values of type INTEGER and
# VARCHAR in COALESCE"; docs/clients.md).
VERSIONS = {"1.x": "v1.5.0", "1.5": "v1.5.0", "1.4": "v1.4.0", "2.x": "v2.0.0", "2.0": "v2.0.0"}


def create(path: Path) -> None:
    """Make the empty database file of a new warehouse in NEW_FILES. Only this short-lived
    connection carries the setting: the file keeps its format, and every connection that opens
    it afterwards has DuckDB's default configuration, so that a plain duckdb.connect(path) in
    the same process shares the database with irw's (DuckDB refuses a second connection to a
    file open in the process under another configuration)."""
    duckdb.connect(str(path), config={"storage_compatibility_version": NEW_FILES}).close()


def storage_version(con: duckdb.DuckDBPyConnection, database: str | None = None) -> str:
    """The storage format of an attached database ('v1.5.0', 'v2.0.0'); the current one by
    default."""
    row = con.execute("SELECT tags['storage_version'] FROM duckdb_databases() WHERE "
                      "database_name = coalesce(?, current_database())", [database]).fetchone()
    return (row[0] or "").rstrip("+") if row else ""


def clients(con: duckdb.DuckDBPyConnection) -> str:
    """Which DuckDB clients open the warehouse on `con`, in words (irw init prints it)."""
    fmt = storage_version(con)
    if fmt.startswith("v1."):
        oldest = min((k for k, v in VERSIONS.items() if v == fmt and k[-1].isdigit()),
                     default=fmt[1:4])
        return f"DuckDB storage {fmt}: DuckDB {oldest} and later open it"
    return (f"DuckDB storage {fmt}: only DuckDB 2 and later open it; `irw export warehouse "
            "--duckdb-version 1.x FILE` writes a copy DuckDB 1.x opens")


def format_for(duckdb_version: str) -> str:
    """The storage format of `--duckdb-version` (one line naming the accepted values)."""
    try:
        return VERSIONS[duckdb_version.strip().lower().removeprefix("v")]
    except KeyError:
        raise WarehouseError(f"--duckdb-version {duckdb_version!r}: expected one of "
                             f"{', '.join(VERSIONS)}") from None


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


def copy_database(con: duckdb.DuckDBPyConnection, target: Path, storage: str) -> None:
    """Copy the current database of `con` (tables, views, macros, sequences) into a new file
    `target` of storage format `storage`, checking that every table came across unchanged.
    `storage` ('v1.5.0') reaches SQL as a checked literal: DuckDB's ATTACH takes no parameter
    there."""
    if not re.fullmatch(r"v\d+\.\d+\.\d+", storage):
        raise ValueError(f"not a storage format: {storage!r}")
    source = con.execute("SELECT current_database()").fetchone()[0]
    for leftover in (target, target.with_name(target.name + ".wal")):
        leftover.unlink(missing_ok=True)
    con.execute(f"ATTACH $p AS irw_copy (READ_WRITE, STORAGE_VERSION '{storage}')",
                {"p": str(target)})
    try:
        con.execute(f'COPY FROM DATABASE "{source}" TO irw_copy')
        if table_digests(con, source) != table_digests(con, "irw_copy"):
            raise StorageError(f"copying the warehouse into {target} changed its tables")
    finally:
        con.execute("DETACH irw_copy")
    fsync(target)


def export_warehouse(con: duckdb.DuckDBPyConnection, out: Path, duckdb_version: str, *,
                     replace: bool = False) -> str:
    """`irw export warehouse --duckdb-version V OUT`: the whole warehouse open on `con` (read-only
    is enough; its macros up to date: api.Warehouse.export_warehouse checks) copied into OUT in the storage format of DuckDB V; OUT appears whole or not at
    all. Returns the format written."""
    storage = format_for(duckdb_version)
    out = Path(out)
    if out.exists() and not replace:
        raise WarehouseError(f"{out} exists (--replace to overwrite it)")
    if out.is_dir():
        raise WarehouseError(f"{out} is a folder, not a warehouse file")
    tmp = out.with_name(f".{out.name}.export")
    try:
        copy_database(con, tmp, storage)
        os.replace(tmp, out)
        fsync(out.parent)
    except duckdb.Error as exc:
        raise StorageError(f"cannot write {out}: {str(exc).splitlines()[0]}") from None
    finally:
        for leftover in (tmp, tmp.with_name(tmp.name + ".wal")):
            leftover.unlink(missing_ok=True)
    return storage


def fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
