"""Session DCG (sql/online/sessions.sql): Sakai (2014) eq 35 worked by hand, the Jarvelin et
al. (ECIR 2008) preset, and properties against a slow Python oracle and against the warehouse's
own nDCG (a one-query session is a ranked list)."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irwarehouse.errors import MeasureError, WarehouseError
from irwarehouse.online import measures as om
from tests.helpers.online_logs import values, warehouse

QRELS = {("t1", "d1"): 2, ("t1", "d2"): 0, ("t1", "d3"): 1, ("t1", "d4"): 3}
SESSION = [("s1", "t1", 1, 1, "d1"), ("s1", "t1", 1, 2, "d2"), ("s1", "t1", 1, 3, "d3"),
           ("s1", "t1", 2, 1, "d2"), ("s1", "t1", 2, 2, "d4"), ("s1", "t1", 2, 3, "d1")]
ROWS = [r + (0, None, None) for r in SESSION]


def test_eq35_two_query_session(tmp_path):
    """d1 (q1, r1), d2 (q1, r2), d3 (q1, r3), d4 (q2, r4): 2/(log4(4) log2(2)) + 0 +
    1/(log4(4) log2(4)) + 3/(log4(5) log2(5)) = 3.612894; the single ideal list (3, 2, 1 at
    qnum 1) gives 4.761860, nsDCG = 0.758715."""
    wh = warehouse(tmp_path, QRELS, ROWS)
    expected = 2 + 0 + 1 / 2 + 3 / (math.log(5, 4) * math.log2(5))
    assert values(wh, "sDCG@3")["s1"] == pytest.approx(expected, abs=1e-12)
    assert round(expected, 6) == 3.612894
    ideal = 3 + 2 / math.log2(3) + 1 / 2
    assert values(wh, "nsDCG@3")["s1"] == pytest.approx(expected / ideal, abs=1e-12)
    assert round(expected / ideal, 6) == 0.758715


def test_keep_duplicates_and_bases(tmp_path):
    wh = warehouse(tmp_path, QRELS, ROWS)
    # duplicates kept: d2 (0) at r4, d4 at r5 and d1 again at r6 of the concatenation
    dup = (2 + 1 / 2 + 3 / (math.log(5, 4) * math.log2(6))
           + 2 / (math.log(5, 4) * math.log2(7)))
    assert values(wh, "sDCG(keep_duplicates=true)@3")["s1"] == pytest.approx(dup, abs=1e-12)
    # other log bases: log_bq(qnum + bq - 1) log_b(r + b - 1)
    bq, b = 10.0, 3.0
    other = (2 / (math.log(bq, bq) * math.log(3, b)) + 1 / (1 * math.log(5, b))
             + 3 / (math.log(11, bq) * math.log(6, b)))
    assert values(wh, "sDCG(bq=10,b=3)@3")["s1"] == pytest.approx(other, abs=1e-12)
    # gains map levels; an unlisted level keeps gain = level
    mapped = 7 / 1 + 1 / 2 + 9 / (math.log(5, 4) * math.log2(5))
    assert values(wh, "sDCG(gains=2:7;3:9)@3")["s1"] == pytest.approx(mapped, abs=1e-12)


def test_jarvelin2008_preset(tmp_path):
    """Each query's list whole, rank within the query, (1 + log_bq(j)) (1 + log_b(r)):
    q1: 2/1 + 0 + 1/(1 + log2 3); q2 (1 + log4 2 = 1.5): 0 + 3/(1.5 * 2) + 2/(1.5 (1 + log2 3))."""
    wh = warehouse(tmp_path, QRELS, ROWS)
    l3 = 1 + math.log2(3)
    expected = 2 + 1 / l3 + 3 / 3 + 2 / (1.5 * l3)
    assert values(wh, "sDCG_jarvelin2008@3")["s1"] == pytest.approx(expected, abs=1e-12)
    # normalised by two ideal lists (3, 2, 1) concatenated, duplicates allowed
    ideal_q = 3 + 2 / 2 + 1 / l3
    ideal = ideal_q + ideal_q / 1.5
    assert values(wh, "nsDCG_jarvelin2008@3")["s1"] == pytest.approx(expected / ideal,
                                                                      abs=1e-12)


def test_unjudged_topic_and_errors(tmp_path):
    rows = ROWS + [("s2", "t9", 1, 1, "d1", 0, None, None)]
    wh = warehouse(tmp_path, QRELS, rows)
    _, got, warnings = om.evaluate(wh.con, "c", ["sDCG@3"])
    assert {t for _, _, t, _ in got} == {"s1"}
    assert any("1 sessions have a topic without judgments" in w for w in warnings)
    with pytest.raises(WarehouseError, match="no campaign 'zz'"):
        om.evaluate(wh.con, "zz", ["sDCG@3"])
    with pytest.raises(WarehouseError, match="no session log 'x' in campaign 'c'"):
        om.evaluate(wh.con, "c", ["sDCG@3"], run="x")
    with pytest.raises(MeasureError, match="unknown online measure"):
        om.parse("sDGC@3")
    with pytest.raises(MeasureError, match="no parameter"):
        om.parse("sDCG(foo=1)@3")


def _oracle(session, qrels, l, bq=4.0, b=2.0, keep=False, style="log", per_query=False):
    """eq 35 (and the 2008 preset) from the definition, query by query."""
    seen, total, r_sess = set(), 0.0, 0
    for qnum, docs in enumerate(session, start=1):
        r_query = 0
        for doc in docs[:l]:
            if doc in seen and not keep:
                continue
            seen.add(doc)
            r_sess += 1
            r_query += 1
            r = r_query if per_query else r_sess
            g = max(qrels.get(doc, 0), 0)
            if style == "log":
                disc = math.log(qnum + bq - 1, bq) * math.log(r + b - 1, b)
            else:
                disc = (1 + math.log(qnum, bq)) * (1 + math.log(r, b))
            total += g / disc
    return total


SESSIONS = st.lists(st.lists(st.integers(0, 8), min_size=1, max_size=6, unique=True),
                    min_size=1, max_size=4)
LEVELS = st.dictionaries(st.integers(0, 8), st.integers(0, 3), min_size=1)


@settings(max_examples=15, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(session=SESSIONS, levels=LEVELS, l=st.integers(1, 6))
def test_sdcg_against_oracle(tmp_path, session, levels, l):
    qrels = {("t", f"d{k}"): v for k, v in levels.items()}
    rows = [("s", "t", q, r, f"d{d}", 0, None, None)
            for q, docs in enumerate(session, 1) for r, d in enumerate(docs, 1)]
    wh = warehouse(tmp_path, qrels, rows)
    lv = {f"d{k}": v for k, v in levels.items()}
    docs = [[f"d{d}" for d in q] for q in session]
    assert values(wh, f"sDCG@{l}")["s"] == pytest.approx(_oracle(docs, lv, l), abs=1e-9)
    assert values(wh, f"sDCG(keep_duplicates=true,bq=3)@{l}")["s"] == pytest.approx(
        _oracle(docs, lv, l, bq=3, keep=True), abs=1e-9)
    assert values(wh, f"sDCG_jarvelin2008@{l}")["s"] == pytest.approx(
        _oracle(docs, lv, l, keep=True, style="one_plus_log", per_query=True), abs=1e-9)


@settings(max_examples=12, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(docs=st.lists(st.integers(0, 12), min_size=1, max_size=10, unique=True),
       levels=LEVELS, l=st.integers(1, 10))
def test_one_query_session_is_dcg(tmp_path, docs, levels, l):
    """A one-query session: log4(1 + 3) = 1, so sDCG@l is DCG@l = sum g(r)/log2(r+1), and
    nsDCG@l (ideal truncated at l x 1) is the warehouse's nDCG@l (trec_eval ndcg_cut) of the
    same list stored as a run."""
    qrels = {("t", f"d{k}"): v for k, v in levels.items()}
    wh = warehouse(tmp_path, qrels, [("s", "t", 1, r, f"d{d}", 0, None, None)
                                     for r, d in enumerate(docs, 1)])
    lv = {f"d{k}": v for k, v in levels.items()}
    dcg = sum(lv.get(f"d{d}", 0) / math.log2(r + 1) for r, d in enumerate(docs[:l], 1))
    assert values(wh, f"sDCG@{l}")["s"] == pytest.approx(dcg, abs=1e-12)
    run = tmp_path / "run.txt"
    run.write_text("".join(f"t Q0 d{d} {r} {100 - r} x\n" for r, d in enumerate(docs, 1)))
    wh.ingest_run(run, "c", name="asrun")
    ndcg = wh.evaluate([f"ndcg_cut.{l}"], campaign="c", runs=["asrun"]).per_topic.to_pylist()
    ndcg = next(r["value"] for r in ndcg if r["topic"] == "t")
    assert values(wh, f"nsDCG@{l}")["s"] == pytest.approx(ndcg, abs=1e-12)


@pytest.mark.parametrize("k, b, bq, sdcg, nsdcg", [
    (2, 2, 4, 6.80417316515949, 0.41106318839017064),
    (2, 10, 3, 8.326875089084385, 0.47015079918954467),
    (3, 2, 4, 8.59620283937967, 0.49168086340727646),
    (3, 10, 3, 11.456510415357176, 0.5913942056299191),
])
def test_jiepujiang_ir_metrics_preset(tmp_path, k, b, bq, sdcg, nsdcg):
    """jiepujiang/ir_metrics session_metrics.py (commit 0c9fecf) SDCG(b, bq, True) and
    NSDCG(b, bq, True).evaluate(qrels, [[d1, d2, d3], [d2, d4, d1]], k), run on this module's
    session and qrels: rank within the query, duplicates kept, gain 2^rel - 1, m ideal lists."""
    wh = warehouse(tmp_path, QRELS, ROWS)
    preset = f"rank_in=query,keep_duplicates=true,gains=1:1;2:3;3:7,b={b},bq={bq}"
    assert values(wh, f"sDCG({preset})@{k}")["s1"] == pytest.approx(sdcg, rel=1e-12)
    assert values(wh, f"nsDCG({preset},ideal=per_query)@{k}")["s1"] == pytest.approx(
        nsdcg, rel=1e-12)
