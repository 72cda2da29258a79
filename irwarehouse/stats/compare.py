"""All-pairs comparison of the runs (columns) of a topics x runs score matrix."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from . import special, ties
from . import validation as v
from .classical import sign_test, wilcoxon_signed_rank
from .correction import adjust, familywise_error
from .resampling import (
    TIE_RULES,
    observed_t,
    paired_bootstrap_all_pairs,
    randomisation_all_pairs,
    tukey_hsd,
)

TESTS = ("bootstrap", "tukey", "randomisation", "t", "wilcoxon", "sign")
DEFAULT_B = {"bootstrap": 1000, "tukey": 5000, "randomisation": 10_000}


def default_test(n_runs: int, correction: str | None = None) -> str:
    """The test of a comparison that names none (every front door asks this one rule).

    More than two runs: randomised Tukey HSD, which takes the whole set of runs into account
    and bounds the family-wise error by itself; Sakai (IPSJ JIP 2013, sections 1 and 7)
    recommends it whenever a set of runs is compared (the procedure: Carterette, ACM TOIS
    2012; Sakai, PROMISE 2014, Fig 15). Two runs (one pair), or a pairwise correction asked
    for: the paired bootstrap test, as before (Sakai, IPSJ TOD 2007)."""
    return "tukey" if n_runs > 2 and correction is None else "bootstrap"


@dataclass(frozen=True)
class PairResult:
    run_a: str
    run_b: str
    mean_a: float
    mean_b: float
    delta: float  # mean_a - mean_b
    statistic: float
    p: float
    p_adjusted: float
    significant: bool  # p_adjusted < alpha
    note: str | None = None  # set when p is 1 by definition (identical runs; stats.ties)


@dataclass(frozen=True)
class Comparison:
    """Every run pair compared by one test.

    ``familywise_error`` = 1 - (1 - alpha)^k for the k = len(pairs) uncorrected pairwise tests
    (Sakai, PROMISE 2014, section 4.4): the chance of at least one false "significant" pair when all runs are
    equivalent; show it next to uncorrected results. For ``tukey`` the family-wise error is
    already bounded by alpha.
    """

    test: str
    correction: str | None
    alpha: float
    B: int | None
    seed: int | None
    method: str
    n_topics: int
    n_runs: int
    pairs: list[PairResult]
    familywise_error: float
    tie_rule: str | None = None  # tukey: "ge" or "gt" (tukey_hsd); None for the other tests
    by_default: bool = False     # no test was named: default_test chose it

    @property
    def n_significant(self) -> int:
        return sum(pair.significant for pair in self.pairs)

    @property
    def identical_pairs(self) -> list[tuple[str, str]]:
        """The pairs of runs equal on every topic (p = 1 by definition)."""
        return [(pair.run_a, pair.run_b) for pair in self.pairs if pair.note]

    def _repr_html_(self) -> str:
        """Jupyter: a row per pair of runs, its p-value and whether it is significant."""
        from ..notebook import table
        columns = ["run_a", "run_b", "mean_a", "mean_b", "delta", "statistic", "p",
                   "p_adjusted", "significant", "note"]
        resampled = f", B={self.B}, seed={self.seed}" if self.B else ""
        caption = (f"{self.test} ({self.method}), correction {self.correction or 'none'}, "
                   f"alpha={self.alpha}{resampled}: {self.n_significant} of {len(self.pairs)} "
                   f"pairs significant; {self.n_topics} topics")
        return table([asdict(p) for p in self.pairs], columns, caption=caption)

    def records(self) -> list[dict]:
        """One plain dict per pair (plus test, correction, B, seed) for Arrow/DuckDB loading."""
        shared = {"test": self.test, "correction": self.correction, "B": self.B, "seed": self.seed}
        if self.tie_rule is not None:
            shared["tie_rule"] = self.tie_rule
        return [{**asdict(pair), **shared} for pair in self.pairs]


class Comparisons(list):
    """Warehouse.compare's answer: (Comparison, ScoreMatrix) per measure, a list that Jupyter
    shows as a table per measure."""

    def _repr_html_(self) -> str:
        import html
        return "".join(f"<h4>{html.escape(matrix.measure)}</h4>{comparison._repr_html_()}"
                       for comparison, matrix in self)


def compare_all(
    matrix,
    run_names=None,
    *,
    test: str | None = None,
    correction: str | None = None,
    alpha: float = 0.05,
    B: int | None = None,
    rng=None,
    plus_one: bool = False,
    tie_rule: str = "ge",
    progress=None,
) -> Comparison:
    """Compare every pair of runs (columns, pairs in column order a < b) with ``test``.

    test: None (default_test: "tukey" over more than two runs without a correction,
    "bootstrap" otherwise), "bootstrap" (paired, studentised; one shared index sample,
    B=1000), "tukey" (randomised Tukey HSD, B=5000; no further correction allowed),
    "randomisation" (shared sign flips, B=10000), "t", "wilcoxon", "sign". correction: None, "bonferroni", "holm",
    "bh" (over the pairs). ``tie_rule``: how Tukey HSD counts a permuted range equal to a
    pair's difference, "ge" (counted, the default) or "gt" (not, Sakai's '>'); see
    ``tukey_hsd``. The other tests count ties as at least as extreme and accept only "ge".
    ``progress(done, total)`` is called as batches finish.
    """
    matrix = v.as_matrix(matrix)
    names = v.run_names_for(run_names, matrix.shape[1])
    by_default = test is None
    if by_default:
        test = default_test(matrix.shape[1], correction)
    v.check_choice(test, "test", TESTS)
    alpha = v.check_probability(alpha, "alpha")
    if test == "tukey" and correction is not None:
        raise ValueError("tukey already controls the family-wise error; use correction=None")
    v.check_choice(tie_rule, "tie_rule", TIE_RULES)
    if test != "tukey" and tie_rule != "ge":
        raise ValueError(f"tie_rule {tie_rule!r} applies to test='tukey' only")
    if test in DEFAULT_B:
        B = v.check_resamples(DEFAULT_B[test] if B is None else B)
    elif B is not None:
        raise ValueError(f"B applies to resampling tests only, not to {test!r}")

    run_a, run_b, statistic, pvalue, used_B, seed, method = _run_test(
        matrix, test, B=B, rng=rng, plus_one=plus_one, tie_rule=tie_rule, progress=progress
    )
    # identical runs: p = 1 under every test (the engines give it; this states the rule once)
    identical = ties.identical(matrix[:, run_a] - matrix[:, run_b])
    pvalue = np.where(identical, 1.0, pvalue)
    adjusted = adjust(pvalue, correction)
    means = matrix.mean(axis=0)
    pairs = [
        PairResult(
            run_a=names[a],
            run_b=names[b],
            mean_a=float(means[a]),
            mean_b=float(means[b]),
            delta=float(means[a] - means[b]),
            statistic=float(s),
            p=float(p),
            p_adjusted=float(q),
            significant=bool(q < alpha),
            note=ties.IDENTICAL_NOTE if same else None,
        )
        for a, b, s, p, q, same in zip(run_a, run_b, statistic, pvalue, adjusted, identical)
    ]
    return Comparison(
        test=test,
        correction=correction,
        alpha=alpha,
        B=used_B,
        seed=seed,
        method=method,
        n_topics=matrix.shape[0],
        n_runs=matrix.shape[1],
        pairs=pairs,
        familywise_error=familywise_error(alpha, len(pairs)),
        tie_rule=tie_rule if test == "tukey" else None,
        by_default=by_default,
    )


def _run_test(matrix, test, *, B, rng, plus_one, tie_rule, progress):
    if test == "bootstrap":
        res = paired_bootstrap_all_pairs(matrix, B=B, rng=rng, plus_one=plus_one, progress=progress)
        return res.run_a, res.run_b, res.statistic, res.pvalue, res.B, res.seed, res.method
    if test == "randomisation":
        res = randomisation_all_pairs(matrix, B=B, rng=rng, plus_one=plus_one, progress=progress)
        return res.run_a, res.run_b, res.statistic, res.pvalue, res.B, res.seed, res.method
    run_a, run_b = np.triu_indices(matrix.shape[1], k=1)
    if test == "tukey":
        res = tukey_hsd(matrix, B=B, rng=rng, plus_one=plus_one, tie_rule=tie_rule,
                        progress=progress)
        statistic = np.abs(res.mean_differences[run_a, run_b])
        return run_a, run_b, statistic, res.pvalues[run_a, run_b], res.B, res.seed, "randomised"
    statistic, pvalue = _classical_pairs(matrix, run_a, run_b, test, progress)
    return run_a, run_b, statistic, pvalue, None, None, test


def _classical_pairs(matrix, run_a, run_b, test, progress):
    if test == "t":  # vectorised t, scalar tails
        differences = matrix[:, run_a] - matrix[:, run_b]
        statistic = np.atleast_1d(observed_t(differences))
        df = matrix.shape[0] - 1
        pvalue = np.array([special.t_two_sided(float(t), df) for t in statistic])
        _report_done(progress, run_a.size)
        return statistic, pvalue
    single = wilcoxon_signed_rank if test == "wilcoxon" else sign_test
    statistic, pvalue = np.empty(run_a.size), np.empty(run_a.size)
    for i, (a, b) in enumerate(zip(run_a, run_b)):
        result = single(matrix[:, a], matrix[:, b])
        statistic[i], pvalue[i] = result.statistic, result.pvalue
        if progress is not None and ((i + 1) % 500 == 0 or i + 1 == run_a.size):
            progress(i + 1, run_a.size)
    return statistic, pvalue


def _report_done(progress, total: int) -> None:
    if progress is not None:
        progress(total, total)



def paired_effect(x, y, alpha: float = 0.05) -> tuple[float, float, float]:
    """The effect size of a pair of runs and a confidence interval, as the paired t-test gives
    them (classical.paired_t): (d, low, high), d = mean difference / sd of the per-topic
    differences (Cohen's d_z), [low, high] the (1 - alpha) t interval of the mean difference
    (Sakai, PROMISE 2014). NaN where undefined (d of identical runs; fewer than 2 topics)."""
    if np.asarray(x).size < 2:
        return float("nan"), float("nan"), float("nan")
    from .classical import paired_t
    result = paired_t(x, y, confidence_level=1.0 - alpha)
    ci = result.confidence_interval
    return result.effect_size, ci.low, ci.high
