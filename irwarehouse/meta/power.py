"""Power and topic set size design (Sakai, "Topic set size design", Information Retrieval
Journal 19(3), 2016; Sakai, PROMISE Winter School 2013 lecture, PROMISE 2014, Table 1 and
section 4.1): how many topics an experiment needs, computed with the noncentral t and F
distributions (irwarehouse.stats.noncentral), never a normal approximation.

Three designs, as Sakai's:
    paired-t  the smallest n whose two-sided paired t-test at alpha has power >= 1 - beta for
              a standardised minimum detectable difference minDt / sigma_t (--effect-size, or
              --min-diff over the variance): P(|T'| >= t(alpha/2; n-1)), T' noncentral t with
              df n-1 and noncentrality sqrt(n) minDt / sigma_t.
    anova     one-way ANOVA over m systems with a minimum detectable range D between the best
              and the worst system; the least favourable configuration (two systems at +-D/2,
              the others at the grand mean) gives Delta = D^2 / (2 sigma^2); power
              P(F' >= F(alpha; m-1, m(n-1))), F' noncentral F with noncentrality n Delta.
    ci        the smallest n whose expected 100(1-alpha)% confidence interval of a paired
              difference is no wider than W: E(width) = 2 t(alpha/2; n-1) E(sqrt V) / sqrt n
              with E(sqrt V) = sqrt(2/(n-1)) Gamma(n/2) / Gamma((n-1)/2) sigma_t (Sakai, IRJ
              2016, section on CI-based design, after Nagata 2003).

The variance comes from a past campaign as Sakai estimates it: sigma^2 = V_E, the residual mean
square of two-way ANOVA without replication over its runs' per-topic scores (topics x runs);
the variance of a difference between two systems is sigma_t^2 = 2 V_E (for two runs exactly the
sample variance of their per-topic differences).

The achieved power of each observed pair of runs is post-hoc power: a function of the observed
p-value, not evidence for or against a difference (Hoenig & Heisey, "The abuse of power", The
American Statistician 55, 2001). It is printed as Sakai (SIGIR 2016, "Statistical significance,
power, and sample sizes") computes it for published results: the effect size t / sqrt(n).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import IrwError
from ..stats.noncentral import anova_power, paired_t_power
from ..stats.special import t_critical

DESIGNS = ("paired-t", "anova", "ci")
MAX_TOPICS = 10_000_000
CAVEAT = ("post-hoc power of an observed difference is a function of its p-value, not evidence "
          "for or against a difference (Hoenig & Heisey, The American Statistician 2001); "
          "plan topic set sizes with the design above")


class PowerError(IrwError):
    """A design that cannot be computed (a missing or impossible input)."""


# -- the designs ----------------------------------------------------------------------------
def _smallest_n(reaches, start: int = 2) -> int:
    """The smallest n >= start with reaches(n) true, for a monotone reaches (doubling, then
    bisection)."""
    if reaches(start):
        return start
    low, high = start, start * 2
    while not reaches(high):
        low, high = high, high * 2
        if high > MAX_TOPICS:
            raise PowerError(f"more than {MAX_TOPICS:,} topics would be needed")
    while high - low > 1:
        middle = (low + high) // 2
        if reaches(middle):
            high = middle
        else:
            low = middle
    return high


def _solve_increasing(f, target: float, high: float = 1.0) -> float:
    """x > 0 with f(x) = target for an increasing f (f(0) < target), by bisection."""
    low = 0.0
    while f(high) < target:
        low, high = high, high * 2.0
    for _ in range(200):
        middle = 0.5 * (low + high)
        if middle in (low, high):
            break
        if f(middle) < target:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)


def paired_t_topics(effect_size: float, *, alpha: float = 0.05, power: float = 0.8) -> int:
    """Topics a two-sided paired t-test needs to detect a standardised difference
    (mean difference / sd of the differences) with this power (0.5, 0.05, 0.8: 34, as Cohen
    1988 and G*Power)."""
    _check_level(alpha, power)
    _check_positive(effect_size, "the effect size")
    return _smallest_n(lambda n: paired_t_power(n, effect_size, alpha) >= power)


def anova_topics(min_range: float, variance: float, systems: int, *, alpha: float = 0.05,
                 power: float = 0.8) -> int:
    """Topics one-way ANOVA over `systems` systems needs to detect a range min_range between
    the best and the worst of them (least favourable configuration: Delta = D^2 / 2 sigma^2)."""
    _check_level(alpha, power)
    _check_positive(min_range, "the minimum range")
    _check_positive(variance, "the variance")
    _check_systems(systems)
    delta = min_range ** 2 / (2.0 * variance)
    return _smallest_n(lambda n: anova_power(n, systems, delta, alpha) >= power)


def expected_ci_width(n: int, difference_variance: float, *, alpha: float = 0.05) -> float:
    """E(width) of the 100(1-alpha)% t interval of a mean difference over n topics:
    2 t(alpha/2; n-1) sqrt(2/(n-1)) Gamma(n/2)/Gamma((n-1)/2) sigma_t / sqrt(n)."""
    c4 = math.exp(0.5 * math.log(2.0 / (n - 1)) + math.lgamma(n / 2.0)
                  - math.lgamma((n - 1) / 2.0))
    return 2.0 * t_critical(alpha, n - 1) * c4 * math.sqrt(difference_variance / n)


def ci_topics(width: float, difference_variance: float, *, alpha: float = 0.05) -> int:
    """Topics whose expected confidence interval of a paired difference is no wider than
    `width` (difference_variance: sigma_t^2 = 2 V_E)."""
    _check_level(alpha, None)
    _check_positive(width, "the width")
    _check_positive(difference_variance, "the variance")
    return _smallest_n(lambda n: expected_ci_width(n, difference_variance, alpha=alpha)
                       <= width)


def minimum_detectable_effect(n: int, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """The standardised difference a two-sided paired t-test over n topics detects with this
    power."""
    _check_level(alpha, power)
    return _solve_increasing(lambda e: paired_t_power(n, e, alpha), power)


def minimum_detectable_range(n: int, variance: float, systems: int, *, alpha: float = 0.05,
                             power: float = 0.8) -> float:
    """The range between the best and the worst of `systems` systems that one-way ANOVA over
    n topics detects with this power (least favourable configuration)."""
    _check_level(alpha, power)
    _check_systems(systems)
    delta = _solve_increasing(lambda d: anova_power(n, systems, d, alpha), power)
    return math.sqrt(2.0 * variance * delta)


# -- a plan ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Plan:
    """One topic set size design: its inputs, the topics needed, and (with a campaign's
    variance) what the campaign's own number of topics can detect."""

    design: str
    alpha: float
    power: float | None                  # None for the CI design
    topics_needed: int
    inputs: dict                         # effect_size, min_diff, systems, min_range, width
    variance: float | None = None        # sigma^2 (V_E)
    achieved: float | None = None        # power (or expected width) at topics_needed
    at_topics: dict = field(default_factory=dict)   # the campaign's n: what it detects

    def record(self) -> dict:
        out = {"design": self.design, "alpha": self.alpha}
        if self.power is not None:
            out.update(power=self.power, beta=round(1.0 - self.power, 12))
        out.update(self.inputs)
        if self.variance is not None:
            out.update(variance=self.variance, difference_variance=2.0 * self.variance)
        out["topics_needed"] = self.topics_needed
        key = "expected_width" if self.design == "ci" else "achieved_power"
        out[f"{key}_at_topics_needed"] = self.achieved
        out.update(self.at_topics)
        return out


