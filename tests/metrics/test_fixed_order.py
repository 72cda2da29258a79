"""Every floating-point aggregate of the project's SQL runs in a fixed order (issue 23).

DuckDB aggregates a group in parallel: each thread adds the rows it scanned, and the partial
sums are combined in whatever order the threads finish, so `sum(x)` over doubles can change in
the last bits from one evaluation to the next, between a run and its renamed copy, or with the
number of threads. The SQL therefore writes every floating-point aggregate with its order:
`sum(x ORDER BY rank)` (DuckDB's ordered aggregate adds the values one by one in that order,
as trec_eval, ndeval and NTCIREVAL add them in rank order). Integer sums (counts) are exact in
any order and need none. A window aggregate cannot be given an order of addition: DuckDB
evaluates it over a tree of partial sums whose shape depends on where the partition sits among
the others, so a running sum of doubles can differ between a run and its renamed copy (shown
below). Running sums are therefore exact: taken over fixed-point integers (ev_to_fixed in
sql/context.sql), whose addition is exact in any order, and rounded to a double once.

This file checks it statically: sqlglot walks every statement of sql/ and reports each
sum/avg/product/stddev/variance that has no ORDER BY and whose argument is not an integer
expression, and each window aggregate of that kind over doubles. The property tests in
tests/engine/test_bit_reproducible.py check the values themselves."""

from __future__ import annotations

import re

import duckdb
import pytest
import sqlglot
from sqlglot import exp

from irwarehouse.sqlfiles import sql_dir

# Aggregates whose floating-point result depends on the order of their input.
ORDER_SENSITIVE = (exp.Sum, exp.Avg, exp.Stddev, exp.StddevSamp, exp.StddevPop, exp.Variance,
                   exp.VariancePop)
ORDER_SENSITIVE_NAMES = {"product", "fsum", "kahan_sum", "sumkahan", "favg"}

# Columns that hold integers wherever they are summed (counts and lengths in tokens); a sum of
# one of them is exact in any order.
INTEGER_COLUMNS = {
    "size",                     # context.sql ev_div_ideal: documents per signature
    "c", "hit", "model_count", "peer_count",        # texts/rouge.sql: n-gram counts
    "shown", "clicks",          # online/clicks.sql: counts per query
    "starts_group",             # metrics/gain.sql: a BOOLEAN cast to INTEGER
    "rank",                     # ranks are integers everywhere
    "rel_so_far",               # context.sql ev_relevant: relevant documents down to a rank
    "vital_length", "length",   # texts/*.sql: BIGINT lengths of iUnits and output elements
}
INTEGER_TYPES = {"TINYINT", "SMALLINT", "INT", "BIGINT", "INT128", "UTINYINT", "USMALLINT",
                 "UINT", "UBIGINT", "UINT128"}


def _is_integer(node: exp.Expression) -> bool:
    """An expression that always yields an integer (so that its sum is exact in any order)."""
    if isinstance(node, exp.Paren):
        return _is_integer(node.this)
    if isinstance(node, exp.Literal):
        return not node.is_string and re.fullmatch(r"-?\d+", node.this) is not None
    if isinstance(node, exp.Neg):
        return _is_integer(node.this)
    if isinstance(node, (exp.ArraySize, exp.Length)):   # a list's or a string's length
        return True
    if isinstance(node, exp.Cast):
        return node.to.this.name in INTEGER_TYPES
    if isinstance(node, exp.Column):
        return node.name in INTEGER_COLUMNS
    if isinstance(node, exp.Case):
        branches = [i.args["true"] for i in node.args.get("ifs", [])]
        default = node.args.get("default")
        return all(_is_integer(b) for b in branches + ([default] if default else []))
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.BitwiseLeftShift,
                         exp.BitwiseRightShift, exp.BitwiseAnd, exp.BitwiseOr)):
        return _is_integer(node.left) and _is_integer(node.right)
    if isinstance(node, (exp.Least, exp.Greatest)):
        return all(_is_integer(e) for e in [node.this, *node.expressions])
    if isinstance(node, exp.Count):
        return True
    if isinstance(node, exp.Anonymous):
        return node.name.lower() == "ev_to_fixed"      # x * 2^80 as a HUGEINT (context.sql)
    return False


def _in_window(node: exp.Expression) -> exp.Window | None:
    parent = node.parent
    if isinstance(parent, exp.Filter):
        parent = parent.parent
    return parent if isinstance(parent, exp.Window) else None


