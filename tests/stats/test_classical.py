"""Classical tests against scipy.stats (the reference) on random data, to 1e-12."""

import numpy as np
import pytest
from scipy import stats

from irwarehouse.stats import (
    anova_two_way,
    friedman,
    paired_t,
    sign_test,
    special,
    wilcoxon_signed_rank,
)

TOL = 1e-12


def _pairs(seed, count=60, rounding=None):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(3, 70))
        x, y = rng.random(n), rng.random(n)
        if rounding is not None:  # coarse scores: ties and zero differences
            x, y = np.round(x, rounding), np.round(y, rounding)
        yield x, y


@pytest.mark.parametrize("rounding", [None, 2, 1])
def test_paired_t_matches_scipy(rounding):
    for x, y in _pairs(1, rounding=rounding):
        if np.all(x - y == (x - y)[0]):
            continue
        ours, ref = paired_t(x, y), stats.ttest_rel(x, y)
        assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12, abs=TOL)
        assert abs(ours.pvalue - ref.pvalue) <= TOL
        assert ours.df == ref.df
        ci = ref.confidence_interval(0.95)
        assert ours.confidence_interval.low == pytest.approx(ci.low, abs=1e-10)
        assert ours.confidence_interval.high == pytest.approx(ci.high, abs=1e-10)
        d = x - y
        assert ours.effect_size == pytest.approx(d.mean() / d.std(ddof=1))


@pytest.mark.parametrize("rounding", [None, 2, 1])
def test_wilcoxon_matches_scipy_default(rounding):
    # sizes around scipy's switches: 13 (sign-flip enumeration) and 50 (normal approximation)
    rng = np.random.default_rng(2)
    for n in [3, 6, 10, 13, 14, 25, 50, 51, 90]:
        for _ in range(2 if n <= 13 else 8):  # scipy's own n <= 13 branch is slow (~0.5 s)
            x, y = rng.random(n), rng.random(n)
            if rounding is not None:
                x, y = np.round(x, rounding), np.round(y, rounding)
            if np.all(x == y):
                continue
            ours, ref = wilcoxon_signed_rank(x, y), stats.wilcoxon(x, y)
            assert ours.statistic == ref.statistic
            assert abs(ours.pvalue - ref.pvalue) <= TOL, (n, ours.method)


@pytest.mark.parametrize("rounding", [None, 1])
def test_sign_test_matches_binomtest(rounding):
    for x, y in _pairs(3, rounding=rounding):
        d = x - y
        wins, played = int((d > 0).sum()), int((d != 0).sum())
        if played == 0:
            continue
        ours = sign_test(x, y)
        assert ours.statistic == wins
        assert abs(ours.pvalue - stats.binomtest(wins, played).pvalue) <= TOL


@pytest.mark.parametrize("rounding", [None, 1])
def test_friedman_matches_scipy(rounding):
    rng = np.random.default_rng(4)
    for _ in range(40):
        n, k = int(rng.integers(2, 40)), int(rng.integers(3, 12))
        matrix = rng.random((n, k))
        if rounding is not None:
            matrix = np.round(matrix, rounding)
        ref = stats.friedmanchisquare(*matrix.T)
        ours = friedman(matrix)
        assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12, abs=1e-12)
        assert abs(ours.pvalue - ref.pvalue) <= TOL
        assert ours.effect_size == pytest.approx(ref.statistic / (n * (k - 1)))


def _anova_by_least_squares(matrix):
    """Independent oracle: residual SS of the additive model fitted by least squares."""
    n, m = matrix.shape
    design = np.hstack(
        [
            np.ones((n * m, 1)),
            np.kron(np.eye(n), np.ones((m, 1)))[:, 1:],
            np.kron(np.ones((n, 1)), np.eye(m))[:, 1:],
        ]
    )
    y = matrix.ravel()

    def rss(columns):
        coef, *_ = np.linalg.lstsq(design[:, columns], y, rcond=None)
        return float(np.sum((y - design[:, columns] @ coef) ** 2))

    full = list(range(design.shape[1]))
    without_runs = list(range(n))  # intercept + topic dummies
    return rss(full), rss(without_runs) - rss(full)


def test_anova_two_way_matches_least_squares_and_f_distribution():
    rng = np.random.default_rng(5)
    for _ in range(15):
        n, m = int(rng.integers(3, 30)), int(rng.integers(2, 9))
        matrix = rng.random((n, m)) + np.linspace(0, 0.2, m)
        res = anova_two_way(matrix)
        ss_error, ss_runs = _anova_by_least_squares(matrix)
        assert res.residual.sum_of_squares == pytest.approx(ss_error, rel=1e-9)
        assert res.runs.sum_of_squares == pytest.approx(ss_runs, rel=1e-9)
        df_error = (n - 1) * (m - 1)
        f_runs = (ss_runs / (m - 1)) / (ss_error / df_error)
        assert res.runs.statistic == pytest.approx(f_runs, rel=1e-9)
        assert abs(res.pvalue - stats.f.sf(res.runs.statistic, m - 1, df_error)) <= TOL
        assert abs(res.topics.pvalue - stats.f.sf(res.topics.statistic, n - 1, df_error)) <= TOL
        total = res.runs.sum_of_squares + res.topics.sum_of_squares + res.residual.sum_of_squares
        assert total == pytest.approx(res.total_sum_of_squares, rel=1e-12)


def test_anova_with_two_runs_is_the_squared_paired_t():
    rng = np.random.default_rng(6)
    matrix = rng.random((25, 2))
    res, t = anova_two_way(matrix), paired_t(matrix[:, 0], matrix[:, 1])
    assert res.runs.statistic == pytest.approx(t.statistic**2, rel=1e-12)
    assert res.pvalue == pytest.approx(t.pvalue, abs=TOL)


def test_distribution_tails_match_scipy():
    rng = np.random.default_rng(7)
    for _ in range(300):
        df1, df2 = int(rng.integers(1, 200)), int(rng.integers(1, 6000))
        t, f, c = rng.exponential(3), rng.exponential(2), rng.exponential(df1)
        assert abs(special.t_two_sided(t, df2) - 2 * stats.t.sf(t, df2)) <= TOL
        assert abs(special.f_upper_tail(f, df1, df2) - stats.f.sf(f, df1, df2)) <= TOL
        assert abs(special.chi2_upper_tail(c, df1) - stats.chi2.sf(c, df1)) <= TOL
    assert special.t_critical(0.05, 10) == pytest.approx(stats.t.ppf(0.975, 10), rel=1e-13)


def test_degenerate_inputs_give_defined_values_without_warnings():
    same = np.array([0.1, 0.2, 0.3])
    t = paired_t(same, same)
    assert (t.statistic, t.pvalue) == (0.0, 1.0)
    shifted = paired_t(same + 0.5, same)
    assert shifted.pvalue < 1e-12  # constant non-zero difference: sd(z) ~ 0
    assert wilcoxon_signed_rank(same, same).pvalue == 1.0
    assert sign_test(same, same).pvalue == 1.0
