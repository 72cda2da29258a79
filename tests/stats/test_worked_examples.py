"""The seeds' worked resampling examples, replayed through the injectable samplers."""

import numpy as np
import pytest

from irwarehouse.stats import paired_bootstrap, unpaired_bootstrap
from irwarehouse.stats.resampling import studentise
from tests.helpers.fixed_indices import fixed_indices

W = np.array([0.2, 0.0, 0.1, 0.4, 0.0])


def _t(values):
    values = np.asarray(values)
    return float(studentise(values.mean(), values.var(ddof=1), values.size))


@pytest.mark.parametrize(
    "one_based, expected_w_star",
    [
        ((1, 3, 1, 2, 4), (0.2, 0.1, 0.2, 0.0, 0.4)),  # Sakai, PROMISE 2014, section 4.2
        ((1, 3, 1, 2, 5), (0.2, 0.1, 0.2, 0.0, 0.0)),  # Sakai, IPSJ TOD 2007, section 4.3 (topics 001..005)
    ],
)
def test_paired_bootstrap_resamples_like_the_seed(one_based, expected_w_star):
    indices = np.array([one_based]) - 1
    # z = W: the engine centres it (w = z - mean z), so its w*b is expected_w_star - mean(W).
    res = paired_bootstrap(W, np.zeros(5), B=1, sampler=fixed_indices(indices), return_null=True)
    expected_star = np.array(expected_w_star)
    assert res.null_distribution[0] == pytest.approx(_t(expected_star - W.mean()), rel=1e-12)
    # the percentile interval of mean(z*b) over one replicate is mean(expected_w_star) itself
    assert res.confidence_interval.low == pytest.approx(expected_star.mean(), abs=1e-15)
    assert res.confidence_interval.high == pytest.approx(expected_star.mean(), abs=1e-15)


def test_unpaired_bootstrap_resamples_like_the_seed():
    seen = []

    def recording_mean(sample, axis):
        seen.append(np.array(sample, copy=True))
        return sample.mean(axis=axis)

    x, y = (0.1, 0.3), (0.2, 0.0, 0.0)
    indices = np.array([[1, 3, 1, 2, 4]]) - 1  # Sakai, PROMISE 2014, section 4.3
    res = unpaired_bootstrap(
        x, y, statistic=recording_mean, B=1, sampler=fixed_indices(indices), return_null=True
    )
    x_star, y_star = seen[0][0], seen[1][0]
    np.testing.assert_allclose(x_star, [0.1, 0.2], atol=0)
    np.testing.assert_allclose(y_star, [0.1, 0.3, 0.0], atol=0)
    assert res.null_distribution[0] == pytest.approx(0.15 - 0.4 / 3)
    assert res.statistic == pytest.approx(0.2 - 0.2 / 3)
