"""Computer-based tests: paired and unpaired bootstrap, randomisation test, randomised Tukey HSD.

Conventions (see docs/stats.md):

* ASL (achieved significance level) = count / B, Sakai's definition (Sakai, PROMISE 2014, Fig 12, 14, 15;
  Sakai, IPSJ JIP 2013, Fig 2, 4). ``plus_one=True`` gives (count + 1) / (B + 1), which never reports 0.
* "At least as extreme" is tested with a relative tolerance of 100 machine epsilons, as
  scipy.stats.permutation_test does, so rounding noise cannot drop the observed value itself.
* The all-pairs functions draw ONE resample matrix (bootstrap indices, sign flips) and apply it
  to every run pair, the practice of discriminative-power studies (Sakai, IPSJ TOD 2007, Fig 5 samples topic
  sets Q*b once); p-values of different pairs are therefore correlated, each is still exact in
  distribution.
* Identical runs (every per-topic difference 0) get p = 1 from every test, and a constant
  difference has variance exactly 0 (``ties``): no statistic divides by rounding noise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import ties
from . import validation as v
from .results import ConfidenceInterval, TestResult, TukeyHSDResult

IndexSampler = Callable[[int, int, np.random.Generator], np.ndarray]
SignSampler = Callable[[int, int, np.random.Generator], np.ndarray]
RowPermuter = Callable[[int, int, int, np.random.Generator], np.ndarray]

_TIE_TOLERANCE = 100 * np.finfo(float).eps
_PAIR_BATCH_ELEMENTS = 1_000_000  # bound on B x pairs floats held at once (8 MB per array)
_TUKEY_BATCH_ELEMENTS = 1_000_000  # bound on replicates x topics x runs held at once
_EXACT_BATCH = 1 << 15


# ----------------------------------------------------------------------------------------------
# shared pieces


def default_index_sampler(n: int, B: int, rng: np.random.Generator) -> np.ndarray:
    """B bootstrap samples of n indices drawn with replacement from 0..n-1 (Sakai, PROMISE 2014, Fig 11)."""
    return rng.integers(0, n, size=(B, n))


def default_sign_sampler(n: int, B: int, rng: np.random.Generator) -> np.ndarray:
    """B random sign-flip vectors of length n (+1/-1, each with probability 1/2)."""
    return 1.0 - 2.0 * rng.integers(0, 2, size=(B, n))


def default_row_permuter(batch: int, n: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Independent random permutations of 0..m-1 for each of batch x n rows (argsort of keys)."""
    return np.argsort(rng.random((batch, n, m)), axis=2)


def achieved_significance(count, B: int, *, plus_one: bool = False):
    """ASL = count/B (Sakai, PROMISE 2014, Fig 12) or, with plus_one, (count+1)/(B+1)."""
    count = np.asarray(count, dtype=float)
    result = (count + 1.0) / (B + 1.0) if plus_one else count / B
    return result[()] if result.ndim == 0 else result


def at_least_as_extreme(null_values, observed):
    """null >= observed, tolerant to rounding (as scipy.stats.permutation_test)."""
    observed = np.asarray(observed, dtype=float)
    # observed * (1 -+ tol) rather than observed - tol |observed|: the same threshold, and an
    # infinite t (a constant non-zero difference) stays inf instead of inf - inf = NaN.
    return np.asarray(null_values) >= observed * (1.0 - _TIE_TOLERANCE * np.sign(observed))


def studentise(mean, variance, n: int):
    """t = mean / sqrt(variance / n) (Sakai, PROMISE 2014, eq 48-49) with 0/0 := 0 and c/0 := +-inf.

    Explicit guards instead of numpy's divide warnings: a zero-variance sample with zero mean
    is no evidence at all (t = 0); a constant non-zero difference is infinitely strong.
    """
    mean = np.asarray(mean, dtype=float)
    variance = np.maximum(np.asarray(variance, dtype=float), 0.0)
    standard_error = np.sqrt(variance / n)
    positive = standard_error > 0
    t = np.divide(mean, standard_error, out=np.zeros_like(mean), where=positive)
    infinite = ~positive & (mean != 0)
    t[infinite] = np.copysign(np.inf, mean[infinite])
    return t[()] if t.ndim == 0 else t


