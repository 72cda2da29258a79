"""The concordance test (Sakai, IPSJ JIP 2013, section 4.2 and Fig 6, Sakai, PROMISE 2014, Fig 17,
Sakai, IPSJ JIP 2013, Table 6).

Two candidate metrics M1 and M2 and one or several gold-standard metrics are compared over every
run pair (X, Y) and every topic t: where M1 and M2 strictly disagree (dM1 dM2 < 0), M1 is
concordant if dM1 dG >= 0 for every gold standard G (a tie of the gold standard counts as
concordant, as in the seed), likewise M2. Concordance(M1 | M2, G) = Correct1 / Disagreements.

A win of M1 is a disagreement where M1 is concordant and M2 is not (Sakai, PROMISE 2014, footnote
21: the concordance rates include the cases where both are); the two-sided sign test (exact
binomial, p = 1/2) on wins1 vs wins2 says whether one metric is significantly more concordant.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..stats import special
from ..stats import validation as v
from ._common import MetricSet, pair_indices

_BATCH_ELEMENTS = 2_000_000


@dataclass(frozen=True)
class Concordance:
    measure_1: str
    measure_2: str
    gold: tuple[str, ...]
    comparisons: int                  # run pairs x topics
    disagreements: int
    correct_1: int
    correct_2: int
    wins_1: int
    wins_2: int
    pvalue: float                     # two-sided sign test on wins_1 vs wins_2

    @property
    def concordance_1(self) -> float:
        return self.correct_1 / self.disagreements if self.disagreements else float("nan")

    @property
    def concordance_2(self) -> float:
        return self.correct_2 / self.disagreements if self.disagreements else float("nan")

    def marker(self) -> str:
        """'‡' at alpha = 0.01, '†' at 0.05 (Sakai, IPSJ JIP 2013, Table 6)."""
        return "‡" if self.pvalue < 0.01 else "†" if self.pvalue < 0.05 else ""

    def cell(self) -> str:
        """'.597/.995‡ (236)' as in Sakai, IPSJ JIP 2013, Table 6."""
        def short(x):
            return "nan" if np.isnan(x) else ("1" if x == 1 else f"{x:.3f}".lstrip("0"))
        return (f"{short(self.concordance_1)}/{short(self.concordance_2)}{self.marker()} "
                f"({self.disagreements})")

    def record(self) -> dict:
        return {"measure_1": self.measure_1, "measure_2": self.measure_2,
                "gold": "+".join(self.gold), "comparisons": self.comparisons,
                "disagreements": self.disagreements, "correct_1": self.correct_1,
                "correct_2": self.correct_2, "concordance_1": self.concordance_1,
                "concordance_2": self.concordance_2, "wins_1": self.wins_1,
                "wins_2": self.wins_2, "pvalue": self.pvalue}


def concordance_test(m1, m2, gold, *, names=("M1", "M2"), gold_names=None) -> Concordance:
    """Concordance of two topics x runs matrices against one gold matrix or a list of them
    (all must agree: Sakai's (IPSJ JIP 2013) 'I-rec AND Ef-P')."""
    m1, m2 = v.as_matrix(m1, min_topics=1), v.as_matrix(m2, min_topics=1)
    golds = [gold] if np.asarray(gold).ndim == 2 else list(gold)
    golds = [v.as_matrix(g, min_topics=1) for g in golds]
    if not golds:
        raise ValueError("need at least one gold-standard metric")
    for g in [m2, *golds]:
        if g.shape != m1.shape:
            raise ValueError(f"all matrices must have the same shape, got {g.shape} and "
                             f"{m1.shape}")
    gold_names = tuple(gold_names or [f"G{i + 1}" for i in range(len(golds))])
    run_a, run_b = pair_indices(m1.shape[1])
    step = max(1, _BATCH_ELEMENTS // m1.shape[0])
    disagreements = correct_1 = correct_2 = wins_1 = wins_2 = 0
    for start in range(0, run_a.size, step):
        a, b = run_a[start:start + step], run_b[start:start + step]
        d1 = m1[:, a] - m1[:, b]
        d2 = m2[:, a] - m2[:, b]
        disagree = d1 * d2 < 0
        ok_1 = disagree.copy()
        ok_2 = disagree.copy()
        for g in golds:
            dg = g[:, a] - g[:, b]
            ok_1 &= d1 * dg >= 0
            ok_2 &= d2 * dg >= 0
        disagreements += int(disagree.sum())
        correct_1 += int(ok_1.sum())
        correct_2 += int(ok_2.sum())
        wins_1 += int((ok_1 & ~ok_2).sum())
        wins_2 += int((ok_2 & ~ok_1).sum())
    return Concordance(names[0], names[1], gold_names, run_a.size * m1.shape[0], disagreements,
                       correct_1, correct_2, wins_1, wins_2,
                       special.binomial_two_sided_half(wins_1, wins_1 + wins_2))


def concordance_table(metrics: MetricSet, candidates: list[str], gold: list[str]
                      ) -> list[Concordance]:
    """Every pair of candidate metrics against the gold standard(s) (Sakai, IPSJ JIP 2013,
    Table 6)."""
    missing = [m for m in [*candidates, *gold] if m not in metrics.values]
    if missing:
        raise ValueError(f"no scores for {missing[0]!r}")
    out = []
    for i, first in enumerate(candidates):
        for second in candidates[i + 1:]:
            out.append(concordance_test(metrics[first], metrics[second],
                                        [metrics[g] for g in gold], names=(first, second),
                                        gold_names=gold))
    return out
