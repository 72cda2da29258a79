"""`irw schema`: the warehouse's tables, views and table macros with their columns and docs.

Docs come from sql/schema.sql itself: the `--` comment block just above each CREATE statement
(its first line is the one-line doc) and a `-- comment` at the end of a column's line; the
metric macros (irw_<measure>) are documented by measure_catalog (their measure, definition,
source and parameters). Columns come from DuckDB (a fresh in-memory warehouse, or the given
file), so they are never stale. The macros the metric macros are built of (ev_*: the
evaluation context, sql/context.sql; m_*: each measure over it, sql/metrics) are counted, not
listed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import duckdb

from ..sqlfiles import read_sql

_CREATE_RE = re.compile(r"^CREATE\s+(?:OR\s+REPLACE\s+)?(?:TABLE|VIEW|MACRO)\s+"
                        r"(?:IF\s+NOT\s+EXISTS\s+)?(\w+)", re.IGNORECASE)
_COLUMN_RE = re.compile(r"^\s+(\w+)\s+[A-Z].*?--\s*(.+)$")


@dataclass
class Relation:
    name: str
    kind: str                                  # table | view | macro | metric macro
    doc: list[str] = field(default_factory=list)
    columns: list[tuple[str, str, str]] = field(default_factory=list)   # name, type, comment

    @property
    def summary(self) -> str:
        """The comment block's first sentence (lines up to one ending in a full stop), cut to
        one terminal line."""
        lines = []
        for line in self.doc:
            lines.append(line)
            if line.endswith((".", "!", "?")):
                break
        text = " ".join(lines)
        return text if len(text) <= 110 else text[:109] + "…"


def sql_docs(text: str) -> dict[str, tuple[list[str], dict[str, str]]]:
    """name -> (comment block above its CREATE, {column: end-of-line comment})."""
    docs: dict[str, tuple[list[str], dict[str, str]]] = {}
    block: list[str] = []
    current: dict[str, str] | None = None
    for line in text.splitlines():
        m = _CREATE_RE.match(line)
        if m:
            current = {}
            docs[m.group(1)] = ([b for b in block if not b.startswith("====")], current)
            block = []
            continue
        if line.startswith("--"):
            block.append(line[2:].strip())
            continue
        if not line.strip():
            block = []
        col = _COLUMN_RE.match(line)
        if col and current is not None:
            current[col.group(1)] = col.group(2).strip()
        if line.rstrip().endswith(";"):
            current = None
    return docs


# Core objects of schema.sql that carry no comment block of their own (the SQL file's comments
# win whenever they exist).
FALLBACK_DOCS = {
    "campaign": "An evaluation campaign (e.g. trec2003-robust) with its venue and year.",
    "topic": "Topics of a campaign (id, title, description, type).",
    "intent": "Intents (subtopics) of a topic with their probability and type.",
    "doc": "Optional per-document attributes (lengths) used by some metrics.",
    "run": "A submitted run of a campaign with its team and provenance (file, sha256, time).",
    "pool": "A judgment pool built from runs at a depth.",
    "pool_doc": "The documents of a pool with their contributing teams.",
    "run_info": "Runs with their campaign name (original ids, no surrogate keys).",
    "topic_score": "Stored per-topic scores with campaign, run, team, qrels, measure, options.",
    "run_score": "Per-run mean and standard deviation of every stored measure over topics.",
}


INTERNAL_PREFIXES = ("ev_", "m_")


def describe(con: duckdb.DuckDBPyConnection | None = None) -> list[Relation]:
    """Every table, view and table macro of the warehouse's main schema, documented (the
    internal building blocks of the metric macros left out)."""
    own = con is None
    if own:
        from ..store.connection import connect
        con = connect(None)
    try:
        docs = sql_docs(read_sql("schema.sql"))
        metrics = {macro: (measure, doc, source, params) for measure, macro, doc, source, params
                   in con.execute("SELECT measure, macro, doc, source, parameters "
                                  "FROM measure_catalog").fetchall()}
        rels: dict[str, Relation] = {}
        for name, kind in con.execute("""
                SELECT table_name, 'table' FROM duckdb_tables()
                WHERE schema_name = 'main' AND database_name <> 'temp'
                UNION ALL
                SELECT view_name, 'view' FROM duckdb_views()
                WHERE schema_name = 'main' AND database_name <> 'temp' AND NOT internal
                UNION ALL
                SELECT DISTINCT function_name, 'macro' FROM duckdb_functions()
                WHERE schema_name = 'main' AND database_name <> 'temp'
                  AND function_type IN ('table_macro', 'macro')
                  AND NOT internal""").fetchall():
            if kind == "macro" and name.startswith(INTERNAL_PREFIXES):
                continue
            if name in metrics:
                measure, doc, source, params = metrics[name]
                rels[name] = Relation(name, "metric macro",
                                      [f"{measure}: {doc}", f"Source: {source}."],
                                      [(p["name"], p["type"], f"default {p['default']}")
                                       for p in params])
                continue
            doc, comments = docs.get(name, ([], {}))
            if name in FALLBACK_DOCS and (not doc or doc[0].startswith("Analyst views")):
                doc = [FALLBACK_DOCS[name]]
            rels[name] = Relation(name, kind, list(doc))
            if kind == "macro":
                params = con.execute("""
                    SELECT parameters FROM duckdb_functions()
                    WHERE database_name <> 'temp' AND function_name = ? LIMIT 1""",
                                     [name]).fetchall()[0][0]
                rels[name].columns = [(p, "parameter", "") for p in params]
                continue
            for col, typ in con.execute("""
                    SELECT column_name, data_type FROM duckdb_columns()
                    WHERE database_name <> 'temp' AND table_name = ? ORDER BY column_index""",
                                        [name]).fetchall():
                rels[name].columns.append((col, typ, comments.get(col, "")))
    finally:
        if own:
            con.close()
    order = {"table": 0, "view": 1, "macro": 2, "metric macro": 3}
    return sorted(rels.values(), key=lambda r: (order[r.kind], r.name.lower()))


def schema_text(relations: list[Relation], *, name: str | None = None) -> str:
    """The listing: one line per relation and its columns; with `name`, that one in full."""
    out = []
    for rel in relations:
        if name and rel.name != name:
            continue
        out.append(f"{rel.kind} {rel.name}" + (f"  -- {rel.summary}" if rel.summary else ""))
        if name:
            out += [f"  -- {line}" for line in rel.doc[1:]]
        width = max((len(c) for c, _, _ in rel.columns), default=0)
        for col, typ, comment in rel.columns:
            line = f"    {col:<{width}}  {typ}"
            out.append(line + (f"  -- {comment}" if comment else ""))
        out.append("")
    return "\n".join(out)
