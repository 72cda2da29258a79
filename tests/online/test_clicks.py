"""Click measures (sql/online/clicks.sql): Baeza-Yates & Ribeiro-Neto's mean clickthrough
rank example, CTR/abandonment/time to first click/satisfied clicks by hand, the click-based
U-measure of Sakai (2014) Fig 9 on a small log, and the property tying it to the offline
U-measure: clicks exactly on the relevant documents give the linear-traversal U."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irwarehouse.errors import WarehouseError
from tests.helpers.online_logs import values, warehouse


def test_mean_click_rank_example(tmp_path):
    """Clicks at 2, 3, 4 of R_A and at 1, 5 of R_B: (2+3+4)/3 = (1+5)/2 = 3."""
    rows = [("sa", "t", 1, r, f"d{r}", int(r in (2, 3, 4)), None, None) for r in range(1, 6)]
    rows += [("sb", "t", 1, r, f"d{r}", int(r in (1, 5)), None, None) for r in range(1, 6)]
    wh = warehouse(tmp_path, None, rows)
    assert values(wh, "MCR") == {"sa": 3.0, "sb": 3.0}
    assert values(wh, "CTR") == {"sa": 3 / 5, "sb": 2 / 5}
    assert values(wh, "CTR@2") == {"sa": 1 / 2, "sb": 1 / 2}


def test_per_session_click_measures(tmp_path):
    rows = [  # s1: q1 two clicks (dwell 40, 10), q2 none; s2: no click at all
        ("s1", "t", 1, 1, "a", 1, 12.5, 40), ("s1", "t", 1, 2, "b", 1, 30, 10),
        ("s1", "t", 2, 1, "c", 0, None, None), ("s1", "t", 2, 2, "d", 0, None, None),
        ("s2", "t", 1, 1, "a", 0, None, None)]
    wh = warehouse(tmp_path, None, rows)
    assert values(wh, "abandonment") == {"s1": 0.5, "s2": 1.0}
    assert values(wh, "clicks_per_query") == {"s1": 1.0, "s2": 0.0}
    assert values(wh, "TTFC") == {"s1": 12.5}
    assert values(wh, "satisfied") == {"s1": 0.5, "s2": 0.0}
    assert values(wh, "satisfied(threshold=5)") == {"s1": 0.5, "s2": 0.0}
    assert values(wh, "satisfied(threshold=50)") == {"s1": 0.0, "s2": 0.0}


def test_no_clicked_column_is_an_error(tmp_path):
    from irwarehouse.online.store import ingest_sessions
    from tests.helpers.online_logs import write_sessions
    wh = warehouse(tmp_path)
    path = write_sessions(tmp_path / "x.tsv", [("s", "t", 1, 1, "a")],
                          header=("session", "topic", "query_no", "rank", "doc"))
    ingest_sessions(wh.con, path, "c", run="x")
    with pytest.raises(WarehouseError, match="has no clicked column"):
        values(wh, "CTR")


def _lengths(wh, lengths: dict[str, int]):
    path = wh._tmp / "len.txt"
    path.write_text("".join(f"{d}\t{n}\n" for d, n in lengths.items()))
    wh.ingest_doclengths(path, "c", unit="chars")


def test_fig9_click_log(tmp_path):
    """Snippet 200, gain 0.5, F = 0.2, L = 1000; clicks by time (1, 2, 1000), (1, 1, 500),
    (2, 3, 2000): 0.5 (1 - 600/1000) + 0.5 (1 - 700/1000) + 0 = 0.35."""
    rows = [("s", "t", 1, 1, "x1", 1, 20, None), ("s", "t", 1, 2, "x2", 1, 10, None),
            ("s", "t", 2, 1, "y1", 0, None, None), ("s", "t", 2, 2, "y2", 0, None, None),
            ("s", "t", 2, 3, "y3", 1, 30, None)]
    wh = warehouse(tmp_path, None, rows)
    wh._tmp = tmp_path
    _lengths(wh, {"x1": 500, "x2": 1000, "y3": 2000})
    assert values(wh, "U_click(l=1000)")["s"] == pytest.approx(0.35, abs=1e-12)
    # linear traversal reads x1 first: pos 200 + 100 = 300, then x2: 300 + 200 + 200 = 700
    assert values(wh, "U_click(traversal=linear,l=1000)")["s"] == pytest.approx(
        0.5 * 0.7 + 0.5 * 0.3, abs=1e-12)
    pos = wh.con.execute("SELECT k, new_snippets, pos FROM irw_click_positions("
                         "campaign := 'c') ORDER BY k").fetchall()
    assert pos == [(1, 2, 600.0), (2, 0, 700.0), (3, 3, 1700.0)]


@settings(max_examples=12, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(levels=st.lists(st.integers(0, 1), min_size=1, max_size=10),
       lengths=st.lists(st.integers(0, 30000), min_size=10, max_size=10))
def test_clicks_on_relevant_documents_give_offline_u(tmp_path, levels, lengths):
    """A log whose clicks fall exactly on the relevant documents of a list, read linearly,
    gives the offline U-measure (sql/metrics/trailtext.sql) of that list as a run: both read
    200 characters per rank down to each relevant document and 20% of it."""
    docs = [f"d{i}" for i in range(len(levels))]
    qrels = {("t", d): lv for d, lv in zip(docs, levels)}
    rows = [("s", "t", 1, r, d, lv, None, None) for r, (d, lv) in enumerate(zip(docs, levels), 1)]
    wh = warehouse(tmp_path, qrels, rows)
    wh._tmp = tmp_path
    _lengths(wh, dict(zip(docs, lengths)))
    run = tmp_path / "run.txt"
    run.write_text("".join(f"t Q0 {d} {r} {100 - r} x\n" for r, d in enumerate(docs, 1)))
    wh.ingest_run(run, "c", name="asrun")
    offline = wh.evaluate(["U"], campaign="c", runs=["asrun"]).per_topic.to_pylist()
    offline = next(r["value"] for r in offline if r["topic"] == "t")
    assert values(wh, "U_click(traversal=linear)")["s"] == pytest.approx(offline, abs=1e-12)
    assert values(wh, "U_click_judged(traversal=linear)")["s"] == pytest.approx(offline,
                                                                              abs=1e-12)
