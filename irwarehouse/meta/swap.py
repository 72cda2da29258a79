"""The swap method (Voorhees and Buckley; Sakai, IPSJ TOD 2007, section 4.2, Fig 4 and Table 3).

For b = 1..B two topic sets Q*b and Q'*b are drawn, every run pair (X, Y) is compared on both:
D = M(X, Q*b) - M(Y, Q*b) and D' likewise (M = the mean over the topic set). The comparison falls
in bin floor(|D| / 0.01) (21 bins, the last one is |D| >= 0.20) and is a swap unless D D' > 0
(a tie on either set counts as a swap, as in Fig 4; |D| <= 1e-12 is a tie). The swap rate of
a bin is swaps / count.

* ``variant="bootstrap"`` (Sakai, IPSJ TOD 2007): Q*b and Q'*b are each n topics sampled with
  replacement.
* ``variant="halves"`` (the original Voorhees-Buckley method): a random split of the topics into
  two disjoint halves of floor(n/2) topics; its deltas speak for n/2 topics, not n.

Summary (Table 3 columns): the smallest bin edge delta from which every non-empty bin has a
swap rate <= ``max_swap_rate`` (5%); the largest |D| observed over both topic sets of every trial
and pair ("max."); delta / max; and the share of the comparisons (pairs x B) whose |D| >= delta.
Bins are computed from |D| / width rounded to 9 decimals, so that a mean difference of exactly
0.03 falls in the 0.03 bin despite floating-point noise.

``significance_alpha`` (Sanderson & Zobel, SIGIR 2005) counts only the comparisons whose
difference on the first topic set is significant by a two-sided paired t-test at that level
(t = mean(d) / (sd(d) / sqrt(n)) over the set's per-topic differences, a topic drawn twice
counted twice, n - 1 degrees of freedom; a set whose differences do not vary is significant
when its mean difference is not 0): the swap rate among the differences a t-test would call
significant.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..stats import validation as v
from ..stats.resampling import resample_counts
from ._common import MetricSet, pair_indices, resolve_seed

VARIANTS = ("bootstrap", "halves")
TIE_TOLERANCE = 1e-12
_BATCH_ELEMENTS = 2_000_000          # B x pairs values per array at once


@dataclass(frozen=True)
class SwapResult:
    measure: str
    variant: str
    B: int
    seed: int | None
    bin_width: float
    max_swap_rate: float
    n_topics_per_set: int
    counts: np.ndarray               # comparisons per bin
    swaps: np.ndarray                # swaps per bin
    max_difference: float            # largest |D| on either topic set
    significance_alpha: float | None = None   # Sanderson & Zobel's t-test filter

    @property
    def n_bins(self) -> int:
        return self.counts.size

    @property
    def edges(self) -> np.ndarray:
        """Lower edge of every bin (0, 0.01, ..., 0.20)."""
        return np.round(np.arange(self.n_bins) * self.bin_width, 10)

    @property
    def swap_rates(self) -> np.ndarray:
        """swaps / count per bin, NaN for an empty bin."""
        rates = np.full(self.n_bins, np.nan)
        np.divide(self.swaps, self.counts, out=rates, where=self.counts > 0)
        return rates

    @property
    def delta_bin(self) -> int | None:
        """First bin from which no non-empty bin exceeds the swap-rate limit (None: none)."""
        rates = self.swap_rates
        bad = np.flatnonzero((self.counts > 0) & (rates > self.max_swap_rate))
        first = 0 if bad.size == 0 else int(bad[-1]) + 1
        if first >= self.n_bins or self.counts[first:].sum() == 0:
            return None
        return first

    @property
    def delta(self) -> float:
        b = self.delta_bin
        return float("nan") if b is None else float(self.edges[b])

    @property
    def relative_delta(self) -> float:
        return self.delta / self.max_difference if self.max_difference > 0 else float("nan")

    @property
    def share_meeting_delta(self) -> float:
        """Share of all comparisons whose |D| reaches the delta."""
        b = self.delta_bin
        return 0.0 if b is None else float(self.counts[b:].sum() / self.counts.sum())

    def record(self) -> dict:
        nan_none = lambda x: None if np.isnan(x) else float(x)
        return {"measure": self.measure, "variant": self.variant, "B": self.B,
                "significance_alpha": self.significance_alpha,
                "seed": self.seed, "topics_per_set": self.n_topics_per_set,
                "delta": nan_none(self.delta), "max_difference": self.max_difference,
                "relative_delta": nan_none(self.relative_delta),
                "share_meeting_delta": self.share_meeting_delta}

    def bin_records(self) -> list[dict]:
        rates = self.swap_rates
        return [{"measure": self.measure, "bin": float(self.edges[i]),
                 "count": int(self.counts[i]), "swaps": int(self.swaps[i]),
                 "swap_rate": None if np.isnan(rates[i]) else float(rates[i])}
                for i in range(self.n_bins)]


def bootstrap_topic_sets(n: int, B: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Two (B, n) index matrices of topics drawn with replacement (Q*b and Q'*b)."""
    return rng.integers(0, n, size=(B, n)), rng.integers(0, n, size=(B, n))


