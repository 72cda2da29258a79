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
