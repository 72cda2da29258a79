"""From an inlined SELECT (DuckDB's dialect, irwarehouse.spark.inline) to Spark SQL.

sqlglot's DuckDB -> Spark transpiler does most of the work (CTEs, windows, FILTER, casts,
QUALIFY, FROM-first). The rules below cover what it gets wrong or passes through unchanged;
each is one entry of docs/sql_portability.md, which lists every DuckDB-only construct of the
metric SQL and how it is handled. A construct with neither a rule nor a portable rewrite raises
NotPortable, whose reason the catalog records (measure_catalog.portable, portable_reason).
"""

from __future__ import annotations

from typing import ClassVar

from sqlglot import exp
from sqlglot.dialects.spark import Spark
from sqlglot.generators.spark import SparkGenerator

from ..errors import IrwError


class SparkSQL(Spark):
    """Spark 3+ SQL as sqlglot writes it, but keeping CTEs nested where they are: sqlglot's
    Spark inherits Hive's habit of moving every CTE to the top, which merges same-named CTEs of
    different macros (`listed`, `ranked`, ...)."""

    class Generator(SparkGenerator):
        EXPRESSIONS_WITHOUT_NESTED_CTES: ClassVar[frozenset] = frozenset()


class NotPortable(IrwError):
    """SQL that has no Spark translation (the reason says which construct)."""


# Functions the rules emit or let through that sqlglot does not know as such (it keeps them as
# anonymous calls); the round-trip test checks every anonymous call of the Spark SQL against
# this list, and the Spark tests check the list against Spark's SHOW FUNCTIONS.
SPARK_FUNCTIONS = frozenset({"map_keys", "map_values", "size", "slice", "range", "raise_error", "try_element_at", "map_from_arrays", "aggregate",
                             "array_repeat", "sequence", "explode", "struct", "named_struct",
                             "array_sort", "sort_array", "transform", "isnan", "bool_or", "power", "ln",
                             "log2", "array", "map", "listagg", "collect_list", "element_at"})


def _call(name: str, *args) -> exp.Anonymous:
    return exp.Anonymous(this=name, expressions=list(args))


def _num(x) -> exp.Literal:
    return exp.Literal.number(x)


def _double(node: exp.Expression) -> exp.Cast:
    return exp.Cast(this=node, to=exp.DataType.build("DOUBLE"))


def _is_map(node: exp.Expression) -> bool:
    """Whether an indexed value is a map (the `gains` parameters, bound to map literals or
    NULL) rather than a list (DuckDB lists are 1-based, Spark arrays 0-based)."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, (exp.Map, exp.VarMap, exp.ToMap, exp.Null)):
        return True
    if isinstance(node, exp.Cast):
        return node.to.is_type(exp.DataType.Type.MAP) or _is_map(node.this)
    return False


def _is_list(node: exp.Expression) -> bool:
    """Whether a len() argument is a list (the metric SQL takes len() of lists only of map
    keys/values and of list parameters)."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, (exp.MapKeys, exp.Array)):
        return True
    if isinstance(node, exp.Anonymous) and node.name.lower() in ("map_keys", "map_values"):
        return True
    return isinstance(node, exp.Cast) and node.to.is_type(exp.DataType.Type.ARRAY)


def _empty_guarded_sequence(start: exp.Expression, end: exp.Expression) -> exp.Expression:
    """DuckDB's generate_series(a, b) is empty when b < a; Spark's sequence(a, b) then counts
    down: guard it."""
    return exp.If(this=exp.LT(this=end.copy(), expression=start.copy()),
                  true=_call("array"), false=_call("sequence", start, end))


# -- rules on single nodes ------------------------------------------------------------------

def _literal(node: exp.Literal) -> exp.Expression:
    """A decimal literal (0.5, 1e-5) is a DECIMAL in Spark, whose division keeps 6 digits
    (1.0/3 = 0.333333); DuckDB divides decimals as doubles. Literals become DOUBLE."""
    text = node.this
    if node.is_string or not any(c in text for c in ".eE"):
        return node
    if isinstance(node.parent, exp.Cast) and node.parent.to.is_type(exp.DataType.Type.DOUBLE):
        return node
    return _double(node)


