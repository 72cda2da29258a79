"""Slow, loop-for-loop reference implementations written from the papers (not from the SQL) of
the graded and interpolated measures of issue 30 (sql/metrics/graded.sql, interpolated.sql's
textbook rule), for the property tests:

* textbook interpolated precision, Baeza-Yates & Ribeiro-Neto, Modern IR 2011, ch. 4;
* GAP, Robertson, Kanoulas & Yilmaz, SIGIR 2010 (eq. of section 3);
* Kishida's generalised AP (NII 2005, as Sakai SIGIR 2007 writes it);
* generalised precision and recall, Kekäläinen & Järvelin, JASIST 2002;
* NCG@k = cg(k)/cg*(k) (Järvelin & Kekäläinen TOIS 2002; Sakai's WP);
* the mean of the DCG / nDCG vectors, Järvelin & Kekäläinen TOIS 2002 section 2.4.

A ranking is a list of docnos; qrels map docno -> level (absent: unjudged, level 0). Fractions
keep the arithmetic exact where the definition is rational.
"""

from __future__ import annotations

import math
from fractions import Fraction


def textbook_iprec(ranking, qrels, level: Fraction, threshold=1) -> float:
    """max over ranks r whose recall C(r)/R >= level of C(r)/r (0 if none; R = 0 gives 0)."""
    big_r = sum(1 for v in qrels.values() if v >= threshold)
    if big_r == 0:
        return 0.0
    best, found = Fraction(0), 0
    for r, doc in enumerate(ranking, start=1):
        if qrels.get(doc, 0) >= threshold:
            found += 1
        if Fraction(found, big_r) >= level and found > 0:
            best = max(best, Fraction(found, r))
    return float(best)


def textbook_11pt(ranking, qrels, threshold=1) -> float:
    levels = [Fraction(i, 10) for i in range(11)]
    return sum(textbook_iprec(ranking, qrels, x, threshold) for x in levels) / 11


def _gain(level, gains):
    return float(gains.get(level, level)) if level > 0 else 0.0


def gap(ranking, qrels, g=None) -> float:
    """GAP = sum_n x_n/n sum_{m<=n} x_m delta(m,n) / sum_i R_i G(i)."""
    top = max([v for v in qrels.values()] + [1])
    probs = list(g) if g else [Fraction(1, top)] * top
    grades = len(probs)

    def cum(i):                                     # G(i) = g_1 + ... + g_i
        return sum(probs[:i])

    def grade(level):
        return min(level, grades)

    denominator = sum(cum(grade(v)) for v in qrels.values() if v >= 1)
    if denominator == 0:
        return 0.0
    relevant = [(n, grade(qrels[d])) for n, d in enumerate(ranking, start=1)
                if qrels.get(d, 0) >= 1]
    numerator = 0
    for n, c_n in relevant:
        numerator += sum(cum(min(c_m, c_n)) for m, c_m in relevant if m <= n) / n
    return float(numerator / denominator)


def kishida_gap(ranking, qrels, gains=None) -> float:
    gains = gains or {}
    ideal = sorted((_gain(v, gains) for v in qrels.values() if _gain(v, gains) > 0),
                   reverse=True)
    denominator = sum(sum(ideal[:r]) / r for r in range(1, len(ideal) + 1))
    if denominator == 0:
        return 0.0
    cg, numerator = 0.0, 0.0
    for r, doc in enumerate(ranking, start=1):
        g = _gain(qrels.get(doc, 0), gains)
        cg += g
        if g > 0:
            numerator += cg / r
    return numerator / denominator


def generalised(ranking, qrels, cutoff=None, gains=None) -> tuple[float, float]:
    """(gP, gR): degrees r(d) = gains[level] or level / H."""
    gains = gains or {}
    top = max([v for v in qrels.values()] + [1])

    def degree(level):
        return 0.0 if level <= 0 else float(gains.get(level, Fraction(level, top)))

    seen = ranking[:cutoff] if cutoff else ranking
    s = sum(degree(qrels.get(d, 0)) for d in seen)
    total = sum(degree(v) for v in qrels.values())
    depth = cutoff if cutoff else len(ranking)
    return (s / depth if depth else 0.0), (s / total if total else 0.0)


def ncg(ranking, qrels, cutoff, gains=None) -> float:
    gains = gains or {}
    cg = sum(_gain(qrels.get(d, 0), gains) for d in ranking[:cutoff])
    ideal = sorted((_gain(v, gains) for v in qrels.values()), reverse=True)[:cutoff]
    return cg / sum(ideal) if sum(ideal) > 0 else 0.0


def dcg_vectors(ranking, qrels, cutoff, base=2.0, gains=None) -> tuple[float, float]:
    """(mean DCG[1..k], mean nDCG[1..k]) with DCG[r] = CG[r] for r < b, DCG[r-1] + g/log_b r
    after; nDCG[r] = 0 while the ideal is 0."""
    gains = gains or {}
    ideal = sorted((_gain(v, gains) for v in qrels.values() if _gain(v, gains) > 0),
                   reverse=True)

    def vector(gs):
        out, total = [], 0.0
        for r in range(1, cutoff + 1):
            g = gs[r - 1] if r <= len(gs) else 0.0
            total += g if r < base else g / (math.log(r) / math.log(base))
            out.append(total)
        return out

    run = vector([_gain(qrels.get(d, 0), gains) for d in ranking])
    best = vector(ideal)
    normalised = [a / b if b > 0 else 0.0 for a, b in zip(run, best)]
    return sum(run) / cutoff, sum(normalised) / cutoff
