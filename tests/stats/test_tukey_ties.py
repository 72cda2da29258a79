"""Randomised Tukey HSD's two tie rules: '>=' (tie_rule="ge", the default) and Sakai's '>'
(tie_rule="gt"; Sakai, Metrics, Statistics, Tests, PROMISE Winter School 2013, Fig 15; Sakai,
J. Inf. Process. 2012, Fig 4). A hand-worked example small enough to enumerate every
permutation, a slow loop in exact rational arithmetic on P@10-like data, and the options."""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from irwarehouse.stats import compare_all, default_row_permuter, tukey_delta, tukey_hsd
from tests.helpers.matrices import RecordingSampler, coarse_matrix, realistic_matrix

# ---------------------------------------------------------------- the hand-worked example
#
# Two topics, three runs A, B, C:
#
#              A    B    C
#   topic 1   0.4  0.2  0.0
#   topic 2   0.3  0.1  0.2
#   mean     0.35 0.15 0.10      |A-B| = 0.20, |A-C| = 0.25, |B-C| = 0.05
#
# Permuting both rows independently gives 3! x 3! = 36 matrices. Their column sums depend only
# on which topic-2 value meets which topic-1 value: 6 pairings, each reached by 6 of the 36.
#
#   pairing (0.4, 0.2, 0.0) with   column sums        max - min   range of the means
#   (0.3, 0.1, 0.2)                0.7  0.3  0.2      0.5         0.25   (the identity)
#   (0.3, 0.2, 0.1)                0.7  0.4  0.1      0.6         0.30
#   (0.1, 0.3, 0.2)                0.5  0.5  0.2      0.3         0.15
#   (0.1, 0.2, 0.3)                0.5  0.4  0.3      0.2         0.10
#   (0.2, 0.3, 0.1)                0.6  0.5  0.1      0.5         0.25
#   (0.2, 0.1, 0.3)                0.6  0.3  0.3      0.3         0.15
#
# ASL = share of the 36 with range >= (ge) or > (gt) the pair's difference:
#   A-B, 0.20:  ge 0.25, 0.30, 0.25 -> 3/6       gt the same -> 3/6
#   A-C, 0.25:  ge 0.25, 0.30, 0.25 -> 3/6       gt only 0.30 -> 1/6
#   B-C, 0.05:  every range             -> 1     both
# A-C's difference is the identity's own range, so '>' drops the observed arrangement itself.

HAND = np.array([[0.4, 0.2, 0.0],
                 [0.3, 0.1, 0.2]])
HAND_ASL = {  # (run a, run b) -> (ge, gt)
    (0, 1): (Fraction(3, 6), Fraction(3, 6)),
    (0, 2): (Fraction(3, 6), Fraction(1, 6)),
    (1, 2): (Fraction(1), Fraction(1)),
}


def every_permutation(n_topics: int, n_runs: int) -> np.ndarray:
    """All (n_runs!)^n_topics choices of one permutation per row, shape (B, n, m)."""
    rows = list(itertools.permutations(range(n_runs)))
    return np.array(list(itertools.product(rows, repeat=n_topics)))


def replay(permutations: np.ndarray):
    """A permuter handing out the recorded permutations batch by batch."""
    position = {"next": 0}

    def permuter(batch, n, m, rng):
        start = position["next"]
        position["next"] = start + batch
        return permutations[start:start + batch]
    return permuter


@pytest.mark.parametrize("tie_rule, column", [("ge", 0), ("gt", 1)])
def test_hand_worked_example(tie_rule, column):
    permutations = every_permutation(2, 3)
    assert permutations.shape == (36, 2, 3)
    res = tukey_hsd(HAND, B=36, permuter=replay(permutations), tie_rule=tie_rule,
                    return_null=True)
    assert res.tie_rule == tie_rule
    assert sorted(set(np.round(res.null_distribution, 12))) == [0.10, 0.15, 0.25, 0.30]
    for (a, b), expected in HAND_ASL.items():
        assert res.pvalues[a, b] == float(expected[column]), (a, b)
        assert res.pvalues[b, a] == res.pvalues[a, b]
    assert np.all(np.diag(res.pvalues) == 1.0)