def _division(node: exp.Div) -> exp.Expression:
    """DuckDB divides as IEEE doubles (x/0 = inf, 0/0 = NaN); Spark gives NULL (or, ANSI, an
    error). Keep the IEEE result: x * power(0, -1) is +-inf or NaN as x/0 is."""
    num, den = node.this, node.expression
    if isinstance(den, exp.Literal) and not den.is_string and float(den.this) != 0:
        return node
    if isinstance(den, exp.Cast) and isinstance(den.this, exp.Literal) \
            and not den.this.is_string and float(den.this.this) != 0:
        return node
    by_zero = exp.Mul(this=exp.Paren(this=num.copy()),
                      expression=_call("power", den.copy(), _num(-1)))
    return exp.Case(ifs=[exp.If(this=exp.EQ(this=den.copy(), expression=_num(0)), true=by_zero)],
                    default=exp.Div(this=num, expression=den))


def _bracket(node: exp.Bracket) -> exp.Expression:
    """m[k] of a map stays m[k]; l[i] of a list is 1-based in DuckDB: try_element_at (1-based,
    NULL out of range as in DuckDB). The index or key is the one written in the DuckDB SQL
    (inline.mark_index_shift)."""
    from .inline import INDEX_SHIFTED
    if len(node.expressions) != 1:
        raise NotPortable("list slices")
    if INDEX_SHIFTED not in node.meta:
        raise NotPortable("an index whose base sqlglot could not type")
    index = node.expressions[0]
    if node.meta[INDEX_SHIFTED]:
        from sqlglot.optimizer.simplify import simplify
        index = simplify(exp.Add(this=exp.Paren(this=index), expression=_num(1)))
    if _is_map(node.this):
        return exp.Bracket(this=node.this, expressions=[index])
    return _call("try_element_at", node.this, exp.Cast(this=index, to=exp.DataType.build("INT")))


def _product(node: exp.Expression) -> exp.Expression:
    """product(x) (no Spark function): exp(sum(ln|x|)) with the sign and zeros kept; the same
    aggregate or window (the OVER clause is reapplied by the caller)."""
    x = node.expressions[0]
    zeros = exp.Min(this=exp.Abs(this=x.copy()))
    negatives = exp.Sum(this=exp.Case(ifs=[exp.If(this=exp.LT(this=x.copy(), expression=_num(0)),
                                                  true=_num(1))], default=_num(0)))
    log_magnitude = exp.Sum(this=exp.Ln(this=exp.Abs(this=x.copy())))
    return zeros, negatives, log_magnitude


def _window_product(node: exp.Window) -> exp.Expression:
    zeros, negatives, log_magnitude = _product(node.this)

    def over(agg):
        w = node.copy()
        w.set("this", agg)
        return w
    sign = exp.Case(ifs=[exp.If(this=exp.EQ(this=exp.Mod(this=over(negatives), expression=_num(2)),
                                            expression=_num(1)), true=_num(-1))],
                    default=_num(1))
    return exp.Case(ifs=[exp.If(this=exp.EQ(this=over(zeros), expression=_num(0)),
                                true=_double(_num("0.0")))],
                    default=exp.Mul(this=exp.Exp(this=over(log_magnitude)), expression=sign))


_RENAMES = {"error": "raise_error"}
_PASS = {"ln", "log2", "power", "isnan", "bool_or", "map_keys", "map_values"}


def _anonymous(node: exp.Anonymous) -> exp.Expression:
    name = node.name.lower()
    args = node.expressions
    if name in _RENAMES:
        return _call(_RENAMES[name], *args)
    if name == "list_sum":
        return _call("aggregate", args[0], _double(_num("0.0")),
                     exp.Lambda(this=exp.Add(this=exp.to_identifier("a"),
                                             expression=exp.to_identifier("x")),
                                expressions=[exp.to_identifier("a"), exp.to_identifier("x")]))
    if name == "list_reduce":
        return _list_reduce(args)
    if name in _PASS or name in SPARK_FUNCTIONS:
        return node
    raise NotPortable(f"the DuckDB function {node.name}()")


def _full_match(node: exp.Expression) -> exp.Expression:
    """regexp_full_match(x, p): x RLIKE '^(?:p)$' (RLIKE finds the pattern anywhere)."""
    pattern = node.expression
    if not (isinstance(pattern, exp.Literal) and pattern.is_string):
        raise NotPortable("regexp_full_match with a computed pattern")
    return exp.RegexpLike(this=node.this, expression=exp.Literal.string(f"^(?:{pattern.this})$"))


