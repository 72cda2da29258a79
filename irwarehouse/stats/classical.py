"""Classical tests: paired t, Wilcoxon signed-rank, sign test, Friedman, two-way ANOVA.

p-values equal scipy.stats' (tests/stats/test_classical.py checks 1e-12) but are computed
with numpy and the tails in ``special`` only. Degenerate inputs are handled explicitly
(0/0 := 0, giving p = 1; c/0 := inf, giving p = 0) instead of through numpy warnings; two
identical runs (every difference 0) get statistic 0 and p = 1 with a note (``ties``), where
scipy returns NaN or raises.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from . import special, ties
from . import validation as v
from .resampling import at_least_as_extreme, studentise
from .results import AnovaResult, AnovaRow, ConfidenceInterval, TestResult


def _safe_ratio(numerator: float, denominator: float) -> float:
    if denominator > 0:
        return numerator / denominator
    return 0.0 if numerator == 0 else math.copysign(math.inf, numerator)


# ----------------------------------------------------------------------------------------------
# paired t-test


def paired_t(x, y, *, confidence_level: float = 0.95) -> TestResult:
    """Two-sided paired t-test (scipy.stats.ttest_rel) with CI and Cohen's d_z.

    t = mean(z) / (sd(z)/sqrt(n)), df = n - 1 (Sakai, PROMISE 2014, eq 48-49);
    CI = mean(z) +- t_{df, (1+level)/2} sd(z)/sqrt(n).
    """
    x, y = v.as_paired(x, y)
    level = v.check_probability(confidence_level, "confidence_level")
    differences = x - y
    n = differences.size
    means, variances = ties.exact_mean_and_variance(differences[:, None])
    mean, variance = float(means[0]), float(variances[0])
    t = float(studentise(mean, variance, n))
    df = n - 1
    half_width = special.t_critical(1 - level, df) * math.sqrt(variance / n)
    return TestResult(
        test="t",
        statistic=t,
        pvalue=special.t_two_sided(t, df),
        effect_size=_safe_ratio(mean, math.sqrt(variance)) if variance > 0 else float("nan"),
        effect_size_name="mean difference / sd of differences (Cohen's d_z)",
        mean_difference=mean,
        confidence_interval=ConfidenceInterval(mean - half_width, mean + half_width, level),
        df=df,
        method="paired t",
        note=ties.IDENTICAL_NOTE if mean == 0 and variance == 0 else None,
    )


# ----------------------------------------------------------------------------------------------
# ranks


def average_ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """1-based ranks with ties given their average rank, and the sizes of the tie groups."""
    order = np.argsort(values, kind="stable")
    sorted_values = values[order]
    starts = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])
    sizes = np.diff(np.r_[starts, values.size])
    average = starts + (sizes + 1) / 2.0  # mean of the 1-based ranks start+1 .. start+size
    ranks = np.empty(values.size)
    ranks[order] = np.repeat(average, sizes)
    return ranks, sizes


# ----------------------------------------------------------------------------------------------
# Wilcoxon signed-rank (scipy.stats.wilcoxon defaults)


@lru_cache(maxsize=64)
def _signed_rank_counts(n: int) -> tuple[int, ...]:
    """Number of subsets of {1..n} with each rank sum 0..n(n+1)/2 (exact null of R+)."""
    counts = [1] + [0] * (n * (n + 1) // 2)
    for rank in range(1, n + 1):
        for total in range(len(counts) - 1, rank - 1, -1):
            counts[total] += counts[total - rank]
    return tuple(counts)


def _exact_signed_rank_pvalue(r_plus: float, n: int) -> float:
    """2 * min(P(R+ >= floor r), P(R+ <= ceil r)) from the exact null (scipy, gh-19872)."""
    counts = _signed_rank_counts(n)
    upper = sum(counts[math.floor(r_plus) :])
    lower = sum(counts[: math.ceil(r_plus) + 1])
    return min(1.0, 2 * min(upper, lower) / 2**n)


def _sign_flip_rank_pvalue(ranks: np.ndarray, positive: np.ndarray) -> float:
    """Exact conditional p over all sign flips of the (mid)ranks (scipy's permutation branch)."""
    n = ranks.size
    observed = float(ranks[positive].sum())
    codes = np.arange(1 << n)[:, None]
    flips_positive = ((codes >> np.arange(n)) & 1).astype(float)
    null = flips_positive @ ranks
    less = np.count_nonzero(null <= observed + 100 * np.finfo(float).eps * abs(observed))
    greater = np.count_nonzero(at_least_as_extreme(null, observed))
    return min(1.0, 2 * min(less, greater) / null.size)


def wilcoxon_signed_rank(x, y) -> TestResult:
    """Two-sided Wilcoxon signed-rank test matching scipy.stats.wilcoxon(x, y) defaults.

    zero_method='wilcox' (zero differences dropped), no continuity correction, method='auto'
    as scipy 1.17 resolves it: more than 50 pairs -> normal approximation with tie-corrected
    variance; otherwise exact null if no ties and no zeros; otherwise (ties or zeros) the exact
    sign-flip distribution of the midranks when n <= 13, else the normal approximation.
    ``statistic`` is min(R+, R-); the effect size is the matched-pairs rank-biserial
    correlation (R+ - R-) / (R+ + R-).
    """
    x, y = v.as_paired(x, y, min_size=1)
    differences = x - y
    n_total = differences.size
    nonzero = differences[differences != 0]
    count = nonzero.size
    if count == 0:
        return TestResult(
            test="wilcoxon", statistic=0.0, pvalue=1.0, method="no non-zero differences",
            mean_difference=0.0, note=ties.IDENTICAL_NOTE,
        )
    ranks, tie_sizes = average_ranks(np.abs(nonzero))
    positive = nonzero > 0
    r_plus, r_minus = float(ranks[positive].sum()), float(ranks[~positive].sum())
    has_ties_or_zeros = bool(np.any(tie_sizes > 1)) or count < n_total

    if n_total <= 50 and not has_ties_or_zeros:
        method, pvalue = "exact", _exact_signed_rank_pvalue(r_plus, count)
    elif n_total <= 13:
        method, pvalue = "exact sign-flip (ties or zeros)", _sign_flip_rank_pvalue(ranks, positive)
    else:
        method, pvalue = (
            "normal approximation",
            _signed_rank_normal_pvalue(r_plus, count, tie_sizes),
        )
    return TestResult(
        test="wilcoxon",
        statistic=min(r_plus, r_minus),
        pvalue=pvalue,
        effect_size=(r_plus - r_minus) / (r_plus + r_minus),
        effect_size_name="matched-pairs rank-biserial correlation",
        mean_difference=float(differences.mean()),
        method=method,
    )


def _signed_rank_normal_pvalue(r_plus: float, count: int, tie_sizes: np.ndarray) -> float:
    mean = count * (count + 1) / 4.0
    tie_term = float(np.sum(tie_sizes.astype(float) ** 3 - tie_sizes))
    variance = (count * (count + 1) * (2 * count + 1) - tie_term / 2.0) / 24.0
    z = _safe_ratio(r_plus - mean, math.sqrt(variance))
    return special.normal_two_sided(z) if math.isfinite(z) else 0.0


# ----------------------------------------------------------------------------------------------
# sign test


def sign_test(x, y) -> TestResult:
    """Two-sided sign test: exact binomial(n_nonzero, 1/2) on the wins of x (scipy binomtest).

    Ties (zero differences) are dropped. ``statistic`` is the number of topics where x > y;
    the effect size is (wins - losses) / (wins + losses).
    """
    x, y = v.as_paired(x, y, min_size=1)
    differences = x - y
    wins, losses = int(np.count_nonzero(differences > 0)), int(np.count_nonzero(differences < 0))
    played = wins + losses
    return TestResult(
        test="sign",
        statistic=float(wins),
        pvalue=special.binomial_two_sided_half(wins, played),
        effect_size=(wins - losses) / played if played else float("nan"),
        effect_size_name="(wins - losses) / (wins + losses)",
        mean_difference=float(differences.mean()),
        method="exact binomial, p = 1/2",
        note=None if played else ties.IDENTICAL_NOTE,
    )


# ----------------------------------------------------------------------------------------------
# Friedman and two-way ANOVA over a topics x runs matrix


def friedman(matrix) -> TestResult:
    """Friedman test over the runs (columns) with topics as blocks (scipy.friedmanchisquare).

    chi2 = [12 / (n k (k+1)) sum_j R_j^2 - 3 n (k+1)] / C, C = 1 - sum(t^3 - t) / (n k (k^2-1)),
    df = k - 1. Effect size: Kendall's W = chi2 / (n (k - 1)).
    """
    matrix = v.as_matrix(matrix, min_topics=1, min_runs=3)
    n, k = matrix.shape
    ranked = np.empty_like(matrix)
    tie_term = 0.0
    for row, values in enumerate(matrix):
        ranked[row], sizes = average_ranks(values)
        tie_term += float(np.sum(sizes.astype(float) ** 3 - sizes))
    correction = 1.0 - tie_term / (k * (k * k - 1) * n)
    rank_sums = ranked.sum(axis=0)
    raw = 12.0 / (k * n * (k + 1)) * float(np.sum(rank_sums**2)) - 3 * n * (k + 1)
    statistic = _safe_ratio(raw, correction) if raw else 0.0
    return TestResult(
        test="friedman",
        statistic=statistic,
        pvalue=special.chi2_upper_tail(statistic, k - 1),
        effect_size=statistic / (n * (k - 1)),
        effect_size_name="Kendall's W",
        df=k - 1,
        method="chi-squared approximation, tie-corrected",
    )


def anova_two_way(matrix) -> AnovaResult:
    """Two-way ANOVA without replication: score = grand + topic effect + run effect + error.

    SS_runs = n sum_j (mean_j - grand)^2, SS_topics = m sum_i (mean_i - grand)^2, SS_error =
    sum (x_ij - mean_i - mean_j + grand)^2; F = MS_effect / MS_error with df (m-1, (n-1)(m-1))
    and (n-1, (n-1)(m-1)); p from the F distribution's upper tail.
    """
    matrix = v.as_matrix(matrix)
    n, m = matrix.shape
    grand = matrix.mean()
    run_means, topic_means = matrix.mean(axis=0), matrix.mean(axis=1)
    residuals = matrix - topic_means[:, None] - run_means[None, :] + grand
    ss_runs = float(n * np.sum((run_means - grand) ** 2))
    ss_topics = float(m * np.sum((topic_means - grand) ** 2))
    ss_error = float(np.sum(residuals**2))
    df_error = (n - 1) * (m - 1)
    error = AnovaRow("residual", ss_error, df_error, ss_error / df_error)
    return AnovaResult(
        test="anova2",
        runs=_effect_row("runs", ss_runs, m - 1, error),
        topics=_effect_row("topics", ss_topics, n - 1, error),
        residual=error,
        total_sum_of_squares=float(np.sum((matrix - grand) ** 2)),
    )


def _effect_row(source: str, sum_of_squares: float, df: int, error: AnovaRow) -> AnovaRow:
    mean_square = sum_of_squares / df
    f = _safe_ratio(mean_square, error.mean_square)
    partial = sum_of_squares + error.sum_of_squares
    return AnovaRow(
        source,
        sum_of_squares,
        df,
        mean_square,
        statistic=f,
        pvalue=special.f_upper_tail(f, df, error.df),
        partial_eta_squared=sum_of_squares / partial if partial > 0 else float("nan"),
    )
