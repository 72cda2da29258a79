"""Which measures run on Spark, and why the others do not: measure_catalog.portable and
portable_reason (irwarehouse.store.macros), and what `irw eval --engine spark` refuses by name.

A measure is portable when every macro it reads (its kernel, the macros that calls, and the
builders of its context relations) transpiles to Spark SQL (irwarehouse.spark.dialect), with
the portable rewrites of sql/portable where the warehouse's SQL uses a DuckDB-only construct.
The macros below are those that do not, each with the reason; tests/spark/test_dialect.py
checks this table against the transpiler both ways (every measure said portable transpiles,
every other one fails to). Kept as a plain table, without sqlglot, so that building the
catalog stays cheap.
"""

from __future__ import annotations

from ..sqlfiles import builder, macro_closure
from .catalog import MeasureDef

# macro -> why it has no Spark translation (docs/sql_portability.md)
NOT_PORTABLE: dict[str, str] = {
    "ev_div_pr_ideal": "a recursive CTE whose step ranks the candidates with a window function "
                       "(Spark's WITH RECURSIVE refuses it) and a list comprehension",
}


def macros_read(mdef: MeasureDef) -> set[str]:
    """The names of the macros a measure reads: its kernel's closure and its context
    builders' (a relation without a builder, ev_scope/ev_runs, is built by its own macro)."""
    names = [mdef.kernel]
    for relation in mdef.context:
        names.append(builder(relation).name)
    return {m.name for m in macro_closure(names)}


def measure_portability(mdef: MeasureDef) -> tuple[bool, str | None]:
    """(portable, reason): the reason names the first macro without a Spark translation."""
    for name in sorted(macros_read(mdef)):
        if name in NOT_PORTABLE:
            return False, f"{name}: {NOT_PORTABLE[name]}"
    return True, None
