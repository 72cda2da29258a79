"""Resampling tests: vectorised code against slow loops fed the same resamples, exact
enumeration, sanity under the null, reproducibility."""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from irwarehouse.stats import (
    default_index_sampler,
    default_row_permuter,
    paired_bootstrap,
    paired_bootstrap_all_pairs,
    randomisation_all_pairs,
    randomisation_test,
    tukey_hsd,
    unpaired_bootstrap,
)
from tests.helpers.fixed_indices import fixed_indices
from tests.helpers.matrices import RecordingSampler, realistic_matrix

# ---------------------------------------------------------------- slow reference loops (seeds)


def slow_t(values):
    sd = np.std(values, ddof=1)
    mean = np.mean(values)
    if sd == 0:
        return 0.0 if mean == 0 else np.copysign(np.inf, mean)
    return mean / (sd / np.sqrt(len(values)))


def slow_paired_bootstrap(x, y, indices):
    """Seed 000 Fig 11-12, one replicate at a time."""
    z = np.asarray(x) - np.asarray(y)
    w = z - z.mean()
    t_z = abs(slow_t(z))
    count = 0
    t_star, mean_star = [], []
    for sample in indices:
        w_star = np.array([w[j] for j in sample])
        t_star.append(slow_t(w_star))
        mean_star.append(w_star.mean())
        if abs(t_star[-1]) >= t_z:
            count += 1
    return count / len(indices), np.array(t_star), np.array(mean_star)


def slow_tukey(matrix, permutations):
    """Seed 000 Fig 15 / Sakai, IPSJ JIP 2013, Fig 4 with '>=', replaying recorded row permutations."""
    n, m = matrix.shape
    means = matrix.mean(axis=0)
    counts = np.zeros((m, m))
    for permutation in permutations:
        permuted = np.array([matrix[i, permutation[i]] for i in range(n)])
        column_means = permuted.mean(axis=0)
        spread = column_means.max() - column_means.min()
        for a in range(m):
            for b in range(m):
                if spread >= abs(means[a] - means[b]):
                    counts[a, b] += 1
    return counts / len(permutations)


def slow_exact_randomisation(x, y):
    """All 2^n sign flips in exact rational arithmetic, so ties are decided exactly."""
    z = [Fraction(float(a)) - Fraction(float(b)) for a, b in zip(x, y)]
    observed = abs(sum(z))
    hits = total = 0
    for signs in itertools.product([1, -1], repeat=len(z)):
        total += 1
        hits += abs(sum(s * value for s, value in zip(signs, z))) >= observed
    return hits / total


# ---------------------------------------------------------------- paired bootstrap


def test_paired_bootstrap_equals_slow_loop_on_recorded_indices():
    rng = np.random.default_rng(10)
    x, y = rng.random(30), rng.random(30) * 0.9
    recorder = RecordingSampler(default_index_sampler)
    res = paired_bootstrap(x, y, B=500, rng=3, sampler=recorder, return_null=True)
    asl, t_star, _ = slow_paired_bootstrap(x, y, recorder.calls[0])
    assert res.pvalue == asl
    np.testing.assert_allclose(res.null_distribution, t_star, rtol=1e-9, atol=1e-12)
    assert res.statistic == pytest.approx(slow_t(x - y), rel=1e-12)


def test_all_pairs_bootstrap_equals_slow_loop_and_finds_the_borderline_delta(matrix_50x12):
    recorder = RecordingSampler(default_index_sampler)
    res = paired_bootstrap_all_pairs(matrix_50x12, B=400, rng=4, sampler=recorder, delta_alpha=0.05)
    indices = recorder.calls[0]
    rank = int(400 * 0.05)
    for pair, (a, b) in enumerate(zip(res.run_a, res.run_b)):
        asl, t_star, mean_star = slow_paired_bootstrap(
            matrix_50x12[:, a], matrix_50x12[:, b], indices
        )
        assert res.pvalue[pair] == asl
        # Sakai, IPSJ TOD 2007, Fig 7: sort |t(w*b)|, take the B*alpha-th largest, record its |mean(w*b)|
        order = np.argsort(-np.abs(t_star), kind="stable")
        assert res.borderline_delta[pair] == pytest.approx(
            abs(mean_star[order[rank - 1]]), rel=1e-9
        )


