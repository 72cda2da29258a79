"""Sakai's bootstrap sensitivity method (Sakai, IPSJ TOD 2007, section 4.3, Figs 5-7, Table 4).

A paired bootstrap test of every system pair (one shared set of B topic samples Q*b, Fig 5);
the sensitivity is the number of pairs with ASL < alpha out of all pairs, and the estimated
difference (Fig 7) is the maximum over pairs of |mean(w*b)| at the (B alpha)-th largest
|t(w*b)|, rounded to two significant figures. It is discriminative power with the bootstrap
(see discpower.py), reported in Table 4's shape.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._common import MetricSet, round_significant
from .discpower import DiscPower, discpower_table


@dataclass(frozen=True)
class Sensitivity:
    measure: str
    n_significant: int
    n_pairs: int
    estimated_difference: float       # rounded to two significant figures (Fig 7)
    raw_difference: float
    alpha: float
    B: int
    seed: int | None

    @property
    def share(self) -> float:
        return self.n_significant / self.n_pairs

    def cell(self) -> str:
        """'242/435=56%' as in Sakai, IPSJ TOD 2007, Table 4."""
        return f"{self.n_significant}/{self.n_pairs}={self.share:.0%}"

    def record(self) -> dict:
        return {"measure": self.measure, "n_significant": self.n_significant,
                "n_pairs": self.n_pairs, "share": self.share,
                "estimated_difference": self.estimated_difference,
                "raw_difference": self.raw_difference, "alpha": self.alpha, "B": self.B,
                "seed": self.seed}


def from_discpower(row: DiscPower) -> Sensitivity:
    if row.test != "bootstrap":
        raise ValueError("the bootstrap sensitivity method needs the bootstrap test")
    return Sensitivity(row.measure, row.n_significant, row.n_pairs,
                       round_significant(row.delta, 2), row.delta, row.alpha, row.B, row.seed)


def bootstrap_sensitivity(metrics: MetricSet, *, alpha: float = 0.05, B: int = 1000,
                          rng=None) -> list[Sensitivity]:
    """Table 4 of Sakai, IPSJ TOD 2007: one row per metric, most sensitive first."""
    rows = discpower_table(metrics, test="bootstrap", alpha=alpha, B=B, rng=rng)
    return [from_discpower(r) for r in rows]


@dataclass(frozen=True)
class UnpairedSensitivity(Sensitivity):
    """The Unpaired-Test version of the bootstrap sensitivity method, for summaries that are
    no mean of per-topic differences (GMAP's geometric mean; Sakai, IPSJ TOD 2007, sec 4.3 and
    its note on the Unpaired-Test version; Sakai, SIGIR 2006): every run pair gets the
    unpaired bootstrap test of irwarehouse.stats (Sakai, PROMISE 2014, Fig 13-14) on the
    difference of the two runs' summaries, all pairs sharing one set of B index samples of the
    pooled 2n scores; the estimated difference is the largest over the pairs of the
    ceil(B alpha)-th largest |d*b|, rounded to two significant figures."""

    statistic: str = "mean"          # the summary tested: mean or gmean

    def record(self) -> dict:
        return {**super().record(), "test": "unpaired_bootstrap", "statistic": self.statistic}


def unpaired_sensitivity(metrics: MetricSet, *, alpha: float = 0.05, B: int = 1000,
                         rng=None) -> list[UnpairedSensitivity]:
    """One row per metric, most sensitive first; a metric whose catalog summary is the
    geometric mean ('gmean', as gm_map) is tested on geometric means (trec_eval's 1e-5
    floor), every other one on arithmetic means."""
    import math

    import numpy as np

    from ..stats import validation as v
    from ..stats.resampling import SUMMARY_STATISTICS, at_least_as_extreme
    from ._common import pair_indices, resolve_seed
    B = v.check_resamples(B)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be strictly between 0 and 1, got {alpha!r}")
    seed = resolve_seed(rng)
    generator, recorded = v.make_rng(rng if seed is None else seed)
    n = len(metrics.topics)
    indices = generator.integers(0, 2 * n, size=(B, 2 * n))
    rank = math.ceil(B * alpha)
    rows = []
    for m in metrics.measures:
        statistic = "gmean" if metrics.summaries.get(m, "mean") == "gmean" else "mean"
        summary = SUMMARY_STATISTICS[statistic]
        matrix = metrics[m]
        significant, widest = 0, 0.0
        for a, b in zip(*pair_indices(matrix.shape[1])):
            pooled = np.concatenate([matrix[:, a], matrix[:, b]])[indices]
            null = np.abs(summary(pooled[:, :n], axis=1) - summary(pooled[:, n:], axis=1))
            observed = abs(float(summary(matrix[None, :, a], axis=1)[0]
                                 - summary(matrix[None, :, b], axis=1)[0]))
            asl = np.count_nonzero(at_least_as_extreme(null, observed)) / B
            significant += asl < alpha
            widest = max(widest, float(np.sort(null)[::-1][rank - 1]))
        rows.append(UnpairedSensitivity(m, int(significant),
                                        matrix.shape[1] * (matrix.shape[1] - 1) // 2,
                                        round_significant(widest, 2), widest, alpha, B,
                                        recorded, statistic))
    return sorted(rows, key=lambda r: -r.n_significant)
