"""Exact ties and zero variance, handled by definition rather than by floating-point luck
(issue 23; docs/stats.md, "Identical runs and zero variance").

* Two runs whose per-topic values are all equal (differences exactly 0) are "identical": every
  test gives p = 1 (the resampling tests and Tukey HSD would reach it anyway with exact zeros,
  but the rule is stated and enforced here); the t, Wilcoxon and sign tests, undefined on them
  (0/0, no non-zero difference), report statistic 0 and p = 1 with `IDENTICAL_NOTE`.
* A column of differences that is constant has variance exactly 0, and its mean is that
  constant. Computed in floating point, mean(z) can miss the constant by an ulp (0.1 three times
  has a mean of 0.10000000000000002), so that z - mean(z) and the variance become noise near
  1e-17 and a t statistic divides by it. Constant columns are recognised exactly instead.
"""

from __future__ import annotations

import numpy as np

IDENTICAL_NOTE = ("identical per-topic values (every difference is 0): the test is undefined; "
                  "p = 1 by definition")


def identical(differences: np.ndarray) -> np.ndarray:
    """Per column of an (n, pairs) difference array: every difference is exactly 0."""
    return np.all(np.asarray(differences) == 0, axis=0)


def constant(differences: np.ndarray) -> np.ndarray:
    """Per column of an (n, pairs) difference array: every difference equals the first."""
    differences = np.asarray(differences)
    return np.all(differences == differences[:1], axis=0)


def exact_mean_and_variance(differences: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column means and sample variances (ddof=1); a constant column gets its value and 0."""
    mean = differences.mean(axis=0)
    variance = differences.var(axis=0, ddof=1)
    flat = constant(differences)
    if np.any(flat):
        mean = np.where(flat, differences[0], mean)
        variance = np.where(flat, 0.0, variance)
    return mean, variance


def centred(differences: np.ndarray) -> np.ndarray:
    """w = z - mean(z) per column, exactly 0 for a constant column."""
    mean, _ = exact_mean_and_variance(differences)
    return differences - mean


def identical_columns(matrix: np.ndarray) -> np.ndarray:
    """(runs, runs) booleans: columns i and j of a topics x runs matrix are equal everywhere."""
    _, group = np.unique(np.asarray(matrix).T, axis=0, return_inverse=True)
    group = np.ravel(group)
    return group[:, None] == group[None, :]
