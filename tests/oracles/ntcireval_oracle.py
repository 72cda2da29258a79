"""Slow, obviously-correct pure-Python oracle of NTCIREVAL's ad hoc metrics.

Reproduces what ``ntcir_eval label | ntcir_eval compute`` prints per topic
(WASEDA-IREVAL / 2020 build of ntcir_eval.c, ``eval_compute``), plus the two
graded-uniform NCU values older builds (141207, 190111) printed.  See
docs/ntcireval_semantics.md for the full specification and its sources.

Written from the definitions (Sakai's papers, METRICS.md) and checked against
official .nev outputs; no code was copied from NTCIREVAL.

Conventions (all match ntcir_eval):
  * ``ranking`` is the res file: doc ids in rank order, exactly as given
    (ntcir_eval never sorts; duplicates are NOT removed and each copy counts).
  * ``qrels`` maps doc -> level (0 = L0 judged non-relevant).  Docs absent from
    ``qrels`` are unjudged and behave exactly like L0 (gain 0), unless
    ``condensed=True`` (``label -j``), which drops them before ranking.
  * ``gains[k-1]`` is the gain of level Lk (``-g g1:g2:...``, least relevant
    first, must be non-decreasing).  A qrels level > len(gains) is an error.
  * R (jrel) = number of qrels entries with level >= 1; N (jnonrel) = L0 entries.
  * Everything is a straightforward loop over ranks 1..n (1-based).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

DEFAULT_CUTOFFS = (1000,)
DEFAULT_BETA = 1.0  # Q-measure family (BR)
DEFAULT_GAMMA = 0.95  # rank-biased NCU
DEFAULT_LOGB = 2.0  # Jarvelin-Kekalainen DCG log base
DEFAULT_RBP_P = 0.95  # RBP persistence
DEFAULT_RBU_P = 0.99  # iRBU / NCUrb,IE patience
DEFAULT_DEPTH = 1000  # TRECsplitruns keeps the first 1000 lines per topic

FACT_KEYS = ("syslen", "jrel", "jnonrel", "r1", "rp")


def add_up(values: Iterable[float]) -> float:
    """Plain left-to-right float sum, like the C loops (Python >= 3.12's sum()
    is compensated and could flip a printed 4th decimal on exact ties)."""
    total = 0.0
    for v in values:
        total += v
    return total


class NoRelevantDocuments(ValueError):
    """ntcir_eval prints nothing at all for a topic with R = 0."""


def split_trec_run(lines: Iterable[str], topic: str, depth: int = DEFAULT_DEPTH) -> list[str]:
    """TRECsplitruns: docids (3rd whitespace field) of lines whose 1st field is
    *string-equal* to ``topic``, in FILE ORDER (rank/score ignored), first ``depth``."""
    out: list[str] = []
    for line in lines:
        f = line.split()
        if len(f) >= 3 and f[0] == topic:
            out.append(f[2])
            if len(out) == depth:
                break
    return out


def label(ranking: Sequence[str], qrels: Mapping[str, int], condensed: bool = False,
          truncate: int | None = None) -> list[int | None]:
    """``ntcir_eval label [-j] [-truncate t]``: level per rank, None = unjudged.

    -truncate counts input lines (before -j removes unjudged ones)."""
    docs = list(ranking)
    if truncate is not None:
        docs = docs[:truncate]
    levels: list[int | None] = [qrels.get(d) for d in docs]
    if condensed:
        levels = [lv for lv in levels if lv is not None]
    return levels


def dcg_log(b: float, i: int) -> float:
    """Jarvelin-Kekalainen discount: no discount at ranks i <= b (and i == 1);
    else log_b(i); b == 0 means natural log (ntcir_eval ``orig_dcglog``)."""
    if i == 1 or i <= b:
        return 1.0
    if b == 0:
        return math.log(i)
    return math.log(i) / math.log(b)


def evaluate_topic(
    ranking: Sequence[str],
    qrels: Mapping[str, int],
    gains: Sequence[float],
    cutoffs: Sequence[int] = DEFAULT_CUTOFFS,
    beta: float = DEFAULT_BETA,
    gamma: float = DEFAULT_GAMMA,
    logb: float = DEFAULT_LOGB,
    rbp_p: float = DEFAULT_RBP_P,
    rbu_p: float = DEFAULT_RBU_P,
    stops: Sequence[float] | None = None,
    condensed: bool = False,
    truncate: int | None = None,
    bpref: bool | None = None,
    ncugu: bool = False,
) -> dict[str, float | int]:
    """Per-topic facts and metrics, keys and order exactly as in a .nev block.

    Returns an ordered dict: syslen, jrel, jnonrel, r1, rp (ints), then
    'RR', 'O-measure', ..., 'iRBU', then per cutoff k 'AP@%04d' % k, ...,
    'Hit@%04d'; then the bpref family when ``bpref`` (default: = condensed,
    i.e. ``compute -j``).  With ``ncugu=True`` also 'NCUgu,P'/'NCUgu,BR'
    (printed by builds up to 2019 only) at the end.  Default key order is the
    exact line order of a 2020+ .nev block.
    """
    levels = label(ranking, qrels, condensed=condensed, truncate=truncate)
    return evaluate_levels(levels, list(qrels.values()), gains, cutoffs=cutoffs, beta=beta,
                           gamma=gamma, logb=logb, rbp_p=rbp_p, rbu_p=rbu_p, stops=stops,
                           bpref=condensed if bpref is None else bpref, ncugu=ncugu)


def evaluate_levels(
    levels: Sequence[int | None],
    judged_levels: Iterable[int],
    gains: Sequence[float],
    cutoffs: Sequence[int] = DEFAULT_CUTOFFS,
    beta: float = DEFAULT_BETA,
    gamma: float = DEFAULT_GAMMA,
    logb: float = DEFAULT_LOGB,
    rbp_p: float = DEFAULT_RBP_P,
    rbu_p: float = DEFAULT_RBU_P,
    stops: Sequence[float] | None = None,
    bpref: bool = False,
    ncugu: bool = False,
) -> dict[str, float | int]:
    """Same as evaluate_topic but from a labelled list (``compute``'s input):
    ``levels[r-1]`` = level at rank r (None = unjudged) and the multiset of
    judged levels from the rel file (one entry per rel-file line)."""
    maxrl = len(gains)
    if maxrl == 0:
        raise ValueError("-g is required")
    if any(gains[i] > gains[i + 1] for i in range(maxrl - 1)):
        raise ValueError("gain values must be non-decreasing")
    stops = list(gains) if stops is None else list(stops)
    if len(stops) != maxrl:
        raise ValueError("gain/stop rel levels mismatch")
    judged_levels = list(judged_levels)
    if any(lv > maxrl or lv < 0 for lv in judged_levels):
        raise ValueError("max rel level mismatch")
    if not cutoffs:
        cutoffs = DEFAULT_CUTOFFS

    def g(level: int | None) -> float:  # gain of a level; unjudged/L0 -> 0
        return 0.0 if not level else float(gains[level - 1])

    # Ideal list: all judged relevant items sorted by level descending.
    n_by_level = {lv: sum(1 for x in judged_levels if x == lv) for lv in range(maxrl + 1)}
    R = sum(n_by_level[lv] for lv in range(1, maxrl + 1))
    N = n_by_level[0]
    if R == 0:
        raise NoRelevantDocuments("no rel doc")
    ideal = [lv for lv in range(maxrl, 0, -1) for _ in range(n_by_level[lv])]
    gmax = float(gains[maxrl - 1])  # gain of the highest *declared* level

    L = list(levels)
    n = len(L)
    isrel = [lv is not None and lv > 0 for lv in L]  # rank r -> L[r-1]
    G = [g(lv) for lv in L]

    # Prefix sums (index r = value over ranks 1..r; index 0 = empty prefix).
    # count[r] = C(r), number of relevant docs in the top r; cg[r] = cumulative
    # gain of the run; cgi[r] = cg*(r) of the ideal list (constant after R).
    top_len = max(n, R)
    count = [0] * (n + 1)
    cgs = [0.0] * (n + 1)
    for r in range(1, n + 1):
        count[r] = count[r - 1] + (1 if isrel[r - 1] else 0)
        cgs[r] = cgs[r - 1] + G[r - 1]
    cgi = [0.0] * (top_len + 1)
    for r in range(1, top_len + 1):
        cgi[r] = cgi[r - 1] + (g(ideal[r - 1]) if r <= R else 0.0)

    def C(r: int) -> int:  # number of relevant docs in top r
        return count[min(r, n)]

    def cg(r: int) -> float:  # cumulative gain of the run in top r
        return cgs[min(r, n)]

    def cg_ideal(r: int) -> float:  # cg*(r), constant after R
        return cgi[min(r, top_len)]

    def BR(r: int) -> float:  # blended ratio (Sakai), Q-measure family
        return (beta * cg(r) + C(r)) / (beta * cg_ideal(r) + r)

    # "relevant" in the sums below means gain > 0 (ntcir_eval tests Gs > 0);
    # identical to level > 0 unless a gain value of 0 is declared.
    relranks = [r for r in range(1, n + 1) if G[r - 1] > 0]

    out: dict[str, float | int] = {"syslen": n, "jrel": R, "jnonrel": N}

    # r1: first rank with level > 0.  rp ("preferred rank"): first rank holding
    # the highest level present anywhere in the (whole) ranked list.
    r1 = next((r for r in range(1, n + 1) if isrel[r - 1]), 0)
    rp = 0
    best = 0
    for r in range(1, n + 1):
        if isrel[r - 1] and L[r - 1] > best:
            best, rp = L[r - 1], r
    out["r1"], out["rp"] = r1, rp

    # Sakai, IPSJ TOD 2007 (Sakai, IPSJ TOD 2007): RR, O = BR(r1), P = BR(rp),
    # P+ = mean of BR over relevant ranks <= rp.
    if r1 == 0:
        out["RR"] = out["O-measure"] = out["P-measure"] = out["P-plus"] = 0.0
    else:
        out["RR"] = 1.0 / r1
        out["O-measure"] = BR(r1)
        out["P-measure"] = BR(rp)
        out["P-plus"] = add_up(BR(r) for r in relranks if r <= rp) / C(rp)

    # AP = (1/R) sum_rel C(r)/r ; Q = (1/R) sum_rel BR(r)   (Sakai, PROMISE 2014, eq 9, 11)
    out["AP"] = add_up(C(r) / r for r in relranks) / R
    out["Q-measure"] = add_up(BR(r) for r in relranks) / R

    # Rank-biased NCU (Sakai & Robertson, EVIA 2008): stopping probability at
    # the c-th relevant doc proportional to gamma^(c-1), normalised over R.
    # NU = precision (P), blended ratio (BR) or rbu_p^r "inverse effort" (IE).
    denom = add_up(gamma ** (i - 1) for i in range(1, R + 1))
    out["NCUrb,P"] = add_up((C(r) / r) * gamma ** (C(r) - 1) for r in relranks) / denom
    out["NCUrb,BR"] = add_up(BR(r) * gamma ** (C(r) - 1) for r in relranks) / denom
    out["NCUrb,IE"] = add_up(rbu_p ** r * gamma ** (C(r) - 1) for r in relranks) / denom

    # Shared pieces for RBP / ERR / EBR / iRBU over a prefix of length k.
    def rbp_sum(gs: Sequence[float]) -> float:  # sum_r g(r) p^(r-1)
        return add_up(gr * rbp_p ** (r - 1) for r, gr in enumerate(gs, start=1))

    def err_family(gs: Sequence[float], brs: Sequence[float]) -> tuple[float, float, float]:
        """ERR (Chapelle CIKM09, stop prob g/(gmax+1)), EBR (same cascade,
        utility BR(r)) and iRBU (same cascade, utility rbu_p^r).
        Products are associated as in ntcir_eval so exact .5e-4 ties print the same."""
        err = ebr = irbu = 0.0
        dsat = 1.0  # probability the user is not yet satisfied before rank r
        for r, gr in enumerate(gs, start=1):
            err += (dsat / r) * (gr / (gmax + 1.0))
            ebr += brs[r - 1] * dsat * gr / (gmax + 1.0)
            irbu += rbu_p ** r * dsat * gr / (gmax + 1.0)
            dsat *= 1.0 - gr / (gmax + 1.0)
        return err, ebr, irbu

    def err_family_ideal(gs: Sequence[float]) -> tuple[float, float, float]:
        """The same for the ideal list, where BR(r) = 1 for every r <= R."""
        err = ebr = irbu = 0.0
        dsat = 1.0
        for r, gr in enumerate(gs, start=1):
            err += (dsat / r) * (gr / (gmax + 1.0))
            ebr += dsat * (gr / (gmax + 1.0))
            irbu += rbu_p ** r * dsat * (gr / (gmax + 1.0))
            dsat *= 1.0 - gr / (gmax + 1.0)
        return err, ebr, irbu

    sys_br = [BR(r) for r in range(1, n + 1)]
    ideal_g = [g(lv) for lv in ideal]

    out["RBP"] = (1 - rbp_p) * rbp_sum(G) / gmax  # Moffat & Zobel; gains / gmax
    err, ebr, irbu = err_family(G, sys_br)
    out["ERR"], out["EBR"], out["iRBU"] = err, ebr, irbu

    for k in cutoffs:
        k = int(k)
        tag = "@%04d" % k
        top = [r for r in relranks if r <= k]
        d = min(k, R)  # AP@k / Q@k / NCU@k normaliser
        out["AP" + tag] = add_up(C(r) / r for r in top) / d
        out["Q" + tag] = add_up(BR(r) for r in top) / d
        # NB: cutoff NCUrb divides by min(k, R), NOT by sum gamma^(i-1).
        out["NCUrb,P" + tag] = add_up((C(r) / r) * gamma ** (C(r) - 1) for r in top) / d
        out["NCUrb,BR" + tag] = add_up(BR(r) * gamma ** (C(r) - 1) for r in top) / d
        out["NCUrb,IE" + tag] = add_up(rbu_p ** r * gamma ** (C(r) - 1) for r in top) / d

        gk = G[:k]
        ik = ideal_g[:k]
        dcg = add_up(gr / dcg_log(logb, r) for r, gr in enumerate(gk, start=1))
        idcg = add_up(gr / dcg_log(logb, r) for r, gr in enumerate(ik, start=1))
        out["nDCG" + tag] = dcg / idcg
        # "Microsoft" nDCG: gain / ln(r+1) (log base cancels in the ratio)
        msdcg = add_up(gr / math.log(r + 1) for r, gr in enumerate(gk, start=1))
        imsdcg = add_up(gr / math.log(r + 1) for r, gr in enumerate(ik, start=1))
        out["MSnDCG" + tag] = msdcg / imsdcg
        out["Prec" + tag] = C(k) / k  # denominator k even if syslen < k
        out["RBP" + tag] = (1 - rbp_p) * rbp_sum(gk) / gmax
        out["nRBP" + tag] = rbp_sum(gk) / rbp_sum(ik)
        e, b, u = err_family(gk, sys_br)
        ie, ib, iu = err_family_ideal(ik)
        out["ERR" + tag] = e
        out["nERR" + tag] = e / ie
        out["EBR" + tag] = b
        out["nEBR" + tag] = b / ib
        out["iRBU" + tag] = u
        out["niRBU" + tag] = u / iu
        out["Hit" + tag] = 1.0 if C(k) > 0 else 0.0

    if bpref:
        # Condensed-list bpref family, Sakai SIGIR 2007 "Alternatives to bpref".
        # Needs N > 0 (ntcir_eval refuses otherwise).
        if N == 0:
            raise ValueError("no judged nonrel: bpref etc. not computable")
        s_b = s_br = s_bn = s_brel = 0.0
        for r in relranks:
            nonrel_above = r - C(r)
            m = min(R, nonrel_above)
            s_b += 1 - m / min(R, N)
            s_br += 1 - m / R
            s_bn += 1 - nonrel_above / N
            s_brel += (1 - nonrel_above / (r - 1)) if r > 1 else 0.0
        out["bpref"] = s_b / R
        out["bpref_R"] = s_br / R
        out["bpref_N"] = s_bn / R
        out["bpref_relative"] = s_brel / R
        cgR = cg_ideal(R)
        s_n = s_rel = s_rel2 = 0.0
        for r in relranks:
            gr = G[r - 1]
            penalty = add_up((gr - G[j - 1]) / gr for j in range(1, r) if gr - G[j - 1] > 0)
            s_n += gr * (1 - penalty / (R + N - cgR / gmax))
            s_rel += gr * ((1 - penalty / (r - 1)) if r > 1 else 0.0)
            s_rel2 += gr * (1 - penalty / r)
        out["rpref_N"] = s_n / cgR
        out["rpref_relative"] = s_rel / cgR
        out["rpref_relative2"] = s_rel2 / cgR

    # Graded-uniform NCU (Sakai & Robertson 2008), printed by ntcir_eval up to
    # 2019 (e.g. 190111) and commented out since 2020-05-27: stopping
    # probability proportional to the stop value of the level at the rank.
    if not ncugu:
        return out
    su = add_up(n_by_level[lv] * stops[lv - 1] for lv in range(1, maxrl + 1))
    stop_at = [0.0 if not lv else float(stops[lv - 1]) for lv in L]
    out["NCUgu,P"] = add_up((C(r) / r) * stop_at[r - 1] for r in relranks) / su
    out["NCUgu,BR"] = add_up(BR(r) * stop_at[r - 1] for r in relranks) / su
    return out


def nwrr(ranking: Sequence[str], qrels: Mapping[str, int],
         penalties: Sequence[float]) -> float:
    """Normalised Weighted Reciprocal Rank (Sakai, IPSJ TOD 2007, eq 5; NOT printed by ntcir_eval):
    (1 - 1/pen(M)) / (r1 - 1/pen(L_r1)); penalties[k-1] for level Lk, M = the
    topic's highest level; 0 if nothing relevant is retrieved."""
    top = max(qrels.values())
    for r, d in enumerate(ranking, start=1):
        lv = qrels.get(d, 0)
        if lv > 0:
            return (1 - 1 / penalties[top - 1]) / (r - 1 / penalties[lv - 1])
    return 0.0
