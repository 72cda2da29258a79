import numpy as np
import pytest
import scipy.stats

from irwarehouse.meta import concordance as cc
from irwarehouse.meta._common import MetricSet
from tests.helpers.matrices import coarse_matrix, realistic_matrix


def slow_concordance(m1, m2, golds):
    """Sakai, IPSJ JIP 2013, Fig 6 (several gold standards: all must agree), plus the wins."""
    n, m = m1.shape
    dis = c1 = c2 = w1 = w2 = 0
    for x in range(m):
        for y in range(x + 1, m):
            for t in range(n):
                d1 = m1[t, x] - m1[t, y]
                d2 = m2[t, x] - m2[t, y]
                if d1 * d2 < 0:
                    dis += 1
                    ok1 = all(d1 * (g[t, x] - g[t, y]) >= 0 for g in golds)
                    ok2 = all(d2 * (g[t, x] - g[t, y]) >= 0 for g in golds)
                    c1 += ok1
                    c2 += ok2
                    w1 += ok1 and not ok2
                    w2 += ok2 and not ok1
    return dis, c1, c2, w1, w2


@pytest.mark.parametrize("n_gold", [1, 2])
def test_against_slow_loop(n_gold):
    m1 = coarse_matrix(15, 6, seed=1)
    m2 = coarse_matrix(15, 6, seed=2)
    golds = [coarse_matrix(15, 6, seed=3 + i, levels=4) for i in range(n_gold)]
    res = cc.concordance_test(m1, m2, golds if n_gold > 1 else golds[0])
    dis, c1, c2, w1, w2 = slow_concordance(m1, m2, golds)
    assert (res.disagreements, res.correct_1, res.correct_2, res.wins_1, res.wins_2) == (
        dis, c1, c2, w1, w2)
    assert res.comparisons == 15 * 15
    assert res.concordance_1 == pytest.approx(c1 / dis)
    expected_p = scipy.stats.binomtest(w1, w1 + w2).pvalue if w1 + w2 else 1.0
    assert res.pvalue == pytest.approx(expected_p)


def test_gold_tie_counts_as_concordant_and_cell():
    # two runs, one topic: M1 says X better, M2 says Y better, gold ties -> both concordant
    m1 = np.array([[0.5, 0.2]])
    m2 = np.array([[0.1, 0.4]])
    gold = np.array([[0.3, 0.3]])
    res = cc.concordance_test(m1, m2, gold)
    assert (res.disagreements, res.correct_1, res.correct_2) == (1, 1, 1)
    assert res.wins_1 == res.wins_2 == 0 and res.pvalue == 1.0
    assert res.cell() == "1/1 (1)"


def test_a_metric_equal_to_the_gold_always_wins():
    gold = realistic_matrix(30, 8, seed=5)
    other = realistic_matrix(30, 8, seed=6)
    res = cc.concordance_test(gold, other, gold, names=("gold-like", "other"))
    assert res.concordance_1 == 1.0 and res.correct_2 == 0
    assert res.pvalue < 0.01 and res.marker() == "‡"
    assert res.cell().startswith("1/0.000‡") or res.cell().startswith("1/.000‡")


def test_table_covers_every_candidate_pair():
    metrics = MetricSet.from_arrays({k: coarse_matrix(10, 5, seed=i)
                                     for i, k in enumerate(["A", "B", "C", "G"])})
    rows = cc.concordance_table(metrics, ["A", "B", "C"], ["G"])
    assert [(r.measure_1, r.measure_2) for r in rows] == [("A", "B"), ("A", "C"), ("B", "C")]
    assert rows[0].record()["gold"] == "G"
    with pytest.raises(ValueError):
        cc.concordance_table(metrics, ["A", "Z"], ["G"])


def test_shape_mismatch():
    with pytest.raises(ValueError):
        cc.concordance_test(np.ones((3, 3)), np.ones((3, 4)), np.ones((3, 3)))
