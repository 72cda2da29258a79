"""A generalisability-theory study of a topics x systems score matrix (Bodoff & Li, "Test
theory for assessing IR test collections", SIGIR 2007; Brennan, Generalizability Theory, 2001).

G-study: the crossed design systems x topics with one score per cell, score = mu + system +
topic + (system x topic, error). From the two-way ANOVA mean squares (n_t topics, n_s systems)

    sigma2(s)  = (MS_s - MS_res) / n_t
    sigma2(t)  = (MS_t - MS_res) / n_s
    sigma2(st) = MS_res                     (interaction confounded with error)

a negative estimate is set to 0 (Brennan's convention; the raw value is kept). D-study for a
collection of n' topics: the generalisability coefficient (relative decisions: which system is
better) E rho^2 = sigma2(s) / (sigma2(s) + sigma2(st) / n') and the dependability coefficient
(absolute decisions: how good a system is) Phi = sigma2(s) / (sigma2(s) + (sigma2(t) +
sigma2(st)) / n'); the topics needed for a target Phi is the smallest n' reaching it. Decided
here: with no variance at all both coefficients are NaN; with sigma2(s) = 0 they are 0 and no
number of topics reaches a positive target (None).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..stats import validation as v


@dataclass(frozen=True)
class GStudy:
    n_topics: int
    n_systems: int
    mean_squares: dict[str, float]       # systems, topics, residual
    raw_components: dict[str, float]     # the ANOVA estimates, negative ones kept
    components: dict[str, float]         # systems, topics, interaction (>= 0)

    @property
    def shares(self) -> dict[str, float]:
        """Each component's share of the total variance of one score."""
        total = sum(self.components.values())
        return {k: (c / total if total > 0 else math.nan) for k, c in self.components.items()}

    def generalisability(self, n_topics: int | None = None) -> float:
        """E rho^2 for a collection of n_topics topics (default: the study's)."""
        n = n_topics or self.n_topics
        s, st = self.components["systems"], self.components["interaction"]
        denominator = s + st / n
        return s / denominator if denominator > 0 else math.nan

    def dependability(self, n_topics: int | None = None) -> float:
        """Phi for a collection of n_topics topics (default: the study's)."""
        n = n_topics or self.n_topics
        c = self.components
        denominator = c["systems"] + (c["topics"] + c["interaction"]) / n
        return c["systems"] / denominator if denominator > 0 else math.nan

    def topics_for_dependability(self, target: float) -> int | None:
        """The fewest topics whose Phi reaches `target` (None: no number of topics does)."""
        if not 0 < target < 1:
            raise ValueError(f"target must be strictly between 0 and 1, got {target!r}")
        c = self.components
        if c["systems"] <= 0:
            return None
        # Phi(n) >= target  <=>  n >= target (sigma2(t) + sigma2(st)) / ((1 - target) sigma2(s))
        need = target * (c["topics"] + c["interaction"]) / ((1 - target) * c["systems"])
        n = max(1, math.ceil(need - 1e-9))
        while self.dependability(n) < target:   # rounding at the boundary
            n += 1
        return n

    def _repr_html_(self) -> str:
        from ..notebook import table
        return table(self.records(), ["source", "variance", "raw_estimate", "share",
                                      "generalisability", "dependability"],
                     caption=f"G-study: {self.n_topics} topics x {self.n_systems} systems")

    def records(self, d_study_topics=()) -> list[dict]:
        rows = [{"source": k, "variance": self.components[k],
                 "raw_estimate": self.raw_components[k], "share": self.shares[k]}
                for k in ("systems", "topics", "interaction")]
        for n in (self.n_topics, *d_study_topics):
            rows.append({"source": f"D-study n'={n}", "generalisability":
                         self.generalisability(n), "dependability": self.dependability(n)})
        return rows


def g_study(matrix) -> GStudy:
    """Variance components of a topics x systems matrix (rows topics, columns systems)."""
    x = v.as_matrix(matrix)
    n_t, n_s = x.shape
    grand = x.mean()
    topic_means, system_means = x.mean(axis=1), x.mean(axis=0)
    ms_s = n_t * float(np.sum((system_means - grand) ** 2)) / (n_s - 1)
    ms_t = n_s * float(np.sum((topic_means - grand) ** 2)) / (n_t - 1)
    residual = x - topic_means[:, None] - system_means[None, :] + grand
    ms_r = float(np.sum(residual ** 2)) / ((n_t - 1) * (n_s - 1))
    raw = {"systems": (ms_s - ms_r) / n_t, "topics": (ms_t - ms_r) / n_s, "interaction": ms_r}
    return GStudy(n_t, n_s, {"systems": ms_s, "topics": ms_t, "residual": ms_r}, raw,
                  {k: max(0.0, c) for k, c in raw.items()})