def plan(design: str = "paired-t", *, alpha: float = 0.05, power: float | None = None,
         beta: float | None = None, effect_size: float | None = None,
         min_diff: float | None = None, systems: int | None = None,
         min_range: float | None = None, width: float | None = None,
         variance: float | None = None, topics: int | None = None) -> Plan:
    """A topic set size design without a warehouse. `variance`: sigma^2 of one score (V_E of
    a past campaign; the variance of a paired difference is twice it); `topics`: also what n
    topics detect (the minimum detectable difference, range, or the expected CI width)."""
    if design not in DESIGNS:
        raise PowerError(f"--design must be one of {', '.join(DESIGNS)}, not {design!r}")
    level = None if design == "ci" else _power_of(power, beta)
    _check_level(alpha, level)
    if variance is not None:
        _check_variance(variance)
    if topics is not None and topics < 2:
        raise PowerError("the number of topics must be at least 2")
    if design == "paired-t":
        return _paired_plan(alpha, level, effect_size, min_diff, variance, topics,
                            unused={"--systems": systems, "--min-range": min_range,
                                    "--width": width})
    if design == "anova":
        return _anova_plan(alpha, level, effect_size, systems, min_range, variance, topics,
                           unused={"--min-diff": min_diff, "--width": width})
    _refuse({"--effect-size": effect_size, "--min-diff": min_diff, "--systems": systems,
             "--min-range": min_range, "--power/--beta": power if beta is None else beta},
            "ci")
    if width is None:
        raise PowerError("--design ci needs --width W (the widest confidence interval of a "
                         "difference wanted)")
    if variance is None:
        raise PowerError("--design ci needs the variance: a campaign (-C and -m) or --variance")
    need = ci_topics(width, 2.0 * variance, alpha=alpha)
    at = {} if topics is None else {
        "topics": topics,
        "expected_width_at_topics": expected_ci_width(topics, 2.0 * variance, alpha=alpha)}
    return Plan("ci", alpha, None, need, {"width": width}, variance,
                expected_ci_width(need, 2.0 * variance, alpha=alpha), at)


