"""The maximum-entropy distribution of relevance down a ranked list, given the value of one
measure (Aslam, Yilmaz & Pavlu, "The maximum entropy method for analyzing retrieval measures",
SIGIR 2005).

The model is the paper's: the document at rank i (1..N) is relevant with probability p_i,
independently of the others, so the distribution's entropy is H(p) = sum_i h(p_i) with
h(p) = -p ln p - (1 - p) ln(1 - p). What is known of the list is its length N, the topic's
number of relevant documents R, the number of them retrieved S (trec_eval's num_rel_ret) and
the measure's value; the constraints are

    every measure   sum_i p_i = S
    P@k             sum_{i <= k} p_i = k P@k
    R-precision     sum_{i <= R} p_i = R Rprec
    AP              E[AP] = (1/R) sum_i (p_i / i) (1 + sum_{j < i} p_j) = AP

(E[AP] is exact for independent relevance: E[x_i x_j] = p_i p_j for i != j, and x_i^2 = x_i).

P@k and R-precision fix the sums of two blocks of ranks (the top k or R, and the rest): the
entropy is largest with p uniform within each block.

AP. Write Q(p) = R E[AP] = sum_i p_i / i + sum_{j < i} p_i p_j / i; its gradient is
g_i = 1/i + (1/i) sum_{j < i} p_j + sum_{k > i} p_k / k (affine in p). A maximiser satisfies
logit p_i = theta g_i + mu (Lagrange multipliers theta of the AP constraint, mu of the sum).
The solution is followed from the uniform distribution p_i = S/N (theta = 0) while the target
moves from Q(uniform) to R AP: each step predicts along the tangent and corrects by Newton's
method on (p, theta). In the cumulative sums C_i = sum_{j <= i} p_j the Hessian of the Lagrangian
is tridiagonal (diagonal q_j + q_{j+1} + theta / (j (j + 1)), off-diagonal -q_{j+1}, with
q_i = -1 / (p_i (1 - p_i)) - theta / i), so each step solves a tridiagonal system bordered by
grad Q, by cyclic reduction in O(N).

The problem is not concave. A maximiser is monotone down the list -- non-increasing when AP is
above the uniform distribution's, non-decreasing when below -- because exchanging two adjacent
probabilities that break the order moves Q away from the uniform's value at equal entropy, and
moving back toward the uniform distribution then raises the entropy. Where AP lies far below a
random ordering's, the path from the uniform distribution can end on a local maximum with a
spike of probability inside the list, which is therefore not the maximum: the path from the
extreme arrangement (the S relevant documents at the bottom, or the top) is then followed too
and the better kept. `MaxEntropy.improvable` says when the result is still not monotone (known
not to be the maximum); the campaign level counts such lists.

Decided here: S = 0 or S = N, and AP at its extremes (the S documents at the top, Q = S; or at
the bottom), leave one feasible distribution, returned as is (0/1 probabilities).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# a probability this close to 0 or 1 is treated as exactly so in the Hessian (1/(p(1-p)) capped)
_STIFF = 1e-250
# relative tolerance of a constraint and of stationarity
_TOLERANCE = 1e-11


@dataclass(frozen=True)
class MaxEntropy:
    """The maximum-entropy probabilities of relevance p (rank order) and how they were found."""
    p: np.ndarray
    theta: float = 0.0          # the multiplier of the measure's constraint (AP); 0 otherwise
    improvable: bool = False    # known not to be the maximum (AP far below random; see above)

    @property
    def entropy(self) -> float:
        return binary_entropy(self.p)


def binary_entropy(p) -> float:
    """sum_i h(p_i), h(p) = -p ln p - (1 - p) ln(1 - p), in nats (h(0) = h(1) = 0)."""
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = -(p * np.log(p) + (1 - p) * np.log1p(-p))
    return float(np.sum(np.where((p > 0) & (p < 1), terms, 0.0)))


def expected_q(p: np.ndarray) -> float:
    """Q(p) = R E[AP] = sum_i (p_i / i) (1 + sum_{j < i} p_j) under independence."""
    rank = np.arange(1, p.size + 1)
    before = np.cumsum(p) - p
    return float(np.sum(p * (1 + before) / rank))


def expected_ap(p, num_rel: int) -> float:
    """E[AP] of independent relevance probabilities p (rank order) for a topic with num_rel
    relevant documents (the paper's formula)."""
    return expected_q(np.asarray(p, dtype=float)) / num_rel


def _gradient_q(p: np.ndarray) -> np.ndarray:
    """dQ/dp_i = (1 + sum_{j < i} p_j) / i + sum_{k > i} p_k / k."""
    rank = np.arange(1, p.size + 1)
    scaled = p / rank
    after = np.cumsum(scaled[::-1])[::-1] - scaled
    return (1 + np.cumsum(p) - p) / rank + after


# -- the uniform-block measures ------------------------------------------------------------------
def max_entropy_prefix(n: int, rel_ret: int, cutoff: int, relevant_in_top: float) -> MaxEntropy:
    """P@k (cutoff k) and R-precision (cutoff R): `relevant_in_top` of the expected relevant
    documents in ranks 1..min(cutoff, n), the rest of `rel_ret` below; uniform within each."""
    top = min(cutoff, n)
    below = rel_ret - relevant_in_top
    if not (-1e-9 <= relevant_in_top <= top + 1e-9 and -1e-9 <= below <= n - top + 1e-9):
        raise ValueError(f"no distribution has {relevant_in_top:g} relevant documents in the top "
                         f"{top} of {n} and {rel_ret} in all")
    p = np.empty(n)
    p[:top] = min(max(relevant_in_top / top, 0.0), 1.0) if top else 0.0
    p[top:] = min(max(below / (n - top), 0.0), 1.0) if n > top else 0.0
    return MaxEntropy(p)


# -- AP ------------------------------------------------------------------------------------------
def max_entropy_ap(ap: float, num_rel: int, n: int, rel_ret: int) -> MaxEntropy:
    """The maximum-entropy distribution of a list of n documents, rel_ret of them relevant in
    expectation, whose E[AP] (num_rel relevant documents for the topic) is `ap`."""
    if num_rel < 1:
        raise ValueError("AP needs a topic with relevant documents (R >= 1)")
    if not 0 <= rel_ret <= n or rel_ret != int(rel_ret):
        raise ValueError(f"rel_ret must be a count between 0 and n = {n}, got {rel_ret!r}")
    target = ap * num_rel
    lowest, highest = _extreme(n, rel_ret, -1), _extreme(n, rel_ret, +1)
    low, high = expected_q(lowest), expected_q(highest)
    slack = 1e-9 * max(high, 1e-3)
    if not low - slack <= target <= high + slack:
        raise ValueError(f"no list of {n} documents with {rel_ret} relevant has AP {ap:g} "
                         f"(R = {num_rel}): AP lies in [{low / num_rel:g}, {high / num_rel:g}]")
    if high - low <= slack or target >= high - slack * 1e-3:
        return MaxEntropy(highest)
    if target <= low + slack * 1e-3:
        return MaxEntropy(lowest)
    uniform = np.full(n, np.log(rel_ret / (n - rel_ret)))
    direction = 1 if target < expected_q(_sigmoid(uniform)) else -1   # order of a maximiser
    tried = []
    # from the uniform distribution in long steps, then (when that ends on a local maximum)
    # in shorter ones, then from the extreme arrangement; the best of those found
    for start, trust in (((uniform, 0.0), 1.0), ((uniform, 0.0), 0.2), ((uniform, 0.0), 0.05),
                         (None, 1.0)):
        if start is None:
            start = _relaxed_extreme(n, rel_ret, -direction)
            if start is None:
                break
        found = _follow(*start, target, rel_ret, trust=trust)
        if found is not None:
            tried.append(found)
            if _monotone(_sigmoid(found[0]), direction):
                break
    found = max(tried, key=lambda f: binary_entropy(_sigmoid(f[0])), default=None)
    if found is None:
        raise ArithmeticError(f"the maximum-entropy distribution for AP {ap!r} (R = {num_rel}, "
                              f"n = {n}, rel_ret = {rel_ret}) was not found")
    p = _sigmoid(found[0])
    return MaxEntropy(p, found[1], not _monotone(p, direction))


def _extreme(n: int, rel_ret: int, where: int) -> np.ndarray:
    """The rel_ret relevant documents at the top (+1) or the bottom (-1) of the list."""
    p = np.zeros(n)
    if where > 0:
        p[:rel_ret] = 1.0
    elif rel_ret:
        p[-rel_ret:] = 1.0
    return p


def _monotone(p: np.ndarray, direction: int) -> bool:
    """Non-decreasing down the list (direction +1) or non-increasing (-1), within 1e-9."""
    return bool(np.all(direction * np.diff(p) >= -1e-9))


def _sigmoid(u: np.ndarray) -> np.ndarray:
    return np.exp(-np.logaddexp(0.0, -u))


def _variance(u: np.ndarray) -> np.ndarray:
    """p (1 - p) for p = sigmoid(u), without cancellation in either tail."""
    return np.exp(-np.logaddexp(0.0, -u) - np.logaddexp(0.0, u))


def _with_sum(v: np.ndarray, total: float) -> np.ndarray:
    """v + c with sum_i sigmoid(v_i + c) = total (c by safeguarded Newton: the sum increases
    with c)."""
    low, high = -np.inf, np.inf
    c = np.log(total / (v.size - total)) - float(np.median(v))
    for _ in range(300):
        excess = float(_sigmoid(v + c).sum()) - total
        if abs(excess) <= 1e-13 * max(1.0, total):
            break
        if excess > 0:
            high = c
        else:
            low = c
        slope = float(_variance(v + c).sum())
        step = c - excess / slope if slope > 0 else np.nan
        if low < step < high:
            c = step
        elif np.isfinite(low) and np.isfinite(high):
            c = (low + high) / 2
        else:
            c += -np.sign(excess) * max(1.0, abs(c))
    return v + c


def _newton_step(u: np.ndarray, theta: float, target: float | None, total: float):
    """One Newton step on stationarity (and Q = target, with theta unknown; None: theta fixed):
    the new (u, theta), the stationarity spread before it, and Q before it."""
    p = _sigmoid(u)
    gradient = _gradient_q(p)
    residual = u - theta * gradient               # constant (= mu) at a stationary point
    value = expected_q(p)
    rhs = (residual[:-1] - residual[1:])[:, None]
    border = gradient[:-1] - gradient[1:]          # grad Q in the cumulative sums
    if target is None:
        step_c, _ = _solve_kkt(theta, u, np.zeros_like(border), 1.0, rhs, np.zeros(1))
        step_theta = 0.0
    else:
        step_c, t = _solve_kkt(theta, u, border, 0.0, rhs, np.array([target - value]))
        step_theta = float(t[0])
    theta += step_theta
    moved = p + np.diff(step_c[:, 0], prepend=0.0, append=0.0)
    spread = float(residual.max() - residual.min())
    return _with_sum(theta * _gradient_q(moved), total), theta, spread, value


def _solve_kkt(theta, u, border, corner, rhs, rhs_border):
    """[[H, b], [b^T, corner]] [x; t] = [rhs; rhs_border], H the Hessian of the Lagrangian in the
    cumulative sums C_1..C_{N-1} (module docstring)."""
    rank = np.arange(1, u.size + 1)
    q = -1.0 / np.maximum(_variance(u), _STIFF) - theta / rank
    j = rank[:-1]
    diagonal = q[:-1] + q[1:] + theta / (j * (j + 1.0))
    return _bordered_tridiagonal(-q[1:-1], diagonal, border, corner, rhs, rhs_border)


def _bordered_tridiagonal(off, diag, border, corner, rhs, rhs_border):
    """Solve [[A, b], [b^T, z]] [x; t] = [d; e] for symmetric tridiagonal A (diag, off) by cyclic
    reduction: eliminate the even unknowns (uncoupled given the odd ones), carrying the border,
    and recurse on the odd ones; a system of at most 32 unknowns is solved directly. d: (n, k)."""
    n = diag.size
    if n <= 32:
        system = np.zeros((n + 1, n + 1))
        system[:n, :n] = np.diag(diag) + np.diag(off, 1) + np.diag(off, -1)
        system[:n, n] = system[n, :n] = border
        system[n, n] = corner
        solution = np.linalg.solve(system, np.vstack([rhs, rhs_border[None, :]]))
        return solution[:n], solution[n]
    odd = n // 2                                   # unknowns 1, 3, ... (k = 2m + 1)
    to_left = off[0::2][:odd]                      # A[k, k - 1]
    to_right = off[1::2]                           # A[k, k + 1], when k + 1 < n
    pivot, pivot_border, pivot_rhs = diag[0::2], border[0::2], rhs[0::2]
    alpha = -to_left / pivot[:odd]
    beta = np.zeros(odd)
    beta[:to_right.size] = -to_right / pivot[1:to_right.size + 1]
    right_border = np.zeros(odd)
    right_border[:to_right.size] = pivot_border[1:to_right.size + 1]
    right_rhs = np.zeros((odd, rhs.shape[1]))
    right_rhs[:to_right.size] = pivot_rhs[1:to_right.size + 1]
    right_off = np.zeros(odd)
    right_off[:to_right.size] = to_right
    x_odd, t = _bordered_tridiagonal(
        (beta * np.concatenate([off[2::2], np.zeros(odd)])[:odd])[:-1],
        diag[1::2] + alpha * to_left + beta * right_off,
        border[1::2] + alpha * pivot_border[:odd] + beta * right_border,
        corner - float(np.sum(pivot_border ** 2 / pivot)),
        rhs[1::2] + alpha[:, None] * pivot_rhs[:odd] + beta[:, None] * right_rhs,
        rhs_border - (pivot_border / pivot) @ pivot_rhs)
    neighbours = np.zeros_like(pivot_rhs)
    neighbours[1:] += off[1::2][:pivot.size - 1, None] * x_odd[:pivot.size - 1]
    neighbours[:odd] += to_left[:, None] * x_odd
    x = np.empty_like(rhs)
    x[1::2] = x_odd
    x[0::2] = (pivot_rhs - neighbours - pivot_border[:, None] * t[None, :]) / pivot[:, None]
    return x, t


def _converged(u, theta, spread, value, target) -> bool:
    scale = 1.0 + abs(theta) * float(np.abs(_gradient_q(_sigmoid(u))).max()) + \
        float(np.abs(u).max())
    return spread <= 10 * _TOLERANCE * scale and abs(value - target) <= _TOLERANCE * target


def _correct(u, theta, target, total, max_iterations: int = 25):
    """Newton's method on (u, theta) at a fixed target; None when it does not converge."""
    for _ in range(max_iterations):
        new_u, new_theta, spread, value = _newton_step(u, theta, target, total)
        if _converged(u, theta, spread, value, target):
            return u, theta
        if not (np.all(np.isfinite(new_u)) and np.isfinite(new_theta)):
            return None
        u, theta = new_u, new_theta
    return None


def _follow(u, theta, target, total, trust: float = 1.0, max_steps: int = 5000):
    """Continuation in the constraint's value from a stationary (u, theta) to Q = target: each
    step moves the probabilities by at most `trust` along the tangent (halved when Newton's
    correction fails). Returns (u, theta) or None."""
    value = expected_q(_sigmoid(u))
    for _ in range(max_steps):
        if abs(value - target) <= _TOLERANCE * target:
            return u, theta
        rhs = np.zeros((u.size - 1, 1))
        p = _sigmoid(u)
        gradient = _gradient_q(p)
        with np.errstate(all="ignore"):
            tangent_c, tangent_theta = _solve_kkt(theta, u, gradient[:-1] - gradient[1:], 0.0,
                                                  rhs, np.ones(1))
        tangent_p = np.diff(tangent_c[:, 0], prepend=0.0, append=0.0)
        slope = float(tangent_theta[0])
        if not (np.all(np.isfinite(tangent_p)) and np.isfinite(slope)):
            return None
        h = target - value
        largest = float(np.abs(tangent_p).max()) * abs(h)
        if largest > trust:
            h *= trust / largest
        if abs(h * slope) > abs(theta) + 1:
            h *= (abs(theta) + 1) / abs(h * slope)
        for _ in range(40):
            goal = target if abs(h) >= abs(target - value) else value + h
            guess = theta + h * slope
            predicted = _with_sum(guess * _gradient_q(np.clip(p + h * tangent_p, 0, 1)), total)
            with np.errstate(all="ignore"):
                corrected = _correct(predicted, guess, goal, total)
            if corrected is not None:
                break
            h /= 2
        else:
            return None
        u, theta = corrected
        value = expected_q(_sigmoid(u))
    return None


def _relaxed_extreme(n: int, total: int, where: int):
    """A stationary point near the extreme arrangement (`where` +1 top, -1 bottom): theta of
    that sign and large, halved until the distribution is no longer degenerate."""
    theta = where * 1e4 * n
    u = _with_sum(np.where(_extreme(n, total, where) > 0, 60.0, -60.0), total)
    for _ in range(200):
        with np.errstate(all="ignore"):
            for _ in range(100):
                new_u, _, spread, value = _newton_step(u, theta, None, total)
                if _converged(u, theta, spread, value, value):
                    break
                if not np.all(np.isfinite(new_u)):
                    return None
                u = new_u
            else:
                return None
        if binary_entropy(_sigmoid(u)) >= 1e-3:
            return u, theta
        theta /= 2
        u = _with_sum(theta * _gradient_q(_sigmoid(u)), total)
    return None
