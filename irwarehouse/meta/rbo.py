"""Rank-biased overlap (Webber, Moffat & Zobel, "A similarity measure for indefinite rankings",
ACM TOIS 28(4), 2010) between two rankings, e.g. the system rankings two metrics induce.

With S_{:d}, T_{:d} the top d items of each list, X_d = |S_{:d} & T_{:d}| and A_d = X_d / d,
RBO = (1 - p) sum_{d>=1} p^(d-1) A_d. Seen to depth k:

* truncated  = (1 - p) sum_{d<=k} p^(d-1) A_d, the part the seen items settle;
* min        = truncated + (1 - p) sum_{d>k} p^(d-1) X_k / d  (no item beyond k agrees; eq 11:
               ((1-p)/p) (sum_{d<=k} (X_d - X_k) p^d / d - X_k ln(1 - p)));
* residual   = max - min, max letting every item beyond k agree as early as it can
               (X_d = min(d, X_k + 2 (d - k)));
* ext        = truncated + A_k p^k: the agreement at depth k extrapolated to every deeper depth
               (eq 30 for lists of the same length k);
* normalised = truncated / (1 - p^k), the truncated sum over the weight it can reach (the form
               repro_eval's RBO returns, after Clarke et al., TOIS 2021).

Past the end of a shorter list its set stops growing (A_d keeps dividing by d), as in
repro_eval. Rankings by scores break ties by position (the order the systems are given in),
as tau_ap does in rankcorr.py; identical rankings of m systems have ext = 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class RBO:
    p: float
    depth: int
    truncated: float
    min: float
    residual: float
    ext: float

    @property
    def normalised(self) -> float:
        return self.truncated / (1.0 - self.p ** self.depth)

    @property
    def max(self) -> float:
        return self.min + self.residual


def _agreement(s: list, t: list, depth: int) -> list[int]:
    """X_1..X_depth: the overlap of the two prefixes at every depth."""
    seen_s, seen_t, overlap, out = set(), set(), 0, []
    for d in range(depth):
        a = s[d] if d < len(s) else None
        b = t[d] if d < len(t) else None
        if a is not None and b is not None and a == b:
            overlap += 1
        else:
            overlap += (a is not None and a in seen_t) + (b is not None and b in seen_s)
        if a is not None:
            seen_s.add(a)
        if b is not None:
            seen_t.add(b)
        out.append(overlap)
    return out


def rbo_lists(s, t, *, p: float = 0.9, depth: int | None = None) -> RBO:
    """RBO of two ranked lists of distinct items (best first), evaluated to `depth` (default:
    the longer list)."""
    s, t = list(s), list(t)
    for name, lst in (("first", s), ("second", t)):
        if len(set(lst)) != len(lst):
            raise ValueError(f"the {name} ranking lists an item twice")
    if not 0 < p < 1:
        raise ValueError(f"p must be strictly between 0 and 1, got {p!r}")
    k = max(len(s), len(t)) if depth is None else int(depth)
    if k < 1:
        raise ValueError("RBO needs a depth of at least 1 (two non-empty rankings)")
    x = _agreement(s, t, k)
    weights = [p ** (d - 1) for d in range(1, k + 1)]
    truncated = (1 - p) * math.fsum(w * x[d - 1] / d for d, w in zip(range(1, k + 1), weights))
    x_k = x[-1]
    # the tail sum_{d>k} p^(d-1) / d = (-ln(1 - p) - sum_{d<=k} p^d / d) / p
    tail = (-math.log1p(-p) - math.fsum(p ** d / d for d in range(1, k + 1))) / p
    low = truncated + (1 - p) * x_k * max(tail, 0.0)
    high = truncated + (1 - p) * _best_tail(x_k, k, p)
    return RBO(p, k, truncated, low, high - low, truncated + (x_k / k) * p ** k)


def _best_tail(x_k: int, k: int, p: float) -> float:
    """sum_{d>k} p^(d-1) min(1, (X_k + 2 (d - k)) / d): every later item agreeing at once."""
    full = max(2 * k - x_k, k + 1)        # from this depth on, the overlap can be complete
    part = math.fsum(p ** (d - 1) * min(1.0, (x_k + 2 * (d - k)) / d)
                     for d in range(k + 1, full))
    return part + p ** (full - 1) / (1 - p)


def ranking_of(scores) -> list[int]:
    """System indices best first (score descending, ties by position)."""
    return list(np.argsort(-np.asarray(scores, dtype=float), kind="stable"))


def rbo_scores(x, y, *, p: float = 0.9) -> RBO:
    """RBO of the system rankings two score vectors (same systems, same order) induce."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.ndim != 1 or x.shape != y.shape or x.size < 1:
        raise ValueError("need two non-empty score vectors of the same length")
    return rbo_lists(ranking_of(x), ranking_of(y), p=p)


def rbo_ext(x, y, *, p: float = 0.9) -> float:
    """RBO_ext of the two system rankings: the statistic `irw meta rankcorr --stat rbo` shows."""
    return rbo_scores(x, y, p=p).ext
