import math
import statistics

import numpy as np
import pytest
import scipy.stats

from irwarehouse.meta.standardise import standardise
from tests.helpers.matrices import realistic_matrix


def test_against_slow_loop():
    m = realistic_matrix(6, 5, seed=1)
    ref = [0, 2, 3]
    res = standardise(m, reference_runs=ref)
    for t in range(6):
        values = [m[t, j] for j in ref]
        mu, sd = statistics.mean(values), statistics.stdev(values)
        for r in range(5):
            assert res.values[t, r] == pytest.approx((m[t, r] - mu) / sd)


def test_cdf_and_reference_matrix():
    m = realistic_matrix(8, 4, seed=2)
    ref = realistic_matrix(8, 10, seed=3)
    z = standardise(m, ref).values
    p = standardise(m, ref, cdf=True).values
    np.testing.assert_allclose(p, scipy.stats.norm.cdf(z))
    np.testing.assert_allclose(z, (m - ref.mean(1, keepdims=True)) / ref.std(1, ddof=1,
                                                                          keepdims=True))


def test_all_runs_by_default_mean_zero():
    m = realistic_matrix(7, 6, seed=4)
    z = standardise(m, ddof=0).values
    np.testing.assert_allclose(z.mean(axis=1), 0, atol=1e-12)
    np.testing.assert_allclose(z.std(axis=1), 1)


def test_degenerate_topic():
    m = np.array([[0.2, 0.2, 0.2], [0.1, 0.5, 0.9]])
    res = standardise(m)
    assert res.degenerate_topics.tolist() == [0]
    assert res.values[0].tolist() == [0, 0, 0]
    assert res.values[1, 2] == pytest.approx(0.4 / math.sqrt(0.16))


def test_bad_input():
    with pytest.raises(ValueError):
        standardise(np.ones((3, 3)), np.ones((4, 3)))
    with pytest.raises(ValueError):
        standardise(np.ones((3, 3)), np.ones((3, 3)), reference_runs=[0])
