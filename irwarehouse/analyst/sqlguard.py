"""Checks that an analyst's SQL text is exactly one read-only query before `irw sql` runs it.

Two independent parsers look at the text, and both must agree that it is harmless:

1. sqlglot (dialect duckdb): exactly one statement whose root is a query (SELECT, WITH, VALUES,
   set operations, DESCRIBE, SHOW, SUMMARIZE); no DDL/DML/COPY/ATTACH/... node anywhere in the
   tree; no file, network or code-executing function (`read_csv`, `glob`, `query`, ...); no table
   reference that is a file path or URL (DuckDB's replacement scans read `FROM 'x.csv'`).
2. DuckDB's own parser (`extract_statements`, `json_serialize_sql`): exactly one statement of
   type SELECT, and the same function and table checks on its parse tree, so a text that sqlglot
   reads differently from DuckDB (comments, dialect corners) cannot slip through.

The caller adds a third wall: a read-only connection with `enable_external_access = false`
and a locked configuration (see `query.open_guarded`).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator

from ..errors import IrwError


class QueryRefused(IrwError):
    """An analyst query that is not a single read-only query (and --write was not given)."""


# Functions that read or write files, reach the network, run SQL text, or reveal secrets.
DENIED_FUNCTIONS = frozenset({
    "glob", "sniff_csv", "query", "query_table", "getenv", "read_text", "read_blob",
    "parquet_scan", "http_get", "http_post", "http_head", "duckdb_secrets", "which_secret",
    "load_aws_credentials", "checkpoint", "force_checkpoint", "json_execute_serialized_sql",
    "st_read", "st_read_meta", "st_drivers", "shellfs", "shell", "system", "copy_database",
    "export_database", "import_database", "attach", "detach", "install", "load", "set_config",
})
DENIED_PREFIXES = ("read_", "parquet_", "iceberg_", "delta_", "sqlite_", "postgres_", "mysql_",
                   "http", "s3_", "gcs_", "azure_", "ducklake_", "ftp", "excel_", "arrow_")
DENIED_SUFFIXES = ("_scan", "_attach", "_query", "_execute")

# Statement roots that are queries. Everything else (Create, Drop, Insert, Update, Delete,
# Merge, Copy, Attach, Detach, Install, Pragma, Set, Command (CALL, EXPORT, ...), Use,
# Transaction, Alter, TruncateTable, ...) is refused.
_QUERY_ROOTS = ("Select", "Union", "Intersect", "Except", "Values", "Describe", "Show",
                "Summarize", "Subquery")
# Nodes that must not appear anywhere inside a query (e.g. a data-modifying CTE).
_WRITE_NODES = ("Create", "Drop", "Insert", "Update", "Delete", "Merge", "Copy", "Attach",
                "Detach", "Install", "Pragma", "Set", "Command", "Use", "Transaction", "Commit",
                "Rollback", "Alter", "TruncateTable", "LoadData", "Export", "Import")

_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)
_FILE_EXT = re.compile(r"\.(csv|tsv|txt|json|jsonl|ndjson|parquet|arrow|feather|ipc|db|duckdb|"
                       r"sqlite|xlsx|gz|zst|bz2|xz|avro|orc)$", re.IGNORECASE)


def function_denied(name: str) -> bool:
    name = name.lower().strip('"')
    return (name in DENIED_FUNCTIONS or name.startswith(DENIED_PREFIXES)
            or name.endswith(DENIED_SUFFIXES))


def looks_like_file(text: str) -> bool:
    """A table name or argument that names a file or URL rather than a warehouse relation."""
    return bool(_URL.match(text) or "/" in text or "\\" in text or text.startswith("~")
                or _FILE_EXT.search(text))


def check_query(text: str) -> None:
    """Raise QueryRefused unless `text` is exactly one read-only query."""
    if not text or not text.strip():
        raise QueryRefused("empty query")
    _check_with_duckdb_statements(text)
    _check_with_sqlglot(text)
    _check_with_duckdb_tree(text)


def _first_keyword(text: str) -> str:
    """The statement's first keyword (comments skipped), to name what was refused."""
    import sqlglot
    try:
        tokens = sqlglot.tokenize(text, read="duckdb")
    except Exception:               # noqa: BLE001 - naming is best effort
        tokens = []
    return tokens[0].text.upper() if tokens else "statement"


