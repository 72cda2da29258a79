"""ROLLBACK after a failure, in a module of its own: the transaction helpers of store.connection,
store.ingest and store.digests all need it, and those modules import each other's functions."""

from __future__ import annotations

import duckdb


def rollback(con: duckdb.DuckDBPyConnection) -> None:
    """ROLLBACK, tolerating a transaction DuckDB already ended (a failed COMMIT, an
    invalidated transaction): the error that brought us here is the one to report."""
    try:
        con.execute("ROLLBACK")
    except duckdb.Error:
        pass