def test_bootstrap_of_identical_runs_has_asl_one():
    x = np.random.default_rng(0).random(25)
    assert paired_bootstrap(x, x, B=300, rng=1).pvalue == 1.0
    matrix = np.column_stack([x, x, x])
    assert np.all(paired_bootstrap_all_pairs(matrix, B=300, rng=1).pvalue == 1.0)


def test_plus_one_option():
    x, y = np.random.default_rng(1).random((2, 20))
    plain = paired_bootstrap(x, y, B=999, rng=5)
    plus_one = paired_bootstrap(x, y, B=999, rng=5, plus_one=True)
    assert plus_one.pvalue == pytest.approx((plain.pvalue * 999 + 1) / 1000)


# ---------------------------------------------------------------- unpaired bootstrap


@pytest.mark.parametrize("statistic", ["mean", "gmean"])
def test_unpaired_bootstrap_equals_slow_loop(statistic):
    rng = np.random.default_rng(11)
    x, y = rng.random(17), rng.random(23) * 0.8
    summary = (
        np.mean if statistic == "mean" else (lambda s: np.exp(np.mean(np.log(np.maximum(s, 1e-5)))))
    )
    recorder = RecordingSampler(default_index_sampler)
    res = unpaired_bootstrap(x, y, statistic=statistic, B=300, rng=2, sampler=recorder)
    pooled = np.concatenate([x, y])
    observed = abs(summary(x) - summary(y))
    count = 0
    for sample in recorder.calls[0]:  # Sakai, PROMISE 2014, Fig 13-14
        x_star, y_star = pooled[sample[: x.size]], pooled[sample[x.size :]]
        count += abs(summary(x_star) - summary(y_star)) >= observed
    assert res.pvalue == count / 300


# ---------------------------------------------------------------- randomisation test


@pytest.mark.parametrize("integer_scores", [False, True])
def test_exact_randomisation_equals_enumeration(integer_scores):
    rng = np.random.default_rng(12)
    for n in [1 + 1, 5, 9, 12]:
        x, y = rng.random(n), rng.random(n)
        if integer_scores:  # exact arithmetic with many ties among the sums
            x, y = rng.integers(0, 4, n).astype(float), rng.integers(0, 4, n).astype(float)
        res = randomisation_test(x, y, method="exact")
        assert res.pvalue == slow_exact_randomisation(x, y)


def test_approximate_randomisation_fed_every_sign_pattern_is_exact():
    rng = np.random.default_rng(13)
    x, y = rng.random(8), rng.random(8)
    patterns = np.array(list(itertools.product([1.0, -1.0], repeat=8)))
    res = randomisation_test(
        x, y, method="approximate", B=patterns.shape[0], sampler=lambda n, B, g: patterns
    )
    assert res.pvalue == slow_exact_randomisation(x, y)
    assert randomisation_test(x, y).method == "exact"  # auto: n <= 20


def test_randomisation_all_pairs_matches_single_pair_exact():
    matrix = realistic_matrix(9, 5, seed=3)
    res = randomisation_all_pairs(matrix, B=1000)  # 2^8 <= 1000: exact
    assert res.method == "exact"
    for pair, (a, b) in enumerate(zip(res.run_a, res.run_b)):
        assert res.pvalue[pair] == slow_exact_randomisation(matrix[:, a], matrix[:, b])


# ---------------------------------------------------------------- randomised Tukey HSD


def test_tukey_equals_slow_loop_on_recorded_permutations():
    matrix = realistic_matrix(15, 6, seed=8)
    recorder = RecordingSampler(default_row_permuter)
    res = tukey_hsd(matrix, B=300, rng=6, permuter=recorder, return_null=True)
    permutations = np.concatenate(recorder.calls)
    assert permutations.shape == (300, 15, 6)
    np.testing.assert_array_equal(res.pvalues, slow_tukey(matrix, permutations))
    assert np.all(np.diag(res.pvalues) == 1.0)
    np.testing.assert_array_equal(res.pvalues, res.pvalues.T)


def test_tukey_of_identical_runs_has_asl_one():
    x = np.random.default_rng(0).random(20)
    assert np.all(tukey_hsd(np.column_stack([x, x, x]), B=200, rng=1).pvalues == 1.0)