def disjoint_halves(n: int, B: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Two (B, n // 2) index matrices: disjoint random halves of the topics."""
    half = n // 2
    order = np.argsort(rng.random((B, n)), axis=1)
    return order[:, :half], order[:, half:2 * half]


def _set_means(matrix: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """(B, runs) mean score of every run on every topic set."""
    counts = resample_counts(indices, matrix.shape[0])
    return counts @ matrix / indices.shape[1]


def _sign(differences: np.ndarray) -> np.ndarray:
    """Sign of a mean difference, |D| <= 1e-12 counting as a tie (rounding noise of means of
    equal sums must not decide a swap)."""
    return np.where(np.abs(differences) <= TIE_TOLERANCE, 0.0, np.sign(differences))


def _bins(abs_diff: np.ndarray, width: float, n_bins: int) -> np.ndarray:
    return np.minimum(np.floor(np.round(abs_diff / width, 9)), n_bins - 1).astype(np.intp)


def _t_significant(matrix: np.ndarray, counts: np.ndarray, a, b, n: int,
                   alpha: float) -> np.ndarray:
    """(B, pairs): the paired t-test on each topic set (rows of `counts`) finds the pair's
    difference significant at alpha (two-sided)."""
    from ..stats.special import t_critical
    diff = matrix[:, a] - matrix[:, b]
    mean = counts @ diff / n
    variance = np.maximum(counts @ (diff * diff) - n * mean * mean, 0.0) / (n - 1)
    spread = np.sqrt(variance / n)
    critical = t_critical(alpha, n - 1)
    flat = spread <= TIE_TOLERANCE * np.maximum(1.0, np.abs(mean))
    return np.where(flat, np.abs(mean) > TIE_TOLERANCE,
                    np.abs(mean) >= critical * np.where(flat, 1.0, spread))


def swap_rates(matrix, *, measure: str = "", variant: str = "bootstrap", B: int = 1000,
               rng=None, bin_width: float = 0.01, n_bins: int = 21,
               max_swap_rate: float = 0.05, topic_sets=None,
               significance_alpha: float | None = None) -> SwapResult:
    """Swap rate per difference bin for every run pair of a topics x runs matrix.

    ``topic_sets(n, B, rng) -> (Q, Q')`` replaces the sampler (tests replay recorded sets)."""
    matrix = v.as_matrix(matrix)
    v.check_choice(variant, "variant", VARIANTS)
    B = v.check_resamples(B)
    if not 0 <= max_swap_rate <= 1:
        raise ValueError(f"max_swap_rate must be in [0, 1], got {max_swap_rate!r}")
    if bin_width <= 0 or n_bins < 1:
        raise ValueError("bin_width must be > 0 and n_bins >= 1")
    n = matrix.shape[0]
    if variant == "halves" and n < 2:
        raise ValueError("the disjoint-halves variant needs at least 2 topics")
    if significance_alpha is not None and not 0 < significance_alpha < 1:
        raise ValueError(f"significance_alpha must be in (0, 1), got {significance_alpha!r}")
    generator, seed = v.make_rng(rng)
    sampler = topic_sets or (bootstrap_topic_sets if variant == "bootstrap" else disjoint_halves)
    first, second = (np.asarray(s) for s in sampler(n, B, generator))
    means_1, means_2 = _set_means(matrix, first), _set_means(matrix, second)
    if significance_alpha is not None and first.shape[1] < 2:
        raise ValueError("the t-test filter needs topic sets of at least 2 topics")
    counts_1 = resample_counts(first, n) if significance_alpha is not None else None
    run_a, run_b = pair_indices(matrix.shape[1])
    counts = np.zeros(n_bins, dtype=np.int64)
    swaps = np.zeros(n_bins, dtype=np.int64)
    max_difference = 0.0
    step = max(1, _BATCH_ELEMENTS // B)
    for start in range(0, run_a.size, step):
        a, b = run_a[start:start + step], run_b[start:start + step]
        d1 = means_1[:, a] - means_1[:, b]
        d2 = means_2[:, a] - means_2[:, b]
        keep = np.ones(d1.shape, dtype=bool) if counts_1 is None else _t_significant(
            matrix, counts_1, a, b, first.shape[1], significance_alpha)
        bins = _bins(np.abs(d1), bin_width, n_bins)[keep]
        counts += np.bincount(bins, minlength=n_bins)
        swaps += np.bincount(bins[(_sign(d1) * _sign(d2) <= 0)[keep]], minlength=n_bins)
        max_difference = max(max_difference, float(np.abs(d1).max()), float(np.abs(d2).max()))
    return SwapResult(measure, variant, B, seed, bin_width, max_swap_rate, first.shape[1],
                      counts, swaps, max_difference, significance_alpha)


def swap_table(metrics: MetricSet, *, variant: str = "bootstrap", B: int = 1000, rng=None,
               max_swap_rate: float = 0.05,
               significance_alpha: float | None = None) -> list[SwapResult]:
    """Swap results of every metric, sorted as Sakai, IPSJ TOD 2007, Table 3 (share meeting the
    delta, descending). Every metric sees the same topic sets (one seed)."""
    seed = resolve_seed(rng)
    rows = [swap_rates(metrics[m], measure=m, variant=variant, B=B,
                       rng=rng if seed is None else seed, max_swap_rate=max_swap_rate,
                       significance_alpha=significance_alpha)
            for m in metrics.measures]
    return sorted(rows, key=lambda r: -r.share_meeting_delta)


def plot_swap_rates(rows: list[SwapResult], path, *, title: str | None = None) -> None:
    """Swap rate against the difference bin, one curve per metric, the limit dashed."""
    from ..writers.figures import new_figure, save
    fig = new_figure()
    ax = fig.subplots()
    for r in rows:
        ax.plot(r.edges, r.swap_rates, marker="o", markersize=3, linewidth=1.2,
                label=f"{r.measure} (delta {r.delta:.2f})")
    if rows:
        ax.axhline(rows[0].max_swap_rate, color="grey", linestyle="--", linewidth=0.8)
    ax.set_xlabel("performance difference bin (lower edge)")
    ax.set_ylabel("swap rate")
    ax.set_title(title or f"swap rates ({rows[0].variant if rows else ''}, "
                          f"B = {rows[0].B if rows else ''})")
    ax.legend(fontsize="small")
    save(fig, path)
