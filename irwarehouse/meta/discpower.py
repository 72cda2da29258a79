"""Discriminative power (Sakai, PROMISE 2014, section 5.1, Sakai, IPSJ JIP 2013, section 4.1 and
Tables 2-3).

For every metric, a significance test over every run pair gives one ASL per pair; the share of
pairs with ASL < alpha is the metric's discriminative power, the ASL curve plots the ASLs sorted
(pairs on the x axis), and the performance delta needed for significance is estimated:

* ``test="bootstrap"``: the paired bootstrap of every pair, one shared resample matrix
  (irwarehouse.stats.paired_bootstrap_all_pairs); the delta is Sakai's estimate (Sakai, IPSJ JIP
  2013, Fig 3, Sakai, IPSJ TOD 2007, Fig 7): per pair |mean(w*b)| at the (B alpha)-th largest
  |t(w*b)|, maximum over pairs (the same number irwarehouse.stats.bootstrap_delta returns, computed
  in the same pass).
* ``test="tukey"``: randomised Tukey HSD over all runs (irwarehouse.stats.tukey_hsd); the delta
  is the smallest |mean difference| among the significant pairs (Sakai, IPSJ JIP 2013, Fig 5, as
  irwarehouse.stats.tukey_delta), NaN when none is. ``tie_rule`` "ge" (default) counts a
  permuted range equal to a pair's difference, "gt" does not (Sakai's '>'; docs/stats.md).

Every metric is tested with the same seed, so all metrics see the same resamples.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..stats import paired_bootstrap_all_pairs, tukey_hsd
from ..stats import validation as v
from ..stats.resampling import TIE_RULES
from ._common import MetricSet, pair_indices, resolve_seed

TESTS = ("bootstrap", "tukey")
# Sakai, IPSJ JIP 2013, section 5.1 settles on these
DEFAULT_B = {"bootstrap": 1000, "tukey": 5000}


@dataclass(frozen=True)
class DiscPower:
    """Discriminative power of one metric (one row of Sakai, IPSJ JIP 2013, Table 2 or 3)."""

    measure: str
    test: str
    alpha: float
    B: int
    seed: int | None
    run_a: np.ndarray                 # pair -> column of the first run (a < b)
    run_b: np.ndarray
    asl: np.ndarray                   # ASL of each pair
    mean_difference: np.ndarray       # mean(run a) - mean(run b)
    delta: float                      # estimated delta needed for significance
    per_pair_delta: np.ndarray | None = None   # bootstrap: borderline delta of each pair
    tie_rule: str | None = None       # tukey: "ge" or "gt"; None for the bootstrap

    @property
    def n_pairs(self) -> int:
        return int(self.asl.size)

    @property
    def significant(self) -> np.ndarray:
        return self.asl < self.alpha

    @property
    def n_significant(self) -> int:
        return int(np.count_nonzero(self.significant))

    @property
    def share(self) -> float:
        return self.n_significant / self.n_pairs

    def curve(self) -> np.ndarray:
        """The ASL curve: ASLs sorted ascending (x = pair rank)."""
        return np.sort(self.asl)


def discriminative_power(matrix, *, measure: str = "", test: str = "bootstrap",
                         alpha: float = 0.05, B: int | None = None, rng=None,
                         sampler=None, permuter=None, tie_rule: str = "ge") -> DiscPower:
    """ASL of every run pair of a topics x runs matrix and the delta needed at alpha;
    ``tie_rule`` ("ge" or "gt") applies to the Tukey test (the bootstrap counts '>=')."""
    matrix = v.as_matrix(matrix)
    v.check_choice(test, "test", TESTS)
    v.check_choice(tie_rule, "tie_rule", TIE_RULES)
    if test != "tukey" and tie_rule != "ge":
        raise ValueError(f"tie_rule {tie_rule!r} applies to the Tukey test only")
    alpha = v.check_probability(alpha, "alpha")
    B = v.check_resamples(DEFAULT_B[test] if B is None else B)
    run_a, run_b = pair_indices(matrix.shape[1])
    means = matrix.mean(axis=0)
    differences = means[run_a] - means[run_b]
    if test == "bootstrap":
        res = paired_bootstrap_all_pairs(matrix, B=B, rng=rng, sampler=sampler,
                                         delta_alpha=alpha)
        return DiscPower(measure, test, alpha, B, res.seed, run_a, run_b, res.pvalue,
                         differences, float(res.borderline_delta.max()), res.borderline_delta)
    res = tukey_hsd(matrix, B=B, rng=rng, permuter=permuter, tie_rule=tie_rule)
    asl = res.pvalues[run_a, run_b]
    significant = np.abs(differences[asl < alpha])
    delta = float(significant.min()) if significant.size else float("nan")
    return DiscPower(measure, test, alpha, B, res.seed, run_a, run_b, asl, differences, delta,
                     tie_rule=tie_rule)


def discpower_table(metrics: MetricSet, *, test: str = "bootstrap", alpha: float = 0.05,
                    B: int | None = None, rng=None, tie_rule: str = "ge") -> list[DiscPower]:
    """Discriminative power of every metric, sorted by share of significant pairs (descending,
    then delta ascending), as Sakai, IPSJ JIP 2013, Tables 2-3. All metrics share one seed."""
    seed = resolve_seed(rng)
    rows = [discriminative_power(metrics[m], measure=m, test=test, alpha=alpha, B=B,
                                 rng=rng if seed is None else seed, tie_rule=tie_rule)
            for m in metrics.measures]
    return sorted(rows, key=lambda r: (-r.share, np.nan_to_num(r.delta, nan=np.inf)))


def table_records(rows: list[DiscPower], runs: list[str] | None = None) -> list[dict]:
    """One record per metric: share, k/N, delta (the table's columns); Tukey rows also name
    their tie rule."""
    out = []
    for r in rows:
        rule = {"tie_rule": r.tie_rule} if r.tie_rule else {}
        out.append({"measure": r.measure, "test": r.test, **rule, "alpha": r.alpha, "B": r.B,
                    "seed": r.seed, "n_significant": r.n_significant, "n_pairs": r.n_pairs,
                    "share": r.share, "delta": None if np.isnan(r.delta) else r.delta})
    return out


def pair_records(rows: list[DiscPower], runs: list[str]) -> list[dict]:
    """One record per metric and run pair (the data of the ASL curves)."""
    out = []
    for r in rows:
        for k in range(r.n_pairs):
            out.append({"measure": r.measure, "run_a": runs[r.run_a[k]],
                        "run_b": runs[r.run_b[k]], "mean_difference": float(r.mean_difference[k]),
                        "asl": float(r.asl[k]), "significant": bool(r.significant[k])})
    return out


def plot_asl_curves(rows: list[DiscPower], path, *, title: str | None = None) -> None:
    """ASL curves (Sakai, PROMISE 2014, Fig 16, Sakai, IPSJ JIP 2013, Figs 8-9): one curve per
    metric, the y axis the ASL, the x axis the run pairs sorted by ASL; a dashed line at alpha. PNG
    or SVG by suffix."""
    from ..writers.figures import new_figure, save
    fig = new_figure()
    ax = fig.subplots()
    for r in rows:
        curve = r.curve()
        ax.plot(np.arange(1, curve.size + 1), curve, label=f"{r.measure} ({r.share:.1%})",
                linewidth=1.2)
    if rows:
        ax.axhline(rows[0].alpha, color="grey", linestyle="--", linewidth=0.8)
        ax.set_xlim(1, max(r.n_pairs for r in rows))
    ax.set_ylim(0, None)
    ax.set_xlabel("run pairs sorted by ASL")
    ax.set_ylabel("ASL (achieved significance level)")
    tests = {r.test for r in rows}
    ax.set_title(title or f"ASL curves ({', '.join(sorted(tests))}, "
                          f"B = {', '.join(str(b) for b in sorted({r.B for r in rows}))})")
    ax.legend(fontsize="small")
    save(fig, path)
