"""Interleaving two ranked lists and crediting clicks on the result (pure Python: the methods
draw random choices step by step and keep set state, which SQL expresses poorly).

- balanced: Joachims (KDD 2002), the `combine_ranking` of Baeza-Yates & Ribeiro-Neto (2011)
  ch. 4: pointers k_a, k_b; A's next document when k_a < k_b or (k_a = k_b and A goes first),
  a document already shown is skipped; stops when a list is exhausted or `depth` is reached.
  Who goes first is a seeded coin (first="a" gives the book's algorithm). Credit: with the
  lowest click at a document of rank k_a in A and k_b in B (0-based; the list length when
  absent), k = min(k_a, k_b); each side scores the clicks on its top k+1.
- team_draft: Radlinski, Kurup, Joachims (CIKM 2008): the team with fewer picks (a coin on a
  tie) adds its highest document not yet shown; clicks count for the team of the document.
- probabilistic: Hofmann, Whiteson, de Rijke (CIKM 2011): each list a softmax over ranks,
  P(d) proportional to 1/rank^tau (tau = 3); at each step a list chosen at random draws a
  document, which leaves both lists. Outcome marginalised over every assignment of the shown
  documents to the lists: P(a) = prod_i P_{a_i}(d_i), the winner is the list with more clicks
  under a; credit_x = P(x wins).
- optimized: Radlinski & Craswell (WSDM 2013), as multileaved by Schuth et al. (CIKM 2014):
  the candidate lists are those prefix-constraint sampling can produce; credit of d for list x
  is 1/rank_x(d) (1/(len_x + 1) when absent); list probabilities minimise the expected variance
  subject to unbiasedness (for every k, the expected credit of the top k is equal across lists),
  a linear program (scipy.optimize.linprog; scipy is needed for this method only).

Outcomes follow mpkato/interleaving's conventions, whose tests are the golden data.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

METHODS = ("balanced", "team_draft", "probabilistic", "optimized")


@dataclass
class Interleaved:
    """One interleaved list: docs in order, the list each came from (0 = A, 1 = B; for
    balanced the list whose pointer added it), credits per list for optimized interleaving,
    and the probability of this list where the method defines one."""
    docs: list
    teams: list = field(default_factory=list)
    credits: list = field(default_factory=list)      # [(credit_a, credit_b)] per position
    probability: float | None = None


# -- balanced --------------------------------------------------------------------------------
def balanced(a, b, depth: int, rng: np.random.Generator | None = None,
             first: str | None = None, stop: str = "either") -> Interleaved:
    """stop="either": stop when either list is exhausted (Joachims 2002; mpkato/interleaving);
    stop="turn": stop only when the list whose turn it is has no next document, as the
    recursion of combine_ranking reads (R_A = (a,b,c,d), R_B = (b,e,a,f), A first: a, b, e,
    c, d, f)."""
    a_first = (rng.integers(2) == 0) if first is None else first == "a"
    out = Interleaved([])
    ka = kb = 0
    while len(out.docs) < depth:
        a_turn = ka < kb or (ka == kb and a_first)
        if (stop == "either" and (ka >= len(a) or kb >= len(b))) or \
                (a_turn and ka >= len(a)) or (not a_turn and kb >= len(b)):
            break
        if a_turn:
            if a[ka] not in out.docs:
                out.docs.append(a[ka])
                out.teams.append(0)
            ka += 1
        else:
            if b[kb] not in out.docs:
                out.docs.append(b[kb])
                out.teams.append(1)
            kb += 1
    return out


def balanced_credit(a, b, shown, clicks) -> tuple[float, float]:
    """Clicks are 0-based positions in `shown`."""
    if not clicks:
        return 0.0, 0.0
    lowest = shown[max(clicks)]
    ka = a.index(lowest) if lowest in a else len(a)
    kb = b.index(lowest) if lowest in b else len(b)
    k = min(ka, kb)
    top_a, top_b = set(a[:k + 1]), set(b[:k + 1])
    return (float(sum(shown[c] in top_a for c in clicks)),
            float(sum(shown[c] in top_b for c in clicks)))


# -- team draft -------------------------------------------------------------------------------
def team_draft(lists, depth: int, rng: np.random.Generator) -> Interleaved:
    out = Interleaved([])
    size = [0] * len(lists)
    exhausted: set[int] = set()
    while len(out.docs) < depth:
        active = [t for t in range(len(lists)) if t not in exhausted]
        if not active:
            break
        fewest = min(size[t] for t in active)
        tied = [t for t in active if size[t] == fewest]
        team = tied[int(rng.integers(len(tied)))] if len(tied) > 1 else tied[0]
        doc = next((d for d in lists[team] if d not in out.docs), None)
        if doc is None:
            exhausted.add(team)
            continue
        out.docs.append(doc)
        out.teams.append(team)
        size[team] += 1
    return out


def team_credit(teams, clicks) -> tuple[float, float]:
    return (float(sum(teams[c] == 0 for c in clicks)), float(sum(teams[c] == 1 for c in clicks)))


# -- probabilistic ----------------------------------------------------------------------------
class _Softmax:
    """P(d) proportional to 1/rank(d)^tau over the documents not yet removed."""

    def __init__(self, ranking, tau: float):
        self.docs = list(ranking)
        self.weight = {d: 1.0 / (r + 1) ** tau for r, d in enumerate(self.docs)}
        self.left = dict(self.weight)

    def remove(self, doc) -> float:
        """Remove doc; return its probability of being drawn just before (0 if absent)."""
        if doc not in self.left:
            return 0.0
        total = sum(self.left.values())
        w = self.left.pop(doc)
        return w / total if total > 0 else 0.0

    def draw(self, rng: np.random.Generator):
        if not self.left:
            return None
        docs = [d for d in self.docs if d in self.left]
        weights = np.array([self.left[d] for d in docs])
        return docs[int(rng.choice(len(docs), p=weights / weights.sum()))]


def probabilistic(lists, depth: int, rng: np.random.Generator, tau: float = 3.0,
                  replace: bool = True) -> Interleaved:
    """replace=True: each step's list is chosen uniformly; False: lists take turns in a fresh
    random order each round (mpkato's replace=False)."""
    soft = [_Softmax(lst, tau) for lst in lists]
    active = list(range(len(lists)))
    turn: list[int] = []
    out = Interleaved([])
    while len(out.docs) < depth and active:
        if not turn:
            turn = [active[i] for i in rng.permutation(len(active))]
        j = turn[int(rng.integers(len(turn)))] if replace else turn.pop()
        doc = soft[j].draw(rng)
        if doc is None:
            active.remove(j)
            turn = list(active) if replace else [t for t in turn if t in active]
            continue
        out.docs.append(doc)
        out.teams.append(j)
        for s in soft:
            s.remove(doc)
    return out


def probabilistic_position_probabilities(lists, shown, tau: float = 3.0) -> list[list[float]]:
    """p[i][j] = P_j(shown[i]) given shown[:i] removed from every list (the same whatever the
    assignment, so P(assignment) factorises)."""
    soft = [_Softmax(lst, tau) for lst in lists]
    return [[s.remove(d) for s in soft] for d in shown]


def probabilistic_allocations(lists, shown, clicks, tau: float = 3.0) -> dict:
    """Every assignment of the shown documents to lists 0/1 -> (clicks per list, P(assignment)
    without the constant 1/2^n), as mpkato's compute_scores; for small lists and tests."""
    p = probabilistic_position_probabilities(lists, shown, tau)
    clicked = {shown[c] for c in clicks}
    out = {}
    for code in range(2 ** len(shown)):
        assign = tuple((code >> i) & 1 for i in range(len(shown)))
        counts = [0, 0]
        prob = 1.0
        for i, j in enumerate(assign):
            counts[j] += shown[i] in clicked
            prob *= p[i][j]
        out[assign] = (counts, prob)
    return out


def probabilistic_credit(lists, shown, clicks, tau: float = 3.0) -> tuple[float, float]:
    """(P(A wins), P(B wins)) over the assignments, by dynamic programming on the click
    difference (linear in the list length, instead of 2^n assignments)."""
    p = probabilistic_position_probabilities(lists, shown, tau)
    clicked = {shown[c] for c in clicks}
    states = {0: 1.0}
    for i, d in enumerate(shown):
        step = 1 if d in clicked else 0
        nxt: dict[int, float] = {}
        for diff, prob in states.items():
            for j, sign in ((0, 1), (1, -1)):
                if p[i][j] > 0:
                    key = diff + sign * step
                    nxt[key] = nxt.get(key, 0.0) + prob * p[i][j]
        states = nxt
    total = sum(states.values())
    if total <= 0:
        return 0.0, 0.0
    return (sum(v for k, v in states.items() if k > 0) / total,
            sum(v for k, v in states.items() if k < 0) / total)


# -- optimized --------------------------------------------------------------------------------
def prefix_constraint_lists(lists, depth: int) -> list[tuple]:
    """Every list prefix-constraint sampling can produce: at each step any list with a
    document not yet shown adds its highest such document (distinct lists, in DFS order)."""
    found: dict[tuple, None] = {}

    def grow(prefix: tuple):
        nexts = {next((d for d in lst if d not in prefix), None) for lst in lists} - {None}
        if len(prefix) == depth or not nexts:
            found.setdefault(prefix, None)
            return
        for doc in sorted(nexts, key=lambda d: min(lst.index(d) if d in lst else 10**9
                                                    for lst in lists)):
            grow(prefix + (doc,))
    grow(())
    return list(found)


def optimized_credits(lists, ranking) -> list[list[float]]:
    """credit[i][x] = 1/rank_x(ranking[i]) (1-based; len_x + 1 when absent)."""
    return [[1.0 / ((lst.index(d) + 1) if d in lst else len(lst) + 1) for lst in lists]
            for d in ranking]


def unbiasedness_constraints(lists, rankings, credits=None) -> np.ndarray:
    """Rows (x, k) for consecutive lists x, x+1 and k = 1..depth: the cumulative credit of the
    top k for x minus that for x+1, per candidate ranking (columns). A ranking shorter than k
    keeps its full sum."""
    credits = credits or [optimized_credits(lists, r) for r in rankings]
    depth = max(len(r) for r in rankings)
    cum = np.zeros((depth, len(rankings), len(lists)))
    for col, cr in enumerate(credits):
        running = np.zeros(len(lists))
        for k in range(depth):
            if k < len(cr):
                running = running + np.array(cr[k])
            cum[k, col] = running
    return np.vstack([cum[:, :, x] - cum[:, :, x + 1] for x in range(len(lists) - 1)])


def sensitivity(lists, rankings, credits=None) -> np.ndarray:
    """Expected variance of each candidate under clicks with probability 1/position:
    v_x = sum_i credit_x(i)/i, mu = mean_x v_x, var = sum_x (v_x - mu)^2."""
    credits = credits or [optimized_credits(lists, r) for r in rankings]
    out = np.zeros(len(rankings))
    for col, cr in enumerate(credits):
        v = np.array([sum(cr[i][x] / (i + 1) for i in range(len(cr)))
                      for x in range(len(lists))])
        out[col] = float(((v - v.mean()) ** 2).sum())
    return out


def optimized_distribution(lists, depth: int) -> list[tuple[tuple, float, list]]:
    """(ranking, probability, credits) of every candidate, from the linear program."""
    try:
        from scipy.optimize import linprog
    except ImportError:
        from ..errors import IrwError
        raise IrwError("optimized interleaving needs scipy (pip install scipy)") from None
    rankings = prefix_constraint_lists(lists, depth)
    credits = [optimized_credits(lists, r) for r in rankings]
    a_eq = np.vstack([np.ones(len(rankings)),
                      unbiasedness_constraints(lists, rankings, credits)])
    b_eq = np.zeros(a_eq.shape[0])
    b_eq[0] = 1.0
    res = linprog(sensitivity(lists, rankings, credits), A_eq=a_eq, b_eq=b_eq,
                  bounds=[(0, 1)] * len(rankings), method="highs")
    if not res.success:
        from ..errors import IrwError
        raise IrwError(f"optimized interleaving: the linear program has no solution "
                       f"({res.message})")
    probs = np.clip(res.x, 0, None)
    probs = probs / probs.sum()
    return [(r, float(p), c) for r, p, c in zip(rankings, probs, credits)]


def optimized(lists, depth: int, rng: np.random.Generator) -> Interleaved:
    dist = optimized_distribution(lists, depth)
    pick = int(rng.choice(len(dist), p=np.array([p for _, p, _ in dist])))
    ranking, prob, credits = dist[pick]
    teams = [int(np.argmax(c)) for c in credits]      # the list that ranks it highest
    return Interleaved(list(ranking), teams, [tuple(c) for c in credits], prob)


def credit_sums(credits, clicks) -> tuple[float, float]:
    return (float(sum(credits[c][0] for c in clicks)), float(sum(credits[c][1] for c in clicks)))


def outcome(credit_a: float, credit_b: float) -> str:
    return "A" if credit_a > credit_b else "B" if credit_b > credit_a else "tie"


def interleave(method: str, a, b, depth: int, rng: np.random.Generator, **params) -> Interleaved:
    if method == "balanced":
        return balanced(a, b, depth, rng, first=params.get("first"),
                        stop=params.get("stop", "either"))
    if method == "team_draft":
        return team_draft([a, b], depth, rng)
    if method == "probabilistic":
        return probabilistic([a, b], depth, rng, tau=params.get("tau", 3.0),
                             replace=params.get("replace", True))
    if method == "optimized":
        return optimized([a, b], depth, rng)
    from ..errors import IrwError
    raise IrwError(f"unknown interleaving method {method!r} ({', '.join(METHODS)})")


def credit(method: str, a, b, shown, teams, credits, clicks, **params) -> tuple[float, float]:
    """(credit_a, credit_b) of one impression; clicks are 0-based positions in shown."""
    if method == "balanced":
        return balanced_credit(a, b, shown, clicks)
    if method == "team_draft":
        return team_credit(teams, clicks)
    if method == "probabilistic":
        return probabilistic_credit([a, b], shown, clicks, tau=params.get("tau", 3.0))
    return credit_sums(credits, clicks)
