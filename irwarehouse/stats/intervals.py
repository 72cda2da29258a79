"""Confidence intervals of a run's mean over its topics (`irw eval --ci`).

t: mean +- t(0.975; n-1) sd / sqrt(n), the interval the `run_mean_ci` view gives (Sakai,
"Statistical reform in information retrieval?", SIGIR Forum 48(1), 2014), with the t quantile of
irwarehouse.stats.special. bootstrap: the percentile interval (Efron & Tibshirani, An
Introduction to the Bootstrap, 1993, ch. 13) of B resampled means, topics drawn with
replacement; a fixed seed, so the same command prints the same interval (and every run of one
evaluation is resampled with the same topic indices when they share their topics).
"""

from __future__ import annotations

import math

import numpy as np

from .special import t_critical

LEVEL = 0.95
BOOTSTRAP_B = 10_000
BOOTSTRAP_SEED = 1
_BATCH = 1_000          # resamples per batch: bounded memory for large topic sets
METHODS = ("t", "bootstrap")


def t_interval(values, *, level: float = LEVEL) -> tuple[float, float] | None:
    """(low, high) of the t interval of the mean; None with fewer than two values."""
    x = np.asarray(values, dtype=float)
    n = x.size
    if n < 2:
        return None
    mean = float(np.mean(x))
    half = t_critical(1.0 - level, n - 1) * float(np.std(x, ddof=1)) / math.sqrt(n)
    return mean - half, mean + half


def bootstrap_interval(values, *, level: float = LEVEL, B: int = BOOTSTRAP_B,
                       seed: int = BOOTSTRAP_SEED) -> tuple[float, float] | None:
    """(low, high) percentile bootstrap interval of the mean (numpy's linear interpolation
    between order statistics); None with fewer than two values."""
    x = np.asarray(values, dtype=float)
    n = x.size
    if n < 2:
        return None
    rng = np.random.default_rng(seed)
    means = np.empty(B)
    for start in range(0, B, _BATCH):
        size = min(_BATCH, B - start)
        means[start:start + size] = x[rng.integers(0, n, size=(size, n))].mean(axis=1)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return float(low), float(high)


def interval(values, method: str) -> tuple[float, float] | None:
    if method == "t":
        return t_interval(values)
    if method == "bootstrap":
        return bootstrap_interval(values)
    raise ValueError(f"interval method must be one of {', '.join(METHODS)}, not {method!r}")


def describe(method: str) -> str:
    """What the ci_low and ci_high columns hold, as a note says."""
    if method == "t":
        return (f"ci_low, ci_high: {LEVEL:.0%} t confidence interval of each run's mean over "
                "its topics (n-1 degrees of freedom)")
    return (f"ci_low, ci_high: {LEVEL:.0%} percentile bootstrap interval of each run's mean "
            f"over its topics (B = {BOOTSTRAP_B}, seed {BOOTSTRAP_SEED})")
