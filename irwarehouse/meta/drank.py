"""Carterette's d_rank (SIGIR 2009, "On rank correlation and the distance between rankings"):
how far a topics x systems score matrix is from supporting a given system ranking, with the
correlation between systems over the topics taken into account.

The systems are put in the ranking's order (best first) and each topic gives the differences
of adjacent systems, D_i = x_(i) - x_(i+1) (m - 1 of them). With dbar their mean over the n
topics and S their sample covariance (ddof 1), the set of true mean differences consistent
with the ranking is the cone theta >= 0, and

    d_rank = min_{theta >= 0} n (dbar - theta)^T S^-1 (dbar - theta),

the squared Mahalanobis distance from the observed mean differences to that cone (0 when the
matrix's own means rank the systems so). Under the hypothesis that the ranking is right, at
its least favourable point (all true differences 0) d_rank follows a chi-bar-squared law; its
p-value is estimated by simulating dbar* ~ N(0, S / n) B times: p = (1 + #{d* >= d}) / (B + 1).

Decided here: a singular S (more systems than topics, or identical systems) gets a ridge of
1e-9 times its mean variance (1e-300 when that is 0), so that differences that never vary and
are 0 cost nothing; ties in the ranking's scores keep the systems' given order. The cone
projection is solved by cyclic coordinate descent on the quadratic (exact for a positive
definite S^-1), to 1e-14 or 100,000 sweeps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..stats import validation as v
from .rbo import ranking_of


@dataclass(frozen=True)
class DRank:
    distance: float
    pvalue: float | None
    B: int
    seed: int | None


def _projection_distance(dbar: np.ndarray, precision: np.ndarray, n: int) -> float:
    """min_{theta >= 0} n (dbar - theta)^T P (dbar - theta), P positive definite."""
    theta = np.maximum(dbar, 0.0)
    diag = np.diag(precision)
    for _ in range(100_000):
        largest = 0.0
        for i in range(dbar.size):
            # d/dtheta_i of (theta - dbar)^T P (theta - dbar) = 2 (P (theta - dbar))_i
            gradient = float(precision[i] @ (theta - dbar))
            new = max(0.0, theta[i] - gradient / diag[i])
            largest = max(largest, abs(new - theta[i]))
            theta[i] = new
        if largest <= 1e-14 * max(1.0, float(np.abs(theta).max())):
            break
    gap = dbar - theta
    return float(n * gap @ precision @ gap)


def d_rank(ranking_scores, matrix, *, B: int = 0, rng=None) -> DRank:
    """d_rank of the ranking that `ranking_scores` (one per system, higher = better) induce
    against the topics x systems `matrix`; with B > 0 also its simulated p-value."""
    matrix = v.as_matrix(matrix, min_topics=2, min_runs=2)
    scores = np.asarray(ranking_scores, dtype=float)
    if scores.shape != (matrix.shape[1],):
        raise ValueError(f"need one ranking score per system ({matrix.shape[1]}), got "
                         f"{scores.shape}")
    ordered = matrix[:, ranking_of(scores)]
    differences = ordered[:, :-1] - ordered[:, 1:]
    n = differences.shape[0]
    dbar = differences.mean(axis=0)
    covariance = np.atleast_2d(np.cov(differences, rowvar=False, ddof=1))
    ridge = 1e-9 * float(np.trace(covariance)) / covariance.shape[0] or 1e-300
    precision = np.linalg.inv(covariance + ridge * np.eye(covariance.shape[0]))
    distance = _projection_distance(dbar, precision, n)
    if B <= 0:
        return DRank(distance, None, 0, None)
    generator, seed = v.make_rng(rng)
    root = np.linalg.cholesky(covariance + ridge * np.eye(covariance.shape[0]))
    draws = generator.standard_normal((B, dbar.size)) @ root.T / np.sqrt(n)
    null = np.array([_projection_distance(d, precision, n) for d in draws])
    exceed = int(np.count_nonzero(null >= distance * (1 - 1e-12)))
    return DRank(distance, (1 + exceed) / (B + 1), B, seed)