def _paired_plan(alpha, level, effect_size, min_diff, variance, topics, unused) -> Plan:
    _refuse(unused, "paired-t")
    if (effect_size is None) == (min_diff is None):
        raise PowerError("--design paired-t needs one of --effect-size (standardised) or "
                         "--min-diff (over the variance)")
    inputs = {}
    if min_diff is not None:
        if variance is None:
            raise PowerError("--min-diff needs the variance: a campaign (-C and -m) or "
                             "--variance")
        _check_positive(min_diff, "--min-diff")
        effect_size = min_diff / math.sqrt(2.0 * variance)
        inputs["min_diff"] = min_diff
    inputs["effect_size"] = effect_size
    need = paired_t_topics(effect_size, alpha=alpha, power=level)
    at = {}
    if topics is not None:
        effect = minimum_detectable_effect(topics, alpha=alpha, power=level)
        at = {"topics": topics, "min_detectable_effect_at_topics": effect}
        if variance is not None:
            at["min_detectable_diff_at_topics"] = effect * math.sqrt(2.0 * variance)
    return Plan("paired-t", alpha, level, need, inputs, variance,
                paired_t_power(need, effect_size, alpha), at)


def _anova_plan(alpha, level, effect_size, systems, min_range, variance, topics,
                unused) -> Plan:
    _refuse(unused, "anova")
    if systems is None:
        raise PowerError("--design anova needs --systems M (with a campaign: its number of "
                         "runs by default)")
    _check_systems(systems)
    if (effect_size is None) == (min_range is None):
        raise PowerError("--design anova needs one of --min-range D (over the variance) or "
                         "--effect-size (D / sigma)")
    if min_range is not None and variance is None:
        raise PowerError("--min-range needs the variance: a campaign (-C and -m) or "
                         "--variance")
    sigma2 = variance if min_range is not None else 1.0     # --effect-size: D in sigma units
    d = min_range if min_range is not None else effect_size
    _check_positive(d, "--min-range" if min_range is not None else "--effect-size")
    inputs = {"systems": systems}
    inputs["min_range" if min_range is not None else "effect_size"] = d
    need = anova_topics(d, sigma2, systems, alpha=alpha, power=level)
    at = {}
    if topics is not None:
        # in sigma units when the range was given standardised (sigma2 = 1)
        standard = minimum_detectable_range(topics, 1.0, systems, alpha=alpha, power=level)
        at = {"topics": topics, "min_detectable_effect_at_topics": standard}
        if variance is not None:
            at["min_detectable_range_at_topics"] = standard * math.sqrt(variance)
    return Plan("anova", alpha, level, need, inputs, variance,
                anova_power(need, systems, d ** 2 / (2.0 * sigma2), alpha), at)


def _power_of(power, beta) -> float:
    if power is not None and beta is not None:
        if not math.isclose(power, 1.0 - beta, abs_tol=1e-12):
            raise PowerError(f"--power {power:g} and --beta {beta:g} disagree (power = 1 - "
                             "beta): give one")
    if beta is not None:
        if not 0 < beta < 1:
            raise PowerError(f"--beta must be strictly between 0 and 1, got {beta:g}")
        return 1.0 - beta
    return 0.8 if power is None else power


def _refuse(given: dict, design: str) -> None:
    extra = [flag for flag, value in given.items() if value is not None]
    if extra:
        raise PowerError(f"{', '.join(extra)} {'is' if len(extra) == 1 else 'are'} not an "
                         f"input of --design {design}")


def _check_level(alpha, power) -> None:
    if not 0 < alpha < 1:
        raise PowerError(f"--alpha must be strictly between 0 and 1, got {alpha:g}")
    if power is not None and not 0 < power < 1:
        raise PowerError(f"--power must be strictly between 0 and 1, got {power:g}")
    if power is not None and power <= alpha:
        raise PowerError(f"--power {power:g} must exceed --alpha {alpha:g} (a test has that "
                         "power with no difference at all)")


