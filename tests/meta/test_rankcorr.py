import itertools
import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from irwarehouse.meta import rankcorr as rc

# Baeza-Yates & Ribeiro-Neto, Modern Information Retrieval 2011 (Baeza-Yates & Ribeiro-Neto, ch. 4): positions of 10 documents in two rankings.
S1 = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
S2 = [2, 3, 1, 5, 4, 7, 8, 10, 6, 9]


def scores_from_positions(positions):
    return -np.asarray(positions, dtype=float)      # rank 1 = highest score


def slow_kendall_a(x, y):
    pos = neg = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        a, b = (x[i] - x[j]), (y[i] - y[j])
        pos += a * b > 0
        neg += a * b < 0
    m = len(x)
    return 2 * (pos - neg) / (m * (m - 1))


def slow_tau_ap(evaluated, gold):
    m = len(evaluated)
    order = sorted(range(m), key=lambda i: (-evaluated[i], i))
    gold_order = sorted(range(m), key=lambda i: (-gold[i], i))
    gold_rank = {item: r for r, item in enumerate(gold_order)}
    total = 0.0
    for r in range(1, m):                  # 0-based position r = 1-based rank r + 1
        item = order[r]
        correct = sum(1 for k in range(r) if gold_rank[order[k]] < gold_rank[item])
        total += correct / r
    return 2.0 / (m - 1) * total - 1.0


def test_spearman_worked_example_seed003():
    d2 = sum((a - b) ** 2 for a, b in zip(S1, S2))
    assert d2 == 24
    rho = rc.spearman_rho(scores_from_positions(S1), scores_from_positions(S2))
    assert rho == pytest.approx(1 - 144 / 990)
    assert round(rho, 3) == 0.855 and math.floor(rho * 1000) / 1000 == 0.854


def test_kendall_worked_example_top5_seed003():
    tau = rc.kendall_tau(scores_from_positions(S1[:5]), scores_from_positions(S2[:5]))
    assert tau == pytest.approx(0.4)
    pos, neg, _, _ = rc.concordance_counts(scores_from_positions(S1[:5]),
                                           scores_from_positions(S2[:5]))
    assert (pos, neg) == (7, 3)          # 14 and 6 ordered pairs in the seed's counting


def test_kendall_threshold_30_runs_at_001_seed004():
    critical = rc.kendall_critical_tau(30, 0.01)
    assert critical == pytest.approx(2.5758293035489 * math.sqrt(130 / 7830), rel=1e-12)
    assert 0.33 < critical < 0.34          # the paper: "significant at 0.01 if over 0.34"
    assert rc.kendall_test(0.34, 30).pvalue < 0.01
    assert rc.kendall_test(0.33, 30).pvalue > 0.01
    assert rc.kendall_test(critical, 30).pvalue == pytest.approx(0.01, rel=1e-9)


def test_normal_critical_matches_scipy():
    for alpha in (0.1, 0.05, 0.01, 0.001):
        assert rc.normal_critical(alpha) == pytest.approx(scipy.stats.norm.isf(alpha / 2),
                                                          rel=1e-12)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=2, max_size=25))
def test_kendall_against_slow_loop_and_scipy(pairs):
    x = np.array([p[0] for p in pairs], float)
    y = np.array([p[1] for p in pairs], float)
    assert rc.kendall_tau(x, y) == pytest.approx(slow_kendall_a(x, y))
    expected_b = scipy.stats.kendalltau(x, y).statistic
    got_b = rc.kendall_tau(x, y, variant="b")
    if np.isnan(expected_b):
        assert np.isnan(got_b)
    else:
        assert got_b == pytest.approx(expected_b)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=2, max_size=25))
def test_spearman_against_scipy(pairs):
    x = np.array([p[0] for p in pairs], float)
    y = np.array([p[1] for p in pairs], float)
    expected = scipy.stats.spearmanr(x, y).statistic if (np.ptp(x) and np.ptp(y)) else np.nan
    got = rc.spearman_rho(x, y)
    if np.isnan(expected):
        assert np.isnan(got)
    else:
        assert got == pytest.approx(expected)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)), min_size=2, max_size=20))
def test_tau_ap_against_slow_loop(pairs):
    x = [float(p[0]) for p in pairs]
    y = [float(p[1]) for p in pairs]
    assert rc.tau_ap(x, y) == pytest.approx(slow_tau_ap(x, y))
    assert rc.tau_ap_symmetric(x, y) == pytest.approx(
        (slow_tau_ap(x, y) + slow_tau_ap(y, x)) / 2)


def test_tau_ap_extremes_and_top_heaviness():
    x = np.arange(10.0)
    assert rc.tau_ap(x, x) == 1.0
    assert rc.tau_ap(x, -x) == pytest.approx(-1.0)
    top_swap = x.copy()
    top_swap[[9, 8]] = top_swap[[8, 9]]
    bottom_swap = x.copy()
    bottom_swap[[0, 1]] = bottom_swap[[1, 0]]
    # one adjacent swap costs tau the same anywhere, tau_ap more at the top
    assert rc.kendall_tau(top_swap, x) == rc.kendall_tau(bottom_swap, x)
    assert rc.tau_ap(top_swap, x) < rc.tau_ap(bottom_swap, x)


def test_correlation_matrix_and_agreement():
    rng = np.random.default_rng(3)
    a = rng.random(12)
    scores = {"A": a, "B": a + rng.normal(0, 0.05, 12), "C": -a}
    cm = rc.correlation_matrix(scores, statistics=("kendall", "tau_ap", "spearman"))
    assert cm.values["kendall"][0, 2] == pytest.approx(-1.0)
    assert cm.values["kendall"][0, 1] == pytest.approx(rc.kendall_tau(scores["A"], scores["B"]))
    assert cm.values["tau_ap"][1, 0] == pytest.approx(rc.tau_ap_symmetric(scores["A"],
                                                                          scores["B"]))
    assert len(cm.records()) == 3
    agreement = rc.significance_agreement({"A": [1, 1, 0, 0, 1], "B": [1, 0, 1, 0, 1]})
    assert agreement[0].cell() == "1/2/1" and agreement[0].neither == 1


def test_bad_input():
    with pytest.raises(ValueError):
        rc.kendall_tau([1.0], [2.0])
    with pytest.raises(ValueError):
        rc.kendall_tau([1.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError):
        rc.kendall_tau([1.0, 2.0], [1.0, 2.0], variant="c")
