"""Shared pieces of the meta-evaluation modules: one seed for every metric, run pairs, aligning
the score matrices of several metrics."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from ..stats import validation as v


def resolve_seed(rng) -> int | None:
    """An int seed every metric reuses, so that all metrics see the same resamples (the
    seed papers compare metrics on the same bootstrap samples). None draws fresh entropy and
    records it; a Generator is passed through as None (its draws are then shared in turn)."""
    if isinstance(rng, np.random.Generator):
        return None
    return v.make_rng(rng)[1]


def pair_indices(n_runs: int) -> tuple[np.ndarray, np.ndarray]:
    """Run pairs (a < b) in np.triu_indices order, the order of irwarehouse.stats."""
    return np.triu_indices(n_runs, k=1)


def round_significant(value: float, digits: int = 2) -> float:
    """Round to `digits` significant figures (Sakai, IPSJ TOD 2007, Fig 7 reports the estimated difference
    so)."""
    if not math.isfinite(value) or value == 0:
        return value
    return round(value, digits - 1 - int(math.floor(math.log10(abs(value)))))


@dataclass(frozen=True)
class MetricSet:
    """Score matrices of several metrics over the same topics (rows) and runs (columns)."""

    measures: list[str]
    topics: list[str]
    runs: list[str]
    values: dict[str, np.ndarray]       # measure -> (topics, runs)
    summaries: dict[str, str] = field(default_factory=dict)   # measure -> summary kind

    def _repr_html_(self) -> str:
        """Jupyter: the leaderboard, each run's value of each measure."""
        from ..notebook import table
        means = self.run_means()
        rows = [{"run": run, **{m: float(means[m][j]) for m in self.measures}}
                for j, run in enumerate(self.runs)]
        return table(rows, ["run", *self.measures],
                     caption=f"{len(self.runs)} runs on {len(self.topics)} topics")

    def __getitem__(self, measure: str) -> np.ndarray:
        return self.values[measure]

    @property
    def n_pairs(self) -> int:
        m = len(self.runs)
        return m * (m - 1) // 2

    def run_means(self) -> dict[str, np.ndarray]:
        """Each run's value of each measure, by the measure's summary kind (the arithmetic
        mean unless the catalog says otherwise: gm_map's geometric mean)."""
        from ..engine.matrix import run_values
        return {m: run_values(self.values[m], self.summaries.get(m, "mean"))
                for m in self.measures}

    @classmethod
    def from_arrays(cls, values: dict[str, np.ndarray], runs=None, topics=None) -> MetricSet:
        arrays = {m: v.as_matrix(a) for m, a in values.items()}
        if not arrays:
            raise ValueError("no metrics given")
        shapes = {a.shape for a in arrays.values()}
        if len(shapes) != 1:
            raise ValueError(f"the metrics' matrices differ in shape: {sorted(shapes)}")
        n, m = next(iter(shapes))
        runs = list(runs) if runs is not None else [f"run{j}" for j in range(m)]
        topics = list(topics) if topics is not None else [str(i) for i in range(n)]
        if len(runs) != m or len(topics) != n:
            raise ValueError("run or topic names do not match the matrix shape")
        return cls(list(arrays), topics, runs, arrays)

    @classmethod
    def from_score_matrices(cls, matrices) -> MetricSet:
        """Align score matrices (irwarehouse.engine.matrix.ScoreMatrix): the same runs, the
        topics they share."""
        matrices = list(matrices)
        if not matrices:
            raise ValueError("no metrics given")
        runs = matrices[0].runs
        for sm in matrices[1:]:
            if sm.runs != runs:
                raise ValueError(f"{sm.measure} has other runs than {matrices[0].measure}")
        shared = set(matrices[0].topics)
        for sm in matrices[1:]:
            shared &= set(sm.topics)
        topics = [t for t in matrices[0].topics if t in shared]
        values = {}
        for sm in matrices:
            rows = [sm.topics.index(t) for t in topics]
            values[sm.measure] = sm.values[rows, :]
        metrics = cls.from_arrays(values, runs=runs, topics=topics)
        return replace(metrics, summaries={sm.measure: sm.summary for sm in matrices})