def test_hand_worked_example_through_compare_all():
    """Random replicates instead of the enumeration: the ASLs approach 1/2 and 1/6."""
    for tie_rule, column in (("ge", 0), ("gt", 1)):
        comparison = compare_all(HAND, ["A", "B", "C"], test="tukey", B=3000, rng=4,
                                 tie_rule=tie_rule)
        assert comparison.tie_rule == tie_rule
        assert all(r["tie_rule"] == tie_rule for r in comparison.records())
        got = {(p.run_a, p.run_b): p.p for p in comparison.pairs}
        for (a, b), expected in HAND_ASL.items():
            # binomial sd at B = 3000 is below 0.01
            assert got[("ABC"[a], "ABC"[b])] == pytest.approx(float(expected[column]), abs=0.03)


def test_hand_worked_runs_that_differ_on_one_topic_each():
    """Three P@10-like runs: y is x with topic 2 raised by 0.1, z is x with topic 4 raised.

    Topics 1 and 3 hold equal values, so permuting them changes nothing. Topic 2's 0.6 and topic
    4's 0.8 each land in any of the three columns with probability 1/3 (2 of the 6 permutations
    of their row). Column sums are 1.6 plus 0.1 where each lands: the same column (1/3) gives
    1.8, 1.6, 1.6, range 0.2 / 4 = 0.05; different columns (2/3) give 1.7, 1.7, 1.6, range
    0.025. Observed: |x - y| = |x - z| = 0.025, |y - z| = 0.
      ge: x-y and x-z: every range >= 0.025 -> 1;  y-z -> 1
      gt: x-y and x-z: only 0.05 > 0.025 -> 1/3;   y-z: every range > 0 -> 1
    """
    x = np.array([0.3, 0.5, 0.1, 0.7])
    matrix = np.column_stack([x, x + [0, 0.1, 0, 0], x + [0, 0, 0, 0.1]])
    permutations = every_permutation(4, 3)                 # 6^4 = 1296
    ge = tukey_hsd(matrix, B=1296, permuter=replay(permutations))
    gt = tukey_hsd(matrix, B=1296, permuter=replay(permutations), tie_rule="gt")
    assert (ge.pvalues[0, 1], ge.pvalues[0, 2], ge.pvalues[1, 2]) == (1.0, 1.0, 1.0)
    assert (gt.pvalues[0, 1], gt.pvalues[0, 2], gt.pvalues[1, 2]) == (432 / 1296, 432 / 1296,
                                                                     1.0)


# ---------------------------------------------------------------- slow loop, exact arithmetic


def slow_tukey_exact(matrix, permutations, tie_rule):
    """Sakai's Fig 15 line by line, in rational arithmetic on the decimal scores (so a tie is a
    tie), with '>=' or '>'."""
    values = [[Fraction(float(x)).limit_denominator(1000) for x in row] for row in matrix]
    n, m = len(values), len(values[0])
    means = [sum(values[i][j] for i in range(n)) / n for j in range(m)]
    counts = np.zeros((m, m), dtype=int)
    for permutation in permutations:
        column_means = [sum(values[i][permutation[i][j]] for i in range(n)) / n
                        for j in range(m)]
        spread = max(column_means) - min(column_means)
        for a in range(m):
            for b in range(m):
                difference = abs(means[a] - means[b])
                hit = spread >= difference if tie_rule == "ge" else spread > difference
                counts[a, b] += hit
    return counts / len(permutations)


