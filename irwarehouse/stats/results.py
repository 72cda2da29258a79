"""Result records of the statistics engine (scipy-style: ``res.statistic``, ``res.pvalue``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


class _Shown:
    """Jupyter shows a result as a table of its fields."""

    def _repr_html_(self) -> str:
        from ..notebook import fields_table
        return fields_table(self, skip=("null_distribution",))


@dataclass(frozen=True)
class ConfidenceInterval:
    low: float
    high: float
    level: float


@dataclass(frozen=True)
class TestResult(_Shown):
    """Outcome of one two-sample (or k-sample) test.

    ``pvalue`` is the Achieved Significance Level (ASL) for the resampling tests. ``B`` and
    ``seed`` record how a resampling result can be replayed (``seed`` is None when a Generator
    was passed in); both are None for the classical tests. ``null_distribution`` is filled only
    when the call asked ``return_null=True``. ``note`` says when a value is set by definition
    rather than computed (identical runs: p = 1; docs/stats.md).
    """

    test: str
    statistic: float
    pvalue: float
    effect_size: float | None = None
    effect_size_name: str | None = None
    mean_difference: float | None = None
    confidence_interval: ConfidenceInterval | None = None
    df: float | tuple[float, float] | None = None
    method: str | None = None
    B: int | None = None
    seed: int | None = None
    null_distribution: np.ndarray | None = field(default=None, repr=False, compare=False)
    note: str | None = None


@dataclass(frozen=True)
class AnovaRow:
    source: str
    sum_of_squares: float
    df: int
    mean_square: float
    statistic: float | None = None
    pvalue: float | None = None
    partial_eta_squared: float | None = None


@dataclass(frozen=True)
class AnovaResult(_Shown):
    """Two-way ANOVA without replication (topics x runs, one score per cell)."""

    test: str
    runs: AnovaRow
    topics: AnovaRow
    residual: AnovaRow
    total_sum_of_squares: float

    @property
    def statistic(self) -> float:
        """F for the run (column) effect, the usual question in IR."""
        return self.runs.statistic

    @property
    def pvalue(self) -> float:
        return self.runs.pvalue


@dataclass(frozen=True)
class TukeyHSDResult(_Shown):
    """Randomised Tukey HSD over all runs (Sakai, PROMISE 2014, Fig 15, Sakai, IPSJ JIP 2013, Fig 4).

    ``pvalues[i, j]`` is the ASL of the pair of runs i and j (symmetric, 1 on the diagonal);
    ``mean_differences[i, j] = mean_i - mean_j``. ``null_distribution`` holds the B values of
    max(run mean) - min(run mean) of the permuted matrices when asked for. ``tie_rule`` is how a
    permuted range equal to a pair's difference was counted: "ge" (counted) or "gt" (not).
    """

    test: str
    run_means: np.ndarray
    mean_differences: np.ndarray
    pvalues: np.ndarray
    B: int
    seed: int | None
    null_distribution: np.ndarray | None = field(default=None, repr=False, compare=False)
    tie_rule: str = "ge"
