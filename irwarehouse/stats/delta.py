"""Minimum performance delta needed for a significant difference (discriminative power).

Bootstrap form (Sakai; Sakai, IPSJ JIP 2013, Fig 3, Sakai, IPSJ TOD 2007, Fig 7): for every run
pair, among the B bootstrap replicates take the one whose |t(w*b)| is the (B*alpha)-th largest and
record its |mean(w*b)|; the estimate is the maximum over pairs ("to be conservative").
Tukey form (Sakai, IPSJ JIP 2013, Fig 5, Sakai, PROMISE 2014, section 5.1): the smallest
|mean difference| among the pairs found significant by the randomised Tukey HSD.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import validation as v
from .compare import Comparison, compare_all
from .resampling import IndexSampler, paired_bootstrap_all_pairs


@dataclass(frozen=True)
class DeltaResult:
    """``delta`` is NaN when no pair is significant (Tukey form)."""

    method: str
    delta: float
    alpha: float
    B: int | None
    seed: int | None
    n_pairs: int
    n_significant: int
    per_pair: np.ndarray | None = None  # bootstrap form: borderline |mean(w*b)| of each pair


def bootstrap_delta(
    matrix,
    *,
    alpha: float = 0.05,
    B: int = 1000,
    rng=None,
    sampler: IndexSampler | None = None,
) -> DeltaResult:
    """Sakai's bootstrap estimate of the delta required for ASL < alpha (Sakai, IPSJ TOD 2007,
    Fig 7)."""
    alpha = v.check_probability(alpha, "alpha")
    res = paired_bootstrap_all_pairs(matrix, B=B, rng=rng, sampler=sampler, delta_alpha=alpha)
    return DeltaResult(
        method="bootstrap",
        delta=float(res.borderline_delta.max()),
        alpha=alpha,
        B=res.B,
        seed=res.seed,
        n_pairs=res.pvalue.size,
        n_significant=int(np.count_nonzero(res.pvalue < alpha)),
        per_pair=res.borderline_delta,
    )


def smallest_significant_delta(comparison: Comparison) -> DeltaResult:
    """min |delta| over the significant pairs of any comparison (Sakai, IPSJ JIP 2013, Fig 5)."""
    significant = [abs(pair.delta) for pair in comparison.pairs if pair.significant]
    return DeltaResult(
        method=comparison.test,
        delta=min(significant) if significant else float("nan"),
        alpha=comparison.alpha,
        B=comparison.B,
        seed=comparison.seed,
        n_pairs=len(comparison.pairs),
        n_significant=len(significant),
    )


def tukey_delta(matrix, *, alpha: float = 0.05, B: int = 5000, rng=None,
                tie_rule: str = "ge") -> DeltaResult:
    """Randomised Tukey HSD estimate of the delta required at alpha (Sakai, IPSJ JIP 2013, Fig 5);
    ``tie_rule`` as in tukey_hsd."""
    return smallest_significant_delta(compare_all(matrix, test="tukey", alpha=alpha, B=B, rng=rng,
                                                  tie_rule=tie_rule))
