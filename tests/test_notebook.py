"""Jupyter shows irw's own objects as tables (issue 35 item 5): `_repr_html_` of an evaluation,
a score matrix, a comparison, a metric set, a scope and a test's result is an HTML table whose
cells are the values (as the CLI's tables print them) and whose text is escaped."""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np
import pytest

from irwarehouse.api import Warehouse
from irwarehouse.notebook import MAX_ROWS, table
from irwarehouse.stats import paired_t

EVIL = "<script>alert('x')</script> & co"


class Cells(HTMLParser):
    """The text of every <th>/<td> cell, row by row, and the tags seen."""

    def __init__(self, text: str):
        super().__init__()
        self.rows: list[list[str]] = []
        self.tags: list[str] = []
        self._cell: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "tr":
            self.rows.append([])
        if tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


@pytest.fixture(scope="module")
def wh():
    """Three runs on four topics, given as dicts; one run's name is HTML."""
    qrels = {t: {"a": 1, "b": 0, "c": 2} for t in "1234"}
    runs = {"good": {t: {"a": 3.0, "c": 2.0, "b": 1.0} for t in "1234"},
            "bad": {t: {"b": 3.0, "a": 2.0, "c": 1.0} for t in "1234"},
            EVIL: {t: {"c": 3.0, "b": 2.0, "a": 1.0} for t in "1234"}}
    with Warehouse(None) as w:
        w.ingest_qrels(qrels, "nb")
        for name, run in runs.items():
            w.ingest_run(run, "nb", name=name)
        yield w


def test_an_evaluation_is_a_run_by_measure_table(wh):
    result = wh.evaluate(["map", "P@1"], campaign="nb")
    cells = Cells(result._repr_html_())
    assert "script" not in cells.tags
    assert cells.rows[0] == ["run", "map", "P@1"]
    by_run = {row[0]: row[1:] for row in cells.rows[1:]}
    # hand-worked: good ranks a, c first (AP 1, P@1 1); bad: b, a, c (AP (1/2 + 2/3)/2)
    assert by_run["good"] == ["1.0000", "1.0000"]
    assert by_run["bad"] == [f"{(1 / 2 + 2 / 3) / 2:.4f}", "0.0000"]
    assert EVIL in by_run                               # shown as text, escaped in the HTML
    assert "&lt;script&gt;" in result._repr_html_()


def test_a_comparison_and_its_matrix(wh):
    comparisons = wh.compare("nb", ["map"], test="t")
    html = comparisons._repr_html_()
    assert "<h4>map</h4>" in html and "&lt;script&gt;" in html
    comparison, matrix = comparisons[0]
    cells = Cells(comparison._repr_html_())
    assert cells.rows[0][:3] == ["run_a", "run_b", "mean_a"]
    assert len(cells.rows) == 1 + 3                     # three pairs
    assert "t (t), correction none, alpha=0.05" in comparison._repr_html_()
    grid = Cells(matrix._repr_html_())
    assert grid.rows[0] == ["topic", *matrix.runs]
    assert grid.rows[1][0] == "mean"                     # each run's value first
    assert [row[0] for row in grid.rows[2:]] == ["1", "2", "3", "4"]
    assert grid.rows[1][1:] == [f"{v:.4f}" for v in matrix.values.mean(axis=0)]


def test_a_metric_set_is_a_leaderboard(wh):
    metrics = wh.metrics("nb", ["map", "P@1"])
    cells = Cells(metrics._repr_html_())
    assert cells.rows[0] == ["run", "map", "P@1"]
    assert {row[0] for row in cells.rows[1:]} == {"good", "bad", EVIL}


def test_a_scope_and_a_tests_result():
    with Warehouse(None) as w:
        w.ingest_qrels({"1": {"a": 1}}, "s")
        cells = Cells(w.scope("s", threshold=2)._repr_html_())
    assert cells.rows[1][:3] == ["s", "qrels", "-l 2"]
    result = paired_t(np.array([0.1, 0.5, 0.3]), np.array([0.2, 0.1, 0.1]))
    rows = dict(Cells(result._repr_html_()).rows[1:])
    assert rows["test"] == result.test
    assert rows["pvalue"] == f"{result.pvalue:.4f}"


def test_long_tables_are_cut_in_the_middle():
    records = [{"topic": str(i), "value": i / 10} for i in range(100)]
    cells = Cells(table(records))
    assert len(cells.rows) == 1 + MAX_ROWS + 1
    assert cells.rows[MAX_ROWS // 2 + 1] == ["…", "…"]
    assert cells.rows[-1] == ["99", "9.9000"]
    assert "100 rows" in table(records)
