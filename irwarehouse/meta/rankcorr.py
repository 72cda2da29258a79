"""Rank correlation of system rankings (Sakai, PROMISE 2014, section 5.2, Sakai, IPSJ JIP 2013,
Table 5, Sakai, IPSJ TOD 2007, sec 4.1).

Inputs are per-system scores (higher = better, e.g. mean AP of each run) of the same systems in
the same order; a ranking is derived from them. All pairwise forms are O(m^2) numpy, fine for the
hundreds of runs of a campaign.

* Kendall's tau (Sakai, IPSJ TOD 2007, eq 8): tau = 2 (pos - neg) / (m (m - 1)); pairs tied in
  either list count as neither (tau-a). ``variant="b"`` gives tau-b, (pos - neg) /
  sqrt((P - T_x)(P - T_y)), scipy.stats.kendalltau's default; the two agree without ties.
* Its normal test (Sakai, IPSJ TOD 2007, eq 9): Z0 = |tau| / sqrt((4m + 10) / (9 m (m - 1))),
  two-sided. With m = 30 the critical tau at alpha = 0.01 is 0.3319 (the paper rounds it to 0.34).
* tau_ap (Yilmaz, Aslam and Robertson; Sakai, PROMISE 2014, eq 52): the evaluated list is ranked by
  its scores, correct(r) counts the items above rank r that the gold list also ranks above the item
  at rank r; tau_ap = 2 / (m - 1) sum_{r=2..m} correct(r) / (r - 1) - 1. Asymmetric; the symmetric
  form averages both directions (Sakai, IPSJ JIP 2013, Table 5). Ties are broken by position (stable
  order), so every list is a strict ranking.
* Spearman's rho = Pearson correlation of the (mid)ranks; without ties
  1 - 6 sum d^2 / (m (m^2 - 1)) (Baeza-Yates & Ribeiro-Neto, Modern Information Retrieval 2011: sum
  d^2 = 24 over 10 items gives 0.854).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..stats import special


def _scores(x, y) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"need two 1-D score vectors of the same length, got {x.shape} and "
                         f"{y.shape}")
    if x.size < 2:
        raise ValueError("need at least two systems to rank")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("scores contain NaN or infinite values")
    return x, y


def _pair_signs(v: np.ndarray) -> np.ndarray:
    """sign(v_i - v_j) for i < j, as a flat vector."""
    i, j = np.triu_indices(v.size, k=1)
    return np.sign(v[i] - v[j])


def concordance_counts(x, y) -> tuple[int, int, int, int]:
    """(pos, neg, ties_x, ties_y): concordant, discordant and tied system pairs."""
    x, y = _scores(x, y)
    sx, sy = _pair_signs(x), _pair_signs(y)
    product = sx * sy
    return (int(np.count_nonzero(product > 0)), int(np.count_nonzero(product < 0)),
            int(np.count_nonzero(sx == 0)), int(np.count_nonzero(sy == 0)))


def kendall_tau(x, y, *, variant: str = "a") -> float:
    """Kendall's tau of the rankings two score vectors induce (Sakai, IPSJ TOD 2007, eq 8)."""
    pos, neg, tx, ty = concordance_counts(x, y)
    m = np.asarray(x).size
    pairs = m * (m - 1) // 2
    if variant == "a":
        return (pos - neg) / pairs
    if variant == "b":
        denominator = math.sqrt((pairs - tx) * (pairs - ty))
        return (pos - neg) / denominator if denominator else float("nan")
    raise ValueError(f"variant must be 'a' or 'b', got {variant!r}")


@dataclass(frozen=True)
class KendallTest:
    tau: float
    z: float
    pvalue: float
    n_systems: int


def _tau_standard_error(n_systems: int) -> float:
    if n_systems < 2:
        raise ValueError("need at least two systems")
    return math.sqrt((4 * n_systems + 10) / (9 * n_systems * (n_systems - 1)))


def kendall_test(tau: float, n_systems: int) -> KendallTest:
    """Normal test of Kendall's tau (Sakai, IPSJ TOD 2007, eq 9), two-sided."""
    z = abs(tau) / _tau_standard_error(n_systems)
    return KendallTest(float(tau), z, special.normal_two_sided(z), n_systems)


def normal_critical(two_sided_alpha: float) -> float:
    """z with P(|Z| >= z) = alpha (bisection on erfc to full precision)."""
    if not 0 < two_sided_alpha < 1:
        raise ValueError(f"alpha must be strictly between 0 and 1, got {two_sided_alpha!r}")
    low, high = 0.0, 40.0
    for _ in range(200):
        middle = 0.5 * (low + high)
        if special.normal_two_sided(middle) > two_sided_alpha:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)


def kendall_critical_tau(n_systems: int, alpha: float = 0.05) -> float:
    """Smallest |tau| significant at alpha (two-sided) with n_systems systems (eq 9 inverted)."""
    return normal_critical(alpha) * _tau_standard_error(n_systems)


def ranking(scores) -> np.ndarray:
    """System indices from best to worst (score descending, ties in input order)."""
    return np.argsort(-np.asarray(scores, dtype=float), kind="stable")


