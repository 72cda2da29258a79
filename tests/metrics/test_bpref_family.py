"""bpref as trec_eval computes it, the Sakai, PROMISE 2014 forms bpref_R / bpref_N (eq 22-23, NTCIREVAL's
`compute -j`, sql/metrics/ntcir_bpref.sql) and bpref-10 (Baeza-Yates & Ribeiro-Neto, Modern Information Retrieval 2011, sql/metrics/bpref.sql):
Sakai's (PROMISE 2014) top-heaviness check, hand-computed bpref-10 examples and the oracle."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irwarehouse.engine.evaluate import EvalOptions
from tests.helpers.sql_cases import one
from tests.oracles.user_model_oracle import bpref_10

R = N = 500
RELEVANT = {f"r{i:03d}": 1 for i in range(R)}
NONREL = {f"n{i:03d}": 0 for i in range(N)}
QRELS = {**RELEVANT, **NONREL}
BPREFS = ["bpref", "ntcir:bpref", "ntcir:bpref_R", "ntcir:bpref_N"]


def contribution(nonrel_above: int) -> dict:
    """The bpref contribution of the one relevant document retrieved, below `nonrel_above`
    judged non-relevant documents (condensed list, -J): value * R."""
    ranking = list(NONREL)[:nonrel_above] + ["r000"]
    got = one(QRELS, ranking, BPREFS, options=EvalOptions(judged_only=True))
    return {name: value * R for name, value in got.items()}


@pytest.mark.parametrize("rank_before, rank_after, before, after", [
    (2, 1, 0.998, 1.0),
    (100, 99, 0.802, 0.804),
])
def test_seed000_bpref_is_not_top_heavy(rank_before, rank_after, before, after):
    """Seed 000 (after eq 23): with R = N = 500, bpref = bpref_R = bpref_N, and moving a relevant
    document up from rank 2 to 1 of the condensed list changes its contribution
    1 - (r' - C(r'))/N from 0.998 to 1; from 100 to 99, from 0.802 to 0.804: 0.002 both times."""
    got_before = contribution(rank_before - 1)
    got_after = contribution(rank_after - 1)
    for name in BPREFS:
        assert got_before[name] == pytest.approx(before, abs=1e-12), name
        assert got_after[name] == pytest.approx(after, abs=1e-12), name
        assert got_after[name] - got_before[name] == pytest.approx(0.002, abs=1e-12)


def test_bpref_10_by_hand():
    """Seed 003's bpref-10: R = 2; denominators min(R + 10, judged non-relevant retrieved)."""
    qrels = {"a": 1, "b": 1, **{f"n{i:02d}": 0 for i in range(20)}}
    # 3 judged non-relevant retrieved: a has 1 above (1 - 1/3), b has 3 (1 - 3/3 = 0)
    got = one(qrels, ["n00", "a", "n01", "n02", "b"], ["bpref-10", "bpref"])
    assert got["bpref-10"] == pytest.approx((1 - 1 / 3) / 2, abs=1e-15)
    assert got["bpref"] == pytest.approx((1 - 1 / 2) / 2, abs=1e-15)   # trec_eval: min(R, N)
    # 15 retrieved above b: C10(b) = min(15, 12) = 12 over min(12, 15) = 12 -> 0; a: 1 - 1/12
    ranking = ["n00", "a"] + [f"n{i:02d}" for i in range(1, 15)] + ["b"]
    got = one(qrels, ranking, ["bpref-10"])
    assert got["bpref-10"] == pytest.approx((1 - 1 / 12) / 2, abs=1e-15)
    # nothing non-relevant above a relevant document: it scores 1; unretrieved ones 0
    assert one(qrels, ["a", "u1", "u2"], ["bpref-10"])["bpref-10"] == 0.5


@st.composite
def bpref_case(draw):
    pool = [f"d{i}" for i in range(30)]
    judged = draw(st.lists(st.sampled_from(pool), unique=True, min_size=1, max_size=28))
    qrels = {d: draw(st.integers(-1, 2)) for d in judged}
    ranking = draw(st.lists(st.sampled_from(pool), unique=True, max_size=30))
    opts = draw(st.fixed_dictionaries({
        "threshold": st.integers(1, 2), "depth": st.one_of(st.none(), st.integers(1, 30))}))
    return qrels, ranking, opts


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bpref_case())
def test_bpref_10_matches_the_oracle_and_ignores_unjudged_documents(case):
    qrels, ranking, opts = case
    got = one(qrels, ranking, ["bpref-10", "bpref-10'"],
              options=EvalOptions(**opts, complete=True))
    listed = ranking[:opts["depth"]] if opts["depth"] is not None else ranking
    want = bpref_10(listed, qrels, threshold=opts["threshold"])
    assert got["bpref-10"] == pytest.approx(want, abs=1e-12)
    assert got["bpref-10'"] == pytest.approx(want, abs=1e-12)
