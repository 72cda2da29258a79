"""The transpiler (irwarehouse.spark.dialect) and portability in the catalog
(irwarehouse.measures.portability), without Spark: the transpiled Spark SQL of every portable
measure of the ranked catalog reads back in sqlglot's Spark dialect and calls only functions
Spark has (the round trip); a measure marked not portable fails to transpile, and one marked
portable does not; the rules of the DuckDB-only constructs; `--engine spark` refuses a measure
that is not portable, by name, with the catalog's reason."""

from __future__ import annotations

import duckdb
import pytest
import sqlglot
from sqlglot import exp
from typer.testing import CliRunner

from irwarehouse.cli import app
from irwarehouse.errors import MeasureError
from irwarehouse.measures import parse_measures, portability, registry
from irwarehouse.spark import dialect
from irwarehouse.spark.dialect import SPARK_FUNCTIONS, NotPortable, to_spark
from irwarehouse.spark.engine import _typed, refuse_unportable
from irwarehouse.spark.inline import Inliner
from tests.helpers.catalog import default_request
from tests.helpers.small_campaign import macro_kwargs

# -- transpiling ---------------------------------------------------------------------------

def _spark_sql(mdef) -> str:
    req = default_request(mdef)
    tree = Inliner(portable=True).call(mdef.macro, [exp.Placeholder(this="campaign")],
                                       macro_kwargs(req))
    return to_spark(tree)


def _functions(tree: exp.Expression) -> set[str]:
    return {node.name.lower() for node in tree.find_all(exp.Anonymous)}


@pytest.mark.slow
def test_every_portable_measure_transpiles_and_reads_back_as_spark_sql():
    """Portability as the catalog says it, both ways; the Spark SQL of every portable measure
    parses in sqlglot's Spark dialect (round trip), keeps no macro call, and every function
    sqlglot does not know is one Spark has (SPARK_FUNCTIONS, checked against Spark's own list
    in test_spark_engine)."""
    macro_names = {m.lower() for m in (*(d.macro for d in registry().values()),
                                       *Inliner().macros)}
    problems = []
    for name, mdef in registry().items():
        portable, reason = portability.measure_portability(mdef)
        try:
            sql = _spark_sql(mdef)
        except NotPortable:
            if portable:
                problems.append(f"{name}: said portable, does not transpile")
            continue
        if not portable:
            problems.append(f"{name}: said not portable ({reason}), transpiles")
            continue
        tree = sqlglot.parse_one(sql, read=dialect.SparkSQL)
        again = sqlglot.parse_one(tree.sql(dialect=dialect.SparkSQL), read=dialect.SparkSQL)
        assert again == tree, name
        unknown = _functions(tree) - SPARK_FUNCTIONS
        if unknown:
            problems.append(f"{name}: functions Spark lacks: {sorted(unknown)}")
        called = {t.name.lower() for t in tree.find_all(exp.Table)} & macro_names
        if called:
            problems.append(f"{name}: macros left: {sorted(called)}")
    assert problems == []


def _rule(sql: str) -> exp.Expression:
    """The Spark syntax tree of a DuckDB expression (bracket indices marked as the inliner
    marks them)."""
    from irwarehouse.spark.inline import mark_index_shift
    tree = sqlglot.parse_one(f"SELECT {sql} FROM t", read="duckdb").transform(mark_index_shift)
    return dialect.to_spark_tree(tree).selects[0]


def test_decimal_literals_become_doubles():
    """Spark keeps 1.0/3 a DECIMAL (0.333333); DuckDB divides decimals as doubles."""
    node = _rule("x * 0.5")
    assert isinstance(node.expression, exp.Cast) and node.expression.to.is_type("double")
    assert not isinstance(_rule("x * 5").expression, exp.Cast)


def test_division_keeps_ieee_results_for_a_zero_divisor():
    node = _rule("a / b")
    assert isinstance(node, exp.Case)
    by_zero = node.args["ifs"][0]
    assert isinstance(by_zero.this, exp.EQ) and by_zero.this.expression.name == "0"
    assert any(n.name.lower() == "power" for n in by_zero.find_all(exp.Anonymous))
    assert isinstance(node.args["default"], exp.Div)
    assert isinstance(_rule("a / 2"), exp.Div)


def test_list_indices_are_one_based_and_map_keys_are_kept():
    """DuckDB l[2] is Spark try_element_at(l, 2); a map's key stays the key written (sqlglot
    stores a literal index minus one, keys of maps too)."""
    node = _rule("l[2]")
    assert node.name.lower() == "try_element_at"
    assert node.expressions[1].this.name == "2"
    node = _rule("CAST(g AS MAP(INTEGER, DOUBLE))[-2]")
    assert isinstance(node, exp.Bracket)
    assert node.expressions[0].sql(dialect="spark") == "-2"
    node = _rule("CAST(g AS MAP(INTEGER, DOUBLE))[rel]")
    assert node.expressions[0].name == "rel"


def test_rules_of_other_duckdb_constructs():
    assert _rule("error('x')").name.lower() == "raise_error"
    assert isinstance(_rule("log(x)"), exp.Log) and _rule("log(x)").this.name == "10"
    assert isinstance(_rule("regexp_full_match(a, '[0-9]+')"), exp.RegexpLike)
    assert _rule("regexp_full_match(a, '[0-9]+')").expression.name == "^(?:[0-9]+)$"
    assert _rule("list_sum(l)").name.lower() == "aggregate"
    ordered = _rule("list(x ORDER BY s)")
    assert isinstance(ordered, exp.Transform)
    assert ordered.this.name.lower() == "sort_array"
    assert _rule("len(map_keys(g))").key == "arraysize"