def test_tukey_is_never_less_conservative_than_pairwise_bootstrap():
    """Seed 001 section 5.3: Tukey HSD finds no more significant pairs than the bootstrap."""
    for seed in range(3):
        matrix = realistic_matrix(30, 15, seed=seed, spread=0.2)
        bootstrap = paired_bootstrap_all_pairs(matrix, B=1000, rng=seed)
        tukey = tukey_hsd(matrix, B=2000, rng=seed)
        a, b = np.triu_indices(15, k=1)
        n_tukey = int(np.sum(tukey.pvalues[a, b] < 0.05))
        n_bootstrap = int(np.sum(bootstrap.pvalue < 0.05))
        assert 0 < n_tukey <= n_bootstrap


# ---------------------------------------------------------------- behaviour under the null


def test_type_one_error_rate_is_near_alpha():
    """Per-pair tests on 400 independent null data sets reject about 5% of the time."""
    rng = np.random.default_rng(2024)
    replications = 400
    rejections = {"bootstrap": 0, "randomisation": 0}
    for _ in range(replications):
        x = rng.normal(0.5, 0.1, 30)
        y = x + rng.normal(0, 0.1, 30)  # same mean: H0 true
        seed = int(rng.integers(2**32))
        rejections["bootstrap"] += paired_bootstrap(x, y, B=400, rng=seed).pvalue < 0.05
        rejections["randomisation"] += (
            randomisation_test(x, y, method="approximate", B=400, rng=seed).pvalue < 0.05
        )
    sampling_sd = np.sqrt(0.05 * 0.95 / replications)
    for test, count in rejections.items():
        assert abs(count / replications - 0.05) < 3.5 * sampling_sd, test


# ---------------------------------------------------------------- reproducibility and records


def test_same_seed_same_results_and_records():
    matrix = realistic_matrix(20, 6, seed=1)
    x, y = matrix[:, 0], matrix[:, 1]
    first, second = paired_bootstrap(x, y, B=200, rng=42), paired_bootstrap(x, y, B=200, rng=42)
    assert first == second
    assert (first.test, first.B, first.seed) == ("bootstrap", 200, 42)
    t1, t2 = tukey_hsd(matrix, B=300, rng=9), tukey_hsd(matrix, B=300, rng=9)
    np.testing.assert_array_equal(t1.pvalues, t2.pvalues)
    assert (t1.test, t1.B, t1.seed) == ("tukey", 300, 9)
    drawn = paired_bootstrap(x, y, B=200)  # no rng: fresh entropy, recorded for replay
    assert drawn.seed is not None
    assert paired_bootstrap(x, y, B=200, rng=drawn.seed) == drawn
    generator = paired_bootstrap(x, y, B=200, rng=np.random.default_rng(42))
    assert generator.seed is None and generator.pvalue == first.pvalue


def test_null_distribution_only_when_asked():
    x, y = np.random.default_rng(3).random((2, 12))
    assert paired_bootstrap(x, y, B=50, rng=1).null_distribution is None
    assert paired_bootstrap(x, y, B=50, rng=1, return_null=True).null_distribution.shape == (50,)
    assert randomisation_test(x, y, return_null=True).null_distribution.shape == (2**12,)


# ---------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: paired_bootstrap([0.1, 0.2, 0.3], [0.1, 0.2]), "same length"),
        (lambda: paired_bootstrap([0.1, np.nan], [0.1, 0.2]), "NaN"),
        (lambda: paired_bootstrap([0.1, 0.2], [0.3, 0.1], B=0), "B must be"),
        (lambda: paired_bootstrap([0.1, 0.2], [0.3, 0.1], rng="x"), "rng"),
        (
            lambda: paired_bootstrap(
                [0.1, 0.2], [0.3, 0.1], B=2, sampler=fixed_indices([[0, 5], [1, 1]])
            ),
            "outside",
        ),
        (
            lambda: paired_bootstrap([0.1, 0.2], [0.3, 0.1], B=3, sampler=fixed_indices([[0, 1]])),
            "shape",
        ),
        (lambda: unpaired_bootstrap([0.1], [0.2], statistic="median"), "statistic"),
        (lambda: randomisation_test([0.1, 0.2], [0.3, 0.1], method="fast"), "method"),
        (lambda: tukey_hsd(np.ones((5, 1))), "at least 2 runs"),
        (lambda: tukey_hsd(np.ones(5)), "2-D"),
    ],
)
def test_invalid_input_raises_clear_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
