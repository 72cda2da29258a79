"""Score standardisation (Webber, Moffat and Zobel, cited in Sakai, PROMISE 2014, section 4.3).

Each topic's scores are turned into z-scores against a reference set of runs:
z(t, r) = (x(t, r) - mean_ref(t)) / sd_ref(t), sd over the reference runs with ddof = 1 by
default. A topic on which every reference run scores the same has no spread: its z-scores are 0
and the topic is reported in ``degenerate_topics``. ``cdf=True`` maps z through the standard
normal CDF into (0, 1), Webber et al.'s standardised score, so that means stay on a 0-1 scale.
Standardised scores make topics of different difficulty, and collections, comparable.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..stats import validation as v


@dataclass(frozen=True)
class Standardised:
    values: np.ndarray                # (topics, runs) z-scores (or their normal CDF)
    reference_mean: np.ndarray        # per topic
    reference_sd: np.ndarray          # per topic
    degenerate_topics: np.ndarray     # indices of topics with sd_ref = 0


def standardise(matrix, reference=None, *, reference_runs=None, ddof: int = 1,
                cdf: bool = False) -> Standardised:
    """z-scores per topic of a topics x runs matrix against a reference set of runs: the
    columns ``reference_runs`` of the matrix, a separate topics x runs ``reference`` matrix, or
    (neither given) every run of the matrix."""
    matrix = v.as_matrix(matrix, min_topics=1, min_runs=1)
    if reference is not None and reference_runs is not None:
        raise ValueError("give either a reference matrix or reference_runs, not both")
    if reference is None:
        columns = (list(range(matrix.shape[1])) if reference_runs is None
                   else list(reference_runs))
        reference = matrix[:, columns]
    reference = v.as_matrix(reference, min_topics=1, min_runs=ddof + 1)
    if reference.shape[0] != matrix.shape[0]:
        raise ValueError(f"the reference has {reference.shape[0]} topics, the matrix "
                         f"{matrix.shape[0]}")
    mean = reference.mean(axis=1)
    sd = reference.std(axis=1, ddof=ddof)
    spread = sd > 1e-12 * np.maximum(1.0, np.abs(mean))   # rounding noise of equal scores
    z = np.zeros_like(matrix)
    np.divide(matrix - mean[:, None], sd[:, None], out=z, where=spread[:, None])
    if cdf:
        z = 0.5 * (1.0 + _erf(z / math.sqrt(2.0)))
    return Standardised(z, mean, sd, np.flatnonzero(~spread))


_erf = np.vectorize(math.erf, otypes=[float])
