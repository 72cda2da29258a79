"""Properties of the interleaving methods over random runs (hypothesis, derandomised): the
balanced invariant of Baeza-Yates & Ribeiro-Neto (2011) ch. 4 / Joachims (2002) -- every top r
of the combined list is the union of the top k_a of A and the top k_b of B with |k_a - k_b| <=
1 -- and team draft's: in every prefix the two teams' picks differ by at most one while both
teams still have documents."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from irwarehouse.online import interleave as il

DOCS = st.lists(st.integers(0, 14), min_size=1, max_size=10, unique=True)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(a=DOCS, b=DOCS, depth=st.integers(1, 12), seed=st.integers(0, 2**32 - 1),
       stop=st.sampled_from(["either", "turn"]))
def test_balanced_prefix_invariant(a, b, depth, seed, stop):
    got = il.balanced(a, b, depth, np.random.default_rng(seed), stop=stop).docs
    assert len(got) == len(set(got)) <= depth
    for r in range(1, len(got) + 1):
        prefix = set(got[:r])
        assert any(prefix == set(a[:ka]) | set(b[:kb])
                   for ka in range(len(a) + 1) for kb in range(len(b) + 1)
                   if abs(ka - kb) <= 1), (a, b, got, r)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(a=DOCS, b=DOCS, depth=st.integers(1, 12), seed=st.integers(0, 2**32 - 1))
def test_team_draft_balanced_teams(a, b, depth, seed):
    got = il.team_draft([a, b], depth, np.random.default_rng(seed))
    assert len(got.docs) == len(set(got.docs)) <= depth
    for i, (doc, team) in enumerate(zip(got.docs, got.teams)):
        # each team adds its highest document not shown before
        assert doc == next(d for d in (a, b)[team] if d not in got.docs[:i])
    counts = [0, 0]
    for i, team in enumerate(got.teams):
        counts[team] += 1
        both_left = all(any(d not in got.docs[:i + 1] for d in lst) for lst in (a, b))
        if both_left:
            assert abs(counts[0] - counts[1]) <= 1


@settings(max_examples=100, derandomize=True, deadline=None)
@given(a=DOCS, b=DOCS, clicks=st.sets(st.integers(0, 9), max_size=4))
def test_probabilistic_credit_matches_enumeration(a, b, clicks):
    shown = il.probabilistic([a, b], 6, np.random.default_rng(0)).docs
    clicks = sorted(c for c in clicks if c < len(shown))
    ca, cb = il.probabilistic_credit([a, b], shown, clicks)
    alloc = il.probabilistic_allocations([a, b], shown, clicks)
    total = sum(p for _, p in alloc.values())
    assert abs(ca - sum(p for c, p in alloc.values() if c[0] > c[1]) / total) < 1e-12
    assert abs(cb - sum(p for c, p in alloc.values() if c[1] > c[0]) / total) < 1e-12
