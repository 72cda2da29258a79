"""Inline the warehouse's macros into plain SELECTs (sqlglot syntax trees in DuckDB's dialect).

A call of a table macro `FROM m(a, b) x` becomes the subquery `FROM (<body of m>) x` and a
call of a scalar macro `f(a)` the expression `(<body of f>)`, in both cases with every
parameter of the body replaced by the argument bound to it, then the macros the body calls
expanded the same way. That is what DuckDB itself does with a macro: an unqualified name that
is a parameter means the parameter (the reason a column named like a parameter clashes,
README "Metrics as SQL"), and the body's relations resolve in the caller's scope, where the
context relations (ev_ranked, ...) are CTEs. So the inlined SELECT computes what the macro
does, on any engine that has the tables.

Arguments are syntax trees: literals for numbers (validated measure parameters), bound
parameters (`$campaign`) for names a user gives, or whatever an analyst's query passes.
Nothing is formatted into SQL text.

`portable=True` reads a macro's portable rewrite (sql/portable/*.sql) in place of the
warehouse's definition when there is one: the same relation, written without a DuckDB-only
construct (docs/sql_portability.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from sqlglot import exp, parse_one

from ..errors import IrwError, SqlAssetError
from ..sqlfiles import all_macros, macros_in, sql_dir

_BODY_RE = re.compile(r"^CREATE\s+OR\s+REPLACE\s+(?:TEMP\s+)?MACRO\s+\w+\s*\([^)]*\)\s*AS\s+"
                      r"(TABLE\b)?", re.IGNORECASE)


class InlineError(IrwError):
    """A macro call that cannot be expanded (unknown argument, missing argument)."""


@dataclass(frozen=True)
class Macro:
    name: str
    params: tuple[str, ...]
    defaults: dict              # parameter -> default syntax tree (named parameters only)
    table: bool                 # a table macro (AS TABLE) or a scalar one
    body: exp.Expression        # never modified: copied before every use
    source: str                 # the file it comes from


def _parse_body(name: str, sql: str, source: str) -> tuple[bool, exp.Expression]:
    m = _BODY_RE.match(sql)
    if m:
        table, text = bool(m.group(1)), sql[m.end():]
    elif ") AS TABLE\n" in sql:                 # catalog.callable_sql: defaults hold parentheses
        table, text = True, sql.split(") AS TABLE\n", 1)[1]
    else:
        raise SqlAssetError(f"{source}: cannot read the macro {name}")
    text = text.rstrip().rstrip(";")
    tree = parse_one(text if table else f"SELECT {text}", read="duckdb")
    tree = tree.transform(_normalise, copy=False)
    return table, tree if table else tree.selects[0]


INDEX_SHIFTED = "irw_index_shifted"


def mark_index_shift(node: exp.Expression) -> exp.Expression:
    """sqlglot stores the integer index of a DuckDB `x[i]` whose x has no known type as i - 1
    (0-based) and adds the 1 back when it writes DuckDB; it does that to map keys too
    (`gains[-2]` is stored as -3). Mark the brackets it shifted (same test as sqlglot's
    apply_index_offset), so that a rule can recover the index or key as written."""
    if isinstance(node, exp.Bracket) and len(node.expressions) == 1:
        from sqlglot.optimizer.annotate_types import annotate_types
        base, index = node.this, node.expressions[0]
        if base.type is None:
            annotate_types(base, dialect="duckdb")
        if index.type is None:
            annotate_types(index, dialect="duckdb")
        shifted = (base.type.this in (exp.DataType.Type.UNKNOWN, exp.DataType.Type.ARRAY)
                   and index.type.this in exp.DataType.INTEGER_TYPES)
        node.meta[INDEX_SHIFTED] = shifted
    return node


def _normalise(node: exp.Expression) -> exp.Expression:
    """What sqlglot reads but cannot write back: the empty map `MAP {}` (read as a map of an
    empty struct) becomes MAP([], []). Brackets are marked (mark_index_shift)."""
    if isinstance(node, exp.Bracket):
        return mark_index_shift(node)
    if isinstance(node, exp.ToMap) and isinstance(node.this, exp.Struct) \
            and not node.this.expressions:
        return exp.Map(keys=exp.Array(expressions=[]), values=exp.Array(expressions=[]))
    return node


def _from_files(defs, source_of) -> dict[str, Macro]:
    out = {}
    for mdef in defs:
        table, body = _parse_body(mdef.name, mdef.sql, source_of(mdef))
        out[mdef.name.lower()] = Macro(mdef.name, tuple(a.lower() for a in mdef.args), {},
                                       table, body, source_of(mdef))
    return out


def portable_dir() -> Path:
    return sql_dir() / "portable"


@lru_cache(maxsize=1)
def portable_rewrites() -> dict[str, Macro]:
    """The portable rewrites of sql/portable/*.sql, by macro name (lower case)."""
    defs = [m for path in sorted(portable_dir().glob("*.sql")) for m in macros_in(path)]
    out = _from_files(defs, lambda m: f"portable/{m.file}.sql")
    unknown = sorted(set(out) - {n.lower() for n in all_macros()})
    if unknown:
        raise SqlAssetError(f"sql/portable rewrites macros that do not exist: {unknown}")
    return out


@lru_cache(maxsize=1)
def warehouse_macros() -> dict[str, Macro]:
    """The macros of sql/context.sql and sql/metrics/*.sql as DuckDB runs them."""
    return _from_files(all_macros().values(),
                       lambda m: "context.sql" if m.file == "context" else
                       f"metrics/{m.file}.sql")


def _default_tree(sql_type: str, text: str) -> exp.Expression:
    """A parameter default of a metric macro (store.macros.callable_params) as a syntax tree; MAP
    literals `MAP {1: 4.0}` are built here (sqlglot does not read integer-keyed ones)."""
    if text.startswith("MAP {"):
        pairs = [p.split(":") for p in text[len("MAP {"):-1].split(",") if p.strip()]
        return map_tree({int(k): float(v) for k, v in pairs})
    return parse_one(f"SELECT {text}", read="duckdb").selects[0]


@cache
def metric_macro(name: str) -> Macro | None:
    """The metric macro an analyst calls, irw_<measure>, as store.macros.callable_sql writes
    it."""
    from ..measures import registry
    from ..store.macros import callable_params, callable_sql
    for mdef in registry().values():
        if mdef.macro.lower() == name.lower():
            params = [("campaign", "VARCHAR", None)] + callable_params(mdef)
            # relevant_row is not exported to Spark: the macro that ranks every run
            _, body = _parse_body(mdef.macro, callable_sql(mdef, stored_rows=False),
                                  "catalog.py")
            # SQL names are case-insensitive (cwl's T): parameters kept in lower case, as
            # _from_files keeps them
            defaults = {n.lower(): _default_tree(t, d) for n, t, d in params if d is not None}
            return Macro(mdef.macro, tuple(n.lower() for n, _, _ in params), defaults, True,
                         body, "store/macros.py")
    return None


def map_tree(pairs: dict) -> exp.Expression:
    """MAP(level -> value) as `MAP([k, ...], [v, ...])`, keys in the order given (the order of
    trec_eval's gain table; sql/metrics/gain.sql)."""
    return exp.Map(keys=exp.Array(expressions=[exp.Literal.number(int(k)) for k in pairs]),
                   values=exp.Array(expressions=[exp.Literal.number(repr(float(v)))
                                                 for v in pairs.values()]))


def value_tree(value) -> exp.Expression:
    """A Python value of a measure parameter or option as a literal syntax tree."""
    if value is None:
        return exp.Null()
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, int):
        return exp.Literal.number(value)
    if isinstance(value, float):
        return exp.Literal.number(repr(value))
    if isinstance(value, str):
        return exp.Literal.string(value)
    if isinstance(value, dict):
        return map_tree(value)
    if isinstance(value, (list, tuple)):
        return exp.Array(expressions=[value_tree(v) for v in value])
    raise InlineError(f"cannot pass {value!r} to a macro")


class Inliner:
    """Expands macro calls. `portable`: use the rewrites of sql/portable where they exist.

    `seen`, when given, is a set that collects the key (macro, bound arguments) of every table
    macro call expanded. `shared` maps some keys to the name of a relation that holds the
    call's rows, or to None until `materialise(key, tree) -> name` has made that relation:
    a call with such a key becomes a reference to the relation (an engine without DuckDB's
    speed computes a building block several measures share, e.g. ntcir_list, only once)."""

    def __init__(self, *, portable: bool = True, seen: set | None = None,
                 shared: dict | None = None, materialise=None):
        self.macros = dict(warehouse_macros())
        if portable:
            self.macros.update(portable_rewrites())
        self.seen, self.shared, self.materialise = seen, shared, materialise
        # expansions by key, with the keys of the calls inside them: measures share most of
        # their building blocks, and expanding one is the bulk of the time
        self._bodies: dict = {}
        self._open: list[set] = []

    def lookup(self, name: str) -> Macro | None:
        low = name.lower()
        if low in self.macros:
            return self.macros[low]
        if low.startswith("irw_"):
            return metric_macro(low)
        return None

    def call(self, name: str, args=(), kwargs=None) -> exp.Expression:
        """The body of macro `name` with `args` (positional) and `kwargs` bound, every macro
        it calls expanded."""
        macro = self.lookup(name)
        if macro is None:
            raise InlineError(f"no macro {name!r}")
        return self._expand_body(macro, self._bind(macro, list(args), dict(kwargs or {})))

    def expand(self, tree: exp.Expression) -> exp.Expression:
        """`tree` (not modified) with every macro call in it expanded."""
        return self._expand_calls(tree.copy())

    # -- internals ------------------------------------------------------------------------
    def _bind(self, macro: Macro, args: list, kwargs: dict) -> dict:
        named = {}
        for arg in args:
            if isinstance(arg, (exp.PropertyEQ, exp.Kwarg)):
                named[arg.this.name.lower()] = arg.expression
        positional = [a for a in args if not isinstance(a, (exp.PropertyEQ, exp.Kwarg))]
        named.update({k.lower(): v for k, v in kwargs.items()})
        if len(positional) > len(macro.params):
            raise InlineError(f"{macro.name} takes {len(macro.params)} arguments, "
                              f"got {len(positional)}")
        bound = dict(zip(macro.params, positional))
        for key, value in named.items():
            if key not in macro.params:
                raise InlineError(f"{macro.name} has no parameter {key!r}")
            if key in bound:
                raise InlineError(f"{macro.name}: {key} given twice")
            bound[key] = value
        for param in macro.params:
            if param not in bound:
                if param not in macro.defaults:
                    raise InlineError(f"{macro.name}: give {param}")
                bound[param] = macro.defaults[param]
        return bound

    def _table_call(self, macro: Macro, args: list, alias) -> exp.Expression:
        bound = self._bind(macro, list(args), {})
        key = (macro.name.lower(), tuple(bound[p].sql(dialect="duckdb") for p in macro.params))
        self._record({key})
        alias = (alias or exp.TableAlias(this=exp.to_identifier(macro.name))).copy()
        if self.shared is not None and key in self.shared:
            if self.shared[key] is None:
                self.shared[key] = self.materialise(key, self._expanded(macro, bound, key))
            return exp.Table(this=exp.to_identifier(self.shared[key]), alias=alias)
        return exp.Subquery(this=self._expanded(macro, bound, key), alias=alias)

    def _record(self, keys: set) -> None:
        for open_call in self._open:
            open_call.update(keys)
        if self.seen is not None:
            self.seen.update(keys)

    def _expanded(self, macro: Macro, bound: dict, key) -> exp.Expression:
        """The expanded body of a table macro call, once per key."""
        if key in self._bodies:
            body, inner = self._bodies[key]
            self._record(inner)
            return body.copy()
        self._open.append(set())
        try:
            body = self._expand_body(macro, bound)
        finally:
            inner = self._open.pop()
        self._bodies[key] = (body, inner)
        return body.copy()

    def _expand_body(self, macro: Macro, bound: dict) -> exp.Expression:
        def substitute(node):
            if isinstance(node, exp.Column) and not node.table and node.name.lower() in bound:
                return bound[node.name.lower()].copy()
            return node
        body = macro.body.copy().transform(substitute, copy=False)
        return self._expand_calls(body)

    def _expand_calls(self, tree: exp.Expression) -> exp.Expression:
        def expand(node):
            if isinstance(node, exp.Table) and isinstance(node.this, exp.Anonymous):
                macro = self.lookup(node.this.name)
                if macro is not None:
                    if not macro.table:
                        raise InlineError(f"{macro.name} is a scalar macro, not a table")
                    return self._table_call(macro, node.this.expressions,
                                            node.args.get("alias"))
            if isinstance(node, exp.Anonymous):
                macro = self.lookup(node.name)
                if macro is not None:
                    if macro.table:
                        raise InlineError(f"{macro.name} is a table macro: use it in FROM")
                    return exp.Paren(this=self.call(macro.name, node.expressions))
            return node
        return tree.transform(expand, copy=False)


# -- constant folding -------------------------------------------------------------------------

_FOLDABLE = {exp.DataType.Type.INT: "int", exp.DataType.Type.BIGINT: "int",
             exp.DataType.Type.BOOLEAN: "bool", exp.DataType.Type.VARCHAR: "str",
             exp.DataType.Type.TEXT: "str"}


def _fold_cast(node: exp.Expression) -> exp.Expression:
    """CAST(<literal> AS <its own type>) is the literal; CAST(NULL AS <scalar>) is NULL where
    it is compared or tested (a projected NULL keeps its type: it types a column). The metric
    macros cast every parameter, and a cast hides a constant from simplify()."""
    if not isinstance(node, exp.Cast) or node.to.this not in _FOLDABLE:
        return node
    kind, value = _FOLDABLE[node.to.this], node.this
    if isinstance(value, exp.Null):
        tested = isinstance(node.parent, (exp.Is, exp.Predicate, exp.Coalesce, exp.Least,
                                          exp.Greatest))
        return value if tested else node
    if kind == "bool" and isinstance(value, exp.Boolean):
        return value
    if kind == "str" and isinstance(value, exp.Literal) and value.is_string:
        return value
    if kind == "int" and isinstance(value, exp.Literal) and not value.is_string \
            and value.this.lstrip("-").isdigit():
        return value
    return node


def fold_constants(tree: exp.Expression) -> exp.Expression:
    """The inlined SELECT with its constant conditions decided: once the options are literals,
    most branches of the context builders are dead (`CASE WHEN false THEN ...`, the -J and -c
    paths, the checks of valid options), and an engine that plans the SQL need not plan them.
    Casts of literals are folded first, then sqlglot's simplify() decides the rest."""
    from sqlglot.optimizer.simplify import simplify
    tree = tree.transform(_fold_cast)
    return simplify(tree)
