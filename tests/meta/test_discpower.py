import math

import numpy as np
import pytest

from irwarehouse.meta import discpower as dp
from irwarehouse.meta._common import MetricSet, round_significant
from irwarehouse.stats import (
    bootstrap_delta,
    default_index_sampler,
    default_row_permuter,
    paired_bootstrap_all_pairs,
    tukey_delta,
    tukey_hsd,
)
from tests.helpers.matrices import RecordingSampler, coarse_matrix, realistic_matrix

TOL = 100 * np.finfo(float).eps


def t_stat(values):
    n = len(values)
    mean = sum(values) / n
    var = sum((x - mean) ** 2 for x in values) / (n - 1)
    if var <= 0:
        return 0.0 if mean == 0 else math.copysign(math.inf, mean)
    return mean / math.sqrt(var / n)


def slow_bootstrap(matrix, indices, alpha):
    """Sakai, IPSJ JIP 2013, Fig 2 and Fig 3, literally: one pair at a time, one sample at a time."""
    n, m = matrix.shape
    B = len(indices)
    asl, border = [], []
    for a in range(m):
        for b in range(a + 1, m):
            z = [matrix[i, a] - matrix[i, b] for i in range(n)]
            zbar = sum(z) / n
            w = [zi - zbar for zi in z]
            t_obs = abs(t_stat(z))
            samples = []
            for row in indices:
                wb = [w[j] for j in row]
                samples.append((abs(t_stat(wb)), abs(sum(wb) / n)))
            asl.append(sum(1 for t, _ in samples if t >= t_obs - TOL * t_obs) / B)
            ranked = sorted(samples, key=lambda s: -s[0])
            border.append(ranked[round(B * alpha) - 1][1])
    return np.array(asl), np.array(border)


def slow_tukey(matrix, permutations):
    """Sakai, IPSJ JIP 2013, Fig 4 literally (with >=, the engine's convention)."""
    n, m = matrix.shape
    means = matrix.mean(axis=0)
    ranges = []
    for perm in permutations:
        col = [sum(matrix[i, perm[i, j]] for i in range(n)) / n for j in range(m)]
        ranges.append(max(col) - min(col))
    asl = []
    for a in range(m):
        for b in range(a + 1, m):
            d = abs(means[a] - means[b])
            asl.append(sum(1 for r in ranges if r >= d - TOL * d) / len(ranges))
    return np.array(asl)


@pytest.mark.parametrize("make", [realistic_matrix, coarse_matrix])
def test_bootstrap_against_slow_loop(make):
    matrix = make(12, 5, seed=11)
    sampler = RecordingSampler(default_index_sampler)
    res = dp.discriminative_power(matrix, test="bootstrap", B=200, rng=5, sampler=sampler)
    asl, border = slow_bootstrap(matrix, sampler.calls[0], 0.05)
    np.testing.assert_allclose(res.asl, asl)
    np.testing.assert_allclose(res.per_pair_delta, border, rtol=1e-12, atol=1e-15)
    assert res.delta == pytest.approx(border.max())
    assert res.n_significant == int((asl < 0.05).sum())
    assert res.share == pytest.approx((asl < 0.05).mean())


def test_tukey_against_slow_loop():
    matrix = realistic_matrix(8, 5, seed=3)
    permuter = RecordingSampler(default_row_permuter)
    res = dp.discriminative_power(matrix, test="tukey", B=300, rng=9, permuter=permuter)
    permutations = np.concatenate(permuter.calls)
    np.testing.assert_allclose(res.asl, slow_tukey(matrix, permutations))
    diffs = [abs(matrix[:, a].mean() - matrix[:, b].mean())
             for a in range(5) for b in range(a + 1, 5)]
    significant = [d for d, p in zip(diffs, res.asl) if p < 0.05]
    assert res.delta == (pytest.approx(min(significant)) if significant else res.delta)


