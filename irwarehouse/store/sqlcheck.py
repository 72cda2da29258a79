"""Static checks of the project's SQL with sqlglot (run by the test suite): every macro of
sql/context.sql and sql/metrics parses as DuckDB SQL, uses each of its parameters, reads only
warehouse tables, evaluation-context relations or CTEs of its own, and calls only macros that
are defined. DuckDB still runs the file text itself (sqlglot cannot round-trip
`param := default`)."""

from __future__ import annotations

from dataclasses import dataclass

import sqlglot
from sqlglot import exp

from ..sqlfiles import all_macros, context_relations, read_sql

# irw eval's own TEMP tables besides the context relations (irwarehouse.engine.evaluate)
EVAL_TABLES = {"ev_scores", "ev_measures", "ev_summary"}


@dataclass(frozen=True)
class Problem:
    file: str
    macro: str
    message: str

    def __str__(self):
        return f"{self.file}: {self.macro}: {self.message}"


def _warehouse_tables() -> set[str]:
    tables = set()
    for stmt in sqlglot.parse(read_sql("schema.sql"), read="duckdb"):
        if isinstance(stmt, exp.Create) and stmt.args.get("kind") in ("TABLE", "VIEW"):
            tables.add(stmt.this.this.name if isinstance(stmt.this, exp.Schema)
                       else stmt.this.name)
    return tables


def _macros():
    for mdef in all_macros().values():
        stmt = sqlglot.parse_one(mdef.sql, read="duckdb")
        if isinstance(stmt, exp.Create) and stmt.args.get("kind") == "MACRO":
            udf = stmt.this
            yield f"{mdef.file}.sql", udf.this.name, [p.name for p in udf.expressions], \
                stmt.expression


def check() -> list[Problem]:
    problems = []
    macros = list(_macros())
    macro_names = {name.lower() for _, name, _, _ in macros}
    known_tables = _warehouse_tables() | set(context_relations()) | EVAL_TABLES
    for file, name, params, body in macros:
        names_used = {c.name for c in body.find_all(exp.Column)} | {
            i.name for i in body.find_all(exp.Identifier)}
        for p in params:
            if p not in names_used:
                problems.append(Problem(file, name, f"parameter {p!r} is never used"))
        ctes = {c.alias for c in body.find_all(exp.CTE)}
        for table in body.find_all(exp.Table):
            tname = table.name
            if tname and tname not in known_tables and tname not in ctes:
                problems.append(Problem(file, name, f"reads unknown table {tname!r}"))
        for call in body.find_all(exp.Anonymous):
            fname = call.name.lower()
            if fname.startswith("ev_") and fname not in macro_names:
                problems.append(Problem(file, name, f"calls undefined macro {call.name!r}"))
    return problems
