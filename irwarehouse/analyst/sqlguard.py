"""Checks that an analyst's SQL text is exactly one read-only query before `irw sql` runs it.

Two independent parsers look at the text, and both must agree that it is harmless:

1. sqlglot (dialect duckdb): exactly one statement whose root is a query (SELECT, WITH, VALUES,
   set operations, DESCRIBE, SHOW, SUMMARIZE, PIVOT, UNPIVOT); no DDL/DML/COPY/ATTACH/... node
   anywhere in the tree; no file, network or code-executing function (`read_csv`, `glob`,
   `query`, ...); no table reference that looks like a file path or URL (DuckDB's replacement
   scans read `FROM 'x.csv'`, also with a suffix: `'x.csv?x'`, `'x.parquet#y'`).
2. DuckDB's own parser (`extract_statements`, `json_serialize_sql`): exactly one statement of
   type SELECT, and the same function and table checks on its parse tree, so a text that sqlglot
   reads differently from DuckDB (comments, dialect corners) cannot slip through. A PIVOT whose
   columns come from the data is DuckDB's one multi-statement query (it makes the list of
   columns first): its tree is checked with a placeholder column list (sqlglot writes it).

`EXPLAIN [ANALYZE] query` is checked as the query it explains (DuckDB's tokenizer finds where
that query starts, and DuckDB's parser must read the whole text as one EXPLAIN). A text nested
too deeply for either parser is refused, never a crash.

The caller adds a third wall: a read-only connection with `enable_external_access = false`
and a locked configuration (see `query.open_guarded`).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator

from ..errors import IrwError
from ..failures import first_line


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
                "Summarize", "Subquery", "Pivot")
# Nodes that must not appear anywhere inside a query (e.g. a data-modifying CTE).
_WRITE_NODES = ("Create", "Drop", "Insert", "Update", "Delete", "Merge", "Copy", "Attach",
                "Detach", "Install", "Pragma", "Set", "Command", "Use", "Transaction", "Commit",
                "Rollback", "Alter", "TruncateTable", "LoadData", "Export", "Import")

_URL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)
# A file extension anywhere, followed by anything or nothing: DuckDB's readers take
# `x.csv?x`, `x.csv.gz`, `x.parquet#frag` as files.
_FILE_EXT = re.compile(r"\.(csv|tsv|txt|json|jsonl|ndjson|parquet|arrow|feather|ipc|db|duckdb|"
                       r"sqlite|sqlite3|xlsx|xls|gz|zst|bz2|xz|avro|orc|wal|lance|delta|"
                       r"iceberg)(?![a-z0-9_])", re.IGNORECASE)
# Characters no warehouse relation has but paths, globs and URLs do.
_PATH_CHARS = set("/\\~?*[]{}:#%")


def function_denied(name: str) -> bool:
    name = name.lower().strip('"')
    return (name in DENIED_FUNCTIONS or name.startswith(DENIED_PREFIXES)
            or name.endswith(DENIED_SUFFIXES))


def looks_like_file(text: str) -> bool:
    """A table name or argument that names a file, glob or URL rather than a warehouse
    relation: a URL scheme, a path, glob or query character, or a file extension with any
    suffix. (Warehouse relations are plain identifiers, so refusing more is harmless.)"""
    return bool(_URL.match(text) or _PATH_CHARS & set(text) or _FILE_EXT.search(text))


def check_query(text: str) -> None:
    """Raise QueryRefused unless `text` is exactly one read-only query (or the EXPLAIN of
    one)."""
    if not text or not text.strip():
        raise QueryRefused("empty query")
    _check_size(text)
    try:
        explained = _explained(text)
        if explained is not None:
            _check_with_duckdb_statements(text, kind="EXPLAIN")
            check_query(explained)
            return
        pivot = _check_with_duckdb_statements(text)
        if pivot == "tokens":           # a PIVOT sqlglot cannot read: DuckDB's tokens checked
            return
        _check_with_sqlglot(text)
        _check_with_duckdb_tree(_with_pivot_columns(text) if pivot else text)
    except RecursionError:
        raise QueryRefused("refused: the query is nested too deeply to be checked") from None


_WORD = re.compile(rb"\w+|\S")
# The size of a query DuckDB is asked to plan: planning cannot be interrupted and its memory is
# not under --memory-limit (a UNION ALL of 8,000 branches took 24 s and 1.9 GB at --timeout 5
# --memory-limit 200MB), so larger queries are refused before DuckDB plans them. A query of
# 1,000 branches is planned in about 1 s; 20,000 tokens is ten pages of SQL.
MAX_TOKENS = 20_000
MAX_BRANCHES = 1_000            # SELECTs joined by UNION, INTERSECT, EXCEPT
MAX_JOINED = 64                 # relations joined in one FROM (100 took 3 s to plan, 200 26 s)
_SET_OPERATIONS = frozenset({b"UNION", b"INTERSECT", b"EXCEPT"})


def _check_size(text: str) -> None:
    """Refuse a query too large to plan within its limits (MAX_TOKENS, MAX_BRANCHES), with
    DuckDB's tokenizer (0.1 s for 200,000 tokens)."""
    import duckdb
    try:
        tokens = duckdb.tokenize(text)
    except duckdb.Error:
        return                          # a parse error: the checks below name it
    data = text.encode("utf-8")
    branches = 1 + sum(1 for pos, kind in tokens if "keyword" in str(kind)
                       and data[pos:pos + 9].split(None, 1)[0].upper() in _SET_OPERATIONS)
    if branches > MAX_BRANCHES:
        _refuse_size(f"{branches:,} UNION/INTERSECT/EXCEPT branches (at most {MAX_BRANCHES:,})")
    if len(tokens) > MAX_TOKENS:
        _refuse_size(f"{len(tokens):,} tokens (at most {MAX_TOKENS:,})")