def test_same_numbers_as_the_stats_engine():
    matrix = realistic_matrix(30, 8, seed=1)
    boot = dp.discriminative_power(matrix, test="bootstrap", B=500, rng=42)
    np.testing.assert_array_equal(boot.asl,
                                  paired_bootstrap_all_pairs(matrix, B=500, rng=42).pvalue)
    assert boot.delta == bootstrap_delta(matrix, B=500, rng=42).delta
    tuk = dp.discriminative_power(matrix, test="tukey", B=500, rng=42)
    full = tukey_hsd(matrix, B=500, rng=42).pvalues
    np.testing.assert_array_equal(tuk.asl, full[np.triu_indices(8, 1)])
    expected = tukey_delta(matrix, B=500, rng=42).delta
    assert tuk.delta == pytest.approx(expected) or (np.isnan(tuk.delta) and np.isnan(expected))


def test_identical_runs_are_never_significant():
    col = realistic_matrix(20, 1, seed=2)
    matrix = np.hstack([col, col, col + 0.3])
    for test in dp.TESTS:
        res = dp.discriminative_power(matrix, test=test, B=200, rng=1)
        assert res.asl[0] == 1.0            # pair (0, 1): identical
        assert res.n_significant == 2


def test_table_sorted_and_seeded():
    base = realistic_matrix(25, 6, seed=4)
    noisy = np.clip(base + np.random.default_rng(0).normal(0, 0.3, base.shape), 0, 1)
    metrics = MetricSet.from_arrays({"noisy": noisy, "clean": base})
    rows = dp.discpower_table(metrics, test="bootstrap", B=300, rng=8)
    assert [r.measure for r in rows][0] == "clean"
    assert rows[0].share >= rows[1].share
    again = dp.discpower_table(metrics, test="bootstrap", B=300, rng=8)
    assert [r.asl.tolist() for r in rows] == [r.asl.tolist() for r in again]
    unseeded = dp.discpower_table(metrics, test="tukey", B=100, rng=None)
    assert unseeded[0].seed is not None and unseeded[0].seed == unseeded[1].seed
    records = dp.table_records(rows)
    assert records[0]["n_pairs"] == 15
    assert len(dp.pair_records(rows, metrics.runs)) == 30


@pytest.mark.parametrize("suffix,magic", [(".png", b"\x89PNG"), (".svg", b"<?xml")])
def test_asl_curve_plot(tmp_path, suffix, magic):
    metrics = MetricSet.from_arrays({"a": realistic_matrix(15, 5, 1),
                                     "b": coarse_matrix(15, 5, 1)})
    rows = dp.discpower_table(metrics, test="tukey", B=200, rng=1)
    path = tmp_path / f"asl{suffix}"
    dp.plot_asl_curves(rows, path)
    assert path.read_bytes().startswith(magic)


def test_bad_plot_suffix(tmp_path):
    from irwarehouse.errors import IrwError
    rows = dp.discpower_table(MetricSet.from_arrays({"a": realistic_matrix(5, 3, 1)}), B=50,
                              rng=1)
    with pytest.raises(IrwError):
        dp.plot_asl_curves(rows, tmp_path / "x.pdf")


def test_round_significant():
    assert round_significant(0.14567) == 0.15
    assert round_significant(0.0123) == 0.012
    assert np.isnan(round_significant(float("nan")))


def test_bad_arguments():
    with pytest.raises(ValueError):
        dp.discriminative_power(np.ones((5, 3)), test="t")
    with pytest.raises(ValueError):
        dp.discriminative_power(np.ones((5, 3)), alpha=1.5)


def test_constant_difference_pair_is_significant_without_warnings():
    # x - y = -1 on every topic: t = -inf; the engine must not compute inf - inf
    matrix = np.array([[0.0, 1.0, 0.5], [0.0, 1.0, 0.25], [0.0, 1.0, 0.75], [0.0, 1.0, 0.5]])
    res = dp.discriminative_power(matrix, test="bootstrap", B=100, rng=1)
    assert res.asl[0] == 0.0


def test_bootstrap_asls_do_not_depend_on_the_column_order():
    matrix = realistic_matrix(20, 6, seed=13)
    order = np.array([3, 0, 5, 1, 4, 2])
    a = dp.discriminative_power(matrix, B=300, rng=4)
    b = dp.discriminative_power(matrix[:, order], B=300, rng=4)
    by_pair = {frozenset((int(x), int(y))): p for x, y, p in zip(a.run_a, a.run_b, a.asl)}
    for x, y, p in zip(b.run_a, b.run_b, b.asl):
        assert by_pair[frozenset((int(order[x]), int(order[y])))] == pytest.approx(p)
    assert a.delta == pytest.approx(b.delta)