def _list_reduce(args) -> exp.Expression:
    """list_reduce(l, f[, initial]) -> aggregate(l, initial, f); without an initial value the
    fold starts at the first element."""
    lst, fn = args[0], args[1]
    if len(args) == 3:
        return _call("aggregate", lst, args[2], fn)
    rest = _call("slice", lst.copy(), _num(2), _call("size", lst.copy()))
    return _call("aggregate", rest, _call("element_at", lst, _num(1)), fn)


def _transform(node: exp.Transform) -> exp.Expression:
    """list_transform(l, lambda x, i: ...): DuckDB's index i counts from 1, Spark's from 0."""
    fn = node.expression
    if isinstance(fn, exp.Lambda) and len(fn.expressions) == 2:
        index = fn.expressions[1].name
        body = fn.this.transform(
            lambda n: exp.Paren(this=exp.Add(this=n.copy(), expression=_num(1)))
            if isinstance(n, exp.Identifier) and n.name == index
            and not isinstance(n.parent, (exp.Column, exp.Dot, exp.TableAlias)) else n)
        fn.set("this", body)
    return node


def _list_agg(node: exp.ArrayAgg, where: exp.Where | None = None) -> exp.Expression:
    """list(x ORDER BY s): sqlglot writes collect_list(x) and drops the order (Spark's has
    none): sort (s, x) pairs, then keep x. Ascending keys only (all the metric SQL uses).
    `where`: the FILTER (WHERE ...) of the aggregate, kept on the pairs' collect_list."""
    inner = node.this
    if not isinstance(inner, exp.Order):
        return node
    keys = inner.expressions
    if any(k.args.get("desc") for k in keys):
        raise NotPortable("list(... ORDER BY ... DESC)")
    fields = [exp.PropertyEQ(this=exp.to_identifier(f"k{i}"), expression=k.this.copy())
              for i, k in enumerate(keys)]
    fields.append(exp.PropertyEQ(this=exp.to_identifier("v"), expression=inner.this.copy()))
    pairs = exp.ArrayAgg(this=exp.Struct(expressions=fields))
    if where is not None:
        pairs = exp.Filter(this=pairs, expression=where.copy())
    return exp.Transform(this=_call("sort_array", pairs),
                         expression=exp.Lambda(this=exp.Dot(this=exp.to_identifier("e"),
                                                            expression=exp.to_identifier("v")),
                                               expressions=[exp.to_identifier("e")]))


def _ordered_sum(node: exp.Sum | exp.Avg) -> exp.Expression:
    """sum(x ORDER BY s) / avg(x ORDER BY s): DuckDB adds the values one by one in that order
    (the metric SQL asks for trec_eval's order, the same bits whatever the plan); Spark's sum
    has no order. The values sorted as list(x ORDER BY s) does (_list_agg), NULLs left out,
    then added left to right: aggregate(l, 0D, (a, v) -> a + v); NULL when none is left, as
    sum/avg of no value. Under a FILTER (WHERE ...), the condition selects the values collected
    (the FILTER node itself is then dropped: _rule, exp.Filter), as `CASE ... END FILTER (...)`
    is no Spark SQL."""
    where = node.parent.expression if isinstance(node.parent, exp.Filter) else None
    values = _list_agg(exp.ArrayAgg(this=node.this.copy()), where)
    kept = exp.ArrayFilter(this=values, expression=exp.Lambda(
        this=exp.Not(this=exp.Is(this=exp.to_identifier("v"), expression=exp.Null())),
        expressions=[exp.to_identifier("v")]))
    total = _call("aggregate", kept, _double(_num(0)), exp.Lambda(
        this=exp.Add(this=exp.to_identifier("a"), expression=exp.to_identifier("v")),
        expressions=[exp.to_identifier("a"), exp.to_identifier("v")]))
    size = exp.ArraySize(this=kept.copy())
    if isinstance(node, exp.Avg):
        total = exp.Div(this=total, expression=size.copy())
    result = exp.Case(ifs=[exp.If(this=exp.EQ(this=size, expression=_num(0)),
                                  true=exp.Null())], default=total)
    result.meta["filter_inside"] = where is not None
    return result


def _table_series(node: exp.Table) -> exp.Expression:
    """FROM range(a, b) t(r) / generate_series(a, b) t(r) with constant bounds: Spark's
    range(a, b') table function, whose column `id` is renamed by the alias."""
    series = node.this
    end = series.args["end"]
    if not series.args.get("is_end_exclusive"):
        end = exp.Add(this=end.copy(), expression=_num(1))
    if series.args.get("step"):
        raise NotPortable("range() with a step")
    if any(isinstance(n, exp.Column) for n in series.find_all(exp.Column)):
        return None
    alias = node.args.get("alias")
    return exp.Table(this=_call("range", series.args["start"], end), alias=alias)