def _check_positive(value, name: str) -> None:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise PowerError(f"{name} must be a positive number, got {value!r}")


def _check_variance(variance) -> None:
    if not (math.isfinite(variance) and variance > 0):
        raise PowerError(f"the variance must be positive, got {variance!r}")


def _check_systems(systems) -> None:
    if isinstance(systems, bool) or not isinstance(systems, int) or systems < 2:
        raise PowerError(f"--systems must be an integer >= 2, got {systems!r}")


# -- a campaign's variance and pairs -------------------------------------------------------------
def residual_variance(matrix) -> float:
    """V_E: the residual mean square of two-way ANOVA without replication over a topics x runs
    matrix (Sakai, IRJ 2016), as irwarehouse.stats.anova_two_way computes it."""
    from ..stats import anova_two_way
    values = np.asarray(matrix, dtype=float)
    if values.ndim != 2 or values.shape[1] < 2:
        raise PowerError("the variance needs at least two runs (two-way ANOVA over topics x "
                         "runs); give more runs")
    if values.shape[0] < 2:
        raise PowerError("the variance needs at least two topics in common")
    if not np.isfinite(values).all():
        raise PowerError("the score matrix holds missing or infinite values")
    return anova_two_way(values).residual.mean_square


@dataclass(frozen=True)
class PairPower:
    run_a: str
    run_b: str
    mean_difference: float
    sd_difference: float
    effect_size: float | None        # |mean| / sd of the differences (None: sd 0)
    power: float                     # post-hoc: not evidence (CAVEAT)

    def record(self) -> dict:
        return dict(self.__dict__)


def pair_powers(values, runs: list[str], *, alpha: float = 0.05) -> list[PairPower]:
    """The achieved power of the two-sided paired t-test for each pair of runs (columns) at
    its own observed effect size |mean| / sd of its differences over the n topics (rows)."""
    x = np.asarray(values, dtype=float)
    n = x.shape[0]
    out = []
    for a in range(len(runs)):
        for b in range(a + 1, len(runs)):
            d = np.round(x[:, a] - x[:, b], 12)     # float noise is no spread
            mean = float(d.mean())
            sd = 0.0 if np.all(d == d[0]) else float(d.std(ddof=1))
            if sd > 0:
                effect = abs(mean) / sd
                level = paired_t_power(n, effect, alpha)
            else:               # sd 0, no effect size: identical runs are told apart with
                effect = None   # probability alpha, a constant difference always
                level = alpha if mean == 0 else 1.0
            out.append(PairPower(runs[a], runs[b], mean, sd, effect, level))
    return out


@dataclass(frozen=True)
class CampaignPower:
    """A design over one measure of a campaign: the plan, the runs and topics the variance
    came from, and the post-hoc power of every pair."""

    campaign: str
    measure: str
    runs: list[str]
    n_topics: int
    plan: Plan
    pairs: list[PairPower]

    def record(self) -> dict:
        return {"campaign": self.campaign, "measure": self.measure,
                "runs_used": len(self.runs), **self.plan.record()}

    def describe(self) -> str:
        return (f"{self.measure}: variance V_E = {self.plan.variance:.6g}, the residual of "
                f"two-way ANOVA without replication over {len(self.runs)} runs x "
                f"{self.n_topics} topics of {self.campaign} (runs: {', '.join(self.runs)})")


def campaign_power(metrics, campaign: str, design: str = "paired-t", *, alpha: float = 0.05,
                   power: float | None = None, beta: float | None = None,
                   **inputs) -> list[CampaignPower]:
    """The design over each measure of a MetricSet (irwarehouse.meta._common): variance from
    its runs, its own number of topics for what it detects, its pairs' post-hoc power."""
    out = []
    for measure in metrics.measures:
        values = metrics[measure]
        variance = residual_variance(values)
        if not variance > 0:
            raise PowerError(f"{measure}: the residual variance over {len(metrics.runs)} runs "
                             f"x {len(metrics.topics)} topics is 0 (the runs differ by a "
                             "constant on every topic): no design can use it")
        given = dict(inputs)
        if design == "anova" and given.get("systems") is None:
            given["systems"] = len(metrics.runs)
        p = plan(design, alpha=alpha, power=power, beta=beta, variance=variance,
                 topics=len(metrics.topics), **given)
        out.append(CampaignPower(campaign, measure, list(metrics.runs), len(metrics.topics),
                                 p, pair_powers(values, metrics.runs, alpha=alpha)))
    return out
