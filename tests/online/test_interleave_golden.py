"""Interleaving methods against the expected values of mpkato/interleaving's tests (their
inputs and expected lists, outcomes and probabilities, ported as data; tests/test_balanced.py,
test_team_draft.py, test_probabilistic*.py, test_optimized.py of that repository), and the
balanced-interleaving example of Baeza-Yates & Ribeiro-Neto (2011) ch. 4."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from irwarehouse.online import interleave as il

SEEDS = range(200)


def outcomes_of(method, lists, depth):
    return {tuple(method(lists, depth, np.random.default_rng(s)).docs) for s in SEEDS}


def _balanced(lists, depth, rng):
    return il.balanced(lists[0], lists[1], depth, rng)


@pytest.mark.parametrize("lists, depth, expected", [
    ([[1, 2], [2, 3]], 2, {(1, 2), (2, 1)}),
    ([[1, 2], [3, 4]], 2, {(1, 3), (3, 1)}),
    ([[1, 2], [2, 3]], 3, {(1, 2), (2, 1, 3)}),
    ([[1, 2], [3, 4]], 3, {(1, 3, 2), (3, 1, 4)}),
])
def test_balanced_lists(lists, depth, expected):
    assert outcomes_of(_balanced, lists, depth) == expected


def test_balanced_combine_ranking_example():
    """combine_ranking with A first: R_A = (a,b,c,d), R_B = (b,e,a,f) -> a, b, e, c, d, f."""
    got = il.balanced(list("abcd"), list("beaf"), 10, first="a", stop="turn")
    assert got.docs == ["a", "b", "e", "c", "d", "f"]
    assert got.teams == [0, 1, 1, 0, 0, 1]
    # stopping when either list is exhausted (Joachims; mpkato) leaves f out
    assert il.balanced(list("abcd"), list("beaf"), 10, first="a").docs == list("abecd")


@pytest.mark.parametrize("shown, clicks, winner", [
    ([1, 2], [0, 1], None), ([1, 2], [0], 0), ([1, 2], [1], 1), ([1, 2], [], None),
    ([2, 1, 3], [0, 1, 2], None), ([2, 1, 3], [0, 1], None), ([2, 1, 3], [0, 2], 1),
    ([2, 1, 3], [1, 2], None), ([2, 1, 3], [0], 1), ([2, 1, 3], [1], 0),
    ([2, 1, 3], [2], 1), ([2, 1, 3], [], None),
])
def test_balanced_outcomes(shown, clicks, winner):
    ca, cb = il.balanced_credit([1, 2], [2, 3], shown, clicks)
    assert il.outcome(ca, cb) == {None: "tie", 0: "A", 1: "B"}[winner]


def _team(lists, depth, rng):
    return il.team_draft(lists, depth, rng)


@pytest.mark.parametrize("lists, depth, expected", [
    ([[1, 2], [2, 3]], 2, {(1, 2), (2, 1)}),
    ([[1, 2], [2, 3]], 3, {(1, 2, 3), (2, 1, 3)}),
    ([[1, 2], [2, 3]], 4, {(1, 2, 3), (2, 1, 3)}),
    ([[1, 2], [3, 4]], 2, {(1, 3), (3, 1)}),
    ([[1, 2], [3, 4]], 3, {(1, 3, 2), (1, 3, 4), (3, 1, 2), (3, 1, 4)}),
])
def test_team_draft_lists(lists, depth, expected):
    assert outcomes_of(_team, lists, depth) == expected


def test_team_draft_teams():
    for lists, team_a, team_b in (([[1, 2], [2, 3]], {1}, {2}), ([[1, 2], [3, 4]], {1}, {3})):
        for s in SEEDS:
            got = il.team_draft(lists, 2, np.random.default_rng(s))
            assert {d for d, t in zip(got.docs, got.teams) if t == 0} == team_a
            assert {d for d, t in zip(got.docs, got.teams) if t == 1} == team_b


@pytest.mark.parametrize("teams, clicks, winner", [
    ([0, 1], [0, 1], None), ([0, 1], [0], 0), ([0, 1], [1], 1), ([0, 1], [], None),
    ([0, 1, 1], [0, 1, 2], 1), ([0, 1, 1], [0, 1], None), ([0, 1, 1], [0, 2], None),
    ([0, 1, 1], [1, 2], 1), ([0, 1, 1], [0], 0), ([0, 1, 1], [1], 1), ([0, 1, 1], [2], 1),
    ([0, 1, 1], [], None),
])
def test_team_draft_outcomes(teams, clicks, winner):
    assert il.outcome(*il.team_credit(teams, clicks)) == {None: "tie", 0: "A", 1: "B"}[winner]


def test_probabilistic_allocations():
    """mpkato test_score_interleave: lists [1,2],[2,3], shown [1,2], both clicked."""
    got = il.probabilistic_allocations([[1, 2], [2, 3]], [1, 2], [0, 1])
    expected = {
        (0, 0): ([2, 0], 1 / (1 + 0.125) * (0.125 / 0.125)),
        (0, 1): ([1, 1], 1 / (1 + 0.125) * (1 / (1 + 0.125))),
        (1, 0): ([1, 1], 0.0),
        (1, 1): ([0, 2], 0.0),
    }
    assert got.keys() == expected.keys()
    for key, (counts, prob) in expected.items():
        assert got[key][0] == counts
        assert got[key][1] == pytest.approx(prob, abs=1e-15)


def test_probabilistic_outcome():
    """mpkato test_evaluate_interleave: clicks on 2 and 3 of [1,2,3,4] -> B wins."""
    ca, cb = il.probabilistic_credit([[1, 2, 3, 4], [2, 3, 4, 1]], [1, 2, 3, 4], [1, 2])
    assert il.outcome(ca, cb) == "B"
    # the dynamic programme equals the enumeration of all 2^n assignments
    alloc = il.probabilistic_allocations([[1, 2, 3, 4], [2, 3, 4, 1]], [1, 2, 3, 4], [1, 2])
    total = sum(p for _, p in alloc.values())
    assert ca == pytest.approx(sum(p for c, p in alloc.values() if c[0] > c[1]) / total)
    assert cb == pytest.approx(sum(p for c, p in alloc.values() if c[1] > c[0]) / total)


def _frequencies(method, n=20000, seed=0):
    rng = np.random.default_rng(seed)
    counts = Counter(method(rng) for _ in range(n))
    return {k: v / n for k, v in counts.items()}


def test_probabilistic_list_distribution_without_replacement():
    """mpkato test_init_sampling (replace=False): [[1,2],[1,3]] gives these lists with these
    probabilities (within 0.01, as there)."""
    ideal = {(1, 2): 0.444444444, (1, 3): 0.444444444, (2, 1): 0.049382716,
             (2, 3): 0.00617284, (3, 1): 0.049382716, (3, 2): 0.00617284}
    got = _frequencies(lambda rng: tuple(il.probabilistic([[1, 2], [1, 3]], 2, rng,
                                                          replace=False).docs))
    assert set(got) == set(ideal)
    for key, p in ideal.items():
        assert abs(got[key] - p) < 0.01


@pytest.mark.parametrize("lists, ideal", [
    ([[0, 1, 2], [0, 1, 2]], {0: 0.86056, 1: 0.10757, 2: 0.03187}),    # test_softmax
    ([[0, 1], [1, 2]], {0: 0.44444, 1: 0.50000, 2: 0.05556}),          # test_interaction
    ([[0], [1]], {0: 0.5, 1: 0.5}),                                    # test_uniform
])
def test_probabilistic_first_document(lists, ideal):
    got = _frequencies(lambda rng: il.probabilistic(lists, 1, rng).docs[0], n=5000)
    for doc, p in ideal.items():
        assert abs(got.get(doc, 0.0) - p) < 0.02


def test_probabilistic_unique_and_no_shortage():
    for s in range(200):
        rng = np.random.default_rng(s)
        got = il.probabilistic([[0, 1, 2], [1, 2, 0]], 3, rng).docs
        assert sorted(got) == sorted(set(got))
        assert len(il.probabilistic([[0, 1], [0, 1, 2]], 2, rng).docs) == 2
    assert il.probabilistic([[0], [0]], 1, np.random.default_rng(0)).docs == [0]


def test_optimized_candidates_and_probabilities():
    """mpkato test_interleave / test__compute_probabilities: [[1,2],[2,3]] at depth 2."""
    dist = {r: p for r, p, _ in il.optimized_distribution([[1, 2], [2, 3]], 2)}
    assert set(dist) == {(1, 2), (2, 1), (2, 3)}
    ideal = {(1, 2): 0.4285714273469387, (2, 1): 0.37142857025306114,
             (2, 3): 0.20000000240000002}
    for r, p in ideal.items():
        assert abs(dist[r] - p) < 0.01
    # the exact solution of the three equations is 3/7, 13/35, 1/5
    assert dist[(1, 2)] == pytest.approx(3 / 7, abs=1e-8)
    assert dist[(2, 3)] == pytest.approx(1 / 5, abs=1e-8)


def test_optimized_sensitivity():
    """mpkato test__sensitivity, with the credits it gives (1/rank, 1/(len+1) when absent)."""
    lists = [[1, 2], [2, 3]]
    credits = [[[1.0, 1 / 3], [0.5, 1.0]], [[0.5, 1.0], [1.0, 1 / 3]],
               [[0.5, 1.0], [1 / 3, 0.5]]]
    rankings = [(1, 2), (2, 1), (2, 3)]
    assert [il.optimized_credits(lists, r) for r in rankings] == credits
    got = il.sensitivity(lists, rankings, credits)
    assert got[0] == pytest.approx((1 + 0.5 * 0.5 - (1.75 + 1 / 3) / 2) ** 2
                                   + (1 / 3 + 0.5 - (1.75 + 1 / 3) / 2) ** 2, abs=1e-15)
    assert got[1] == pytest.approx((0.5 + 0.5 - (2.0 + 0.5 / 3) / 2) ** 2
                                   + (1.0 + 1 / 3 * 0.5 - (2.0 + 0.5 / 3) / 2) ** 2, abs=1e-15)
    assert got[2] == pytest.approx((0.5 + 0.5 * 1 / 3 - (1.75 + 0.5 / 3) / 2) ** 2
                                   + (1.0 + 0.5 * 0.5 - (1.75 + 0.5 / 3) / 2) ** 2, abs=1e-15)


def test_optimized_unbiasedness_constraints_three_lists():
    """mpkato test__unbiasedness_constraints, its third case (three lists, given credits)."""
    lists = [[1, 2], [1, 3], [1, 4]]
    credits = [[[1.0, 1.0, 1.0], [0.5, 1 / 3, 1 / 3]],
               [[1.0, 1.0, 1.0], [1 / 3, 0.5, 1 / 3]],
               [[1.0, 1.0, 1.0], [1 / 3, 1 / 3, 0.5]]]
    res = il.unbiasedness_constraints(lists, [(1, 2), (1, 3), (1, 4)], credits)
    assert res.shape == (4, 3)
    assert list(res[0]) == [0, 0, 0]
    assert res[1] == pytest.approx([0.5 - 1 / 3, 1 / 3 - 0.5, 0])
    assert list(res[2]) == [0, 0, 0]
    assert res[3] == pytest.approx([0, 0.5 - 1 / 3, 1 / 3 - 0.5])
    assert il.unbiasedness_constraints([[1, 2, 3], [4, 5, 6], [7, 8, 9]],
                                       il.prefix_constraint_lists(
                                           [[1, 2, 3], [4, 5, 6], [7, 8, 9]], 3)).shape[0] == 6


@pytest.mark.parametrize("ranking, expected", [
    ((1, 2), {(0, 1): "A", (0,): "A", (1,): "B", (): "tie"}),
    ((2, 1), {(0, 1): "A", (0,): "B", (1,): "A", (): "tie"}),
    ((2, 3), {(0, 1): "B", (0,): "B", (1,): "B", (): "tie"}),
])
def test_optimized_outcomes(ranking, expected):
    """mpkato test_evaluate of Optimized: the winner for clicks [0,1], [0], [1], []."""
    credits = il.optimized_credits([[1, 2], [2, 3]], ranking)
    for clicks, winner in expected.items():
        assert il.outcome(*il.credit_sums(credits, list(clicks))) == winner