def _lateral_series(select: exp.Select) -> exp.Select:
    """FROM t, generate_series(1, t.n) g(rank) (bounds read from t): Spark's
    LATERAL VIEW explode(sequence(1, t.n)) g AS rank, guarded against an empty range."""
    for join in list(select.args.get("joins") or []):
        table = join.this
        if not (isinstance(table, exp.Table) and isinstance(table.this, exp.GenerateSeries)):
            continue
        if join.args.get("on") or join.args.get("using"):
            raise NotPortable("a join ON a generated series")
        series = table.this
        end = series.args["end"]
        if series.args.get("is_end_exclusive"):
            end = exp.Sub(this=end.copy(), expression=_num(1))
        exploded = _call("explode", _empty_guarded_sequence(series.args["start"], end))
        join.pop()
        select.append("laterals", exp.Lateral(this=exploded, view=True,
                                              alias=table.args.get("alias")))
    return select


# -- the pass -------------------------------------------------------------------------------

def _rule(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.Literal):
        return _literal(node)
    if isinstance(node, exp.Div):
        return _division(node)
    if isinstance(node, exp.Bracket):
        return _bracket(node)
    if isinstance(node, exp.Window) and isinstance(node.this, exp.Anonymous) \
            and node.this.name.lower() == "product":
        return _window_product(node)
    if isinstance(node, exp.Anonymous):
        if node.name.lower() == "product":
            if isinstance(node.parent, exp.Window):
                return node
            raise NotPortable("product() as a plain aggregate")
        return _anonymous(node)
    if isinstance(node, exp.Transform):
        return _transform(node)
    if type(node).__name__ == "RegexpFullMatch":
        return _full_match(node)
    if isinstance(node, exp.ArrayAgg):
        return _list_agg(node)
    if isinstance(node, (exp.Sum, exp.Avg)) and isinstance(node.this, exp.Order):
        return _ordered_sum(node)
    if isinstance(node, exp.Filter) and node.this.meta.get("filter_inside"):
        return node.this                    # an ordered sum that filters its own values
    if isinstance(node, exp.AggFunc) and isinstance(node.this, exp.Order) \
            and not isinstance(node, exp.GroupConcat):
        raise NotPortable(f"{node.key}(... ORDER BY ...)")
    if isinstance(node, exp.Length) and _is_list(node.this):
        return exp.ArraySize(this=node.this)            # DuckDB len() of a list
    if isinstance(node, exp.Log) and node.expression is None:
        return exp.Log(this=_num(10), expression=node.this)         # DuckDB log(x) is log10
    if isinstance(node, exp.CTE) and node.args.get("materialized") is not None:
        node.set("materialized", None)
        return node
    if isinstance(node, exp.Column) and node.name.lower() == "rowid" and not node.table:
        raise NotPortable("rowid (a DuckDB row number)")
    if isinstance(node, exp.DataType) and node.this in (exp.DataType.Type.INT128,
                                                        exp.DataType.Type.UINT128):
        raise NotPortable("HUGEINT (128-bit integers)")
    if isinstance(node, exp.Comprehension):
        raise NotPortable("list comprehensions")
    if isinstance(node, exp.Table) and isinstance(node.this, exp.GenerateSeries):
        return _table_series(node) or node
    if isinstance(node, exp.Select) and node.args.get("joins"):
        return _lateral_series(node)
    return node


def to_spark_tree(tree: exp.Expression) -> exp.Expression:
    """The rules applied bottom-up to a copy of `tree` (a rule may build its result around the
    node it is given, so the node's place is taken before the rule runs)."""
    tree = tree.copy()
    for node in list(tree.walk(bfs=False))[::-1]:
        parent, key, index = node.parent, node.arg_key, node.index
        new = _rule(node)
        if new is node:
            continue
        if node is tree:
            tree = new
        else:
            parent.set(key, new, index)
    return tree


def to_spark(tree: exp.Expression, *, pretty: bool = True, fold: bool = True) -> str:
    """Spark SQL for an inlined DuckDB SELECT, its constant conditions decided first
    (inline.fold_constants); NotPortable names what has no translation."""
    from .inline import fold_constants
    if fold:
        tree = fold_constants(tree.copy())
    return to_spark_tree(tree).sql(dialect=SparkSQL, pretty=pretty)
