import math

import numpy as np
import pytest

from irwarehouse.meta import swap as sw
from irwarehouse.meta._common import MetricSet
from tests.helpers.matrices import RecordingSampler, coarse_matrix, realistic_matrix


def slow_swap(matrix, first, second, width=0.01, n_bins=21):
    """Sakai, IPSJ TOD 2007, Fig 4, one pair and one trial at a time."""
    n, m = matrix.shape
    count = [0] * n_bins
    swap = [0] * n_bins
    biggest = 0.0
    for x in range(m):
        for y in range(x + 1, m):
            for q1, q2 in zip(first, second):
                d1 = (sum(matrix[i, x] for i in q1) / len(q1)
                      - sum(matrix[i, y] for i in q1) / len(q1))
                d2 = (sum(matrix[i, x] for i in q2) / len(q2)
                      - sum(matrix[i, y] for i in q2) / len(q2))
                k = min(math.floor(round(abs(d1) / width, 9)), n_bins - 1)
                count[k] += 1
                s1 = 0 if abs(d1) <= 1e-12 else math.copysign(1, d1)
                s2 = 0 if abs(d2) <= 1e-12 else math.copysign(1, d2)
                if not s1 * s2 > 0:
                    swap[k] += 1
                biggest = max(biggest, abs(d1), abs(d2))
    return np.array(count), np.array(swap), biggest


@pytest.mark.parametrize("variant", sw.VARIANTS)
@pytest.mark.parametrize("make", [realistic_matrix, coarse_matrix])
def test_against_slow_loop(variant, make):
    matrix = make(14, 5, seed=21)
    default = sw.bootstrap_topic_sets if variant == "bootstrap" else sw.disjoint_halves
    recorder = RecordingSampler(lambda n, B, rng: np.stack(default(n, B, rng)))
    res = sw.swap_rates(matrix, variant=variant, B=150, rng=3,
                        topic_sets=lambda n, B, rng: tuple(recorder(n, B, rng)))
    first, second = recorder.calls[0]
    count, swap, biggest = slow_swap(matrix, first, second)
    np.testing.assert_array_equal(res.counts, count)
    np.testing.assert_array_equal(res.swaps, swap)
    assert res.max_difference == pytest.approx(biggest)
    assert res.counts.sum() == 10 * 150


def test_default_samplers_match_injected_ones():
    matrix = realistic_matrix(20, 6, seed=2)
    a = sw.swap_rates(matrix, B=100, rng=7)
    b = sw.swap_rates(matrix, B=100, rng=7, topic_sets=sw.bootstrap_topic_sets)
    np.testing.assert_array_equal(a.counts, b.counts)
    np.testing.assert_array_equal(a.swaps, b.swaps)


def test_disjoint_halves_are_disjoint():
    first, second = sw.disjoint_halves(11, 50, np.random.default_rng(0))
    assert first.shape == second.shape == (50, 5)
    for q1, q2 in zip(first, second):
        assert not set(q1) & set(q2)
        assert len(set(q1)) == 5


def make_result(counts, swaps, max_difference=0.5):
    return sw.SwapResult("m", "bootstrap", 10, 0, 0.01, 0.05, 10, np.array(counts),
                         np.array(swaps), max_difference)


def test_delta_is_the_first_bin_after_the_last_bad_one():
    counts = [100] * 21
    swaps = [40, 30, 20, 4, 8, 3, 1] + [0] * 14    # bin 4 (8%) is bad, bins >= 5 are fine
    res = make_result(counts, swaps)
    assert res.delta_bin == 5 and res.delta == 0.05
    assert res.relative_delta == pytest.approx(0.1)
    assert res.share_meeting_delta == pytest.approx(16 / 21)


def test_delta_ignores_empty_bins_and_reports_none():
    counts = [100, 100, 0, 100] + [0] * 17
    res = make_result(counts, [50, 1, 0, 0] + [0] * 17)
    assert res.delta == 0.01
    assert np.isnan(res.swap_rates[2])
    none = make_result([100] * 21, [50] * 21)
    assert none.delta_bin is None and np.isnan(none.delta) and none.share_meeting_delta == 0.0
    assert make_result([100] * 21, [0] * 21).delta == 0.0


def test_identical_runs_always_swap_and_big_gaps_never():
    col = realistic_matrix(30, 1, seed=5)
    matrix = np.hstack([col, col, col + 0.5])
    res = sw.swap_rates(matrix, B=200, rng=1)
    assert res.counts[0] == 200 and res.swaps[0] == 200     # D = 0: a tie is a swap
    assert res.counts[-1] == 400 and res.swaps[-1] == 0      # |D| = 0.5 every time


def test_swap_table_sorted_and_plot(tmp_path):
    base = realistic_matrix(30, 6, seed=4)
    noisy = np.clip(base + np.random.default_rng(0).normal(0, 0.3, base.shape), 0, 1)
    rows = sw.swap_table(MetricSet.from_arrays({"noisy": noisy, "clean": base}), B=200, rng=2)
    assert rows[0].share_meeting_delta >= rows[1].share_meeting_delta
    assert len(rows[0].bin_records()) == 21 and rows[0].record()["B"] == 200
    sw.plot_swap_rates(rows, tmp_path / "swap.svg")
    assert (tmp_path / "swap.svg").stat().st_size > 0


def test_bad_arguments():
    with pytest.raises(ValueError):
        sw.swap_rates(np.ones((4, 3)), variant="thirds")
    with pytest.raises(ValueError):
        sw.swap_rates(np.ones((4, 3)), max_swap_rate=2)