def test_ordered_sums_add_in_their_order():
    """sum(x ORDER BY r): the sorted values (NULLs out) added left to right by aggregate; NULL
    when there is none; avg divides by their number."""
    node = _rule("sum(x ORDER BY r)")
    assert isinstance(node, exp.Case)
    fold = node.args["default"]
    assert fold.name.lower() == "aggregate"
    assert isinstance(fold.expressions[0], exp.ArrayFilter)
    sorted_values = fold.expressions[0].this
    assert isinstance(sorted_values, exp.Transform)
    assert sorted_values.this.name.lower() == "sort_array"
    assert isinstance(node.args["ifs"][0].args["true"], exp.Null)
    assert isinstance(_rule("avg(x ORDER BY r)").args["default"], exp.Div)


def test_a_filtered_ordered_sum_filters_the_values_it_collects():
    """sum(x ORDER BY r) FILTER (WHERE g > 0) (NTCIREVAL's AP and Q sums): the condition moves
    onto the collect_list of the values, as `CASE ... END FILTER (...)` is no Spark SQL."""
    node = _rule("sum(x ORDER BY r) FILTER (WHERE g > 0)")
    assert isinstance(node, exp.Case)
    filters = list(node.find_all(exp.Filter))
    assert filters and all(isinstance(f.this, exp.ArrayAgg) for f in filters)
    assert all(f.expression.this.sql() == "g > 0" for f in filters)
    assert "FILTER(WHERE" not in node.sql(dialect="spark").split("END")[-1]


@pytest.mark.parametrize("sql, construct", [
    ("min(x ORDER BY r)", "ORDER BY"),
    ("CAST(x AS HUGEINT)", "HUGEINT"),
    ("[0 for x in range(3)]", "list comprehensions"),
    ("rowid", "rowid"),
    ("list(x ORDER BY s DESC)", "DESC"),
])
def test_constructs_without_a_rule_are_not_portable(sql, construct):
    with pytest.raises(NotPortable, match=construct):
        _rule(sql)


def test_the_warehouse_definitions_of_the_rewritten_macros_are_not_portable():
    """Without sql/portable, ev_counted (a judged document's position read off a DuckDB list by
    list_where) and the greedy ideal list (a recursive CTE with list state) have no Spark
    translation: the rewrites are what makes them portable."""
    plain = Inliner(portable=False)
    with pytest.raises(NotPortable, match="list_where"):
        to_spark(plain.call("ev_make_counted"))
    with pytest.raises(NotPortable):
        to_spark(plain.call("ev_make_div_ideal", [_typed(0.5, "DOUBLE")]))


# -- the catalog and refusals --------------------------------------------------------------

def test_the_catalog_says_whether_each_measure_is_portable(small):
    """Every ranked measure: portable as measures.portability says, a reason exactly when not;
    the online and text measures (their own tables, no evaluation context): not portable,
    with the reason."""
    with duckdb.connect(str(small), read_only=True) as con:
        rows = con.execute("SELECT measure, domain, portable, portable_reason "
                           "FROM measure_catalog").fetchall()
    ranked = {r[0]: r[2:] for r in rows if r[1] == "ranked"}
    assert set(ranked) == set(registry())
    for measure, (portable, reason) in ranked.items():
        assert (portable, reason) == portability.measure_portability(registry()[measure])
        assert portable == (reason is None)
    others = [r for r in rows if r[1] != "ranked"]
    assert {r[1] for r in others} == {"online", "texts"}
    assert all(r[2] is False and "online or text measure" in r[3] for r in others)


@pytest.fixture
def ndeval_not_portable(monkeypatch):
    """Mark ndeval's greedy ideal list as having no Spark translation (no macro of this
    version lacks one: this is how a future one would be refused)."""
    monkeypatch.setitem(portability.NOT_PORTABLE, "ev_make_div_ideal", "no rule yet")
    return "ev_make_div_ideal"


def test_measures_that_are_not_portable_are_refused_by_name(ndeval_not_portable):
    requests = parse_measures(["map", "alpha-nDCG@20", "nERR-IA@20"])
    with pytest.raises(MeasureError) as err:
        refuse_unportable(requests)
    text = str(err.value)
    assert "alpha-nDCG@20 (" in text and "nERR-IA@20 (" in text and "map (" not in text
    assert "ev_make_div_ideal: no rule yet" in text
    refuse_unportable(parse_measures(["map", "P.10"]))


def test_irw_eval_engine_spark_refuses_them_before_starting_spark(ndeval_not_portable, small,
                                                                   tmp_path):
    """The refusal needs neither Java nor pyspark: it comes first, from the catalog."""
    result = CliRunner().invoke(app, ["eval", "--engine", "spark", "-C", "div", "-w",
                                      str(small), "-m", "alpha-nDCG@20", "-m", "map"])
    assert result.exit_code == 1
    assert "not portable to Spark: alpha-nDCG" in result.output
    assert "no rule yet" in result.output
