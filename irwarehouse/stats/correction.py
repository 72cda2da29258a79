"""Multiple-comparison corrections and the family-wise error of uncorrected pairwise tests."""

from __future__ import annotations

import numpy as np

from . import validation as v

CORRECTIONS = ("bonferroni", "holm", "bh")


def familywise_error(alpha: float, k: int) -> float:
    """P(at least one false rejection) of k independent tests at level alpha: 1 - (1-alpha)^k.

    Sakai, PROMISE 2014, section 4.4, Sakai, IPSJ JIP 2013, section 4.1; e.g. alpha = 0.05,
    k = 190 gives > 0.9999.
    """
    alpha = v.check_probability(alpha, "alpha")
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    return float(-np.expm1(k * np.log1p(-alpha)))


def _pvalues(pvalues) -> np.ndarray:
    array = np.asarray(pvalues, dtype=float)
    if array.ndim != 1:
        raise ValueError(f"pvalues must be one-dimensional, got shape {array.shape}")
    if np.any(~np.isfinite(array)) or np.any((array < 0) | (array > 1)):
        raise ValueError("pvalues must be finite and within [0, 1]")
    return array


def bonferroni(pvalues) -> np.ndarray:
    """min(1, k p)."""
    p = _pvalues(pvalues)
    return np.minimum(1.0, p * p.size)


def holm(pvalues) -> np.ndarray:
    """Holm's step-down: sorted p_(i) times (k - i + 1), made monotone by a running maximum."""
    p = _pvalues(pvalues)
    k = p.size
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate(p[order] * (k - np.arange(k)))
    adjusted = np.empty(k)
    adjusted[order] = np.minimum(1.0, stepped)
    return adjusted


def benjamini_hochberg(pvalues) -> np.ndarray:
    """Benjamini-Hochberg step-up (false discovery rate): p_(i) k / i, running minimum from the top."""
    p = _pvalues(pvalues)
    k = p.size
    order = np.argsort(p, kind="stable")
    scaled = p[order] * k / np.arange(1, k + 1)
    stepped = np.minimum.accumulate(scaled[::-1])[::-1]
    adjusted = np.empty(k)
    adjusted[order] = np.minimum(1.0, stepped)
    return adjusted


_ADJUSTERS = {"bonferroni": bonferroni, "holm": holm, "bh": benjamini_hochberg}


def adjust(pvalues, method: str | None) -> np.ndarray:
    """Adjusted p-values by ``method`` ("bonferroni", "holm", "bh"); None returns a copy."""
    if method is None:
        return _pvalues(pvalues).copy()
    return _ADJUSTERS[v.check_choice(method, "correction", _ADJUSTERS)](pvalues)