def _window_order(window: exp.Window):
    """The ORDER BY of a window, looked up in the SELECT's WINDOW clause for `OVER w`."""
    if window.args.get("order") is not None:
        return window.args["order"]
    name = window.args.get("alias")
    select = window.find_ancestor(exp.Select)
    while name is not None and select is not None:
        for named in select.args.get("windows") or []:
            if named.this.name == name.name:
                return named.args.get("order")
        select = select.find_ancestor(exp.Select)
    return None


def _argument(node: exp.Expression) -> exp.Expression | None:
    if isinstance(node, exp.Anonymous):
        return node.expressions[0] if node.expressions else None
    return node.this


def problems_in(tree: exp.Expression) -> list[str]:
    """The order-sensitive aggregates of a statement that do not fix their order."""
    found = []
    nodes = [n for n in tree.walk() if isinstance(n, ORDER_SENSITIVE) or (
        isinstance(n, exp.Anonymous) and n.name.lower() in ORDER_SENSITIVE_NAMES)]
    for node in nodes:
        argument = _argument(node)
        window = _in_window(node)
        if window is not None:
            if not _is_integer(argument):
                found.append(f"window {node.sql('duckdb')} over doubles (use ev_to_fixed)")
        elif not isinstance(argument, exp.Order) and not _is_integer(argument):
            found.append(f"{node.sql('duckdb')} without ORDER BY")
    return found


def _split_parameters(text: str, start: int) -> tuple[list[str], int]:
    """The parameters of the list opening at text[start] == '(' (split at commas outside
    brackets and quotes) and the index of its closing parenthesis."""
    depth, quoted, current, params = 0, False, [], []
    for i in range(start + 1, len(text)):
        ch = text[i]
        if quoted:
            quoted = ch != "'"
        elif ch == "'":
            quoted = True
        elif ch in "([{":
            depth += 1
        elif ch in ")]}" and depth:
            depth -= 1
        elif ch == ")":
            return params + ["".join(current)], i
        elif ch == "," and not depth:
            params.append("".join(current))
            current = []
            continue
        current.append(ch)
    raise ValueError("unbalanced macro header")


def _without_defaults(text: str) -> str:
    """sqlglot does not parse DuckDB's `name := default` macro parameters: drop the defaults."""
    out, pos = [], 0
    for match in re.finditer(r"CREATE OR REPLACE MACRO \w+\(", text):
        params, end = _split_parameters(text, match.end() - 1)
        names = [p.split(":=")[0].strip() for p in params]
        out += [text[pos:match.end()], ", ".join(names), ")"]
        pos = end + 1
    return "".join(out + [text[pos:]])


def sql_files():
    root = sql_dir()
    return sorted(p for p in root.rglob("*.sql"))


@pytest.mark.parametrize("path", sql_files(), ids=lambda p: p.relative_to(sql_dir()).as_posix())
def test_every_floating_point_aggregate_has_an_order(path):
    text = _without_defaults(path.read_text(encoding="utf-8"))
    found = []
    for stmt in sqlglot.parse(text, read="duckdb"):
        if stmt is not None:
            found += problems_in(stmt)
    assert found == []


@pytest.mark.parametrize("sql, ok", [
    ("SELECT sum(x) FROM t", False),
    ("SELECT sum(x ORDER BY r) FROM t", True),
    ("SELECT sum(x ORDER BY r) FILTER (WHERE x > 0) FROM t", True),
    ("SELECT avg(x) FROM t", False),
    ("SELECT stddev_samp(x) FROM t", False),
    ("SELECT product(x) FROM t", False),
    ("SELECT sum(CASE WHEN a THEN 1 ELSE 0 END) FROM t", True),
    ("SELECT sum(CAST(a AS BIGINT)) FROM t", True),
    ("SELECT sum(CASE WHEN a THEN 1.0 ELSE 0 END) FROM t", False),
    ("SELECT sum(x) OVER (PARTITION BY p ORDER BY r ROWS UNBOUNDED PRECEDING) FROM t", False),
    ("SELECT sum(ev_to_fixed(x)) OVER (PARTITION BY p ORDER BY r) FROM t", True),
    ("SELECT sum(CAST(x AS INTEGER)) OVER w FROM t WINDOW w AS (ORDER BY r)", True),
    ("SELECT product(x) OVER (PARTITION BY p ORDER BY r) FROM t", False),
    ("SELECT sum(x) OVER (PARTITION BY p) FROM t", False),
    ("SELECT count(*) OVER (PARTITION BY p) FROM t", True),
])
def test_the_check_itself(sql, ok):
    assert (problems_in(sqlglot.parse_one(sql, read="duckdb")) == []) is ok


