"""Slow, loop-for-loop reference implementations of the measures for sampled and incomplete
judgments (sql/metrics/sampled.sql), written from the papers and the estimators' published
descriptions (not from the SQL), for the property tests:

* xinfAP and infNDCG from a stratified sample (Yilmaz, Kanoulas & Aslam, SIGIR 2008, as NIST's
  sample_eval.pl states them in its comments and output);
* statAP from inclusion probabilities (Aslam, Pavlu & Yilmaz, SIGIR 2006; statAP_MQ_eval);
* PRES (Magdy & Jones, SIGIR 2010);
* ADM (Della Mea & Mizzaro, JASIST 2004).

A ranking is a list of docnos; `pool` maps docno -> (stratum, level) for every pooled document
(level -1: pooled, not sampled); `sample` maps docno -> (level, probability).
"""

from __future__ import annotations

import math


def xinf(ranking, pool, depth=1000) -> tuple[float, float]:
    """(xinfAP, infNDCG) of one topic."""
    strata = sorted({c for c, _ in pool.values()})
    docs = {c: sum(1 for s, _ in pool.values() if s == c) for c in strata}
    sampled = {c: sum(1 for s, v in pool.values() if s == c and v >= 0) for c in strata}
    rel = {c: sum(1 for s, v in pool.values() if s == c and v > 0) for c in strata}
    r_hat = sum(rel[c] * docs[c] / sampled[c] for c in strata if sampled[c])
    seen_docs = dict.fromkeys(strata, 0)
    seen_sampled = dict.fromkeys(strata, 0)
    seen_rel = dict.fromkeys(strata, 0)
    sap = dict.fromkeys(strata, 0.0)
    gain = dict.fromkeys(strata, 0.0)
    pooled_above = 0
    for k, doc in enumerate(ranking[:depth], start=1):
        if doc not in pool:
            continue
        c, level = pool[doc]
        if level > 0:
            above = sum(seen_docs[s] / pooled_above * (seen_rel[s] + 1e-5)
                        / (seen_sampled[s] + 3e-5)
                        for s in strata if pooled_above and seen_docs[s])
            sap[c] += 1 / k + pooled_above / k * above
            seen_rel[c] += 1
            gain[c] += level / math.log2(k + 1)
        pooled_above += 1
        seen_docs[c] += 1
        if level >= 0:
            seen_sampled[c] += 1
    ap = 0.0
    if r_hat:
        ap = sum(rel[c] * docs[c] / sampled[c] / r_hat * sap[c] / rel[c]
                 for c in strata if sampled[c] and rel[c])
    # the ideal list: round(estimated count) documents per level, highest level first
    per_level: dict[int, float] = {}
    for c in strata:
        for s, v in pool.values():
            if s == c and v > 0:
                per_level[v] = per_level.get(v, 0.0) + docs[c] / sampled[c]
    ideal, start = 0.0, 0
    for level in sorted(per_level, reverse=True):
        n = int(per_level[level] + 0.5)
        r = start + 1
        while r <= start + n:
            ideal += level / math.log2(r + 1)
            if r >= depth:
                break
            r += 1
        start += n
    dcg = sum(seen_docs[c] / pooled_above * gain[c] / seen_sampled[c]
              for c in strata if pooled_above and seen_sampled[c])
    return ap, (pooled_above * dcg / ideal if ideal else 0.0)


def statap(ranking, sample) -> float | None:
    """None when no sampled document is relevant (the estimator is undefined)."""
    r_hat = sum(1 / p for level, p in sample.values() if level > 0)
    if r_hat == 0:
        return None
    total, above = 0.0, 0.0
    for r, doc in enumerate(ranking, start=1):
        level, p = sample.get(doc, (0, 1.0))
        if level > 0:
            total += (1 + above) / r / p
            above += 1 / p
    return total / r_hat


def pres(ranking, qrels, n_max, threshold=1) -> float:
    relevant = [d for d, v in qrels.items() if v >= threshold]
    n = len(relevant)
    if n == 0:
        return 0.0
    ranks = [r for r, d in enumerate(ranking[:n_max], start=1) if qrels.get(d, 0) >= threshold]
    found = len(ranks)
    ranks += [n_max + i for i in range(found + 1, n + 1)]   # the missing ones after N_max
    return 1 - (sum(ranks) / n - (n + 1) / 2) / n_max


def adm(scored, qrels) -> float:
    """`scored`: [(doc, score)] in rank order; URE = level / H."""
    top = max([v for v in qrels.values()] + [1])
    scores = [s for _, s in scored]
    lo, hi = (min(scores), max(scores)) if scores else (0.0, 0.0)
    sre = {d: (1.0 if hi == lo else (s - lo) / (hi - lo)) for d, s in scored}
    ure = {d: max(v, 0) / top for d, v in qrels.items() if v >= 0}
    universe = set(sre) | set(ure)
    if not universe:
        return 1.0
    return 1 - sum(abs(sre.get(d, 0.0) - ure.get(d, 0.0)) for d in universe) / len(universe)