def _refuse_size(what: str) -> None:
    raise QueryRefused(f"refused: the query is too large to plan within its limits ({what}); "
                       "split it, or put long lists of values in a table (irw sql --write) "
                       "and join it")


def _explained(text: str) -> str | None:
    """The query of `EXPLAIN [ANALYZE|ANALYSE] [(FORMAT name)] query`, found with DuckDB's
    own tokenizer (comments skipped); None when `text` is not an EXPLAIN."""
    import duckdb
    try:
        tokens = [pos for pos, kind in duckdb.tokenize(text) if "comment" not in str(kind)]
    except duckdb.Error:
        return None
    data = text.encode("utf-8")         # tokenize gives byte offsets
    # matched in place (a slice per token made a 100,000-token query quadratic)
    words = [m.group(0).decode("utf-8", "replace").upper() if m else ""
             for m in (_WORD.match(data, pos) for pos in tokens)]
    if not words or words[0] != "EXPLAIN":
        return None
    k = 1
    if k < len(words) and words[k] in ("ANALYZE", "ANALYSE"):
        k += 1
    if words[k:k + 2] == ["(", "FORMAT"] and k + 3 < len(words) and words[k + 3] == ")":
        k += 4
    return data[tokens[k]:].decode("utf-8") if k < len(tokens) else ""


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
def _parse(text: str) -> list:
    """sqlglot's statements of `text` (its "falling back to Command" notice is ours to give)."""
    import sqlglot
    logger = logging.getLogger("sqlglot")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        return [s for s in sqlglot.parse(text, read="duckdb") if s is not None]
    finally:
        logger.setLevel(level)


def _check_with_sqlglot(text: str) -> None:
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        statements = _parse(text)
    except SqlglotError as exc:
        first = first_line(str(exc)) or type(exc).__name__
        raise QueryRefused(f"refused: cannot parse the query ({first})") from None
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
def _check_with_duckdb_statements(text: str, kind: str = "SELECT") -> bool:
    """DuckDB reads `text` as one statement of `kind`; returns whether it is DuckDB's
    multi-statement form of a PIVOT (checked further by the other two checks)."""
    import duckdb

    con = duckdb.connect(":memory:")
    try:
        statements = con.extract_statements(text)
    except duckdb.Error as exc:
        first = first_line(str(exc))
        if "expression depth" in first:
            # DuckDB 2 stops at its own depth limit before Python's recursion limit is reached.
            raise QueryRefused("refused: the query is nested too deeply to be checked "
                               f"({first.split('. ')[0]})") from None
        raise QueryRefused(f"refused: cannot parse the query ({first})") from None
    finally:
        con.close()
    if len(statements) != 1:
        _refuse(f"{len(statements)} statements (only one query at a time)")
    found = str(statements[0].type).rsplit(".", 1)[-1]
    if kind == "SELECT" and found == "MULTI" and _has_dynamic_pivot(text):
        return True
    if kind == "SELECT" and found == "MULTI" and _pivot_by_tokens(text):
        return "tokens"
    if found != kind:
        _refuse(f"{_first_keyword(text)} is not a read-only query")
    return False


# Keywords that no read-only query holds (a dynamic PIVOT checked token by token).
_WRITE_KEYWORDS = frozenset({
    "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "ALTER", "COPY", "ATTACH", "DETACH",
    "INSTALL", "LOAD", "PRAGMA", "SET", "RESET", "CALL", "EXPORT", "IMPORT", "CHECKPOINT",
    "VACUUM", "USE", "BEGIN", "COMMIT", "ROLLBACK", "TRUNCATE", "MERGE", "GRANT", "PREPARE",
    "EXECUTE"})