def test_defaults_are_dropped_for_the_parser():
    text = ("CREATE OR REPLACE MACRO m(campaign := NULL, gains := MAP {}, xs := [1, 2], "
            "s := 'a,b', n := 3) AS TABLE SELECT 1;")
    assert _without_defaults(text).startswith("CREATE OR REPLACE MACRO m(campaign, gains, xs, "
                                              "s, n)")


# -- DuckDB behaviour the SQL relies on ---------------------------------------------------------

def _sequential(values):
    total = 0.0
    for v in values:
        total += v
    return total


@pytest.fixture(scope="module")
def rows_con():
    """400,000 doubles in 50 groups: four row groups, so that DuckDB aggregates in parallel."""
    con = duckdb.connect()
    con.execute("CREATE TABLE u AS SELECT (range % 50)::INTEGER AS g, (range // 50)::BIGINT AS r, "
                "hash(range) / 18446744073709551616.0 AS x FROM range(400000)")
    yield con
    con.close()


def test_an_ordered_sum_adds_in_that_order_whatever_the_threads(rows_con):
    rows = rows_con.execute("SELECT g, x FROM u ORDER BY g, r").fetchall()
    want: dict[int, list[float]] = {}
    for g, x in rows:
        want.setdefault(g, []).append(x)
    want = {g: _sequential(xs) for g, xs in want.items()}
    for threads in (1, 2, 4):
        rows_con.execute(f"SET threads = {threads}")
        got = dict(rows_con.execute("SELECT g, sum(x ORDER BY r) FROM u GROUP BY g").fetchall())
        assert got == want
    rows_con.execute("RESET threads")


@pytest.fixture(scope="module")
def lists_con(rows_con):
    """Four runs x 10 topics x 250 ranks of doubles; runs 1 and 3 hold the same values."""
    from irwarehouse.sqlfiles import read_sql, sections
    con = duckdb.connect()
    con.execute(sections(read_sql("context.sql"))["macros"].split("-- relation:")[0])
    con.execute("""
        CREATE TABLE base AS
        SELECT (range // 250 + 1)::VARCHAR AS topic, (range % 250 + 1)::BIGINT AS rank,
               1 + hash(range) / 18446744073709551616.0 * 20 AS x
        FROM range(2500)""")
    con.execute("""
        CREATE TABLE t AS
        SELECT 1 AS run_id, * FROM base
        UNION ALL SELECT 2, topic, rank, hash(rank * 7) / 18446744073709551616.0 FROM base
        UNION ALL SELECT 3, * FROM base
        UNION ALL SELECT 4, topic, rank, hash(rank * 3) / 18446744073709551616.0 FROM base""")
    yield con
    con.close()


def _running_sums(con, threads: int, term: str) -> dict:
    con.execute(f"SET threads = {threads}")
    rows = con.execute(f"""
        SELECT run_id, topic, rank, {term} FROM t
        WINDOW w AS (PARTITION BY run_id, topic ORDER BY rank ROWS UNBOUNDED PRECEDING)
        """).fetchall()
    con.execute("RESET threads")
    return {(run, topic, rank): s for run, topic, rank, s in rows}


def _copy_differs(sums: dict) -> int:
    return sum(1 for (run, topic, rank), s in sums.items()
               if run == 1 and sums[(3, topic, rank)] != s)


def test_an_exact_running_sum_depends_on_its_partition_only(lists_con):
    """A window's running sum of doubles differs between two runs with the same values (DuckDB's
    tree of partial sums depends on the partition's place); the exact running sum
    (ev_to_fixed) does not, whatever the threads, and it is the exact sum rounded once."""
    from fractions import Fraction
    plain = [_running_sums(lists_con, threads, "sum(x) OVER w") for threads in (1, 2, 4)]
    assert all(_copy_differs(sums) > 0 for sums in plain)
    exact = [_running_sums(lists_con, threads, "ev_from_fixed(sum(ev_to_fixed(x)) OVER w)")
             for threads in (1, 2, 4)]
    assert [_copy_differs(sums) for sums in exact] == [0, 0, 0]
    assert exact[0] == exact[1] == exact[2]
    xs = [x for (x,) in lists_con.execute(
        "SELECT x FROM base WHERE topic = '1' ORDER BY rank").fetchall()]
    scaled, want = 0, []
    for x in xs:
        scaled += round(x * 2**80)       # x >= 1: x * 2^80 is an integer
        want.append(float(Fraction(scaled, 2**80)))
    assert [exact[0][(1, "1", rank)] for rank in range(1, 251)] == want