@pytest.mark.parametrize("tie_rule", ["ge", "gt"])
@pytest.mark.parametrize("seed", [3, 11])
def test_both_rules_equal_exact_slow_loop_on_tied_scores(tie_rule, seed):
    matrix = coarse_matrix(25, 6, seed=seed)          # multiples of 0.1: ties are routine
    recorder = RecordingSampler(default_row_permuter)
    res = tukey_hsd(matrix, B=400, rng=seed, permuter=recorder, tie_rule=tie_rule)
    permutations = np.concatenate(recorder.calls)
    expected = slow_tukey_exact(matrix, permutations, tie_rule)
    off_diagonal = ~np.eye(6, dtype=bool)
    np.testing.assert_array_equal(res.pvalues[off_diagonal], expected[off_diagonal])


def test_the_rules_differ_on_ties_and_agree_without_them():
    tied = coarse_matrix(25, 6, seed=3)
    ge = tukey_hsd(tied, B=1000, rng=5)
    gt = tukey_hsd(tied, B=1000, rng=5, tie_rule="gt")
    assert np.all(gt.pvalues <= ge.pvalues)                # '>' counts a subset
    assert np.any(gt.pvalues < ge.pvalues)                 # and ties do occur on P@10-like data
    np.testing.assert_array_equal(ge.null_distribution, gt.null_distribution)  # same draws
    smooth = realistic_matrix(25, 6, seed=3)               # continuous scores: no ties
    np.testing.assert_array_equal(tukey_hsd(smooth, B=1000, rng=5).pvalues,
                                  tukey_hsd(smooth, B=1000, rng=5, tie_rule="gt").pvalues)


def test_identical_runs_under_gt():
    """Identical runs get ASL 1 under both rules (issue 23: no difference is no evidence of one).
    Counted, '>' would give 0: every row (x_i, x_i) is the same in either order, so every
    permuted range is 0 = the observed difference and '>' counts none of them; the rule for
    identical runs overrides that count, and leaves every other pair to the rule."""
    x = np.array([0.1, 0.5, 0.3, 0.0])
    y = np.array([0.2, 0.5, 0.1, 0.1])
    matrix = np.column_stack([x, x])
    permutations = every_permutation(4, 2)                  # 2^4 = 16
    ge = tukey_hsd(matrix, B=16, permuter=replay(permutations))
    gt = tukey_hsd(matrix, B=16, permuter=replay(permutations), tie_rule="gt")
    assert ge.pvalues[0, 1] == gt.pvalues[0, 1] == 1.0
    assert np.all(np.diag(gt.pvalues) == 1.0)
    # with a third run, the identical pair stays at 1 and the others follow each rule
    matrix = np.column_stack([x, x, y])
    permutations = every_permutation(4, 3)                  # 6^4 = 1296
    ge = tukey_hsd(matrix, B=1296, permuter=replay(permutations))
    gt = tukey_hsd(matrix, B=1296, permuter=replay(permutations), tie_rule="gt")
    assert ge.pvalues[0, 1] == gt.pvalues[0, 1] == 1.0
    expected_ge = slow_tukey_exact(matrix, permutations, "ge")
    expected_gt = slow_tukey_exact(matrix, permutations, "gt")
    assert ge.pvalues[0, 2] == expected_ge[0, 2] and gt.pvalues[0, 2] == expected_gt[0, 2]
    assert gt.pvalues[0, 2] < ge.pvalues[0, 2]              # ties do occur here


def test_tie_rule_options():
    matrix = coarse_matrix(10, 4, seed=1)
    with pytest.raises(ValueError, match="tie_rule"):
        tukey_hsd(matrix, B=10, rng=1, tie_rule=">")
    with pytest.raises(ValueError, match="tukey"):
        compare_all(matrix, test="bootstrap", B=10, rng=1, tie_rule="gt")
    assert compare_all(matrix, test="bootstrap", B=10, rng=1).tie_rule is None
    assert "tie_rule" not in compare_all(matrix, test="t").records()[0]
    ge = tukey_delta(matrix, B=500, rng=2)
    gt = tukey_delta(matrix, B=500, rng=2, tie_rule="gt")
    assert gt.n_significant >= ge.n_significant