def _pivot_by_tokens(text: str) -> bool:
    """A dynamic PIVOT that sqlglot cannot read (DuckDB's `PIVOT ... GROUP BY ... ORDER BY ...
    LIMIT`, `WITH ... PIVOT ...`), checked with DuckDB's tokenizer: it starts with PIVOT or
    WITH, holds PIVOT, and has no writing keyword, no denied function and no string naming a
    file or URL; the read-only connection without external access is the wall behind it.
    False when it is not such a PIVOT; a refusal when it holds what a query must not."""
    import duckdb
    try:
        tokens = duckdb.tokenize(text)
    except duckdb.Error:
        return False
    words = []
    for i, (pos, kind) in enumerate(tokens):
        end = tokens[i + 1][0] if i + 1 < len(tokens) else len(text)
        words.append((text[pos:end].strip(), str(kind).rsplit(".", 1)[-1]))
    words = [(w, k) for w, k in words if k != "comment"]
    upper = [w.upper() for w, _ in words]
    if not upper or upper[0] not in ("PIVOT", "WITH") or "PIVOT" not in upper:
        return False
    for i, (word, kind) in enumerate(words):
        if kind == "keyword" and word.upper() in _WRITE_KEYWORDS:
            _refuse(f"{word.upper()} inside the query")
        if kind == "identifier" and i + 1 < len(words) and words[i + 1][0].startswith("(") \
                and function_denied(word):
            _refuse(f"function {word.lower()}() reads files, the network or runs SQL text")
        if kind == "string_const" and looks_like_file(word.strip("'")):
            _refuse(f"{word} names a file or URL")
    return True


def _dynamic_pivots(root):
    """The PIVOT nodes of a sqlglot tree whose columns come from the data (an ON column
    without IN list)."""
    from sqlglot import exp
    for node in root.find_all(exp.Pivot):
        if not node.args.get("unpivot") and any(not isinstance(e, exp.In)
                                                 for e in node.expressions):
            yield node


def _has_dynamic_pivot(text: str) -> bool:
    from sqlglot.errors import SqlglotError
    try:
        roots = _parse(text)
    except SqlglotError:
        return False
    return len(roots) == 1 and any(True for _ in _dynamic_pivots(roots[0]))


def _with_pivot_columns(text: str) -> str:
    """`text` with a placeholder IN list on every dynamic PIVOT column: the one-statement
    SELECT DuckDB can show as a tree (the tree's functions and tables are the same)."""
    from sqlglot import exp
    (root,) = _parse(text)
    for pivot in list(_dynamic_pivots(root)):
        pivot.set("expressions", [e if isinstance(e, exp.In) else
                                  exp.In(this=e, expressions=[exp.Literal.string("irw")])
                                  for e in pivot.expressions])
    rewritten = root.sql(dialect="duckdb")
    if _check_with_duckdb_statements(rewritten):
        _refuse("PIVOT that DuckDB does not read as one query")
    return rewritten


def _check_with_duckdb_tree(text: str) -> None:
    import duckdb

    con = duckdb.connect(":memory:")
    try:
        tree = json.loads(con.execute("SELECT json_serialize_sql(?)", [text]).fetchone()[0])
    finally:
        con.close()
    if tree.get("error"):
        raise QueryRefused(f"refused: cannot parse the query ({tree.get('error_message')})")
    joined = max((_joined(node) for node in _join_trees(tree)), default=0)
    if joined > MAX_JOINED:
        _refuse_size(f"{joined} relations joined in one FROM (at most {MAX_JOINED})")
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


def _join_trees(value, in_join: bool = False) -> Iterator[dict]:
    """The JOIN nodes of DuckDB's tree that are the root of a join (a FROM's relations)."""
    if isinstance(value, dict):
        is_join = value.get("type") == "JOIN"
        if is_join and not in_join:
            yield value
        for key, v in value.items():
            yield from _join_trees(v, is_join and key in ("left", "right"))
    elif isinstance(value, list):
        for v in value:
            yield from _join_trees(v)


def _joined(join: dict) -> int:
    """The number of relations a join tree joins."""
    return sum(_joined(side) if side.get("type") == "JOIN" else 1
               for side in (join.get("left") or {}, join.get("right") or {}))


def _dicts(value) -> Iterator[dict]:
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from _dicts(v)
    elif isinstance(value, list):
        for v in value:
            yield from _dicts(v)
