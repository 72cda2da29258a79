"""Session measures over browsing depth and paths (sql/online/sessions.sql): sDCG with each
query's list truncated at its lowest click (Jarvelin et al., ECIR 2008; Sakai, PROMISE 2014,
sec 3.2) and the expected session nDCG over reformulation paths (Kanoulas, Carterette, Clough &
Sanderson, SIGIR 2011), each worked by hand and against a slow oracle that enumerates paths."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irwarehouse.errors import WarehouseError
from irwarehouse.online import measures as om
from tests.helpers.online_logs import values, warehouse

QRELS = {("t1", "d1"): 2, ("t1", "d2"): 0, ("t1", "d3"): 1, ("t1", "d4"): 3}


def _row(session, q, rank, doc, clicked=0):
    return (session, "t1", q, rank, doc, clicked, None, None)


# q1 shows d1 d2 d3 with a click at rank 2; q2 shows d2 d4 d1 with a click at rank 3; q3 shows
# d3 without a click
CLICKED = [_row("s1", 1, 1, "d1"), _row("s1", 1, 2, "d2", 1), _row("s1", 1, 3, "d3"),
           _row("s1", 2, 1, "d2"), _row("s1", 2, 2, "d4"), _row("s1", 2, 3, "d1", 1),
           _row("s1", 3, 1, "d3")]


def test_lowest_click_worked_example(tmp_path):
    """q1 ends at rank 2 (d1, d2), q2 at rank 3 (d2 and d1 repeat, d4 is new), q3 adds nothing:
    d1 (q1, r1), d2 (q1, r2), d4 (q2, r3): sDCG = 2 + 0 + 3 / (log4(5) log2(4)). The single
    ideal list is 2 + 3 + 0 = 5 long: 3 + 2 / log2(3) + 1 / 2 (only three relevant)."""
    wh = warehouse(tmp_path, QRELS, CLICKED)
    expected = 2 + 3 / (math.log(5, 4) * 2)
    assert values(wh, "sDCG_lowest_click")["s1"] == pytest.approx(expected, abs=1e-12)
    assert values(wh, "sDCG(truncate=lowest_click)")["s1"] == pytest.approx(expected,
                                                                             abs=1e-12)
    ideal = 3 + 2 / math.log2(3) + 1 / 2
    assert values(wh, "nsDCG_lowest_click")["s1"] == pytest.approx(expected / ideal,
                                                                   abs=1e-12)
    # Jarvelin et al.'s own discounts over the same click depths, duplicates kept, rank within
    # the query: q1 d1 2/1 + d2 0; q2 (1 + log4 2 = 1.5): d2 0, d4 3/(1.5 * 2), d1
    # 2/(1.5 (1 + log2 3))
    l3 = 1 + math.log2(3)
    jarvelin = 2 + 3 / 3 + 2 / (1.5 * l3)
    assert values(wh, "sDCG_jarvelin2008(truncate=lowest_click)")["s1"] == pytest.approx(
        jarvelin, abs=1e-12)


def test_lowest_click_needs_clicks(tmp_path):
    rows = [r[:5] for r in CLICKED]
    wh = warehouse(tmp_path, QRELS, None)
    from irwarehouse.online.store import ingest_sessions
    from tests.helpers.online_logs import write_sessions
    ingest_sessions(wh.con, write_sessions(tmp_path / "noclick.tsv", rows,
                                           header=("session", "topic", "query_no", "rank",
                                                   "doc")), "c", run="sys")
    with pytest.raises(WarehouseError, match="needs clicks; session log 'sys' has no clicked"):
        values(wh, "sDCG_lowest_click")


# esnDCG: q1 shows d1 (1) d2 (0), q2 shows d3 (2) d4 (0); cutoff 2, p_down = p_reform = 0.5
PATH_QRELS = {("t1", "d1"): 1, ("t1", "d2"): 0, ("t1", "d3"): 2, ("t1", "d4"): 0}
PATH_SESSION = [_row("s1", 1, 1, "d1"), _row("s1", 1, 2, "d2"), _row("s1", 2, 1, "d3"),
                _row("s1", 2, 2, "d4")]


def test_esndcg_worked_example(tmp_path):
    """Six paths. Stopping in a list of two after rank 1: 0.5, after rank 2: 0.5 (the end).
    Paths ending in q1: [d1] and [d1 d2], each 0.5 (1 - 0.5) = 0.25; through q2: four paths,
    each 0.5 * 0.5 * 0.5 = 0.125. IDCG(1) = 2, IDCG(n >= 2) = 2 + 1/log2(3).
    [d1]: 1/2; [d1 d2]: 1/IDCG(2); [d1 d3], [d1 d3 d4]: (1 + 2/log2 3)/IDCG(2);
    [d1 d2 d3], [d1 d2 d3 d4]: (1 + 2/2)/IDCG(2)."""
    wh = warehouse(tmp_path, PATH_QRELS, PATH_SESSION)
    i2 = 2 + 1 / math.log2(3)
    expected = (0.25 * 0.5 + 0.25 * (1 / i2)
                + 0.125 * 2 * (1 + 2 / math.log2(3)) / i2 + 0.125 * 2 * 2 / i2)
    got = values(wh, "esnDCG(p_down=0.5,p_reform=0.5)@2")["s1"]
    assert got == pytest.approx(expected, abs=1e-12)
    prob = wh.con.execute("SELECT probability FROM irw_esndcg(campaign := 'c', cutoff := 2, "
                          "p_down := 0.5, p_reform := 0.5)").fetchone()[0]
    assert prob == pytest.approx(1.0, abs=1e-12)


def test_esndcg_limits(tmp_path):
    """p_reform = 0: only the first list is read; p_down = 1 as well: all of it, so esnDCG is
    the first query's nDCG@2 against the session's ideal list. p_down = 0: only the top of
    each list read."""
    wh = warehouse(tmp_path, PATH_QRELS, PATH_SESSION)
    i2 = 2 + 1 / math.log2(3)
    assert values(wh, "esnDCG(p_down=1,p_reform=0)@2")["s1"] == pytest.approx(1 / i2)
    # p_down = 0, p_reform = 1: the path is always [d1 d3]
    assert values(wh, "esnDCG(p_down=0,p_reform=1)@2")["s1"] == pytest.approx(
        (1 + 2 / math.log2(3)) / i2)
    with pytest.raises(WarehouseError, match="p_down and p_reform must be probabilities"):
        values(wh, "esnDCG(p_down=1.5)@2")


def _oracle(lists: list[list[float]], ideal: list[float], p_down: float,
            p_reform: float) -> float:
    """Every path (k_1..k_j) enumerated with its probability; DCG of the concatenation over
    the ideal DCG of as many documents."""
    def dcg(gains):
        return sum(g / math.log2(r + 2) for r, g in enumerate(gains))

    def stop(k, length):
        return p_down ** (k - 1) * ((1 - p_down) if k < length else 1.0)

    total, mass = 0.0, 0.0
    m = len(lists)
    for j in range(1, m + 1):
        for ks in itertools.product(*[range(1, len(lst) + 1) for lst in lists[:j]]):
            p = 1.0
            for i, k in enumerate(ks):
                p *= stop(k, len(lists[i]))
                p *= p_reform if i < j - 1 else (1 - p_reform if j < m else 1.0)
            path = [g for i, k in enumerate(ks) for g in lists[i][:k]]
            best = dcg(sorted(ideal, reverse=True)[:len(path)])
            total += p
            mass += p * (dcg(path) / best if best > 0 else 0.0)
    assert total == pytest.approx(1.0, abs=1e-9)
    return mass


@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_esndcg_matches_path_enumeration(tmp_path_factory, data):
    docs = [f"d{i}" for i in range(6)]
    qrels = {("t1", d): data.draw(st.integers(0, 3)) for d in docs}
    n_queries = data.draw(st.integers(1, 3))
    cutoff = data.draw(st.integers(1, 3))
    rows, lists = [], []
    for q in range(1, n_queries + 1):
        shown = data.draw(st.lists(st.sampled_from(docs), min_size=1, max_size=4, unique=True))
        rows += [_row("s1", q, r, d) for r, d in enumerate(shown, 1)]
        lists.append([float(qrels[("t1", d)]) for d in shown[:cutoff]])
    p_down = data.draw(st.sampled_from([0.0, 0.3, 0.8, 1.0]))
    p_reform = data.draw(st.sampled_from([0.0, 0.5, 0.9, 1.0]))
    wh = warehouse(tmp_path_factory.mktemp("es"), qrels, rows)
    got = values(wh, f"esnDCG(p_down={p_down},p_reform={p_reform})@{cutoff}")
    ideal = [float(v) for v in qrels.values() if v > 0]
    assert got["s1"] == pytest.approx(_oracle(lists, ideal, p_down, p_reform), abs=1e-12)


def _lowest_click_oracle(queries, qrels, bq=4.0, b=2.0):
    """sDCG (eq 35) of the lists truncated at their lowest click, first occurrences kept."""
    seen, total, r = set(), 0.0, 0
    for qnum, shown in enumerate(queries, 1):
        clicked = [rank for rank, (_, c) in enumerate(shown, 1) if c]
        for doc, _ in shown[:max(clicked, default=0)]:
            if doc in seen:
                continue
            seen.add(doc)
            r += 1
            total += qrels.get(doc, 0) / (math.log(qnum + bq - 1, bq) * math.log(r + b - 1, b))
    return total


@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_lowest_click_matches_oracle(tmp_path_factory, data):
    docs = [f"d{i}" for i in range(6)]
    qrels = {("t1", d): data.draw(st.integers(0, 3)) for d in docs}
    queries, rows = [], []
    for q in range(1, data.draw(st.integers(1, 3)) + 1):
        shown = data.draw(st.lists(st.tuples(st.sampled_from(docs), st.booleans()),
                                   min_size=1, max_size=5, unique_by=lambda x: x[0]))
        queries.append(shown)
        rows += [_row("s1", q, r, d, int(c)) for r, (d, c) in enumerate(shown, 1)]
    wh = warehouse(tmp_path_factory.mktemp("lc"), qrels, rows)
    got = values(wh, "sDCG_lowest_click").get("s1", 0.0)
    assert got == pytest.approx(_lowest_click_oracle(queries, {d: v for (_, d), v in
                                                               qrels.items()}), abs=1e-12)


def test_catalog_lists_the_session_measures():
    names = {k for k in om.catalog()}
    assert {"esndcg", "sdcg_lowest_click", "nsdcg_lowest_click"} <= names


def test_esndcg_is_bit_reproducible_across_threads(tmp_path):
    rng = __import__("random").Random(4)
    docs = [f"d{i}" for i in range(12)]
    qrels = {("t1", d): rng.randint(0, 3) for d in docs}
    rows = [_row(f"s{s}", q, r, d) for s in range(3) for q in range(1, 5)
            for r, d in enumerate(rng.sample(docs, 6), 1)]
    wh = warehouse(tmp_path, qrels, rows)
    got = []
    for threads in (1, 2, 4):
        wh.con.execute(f"SET threads = {threads}")
        got.append(values(wh, "esnDCG(p_down=0.7,p_reform=0.6)@5"))
    assert got[0] == got[1] == got[2] and len(got[0]) == 3
