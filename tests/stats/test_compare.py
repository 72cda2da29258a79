import numpy as np
import pytest

from irwarehouse.stats import (
    bootstrap_delta,
    compare_all,
    familywise_error,
    holm,
    paired_bootstrap,
    paired_t,
    sign_test,
    smallest_significant_delta,
    tukey_delta,
    tukey_hsd,
    wilcoxon_signed_rank,
)
from tests.helpers.fixed_indices import fixed_indices
from tests.helpers.matrices import realistic_matrix

NAMES = [f"sys{j}" for j in range(12)]


def test_pairs_names_means_and_family_wise_error(matrix_50x12):
    result = compare_all(matrix_50x12, NAMES, test="t")
    assert len(result.pairs) == 66
    first = result.pairs[0]
    assert (first.run_a, first.run_b) == ("sys0", "sys1")
    assert first.mean_a == pytest.approx(matrix_50x12[:, 0].mean())
    assert first.delta == pytest.approx(first.mean_a - first.mean_b)
    assert first.p == pytest.approx(
        paired_t(matrix_50x12[:, 0], matrix_50x12[:, 1]).pvalue, abs=1e-12
    )
    assert result.familywise_error == pytest.approx(1 - 0.95**66)
    assert result.familywise_error == familywise_error(0.05, 66)
    assert result.n_significant == sum(p.p < 0.05 for p in result.pairs)


@pytest.mark.parametrize("test, single", [("wilcoxon", wilcoxon_signed_rank), ("sign", sign_test)])
def test_classical_pairs_equal_single_calls(matrix_50x12, test, single):
    result = compare_all(matrix_50x12, NAMES, test=test)
    for pair in result.pairs[:10]:
        a, b = NAMES.index(pair.run_a), NAMES.index(pair.run_b)
        reference = single(matrix_50x12[:, a], matrix_50x12[:, b])
        assert (pair.statistic, pair.p) == (reference.statistic, reference.pvalue)


def test_bootstrap_pairs_equal_the_single_pair_test_with_the_shared_indices(matrix_50x12):
    indices = np.random.default_rng(5).integers(0, 50, size=(300, 50))
    # compare_all has no sampler; feed the same indices to both through the all-pairs engine
    from irwarehouse.stats import paired_bootstrap_all_pairs

    shared = paired_bootstrap_all_pairs(matrix_50x12, B=300, sampler=fixed_indices(indices))
    for k in range(0, 66, 11):
        a, b = shared.run_a[k], shared.run_b[k]
        single = paired_bootstrap(
            matrix_50x12[:, a], matrix_50x12[:, b], B=300, sampler=fixed_indices(indices)
        )
        assert shared.pvalue[k] == single.pvalue


def test_correction_is_applied_and_recorded(matrix_50x12):
    result = compare_all(matrix_50x12, NAMES, test="bootstrap", correction="holm", B=500, rng=3)
    p = np.array([pair.p for pair in result.pairs])
    np.testing.assert_allclose([pair.p_adjusted for pair in result.pairs], holm(p))
    assert all(pair.significant == (pair.p_adjusted < 0.05) for pair in result.pairs)
    record = result.records()[0]
    assert (record["test"], record["correction"], record["B"], record["seed"]) == (
        "bootstrap",
        "holm",
        500,
        3,
    )


def test_tukey_pairs_and_defaults(matrix_50x12):
    result = compare_all(matrix_50x12, NAMES, test="tukey", rng=1)
    direct = tukey_hsd(matrix_50x12, rng=1)
    assert result.B == 5000 == direct.B
    a, b = np.triu_indices(12, k=1)
    np.testing.assert_array_equal([pair.p for pair in result.pairs], direct.pvalues[a, b])
    with pytest.raises(ValueError, match="family-wise"):
        compare_all(matrix_50x12, test="tukey", correction="holm")


def test_progress_is_reported(matrix_50x12):
    calls = []
    compare_all(
        matrix_50x12, test="bootstrap", B=100, rng=1, progress=lambda d, t: calls.append((d, t))
    )
    assert calls and calls[-1] == (66, 66)
    calls.clear()
    compare_all(
        matrix_50x12, test="tukey", B=100, rng=1, progress=lambda d, t: calls.append((d, t))
    )
    assert calls[-1] == (100, 100)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"test": "anova"}, "test must be one of"),
        ({"test": "t", "B": 100}, "resampling tests only"),
        ({"alpha": 1.5}, "alpha"),
        ({"correction": "fdr"}, "correction"),
    ],
)
def test_compare_all_rejects_bad_options(matrix_50x12, kwargs, message):
    with pytest.raises(ValueError, match=message):
        compare_all(matrix_50x12, **kwargs)


def test_run_names_must_fit(matrix_50x12):
    with pytest.raises(ValueError, match="12 runs"):
        compare_all(matrix_50x12, ["a", "b"], test="t")


def test_bootstrap_delta_is_the_max_of_borderline_means():
    matrix = realistic_matrix(40, 8, seed=2)
    result = bootstrap_delta(matrix, alpha=0.05, B=1000, rng=7)
    assert result.delta == result.per_pair.max()
    assert result.per_pair.shape == (28,)
    assert (result.B, result.seed, result.method) == (1000, 7, "bootstrap")
    # the borderline delta should sit near the significance boundary of the paired t-test:
    # a pair whose |mean difference| exceeds every borderline delta is significant
    big = [
        p
        for p in compare_all(matrix, test="bootstrap", B=1000, rng=7).pairs
        if abs(p.delta) > result.delta
    ]
    assert all(p.p < 0.05 for p in big)
    with pytest.raises(ValueError, match="B\\*alpha"):
        bootstrap_delta(matrix, alpha=0.0001, B=1000)


def test_tukey_delta_is_the_smallest_significant_difference():
    matrix = realistic_matrix(40, 8, seed=2)
    comparison = compare_all(matrix, test="tukey", B=2000, rng=4)
    significant = [abs(p.delta) for p in comparison.pairs if p.significant]
    assert significant
    result = tukey_delta(matrix, B=2000, rng=4)
    assert result.delta == min(significant)
    assert result.n_significant == len(significant)
    assert smallest_significant_delta(comparison) == result
    flat = compare_all(np.tile(matrix[:, :1], (1, 3)), test="tukey", B=100, rng=1)
    assert np.isnan(smallest_significant_delta(flat).delta)