def tau_ap(evaluated, gold) -> float:
    """AP rank correlation of the ranking by `evaluated` against the gold ranking by `gold`."""
    evaluated, gold = _scores(evaluated, gold)
    m = evaluated.size
    gold_position = np.empty(m, dtype=int)
    gold_position[ranking(gold)] = np.arange(m)
    positions = gold_position[ranking(evaluated)]      # gold position of the item at each rank
    above = np.tril(positions[None, :] < positions[:, None], k=-1)  # [r, k]: k < r, gold agrees
    correct = above.sum(axis=1)[1:]                    # ranks r = 2..m (1-based)
    return float(2.0 / (m - 1) * np.sum(correct / np.arange(1, m)) - 1.0)


def tau_ap_symmetric(x, y) -> float:
    """Mean of tau_ap(x | y) and tau_ap(y | x) (Sakai, IPSJ JIP 2013, Table 5)."""
    return 0.5 * (tau_ap(x, y) + tau_ap(y, x))


def midranks(v) -> np.ndarray:
    """Ranks 1..m in ascending order of v, ties sharing their mean rank."""
    v = np.asarray(v, dtype=float)
    order = np.argsort(v, kind="stable")
    sorted_v = v[order]
    starts = np.r_[True, sorted_v[1:] != sorted_v[:-1]]
    group = np.cumsum(starts) - 1
    first = np.flatnonzero(starts)
    last = np.r_[first[1:], v.size] - 1
    ranks = np.empty(v.size)
    ranks[order] = (first[group] + last[group]) / 2.0 + 1.0
    return ranks


def spearman_rho(x, y) -> float:
    """Spearman's rank correlation (Pearson correlation of midranks)."""
    x, y = _scores(x, y)
    rx, ry = midranks(x), midranks(y)
    rx -= rx.mean()
    ry -= ry.mean()
    denominator = math.sqrt(float(rx @ rx) * float(ry @ ry))
    return float(rx @ ry) / denominator if denominator else float("nan")


def _rbo_ext(x, y) -> float:
    """RBO_ext (p = 0.9) of the two system rankings (Webber, Moffat & Zobel, TOIS 2010;
    irwarehouse.meta.rbo)."""
    from .rbo import rbo_ext
    return rbo_ext(x, y, p=0.9)


STATISTICS = {
    "kendall": kendall_tau,
    "tau_ap": tau_ap_symmetric,
    "spearman": spearman_rho,
    "rbo": _rbo_ext,
}


@dataclass(frozen=True)
class CorrelationMatrix:
    """Metric x metric correlations of the system rankings (Sakai, IPSJ JIP 2013, Table 5 shape)."""

    measures: list[str]
    statistics: list[str]
    values: dict[str, np.ndarray]       # statistic -> (k, k) symmetric matrix, 1 on the diagonal
    n_systems: int
    kendall_pvalues: np.ndarray         # eq 9 p-value of each Kendall tau

    def _repr_html_(self) -> str:
        from ..notebook import table
        return table(self.records(), caption=f"correlations of the rankings of "
                     f"{self.n_systems} systems")

    def records(self) -> list[dict]:
        out = []
        k = len(self.measures)
        for a in range(k):
            for b in range(a + 1, k):
                row = {"measure_a": self.measures[a], "measure_b": self.measures[b]}
                for stat in self.statistics:
                    row[stat] = float(self.values[stat][a, b])
                if "kendall" in self.statistics:
                    row["kendall_p"] = float(self.kendall_pvalues[a, b])
                out.append(row)
        return out


def correlation_matrix(system_scores: dict[str, np.ndarray], *,
                       statistics=("kendall", "tau_ap")) -> CorrelationMatrix:
    """Correlations between the system rankings of every pair of metrics.

    ``system_scores`` maps a metric name to the per-system scores (same systems, same order)."""
    for stat in statistics:
        if stat not in STATISTICS:
            raise ValueError(f"unknown statistic {stat!r}; use {', '.join(STATISTICS)}")
    names = list(system_scores)
    vectors = [np.asarray(system_scores[n], dtype=float) for n in names]
    k = len(names)
    values = {s: np.eye(k) for s in statistics}
    pvalues = np.zeros((k, k))
    for a in range(k):
        for b in range(a + 1, k):
            for stat in statistics:
                values[stat][a, b] = values[stat][b, a] = STATISTICS[stat](vectors[a], vectors[b])
            tau = kendall_tau(vectors[a], vectors[b])
            pvalues[a, b] = pvalues[b, a] = kendall_test(tau, vectors[a].size).pvalue
    return CorrelationMatrix(names, list(statistics), values, vectors[0].size if k else 0,
                             pvalues)


@dataclass(frozen=True)
class SignificanceAgreement:
    """Overlap of the significantly different run pairs of two metrics, ``only_a/both/only_b``
    (Sakai, IPSJ JIP 2013, Table 4)."""

    measure_a: str
    measure_b: str
    only_a: int
    both: int
    only_b: int
    neither: int

    def cell(self) -> str:
        return f"{self.only_a}/{self.both}/{self.only_b}"


def significance_agreement(significant: dict[str, np.ndarray]) -> list[SignificanceAgreement]:
    """For every pair of metrics, how many run pairs only one, both or neither found
    significant. ``significant`` maps a metric to a boolean vector over the same run pairs."""
    names = list(significant)
    masks = [np.asarray(significant[n], dtype=bool) for n in names]
    out = []
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            x, y = masks[a], masks[b]
            if x.shape != y.shape:
                raise ValueError("significance vectors must cover the same run pairs")
            out.append(SignificanceAgreement(
                names[a], names[b], int(np.count_nonzero(x & ~y)), int(np.count_nonzero(x & y)),
                int(np.count_nonzero(~x & y)), int(np.count_nonzero(~x & ~y))))
    return out
