"""Invariants checked on generated data (hypothesis, derandomised so CI is deterministic)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from irwarehouse.stats import compare_all, paired_bootstrap, paired_t, tukey_hsd
from irwarehouse.stats.compare import TESTS

scores = st.floats(0, 1, allow_nan=False, width=64)
DETERMINISTIC = settings(max_examples=40, derandomize=True, deadline=None)


@st.composite
def paired_scores(draw):
    n = draw(st.integers(3, 30))
    x = draw(arrays(float, n, elements=scores))
    y = draw(arrays(float, n, elements=scores))
    return x, y


@DETERMINISTIC
@given(paired_scores())
def test_bootstrap_asl_is_symmetric_in_the_runs_and_a_probability(pair):
    x, y = pair
    forward, backward = paired_bootstrap(x, y, B=200, rng=1), paired_bootstrap(y, x, B=200, rng=1)
    assert 0.0 <= forward.pvalue <= 1.0
    assert forward.pvalue == backward.pvalue
    assert forward.statistic == pytest.approx(-backward.statistic)


@DETERMINISTIC
@given(paired_scores())
def test_paired_t_agrees_with_scipy_when_defined(pair):
    x, y = pair
    d = x - y
    if np.ptp(d) <= 1e-9 * max(1.0, np.abs(d).max()):  # scipy: nan or unstable; ours: defined
        return
    assert abs(paired_t(x, y).pvalue - stats.ttest_rel(x, y).pvalue) <= 1e-12


@DETERMINISTIC
@given(arrays(float, st.tuples(st.integers(2, 12), st.integers(2, 6)), elements=scores))
def test_tukey_asl_falls_as_the_mean_difference_grows(matrix):
    res = tukey_hsd(matrix, B=100, rng=0)
    a, b = np.triu_indices(matrix.shape[1], k=1)
    order = np.argsort(np.abs(res.mean_differences[a, b]), kind="stable")
    assert np.all(np.diff(res.pvalues[a, b][order]) <= 0)


@pytest.mark.parametrize("test", TESTS)
def test_identical_runs_are_never_significant_and_raise_no_warning(test):
    column = np.random.default_rng(0).random(15)
    matrix = np.column_stack([column, column, column])
    result = compare_all(
        matrix, test=test, B=200 if test in ("bootstrap", "tukey") else None, rng=1
    )
    assert all(pair.p == 1.0 and pair.delta == 0 for pair in result.pairs)