def observed_t(differences: np.ndarray):
    """t(z) of each column of an (n, pairs) difference array, two-pass variance; a constant
    column has variance 0 and its value as mean (t = 0 or +-inf, never a ratio of noise)."""
    n = differences.shape[0]
    mean, variance = ties.exact_mean_and_variance(differences)
    return studentise(mean, variance, n)


def resample_counts(indices: np.ndarray, n: int) -> np.ndarray:
    """(B, n) matrix of how often each topic occurs in each bootstrap sample."""
    B = indices.shape[0]
    offsets = (indices + n * np.arange(B)[:, None]).ravel()
    return np.bincount(offsets, minlength=B * n).reshape(B, n).astype(float)


def _draw_indices(sampler, n: int, B: int, rng) -> np.ndarray:
    sampler = default_index_sampler if sampler is None else sampler
    return v.check_index_sample(sampler(n, B, rng), n, B)


def _pair_indices(n_runs: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(n_runs, k=1)


def _pair_batches(n_pairs: int, rows: int):
    size = max(1, _PAIR_BATCH_ELEMENTS // max(rows, 1))
    for start in range(0, n_pairs, size):
        yield slice(start, min(n_pairs, start + size))


def _report(progress, done: int, total: int) -> None:
    if progress is not None:
        progress(done, total)


# ----------------------------------------------------------------------------------------------
# paired bootstrap (Sakai, PROMISE 2014, Fig 11-12; Sakai, IPSJ JIP 2013, Fig 2; Sakai, IPSJ TOD 2007, Fig 5-6)


def bootstrap_t_null(shifted: np.ndarray, counts: np.ndarray):
    """Means and studentised t of the bootstrap samples w*b of every column of ``shifted``.

    ``shifted`` is (n, pairs) with w = z - mean(z); ``counts`` is the (B, n) multiplicity matrix
    of the resampled topics. sum(w*b) = counts @ w and sum(w*b^2) = counts @ w^2, so one matrix
    product replaces the B x n gather of the textbook loop.
    """
    n = shifted.shape[0]
    sums = counts @ shifted
    sums_of_squares = counts @ (shifted * shifted)
    means = sums / n
    variances = (sums_of_squares - sums * means) / (n - 1)
    return means, studentise(means, variances, n)


@dataclass(frozen=True)
class PairwiseResampling:
    """Per-pair outcome of an all-pairs resampling pass (pairs in np.triu_indices order)."""

    test: str
    run_a: np.ndarray
    run_b: np.ndarray
    statistic: np.ndarray
    pvalue: np.ndarray
    B: int
    seed: int | None
    method: str
    borderline_delta: np.ndarray | None = None


def paired_bootstrap_all_pairs(
    matrix,
    *,
    B: int = 1000,
    rng=None,
    sampler: IndexSampler | None = None,
    plus_one: bool = False,
    delta_alpha: float | None = None,
    progress=None,
) -> PairwiseResampling:
    """Paired bootstrap ASL for every pair of columns, one shared (B, n) index sample.

    With ``delta_alpha`` also returns, per pair, |mean(w*b)| of the sample whose |t(w*b)| is
    the (B*alpha)-th largest (Sakai, IPSJ JIP 2013, Fig 3, Sakai, IPSJ TOD 2007, Fig 7).
    """
    matrix = v.as_matrix(matrix)
    B = v.check_resamples(B)
    generator, seed = v.make_rng(rng)
    n, n_runs = matrix.shape
    run_a, run_b = _pair_indices(n_runs)
    counts = resample_counts(_draw_indices(sampler, n, B, generator), n)
    rank = None if delta_alpha is None else _delta_rank(B, delta_alpha)

    n_pairs = run_a.size
    t_observed = np.empty(n_pairs)
    exceed = np.empty(n_pairs)
    borderline = None if rank is None else np.empty(n_pairs)
    for batch in _pair_batches(n_pairs, B):
        differences = matrix[:, run_a[batch]] - matrix[:, run_b[batch]]
        t_observed[batch] = observed_t(differences)
        means, t_null = bootstrap_t_null(ties.centred(differences), counts)
        exceed[batch] = at_least_as_extreme(np.abs(t_null), np.abs(t_observed[batch])).sum(axis=0)
        exceed[batch] = np.where(ties.identical(differences), B, exceed[batch])
        if rank is not None:
            borderline[batch] = _borderline_mean(means, t_null, rank)
        _report(progress, batch.stop, n_pairs)
    return PairwiseResampling(
        test="bootstrap",
        run_a=run_a,
        run_b=run_b,
        statistic=t_observed,
        pvalue=achieved_significance(exceed, B, plus_one=plus_one),
        B=B,
        seed=seed,
        method="shared-index paired bootstrap",
        borderline_delta=borderline,
    )


def _delta_rank(B: int, alpha: float) -> int:
    alpha = v.check_probability(alpha, "alpha")
    rank = round(B * alpha)
    if rank < 1:
        raise ValueError(
            f"B*alpha must be at least 1 to pick the B*alpha-th largest, got {B * alpha}"
        )
    return rank


def _borderline_mean(means: np.ndarray, t_null: np.ndarray, rank: int) -> np.ndarray:
    """|mean(w*b)| at the rank-th largest |t(w*b)| of each column (Sakai, IPSJ TOD 2007, Fig 7)."""
    magnitude = np.abs(t_null)
    position = magnitude.shape[0] - rank  # rank-th largest = (B - rank)-th smallest, 0-based
    order = np.argpartition(magnitude, position, axis=0)[position]
    return np.abs(means[order, np.arange(means.shape[1])])


def paired_bootstrap(
    x,
    y,
    *,
    B: int = 1000,
    rng=None,
    sampler: IndexSampler | None = None,
    plus_one: bool = False,
    confidence_level: float = 0.95,
    return_null: bool = False,
) -> TestResult:
    """Two-sided paired bootstrap test on studentised shifted differences (Sakai, PROMISE 2014, Fig 11-12).

    z = x - y, w = z - mean(z); ASL = #{b: |t(w*b)| >= |t(z)|} / B. The confidence interval is
    the percentile interval of mean(z*b) = mean(z) + mean(w*b) over the same resamples.
    ``sampler(n, B, rng)`` returns the (B, n) 0-based index samples (inject recorded ones).
    """
    x, y = v.as_paired(x, y)
    B = v.check_resamples(B)
    level = v.check_probability(confidence_level, "confidence_level")
    generator, seed = v.make_rng(rng)
    differences = (x - y)[:, None]
    counts = resample_counts(_draw_indices(sampler, x.size, B, generator), x.size)
    means, t_null = bootstrap_t_null(ties.centred(differences), counts)
    t_obs = float(observed_t(differences)[0])
    exceed = at_least_as_extreme(np.abs(t_null[:, 0]), abs(t_obs)).sum()
    identical = bool(ties.identical(differences)[0])
    if identical:
        exceed = B
    mean_difference = float(differences.mean())
    tails = np.quantile(mean_difference + means[:, 0], [(1 - level) / 2, (1 + level) / 2])
    return TestResult(
        test="bootstrap",
        statistic=t_obs,
        pvalue=float(achieved_significance(exceed, B, plus_one=plus_one)),
        effect_size=_standardised_mean_difference(differences[:, 0]),
        effect_size_name="mean difference / sd of differences",
        mean_difference=mean_difference,
        confidence_interval=ConfidenceInterval(float(tails[0]), float(tails[1]), level),
        method="studentised, shifted differences",
        B=B,
        seed=seed,
        null_distribution=t_null[:, 0].copy() if return_null else None,
        note=ties.IDENTICAL_NOTE if identical else None,
    )


def _standardised_mean_difference(differences: np.ndarray) -> float:
    """Cohen's d_z = mean(z) / sd(z); NaN (not a warning) when sd(z) = 0."""
    mean, variance = ties.exact_mean_and_variance(differences[:, None])
    sd = float(np.sqrt(variance[0]))
    return float(mean[0]) / sd if sd > 0 else float("nan")


# ----------------------------------------------------------------------------------------------
# unpaired bootstrap (Sakai, PROMISE 2014, Fig 13-14)

_FLOOR_FOR_GMEAN = 1e-5  # trec_eval's gm_map: log(max(value, 0.00001))


def _mean(sample: np.ndarray, axis: int = -1) -> np.ndarray:
    return sample.mean(axis=axis)


def _gmean(sample: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.exp(np.log(np.maximum(sample, _FLOOR_FOR_GMEAN)).mean(axis=axis))


SUMMARY_STATISTICS = {"mean": _mean, "gmean": _gmean}


def _summary(statistic) -> Callable:
    if callable(statistic):
        return statistic
    return SUMMARY_STATISTICS[v.check_choice(statistic, "statistic", SUMMARY_STATISTICS)]


def unpaired_bootstrap(
    x,
    y,
    *,
    statistic="mean",
    B: int = 1000,
    rng=None,
    sampler: IndexSampler | None = None,
    plus_one: bool = False,
    return_null: bool = False,
) -> TestResult:
    """Two-sided unpaired bootstrap test for topic sets of any sizes (Sakai, PROMISE 2014, Fig 13-14).

    v = (x, y) pooled; each resample of n+m indices gives x*b (first n) and y*b (last m);
    ASL = #{b: |M(x*b) - M(y*b)| >= |M(x) - M(y)|} / B. ``statistic`` is "mean", "gmean"
    (geometric mean with trec_eval's 1e-5 floor, as GMAP) or a callable ``f(sample, axis)``.
    """
    x = v.as_sample(x, "x")
    y = v.as_sample(y, "y")
    B = v.check_resamples(B)
    summary = _summary(statistic)
    generator, seed = v.make_rng(rng)
    pooled = np.concatenate([x, y])
    indices = _draw_indices(sampler, pooled.size, B, generator)
    resampled = pooled[indices]
    null = summary(resampled[:, : x.size], axis=1) - summary(resampled[:, x.size :], axis=1)
    observed = float(summary(x[None, :], axis=1)[0] - summary(y[None, :], axis=1)[0])
    exceed = at_least_as_extreme(np.abs(null), abs(observed)).sum()
    return TestResult(
        test="unpaired_bootstrap",
        statistic=observed,
        pvalue=float(achieved_significance(exceed, B, plus_one=plus_one)),
        mean_difference=float(x.mean() - y.mean()),
        method=f"pooled resampling, statistic={getattr(summary, '__name__', 'callable').lstrip('_')}",
        B=B,
        seed=seed,
        null_distribution=np.asarray(null).copy() if return_null else None,
    )


# ----------------------------------------------------------------------------------------------
# randomisation (permutation) test: sign flips of the paired differences


def all_sign_patterns(n: int):
    """Yield the 2^(n-1) sign vectors whose first sign is +1, in batches.

    |sum(s * z)| is unchanged by flipping every sign, so half of the 2^n patterns suffice and
    the exact p-value is the same.
    """
    total = 1 << (n - 1)
    shifts = np.arange(n - 1)
    for start in range(0, total, _EXACT_BATCH):
        codes = np.arange(start, min(total, start + _EXACT_BATCH))[:, None]
        bits = (codes >> shifts) & 1
        yield np.hstack([np.ones((codes.shape[0], 1)), 1.0 - 2.0 * bits])


def _sign_flip_exceedances(differences: np.ndarray, patterns) -> tuple[np.ndarray, int, list]:
    """Counts of |sum(s*z)| >= |sum(z)| per column over the given sign patterns."""
    observed = np.abs(differences.sum(axis=0))
    exceed = np.zeros(differences.shape[1])
    seen = 0
    null_sums = []
    for signs in patterns:
        sums = signs @ differences
        exceed += at_least_as_extreme(np.abs(sums), observed).sum(axis=0)
        seen += signs.shape[0]
        null_sums.append(sums)
    return exceed, seen, null_sums


def _randomisation_method(method: str, n: int, exact_max_n: int) -> str:
    v.check_choice(method, "method", {"auto", "exact", "approximate"})
    if method == "auto":
        return "exact" if n <= exact_max_n else "approximate"
    if method == "exact" and n > 30:
        raise ValueError(
            f"exact enumeration of 2^{n} sign flips is not feasible; use 'approximate'"
        )
    return method


def randomisation_test(
    x,
    y,
    *,
    method: str = "auto",
    B: int = 10_000,
    rng=None,
    sampler: SignSampler | None = None,
    plus_one: bool = False,
    exact_max_n: int = 20,
    return_null: bool = False,
) -> TestResult:
    """Two-sided paired randomisation test of the mean difference (Smucker et al., Sakai, PROMISE 2014 4.5).

    Under H0 each topic's difference z_i is equally likely to have either sign. ``method``:
    "exact" enumerates all 2^n sign flips (p = share with |mean| >= observed, no +1 needed);
    "approximate" draws B random flips (``sampler(n, B, rng)`` -> (B, n) of +-1);
    "auto" is exact when n <= exact_max_n.
    """
    x, y = v.as_paired(x, y)
    differences = (x - y)[:, None]
    n = x.size
    chosen = _randomisation_method(method, n, exact_max_n)
    generator, seed = v.make_rng(rng)
    if chosen == "exact":
        exceed, seen, null_sums = _sign_flip_exceedances(differences, all_sign_patterns(n))
        pvalue, used_B, seed = float(exceed[0] / seen), None, None
    else:
        used_B = v.check_resamples(B)
        signs = _draw_signs(sampler, n, used_B, generator)
        exceed, _, null_sums = _sign_flip_exceedances(differences, [signs])
        pvalue = float(achieved_significance(exceed[0], used_B, plus_one=plus_one))
    identical = bool(ties.identical(differences)[0])
    if identical:
        pvalue = 1.0
    null = None
    if return_null:
        half = np.concatenate(null_sums)[:, 0] / n
        null = np.concatenate([half, -half]) if chosen == "exact" else half
    return TestResult(
        test="randomisation",
        statistic=float(differences.mean()),
        pvalue=pvalue,
        effect_size=_standardised_mean_difference(differences[:, 0]),
        effect_size_name="mean difference / sd of differences",
        mean_difference=float(differences.mean()),
        method=chosen,
        B=used_B,
        seed=seed,
        null_distribution=null,
        note=ties.IDENTICAL_NOTE if identical else None,
    )


def _draw_signs(sampler, n: int, B: int, rng) -> np.ndarray:
    sampler = default_sign_sampler if sampler is None else sampler
    signs = np.asarray(sampler(n, B, rng), dtype=float)
    if signs.shape != (B, n) or not np.all(np.abs(signs) == 1):
        raise ValueError(f"sign sampler must return shape {(B, n)} with entries +1/-1")
    return signs


def randomisation_all_pairs(
    matrix,
    *,
    B: int = 10_000,
    rng=None,
    sampler: SignSampler | None = None,
    plus_one: bool = False,
    progress=None,
) -> PairwiseResampling:
    """Randomisation test for every pair of columns with one shared (B, n) sign-flip matrix.

    Exact enumeration is used when it is no more work than sampling (2^(n-1) <= B).
    """
    matrix = v.as_matrix(matrix)
    B = v.check_resamples(B)
    generator, seed = v.make_rng(rng)
    n, n_runs = matrix.shape
    run_a, run_b = _pair_indices(n_runs)
    exact = (1 << (n - 1)) <= B
    signs = None if exact else _draw_signs(sampler, n, B, generator)
    n_pairs = run_a.size
    pvalue = np.empty(n_pairs)
    for batch in _pair_batches(n_pairs, B):
        differences = matrix[:, run_a[batch]] - matrix[:, run_b[batch]]
        patterns = all_sign_patterns(n) if exact else [signs]
        exceed, seen, _ = _sign_flip_exceedances(differences, patterns)
        pvalue[batch] = (
            exceed / seen if exact else achieved_significance(exceed, B, plus_one=plus_one)
        )
        pvalue[batch] = np.where(ties.identical(differences), 1.0, pvalue[batch])
        _report(progress, batch.stop, n_pairs)
    statistic = matrix[:, run_a].mean(axis=0) - matrix[:, run_b].mean(axis=0)
    return PairwiseResampling(
        test="randomisation",
        run_a=run_a,
        run_b=run_b,
        statistic=statistic,
        pvalue=pvalue,
        B=None if exact else B,
        seed=None if exact else seed,
        method="exact" if exact else "shared sign-flip sample",
    )


# ----------------------------------------------------------------------------------------------
# randomised Tukey HSD (Sakai, PROMISE 2014, Fig 15; Sakai, IPSJ JIP 2013, Fig 4; Carterette)


def tukey_null_ranges(
    matrix: np.ndarray, B: int, rng, permuter: RowPermuter | None = None, progress=None
) -> np.ndarray:
    """max_j mean_j - min_j mean_j of B matrices whose rows are permuted independently."""
    permuter = default_row_permuter if permuter is None else permuter
    n, m = matrix.shape
    flat = matrix.ravel()
    row_offsets = (np.arange(n) * m)[None, :, None]
    batch_size = max(1, _TUKEY_BATCH_ELEMENTS // (n * m))
    ranges = np.empty(B)
    for start in range(0, B, batch_size):
        size = min(batch_size, B - start)
        permutations = np.asarray(permuter(size, n, m, rng))
        if permutations.shape != (size, n, m):
            raise ValueError(f"permuter must return shape {(size, n, m)}, got {permutations.shape}")
        column_means = flat[row_offsets + permutations].sum(axis=1) / n
        ranges[start : start + size] = column_means.max(axis=1) - column_means.min(axis=1)
        _report(progress, start + size, B)
    return ranges


TIE_RULES = ("ge", "gt")


def tukey_hsd(
    matrix,
    *,
    B: int = 5000,
    rng=None,
    permuter: RowPermuter | None = None,
    plus_one: bool = False,
    tie_rule: str = "ge",
    return_null: bool = False,
    progress=None,
) -> TukeyHSDResult:
    """Randomised Tukey HSD over all runs (columns) of a topics x runs matrix.

    Each replicate permutes every topic's row; with ``tie_rule="ge"`` (the default)
    ASL(X, Y) = #{b: max*b - min*b >= |mean X - mean Y|} / B, with ``tie_rule="gt"``
    #{b: max*b - min*b > |mean X - mean Y|} / B, the rule Sakai writes (Metrics, Statistics,
    Tests, PROMISE Winter School 2013, Fig 15; J. Inf. Process. 2012, Fig 4). They differ where
    a permuted range equals an observed difference, routine on coarse measures (P@10: means are
    multiples of 0.001 over 100 topics; docs/stats.md). '>=' counts the observed arrangement
    (the identity permutation) among those at least as extreme, as a permutation p-value does,
    and keeps the ASL of identical runs at 1; under '>' the pair with the largest difference is
    never matched by the identity permutation. The diagonal, and every pair of identical runs
    (equal on every topic), is 1 under both rules: no difference is no evidence of one.
    ``permuter(batch, n, m, rng)`` returns (batch, n, m) row permutations (inject recorded ones).
    """
    matrix = v.as_matrix(matrix)
    B = v.check_resamples(B)
    tie_rule = v.check_choice(tie_rule, "tie_rule", TIE_RULES)
    generator, seed = v.make_rng(rng)
    run_means = matrix.mean(axis=0)
    differences = run_means[:, None] - run_means[None, :]
    ranges = tukey_null_ranges(matrix, B, generator, permuter, progress)
    count = _count_exceeding(ranges, np.abs(differences), tie_rule)
    pvalues = achieved_significance(count, B, plus_one=plus_one)
    # a run against itself is no pair; identical runs get 1 under both rules (ties)
    pvalues[ties.identical_columns(matrix)] = 1.0
    return TukeyHSDResult(
        test="tukey",
        run_means=run_means,
        mean_differences=differences,
        pvalues=pvalues,
        B=B,
        seed=seed,
        null_distribution=ranges if return_null else None,
        tie_rule=tie_rule,
    )


def _count_exceeding(null_values: np.ndarray, observed: np.ndarray, tie_rule: str) -> np.ndarray:
    """For each observed value, #{null >= observed} ("ge") or #{null > observed} ("gt"), a null
    value within the rounding tolerance of the observed one being a tie; by sorting."""
    sorted_null = np.sort(null_values)
    slack = _TIE_TOLERANCE * np.abs(observed)
    if tie_rule == "ge":
        return null_values.size - np.searchsorted(sorted_null, observed - slack, side="left")
    return null_values.size - np.searchsorted(sorted_null, observed + slack, side="right")