def _refuse(what: str) -> None:
    raise QueryRefused(f"refused: {what} (irw sql runs one read-only query; "
                       "--write lifts this)")


# -- sqlglot ---------------------------------------------------------------------------------
def _check_with_sqlglot(text: str) -> None:
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    logger = logging.getLogger("sqlglot")
    level = logger.level
    logger.setLevel(logging.ERROR)          # its "falling back to Command" notice is ours to give
    try:
        statements = [s for s in sqlglot.parse(text, read="duckdb") if s is not None]
    except SqlglotError as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise QueryRefused(f"refused: cannot parse the query ({first})") from None
    finally:
        logger.setLevel(level)
    if len(statements) != 1:
        _refuse(f"{len(statements)} statements (only one query at a time)")
    root = statements[0]
    if type(root).__name__ not in _QUERY_ROOTS:
        _refuse(f"{_first_keyword(text)} is not a read-only query")
    for node in root.walk():
        kind = type(node).__name__
        if kind in _WRITE_NODES:
            _refuse(f"{kind.upper()} inside the query")
        if isinstance(node, exp.Func):
            for name in _sqlglot_function_names(node):
                if function_denied(name):
                    _refuse(f"function {name.lower()}() reads files, the network or runs SQL text")
            if isinstance(node.parent, (exp.Table, exp.From)):
                for lit in node.find_all(exp.Literal):
                    if lit.is_string and looks_like_file(lit.name):
                        _refuse(f"table function argument {lit.name!r} names a file or URL")
        if (isinstance(node, exp.Literal) and node.is_string and _URL.match(node.name)
                and isinstance(node.parent, exp.Func)):
            _refuse(f"URL {node.name!r} passed to a function")
        if (isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier)
                and looks_like_file(node.name)):
            _refuse(f"table {node.name!r} names a file or URL")


def _sqlglot_function_names(node) -> Iterator[str]:
    from sqlglot import exp
    if isinstance(node, exp.Anonymous):
        yield str(node.this)
        return
    yield node.key
    yield from getattr(type(node), "sql_names", list)()


# -- DuckDB's own parser -----------------------------------------------------------------------
def _check_with_duckdb_statements(text: str) -> None:
    import duckdb

    con = duckdb.connect(":memory:")
    try:
        statements = con.extract_statements(text)
    except duckdb.Error as exc:
        raise QueryRefused(f"refused: cannot parse the query "
                           f"({str(exc).splitlines()[0]})") from None
    finally:
        con.close()
    if len(statements) != 1:
        _refuse(f"{len(statements)} statements (only one query at a time)")
    if str(statements[0].type).rsplit(".", 1)[-1] != "SELECT":
        _refuse(f"{_first_keyword(text)} is not a read-only query")


def _check_with_duckdb_tree(text: str) -> None:
    import duckdb

    con = duckdb.connect(":memory:")
    try:
        tree = json.loads(con.execute("SELECT json_serialize_sql(?)", [text]).fetchone()[0])
    finally:
        con.close()
    if tree.get("error"):
        raise QueryRefused(f"refused: cannot parse the query ({tree.get('error_message')})")
    for node in _dicts(tree):
        name = node.get("function_name")
        if isinstance(name, str) and function_denied(name):
            _refuse(f"function {name}() reads files, the network or runs SQL text")
        if node.get("type") == "BASE_TABLE" and looks_like_file(str(node.get("table_name", ""))):
            _refuse(f"table {node['table_name']!r} names a file or URL")
        if node.get("type") == "TABLE_FUNCTION":
            for lit in _dicts(node):
                literal = lit.get("literal")
                if isinstance(literal, dict) and looks_like_file(str(literal.get("text", ""))):
                    _refuse(f"table function argument {literal['text']!r} names a file or URL")


def _dicts(value) -> Iterator[dict]:
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from _dicts(v)
    elif isinstance(value, list):
        for v in value:
            yield from _dicts(v)
