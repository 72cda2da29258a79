"""Opening a warehouse: a DuckDB file (or memory) with the schema and the metric macros."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import duckdb

from .errors import SqlAssetError, WarehouseError
from .sqlassets import family_closure, metric_files, read_sql, sections

DEFAULT_PATH = "irw.duckdb"
ENV_VAR = "IRW_WAREHOUSE"


def default_path() -> str:
    return os.environ.get(ENV_VAR, DEFAULT_PATH)


def install_macros(con: duckdb.DuckDBPyConnection, families=None) -> None:
    """Create the (TEMP) evaluation context tables and the metric macros on a connection: every
    macro, or with `families` (metric file stems) only theirs and those they call (creating all
    of them takes ~0.2 s, a fifth of re-evaluating a 7M-line run). A family already installed
    on the connection is skipped.

    DuckDB binds a table macro's references when it is created, so files whose macros call
    building blocks of other files are retried until everything is defined."""
    for name, sql in sections(read_sql("context.sql")).items():
        if name.startswith("create_empty"):         # create_empty, create_empty_div, ...
            con.execute(sql)
    con.execute("CREATE TEMP TABLE IF NOT EXISTS ev_installed_family (family VARCHAR)")
    done = {f for (f,) in con.execute("SELECT family FROM ev_installed_family").fetchall()}
    files = metric_files() if families is None else family_closure(families)
    pending = [p for p in files if p.stem not in done]
    while pending:
        failed = []
        for path in pending:
            try:
                con.execute(path.read_text(encoding="utf-8"))
                con.execute("INSERT INTO ev_installed_family VALUES (?)", [path.stem])
            except duckdb.CatalogException as exc:
                failed.append((path, exc))
        if len(failed) == len(pending):
            path, exc = failed[0]
            raise SqlAssetError(f"{path}: {exc}")
        pending = [p for p, _ in failed]


def apply_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Apply sql/schema.sql in one transaction, unless the warehouse records (irw_meta) that
    this very text was applied already."""
    text = read_sql("schema.sql")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    try:
        applied = con.execute("SELECT value FROM irw_meta WHERE key = 'schema_sha256'").fetchone()
    except duckdb.CatalogException:           # a new warehouse, or one from before irw_meta
        applied = None
    if applied and applied[0] == digest:
        return
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute(text)
        con.execute("INSERT OR REPLACE INTO irw_meta VALUES ('schema_sha256', ?)", [digest])
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def connect(path: str | os.PathLike | None = None, *, read_only: bool = False,
            create: bool = True, macros: bool = True) -> duckdb.DuckDBPyConnection:
    """Connect to a warehouse file (None = a private in-memory warehouse), applying the schema
    (apply_schema) unless read-only, and installing every metric macro (with `macros=False` only
    the building blocks; evaluate() installs the families it needs)."""
    if path is None or str(path) == ":memory:":
        con = duckdb.connect(":memory:")
    else:
        p = Path(path)
        if not create and not p.exists():
            raise WarehouseError(f"no warehouse at {p} (create one with `irw init`)")
        try:
            con = duckdb.connect(str(p), read_only=read_only)
        except duckdb.Error as exc:
            raise WarehouseError(f"cannot open warehouse {p}: {exc}") from exc
    if not read_only:
        apply_schema(con)
    install_macros(con, None if macros else [])
    return con
