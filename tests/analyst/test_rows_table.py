"""`irw sql`'s table format from DuckDB's Python rows (analyst.query.rows_table, no pyarrow)
prints what the Arrow path (table_text) prints, and leaves other results to it."""

from __future__ import annotations

import pytest

from irwarehouse.analyst.query import rows_table, run_sql, table_text

QUERIES = [
    "SELECT 1",
    ("SELECT topic, count(*) AS n, avg(value) AS mean FROM topic_score GROUP BY topic "
     "ORDER BY topic LIMIT 7"),
    ("SELECT 1.25::DECIMAL(5, 2) AS d, 3::HUGEINT AS h, true AS b, NULL::DOUBLE AS x, "
     "'a' || repeat('y', 60) AS long, -0.5::FLOAT AS f, 'nan'::DOUBLE AS nan"),
    "SELECT * FROM (VALUES (1, 'a'), (2, NULL)) t(k, v)",
    "SELECT 1 AS same, 2 AS same",
]


@pytest.mark.parametrize("query", QUERIES)
def test_rows_print_as_arrow(sample_warehouse, query):
    quick = rows_table(sample_warehouse, query, max_rows=40)
    assert quick is not None
    assert quick == table_text(run_sql(sample_warehouse, query), max_rows=40)


@pytest.mark.parametrize("query, max_rows", [
    ("SELECT [1, 2] AS l", 40),                            # not a plain type
    ("SELECT DATE '2020-01-01' AS d", 40),
    ("SELECT * FROM range(5)", 3),                         # more rows than shown
])
def test_other_results_go_to_arrow(sample_warehouse, query, max_rows):
    assert rows_table(sample_warehouse, query, max_rows=max_rows) is None
