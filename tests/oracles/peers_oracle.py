"""Slow, loop-for-loop oracles of the measures irw took from its peers (sql/metrics/gdeval.sql,
irmeasures.sql, ndcg_gains.sql, ranx.sql, cwl.sql, trectools.sql), written from the tools'
definitions (gdeval.pl, ir_measures' providers, ranx.metrics, cwl_eval's ruler.measures,
trectools' TrecEval), independent of the SQL.

A topic is `qrels` {doc: level} (negative = unjudged) and `ranked`, the list as [(doc, score)]
in evaluation order (score descending, docno descending)."""

from __future__ import annotations

import math


def rank(run: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """trec_eval's order: score descending, then docno descending."""
    return sorted(run, key=lambda x: (x[1], x[0]), reverse=True)


def levels(qrels, ranked):
    return [qrels.get(d) for d, _ in ranked]


# ------------------------------------------------------------------------------------- gdeval

def gdeval_err(qrels, ranked, k, max_judgment=4):
    if not any(v > 0 for v in qrels.values()):
        return None
    score, decay = 0.0, 1.0
    for i, lv in enumerate(levels(qrels, ranked)[:k]):
        g = lv if lv and lv > 0 else 0
        r = (2 ** g - 1) / 2 ** max_judgment
        score += r * decay / (i + 1)
        decay *= 1 - r
    return score


def _dcg(gains, k):
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains[:k]))


def gdeval_ndcg(qrels, ranked, k):
    if not any(v > 0 for v in qrels.values()):
        return None
    gains = [2 ** lv - 1 if lv and lv > 0 else 0 for lv in levels(qrels, ranked)]
    ideal = sorted((2 ** v - 1 for v in qrels.values() if v > 0), reverse=True)
    return _dcg(gains, k) / _dcg(ideal, k)


# -------------------------------------------------------------------------------- ir_measures

def _top(ranked, k):
    return ranked if k == 0 else ranked[:k]


def judged(qrels, ranked, k):
    top = _top(ranked, k)
    return sum(1 for d, _ in top if qrels.get(d, -1) >= 0) / len(top) if top else 0.0


def recip_rank_cut(qrels, ranked, k, threshold=1):
    for i, (d, _) in enumerate(_top(ranked, k)):
        if qrels.get(d, -1) >= threshold:
            return 1 / (i + 1)
    return 0.0


def accuracy(qrels, ranked, k, threshold=1):
    top = _top(ranked, k)
    rel = [qrels.get(d, -1) >= threshold for d, _ in top]
    pairs = ordered = 0
    for i, a in enumerate(rel):
        for j, b in enumerate(rel):
            if a and not b:
                pairs += 1
                ordered += i < j
    if not any(rel):
        return None
    return ordered / pairs if pairs else 1.0


def compat(qrels, ranked, p, normalize, threshold=1):
    ranking = [d for d, _ in ranked]
    position = {d: i for i, d in enumerate(ranking)}
    relevant = [d for d, v in qrels.items() if v >= threshold]
    # ideal: level descending; equal levels in the list's order, the unretrieved after them
    ideal = sorted(relevant, key=lambda d: (-qrels[d], position.get(d, len(ranking)), d))
    depth = max(len(ranking), len(ideal))

    def rbo(a, b):
        if depth == 0:
            return 0.0
        score = weight = 0.0
        for i in range(depth):
            score += p ** i * len(set(a[:i + 1]) & set(b[:i + 1])) / (i + 1)
            weight += p ** i
        return score / weight

    value = rbo(ranking, ideal)
    if normalize:
        best = rbo(ideal, ideal)
        if best > 0:
            value = value / best
    return value


def ndcg_cut_gains(qrels, ranked, k, gains):
    def gain(lv):
        return gains.get(lv, float(lv)) if lv is not None and lv >= 0 else 0.0
    ideal = sorted((g for g in map(gain, qrels.values()) if g > 0), reverse=True)
    idcg = _dcg(ideal, k)
    return _dcg([gain(lv) for lv in levels(qrels, ranked)], k) / idcg if idcg > 0 else 0.0


# --------------------------------------------------------------------------------------- ranx

def _ranx_gains(qrels, ranked, k, threshold, exponential):
    out = []
    for lv in levels(qrels, _top(ranked, k)):
        rel = lv is not None and lv >= threshold
        out.append((2 ** lv - 1 if exponential else lv) if rel else 0)
    return out


def dcg(qrels, ranked, k, threshold=1, exponential=False):
    gains = _ranx_gains(qrels, ranked, k, threshold, exponential)
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def ndcg_burges(qrels, ranked, k, threshold=1):
    ideal = sorted((v for v in qrels.values() if v >= threshold), reverse=True)
    ideal = ideal if k == 0 else ideal[:k]
    idcg = sum((2 ** v - 1) / math.log2(i + 2) for i, v in enumerate(ideal))
    return dcg(qrels, ranked, k, threshold, True) / idcg if idcg > 0 else 0.0


def hits(qrels, ranked, k, threshold=1):
    return sum(1 for lv in levels(qrels, _top(ranked, k)) if lv is not None and lv >= threshold)


def f1(qrels, ranked, k, threshold=1):
    n = hits(qrels, ranked, k, threshold)
    looked_at = k or len(ranked)
    num_rel = sum(1 for v in qrels.values() if v >= threshold)
    if n == 0:
        return 0.0
    precision, recall = n / looked_at, n / num_rel
    return 2 * precision * recall / (precision + recall)


# ---------------------------------------------------------------------------------------- C/W/L

def cwl(kind, qrels, ranked, *, T=1.0, k=10, p=0.9, min_rel=0, max_rel=1, depth=1000):
    """cwl_eval's (EU, ETU, EC, ETC, ED) with unit costs, gains scaled as ir_measures feeds it."""
    gains = []
    for lv in levels(qrels, ranked)[:depth]:
        lv = max(lv, 0) if lv is not None else None
        gains.append(0.0 if lv is None
                     else (min(max(lv, min_rel), max_rel) - min_rel) / (max_rel - min_rel))
    gains += [0.0] * (depth - len(gains))
    cont, cum = [], 0.0
    for i, g in enumerate(gains, start=1):
        cum += g
        cont.append({
            "P": 1.0 if i < k else 0.0,
            "RR": 0.0 if cum > 0 else 1.0,
            "RBP": p,
            "INST": ((i + 2 * T - cum - 1) / (i + 2 * T - cum)) ** 2,
            "INSQ": ((i + 2 * T - 1) / (i + 2 * T)) ** 2,
            "BPM": 1.0 if cum < T and i < k else 0.0,
            "SDCG": math.log2(i + 1) / math.log2(i + 2) if i < k else 0.0,
            "NERR8": 1 - g if i < k else 0.0,
            "NERR9": i / (i + 1) * (1 - g) if i < k else 0.0,
            "NERR10": p * (1 - g),
            "NERR11": ((i + 2 * T - 1) / (i + 2 * T)) ** 2 * (1 - g),
        }[kind])
    reach, r = [], 1.0
    for c in cont:
        reach.append(r)
        r *= c
    ed = sum(reach)
    eu = sum(w * g for w, g in zip(reach, gains)) / ed
    etu = etc = cum = 0.0
    for i, (w, c, g) in enumerate(zip(reach, cont, gains), start=1):
        cum += g
        etu += w * (1 - c) * cum
        etc += w * (1 - c) * i
    return eu, etu, 1.0, etc, ed


# ------------------------------------------------------------------------------------ trectools

def _weights(ranked, p, depth, ties):
    top = ranked[:depth]
    weights = [(1 - p) * p ** i for i in range(len(top))]
    if ties:
        i = 0
        while i < len(top):
            j = i
            while j + 1 < len(top) and top[j + 1][1] == top[i][1]:
                j += 1
            mean = sum(weights[i:j + 1]) / (j + 1 - i)
            weights[i:j + 1] = [mean] * (j + 1 - i)
            i = j + 1
    return top, weights


def trectools_rbp(qrels, ranked, p, depth, graded, ties, other=None, utility=None,
                  threshold=1):
    top, weights = _weights(ranked, p, depth, ties)
    total = 0.0
    for (d, _), w in zip(top, weights):
        lv = qrels.get(d)
        if lv is None or lv < threshold:
            continue
        factor = 1.0
        if other is not None:
            if d not in other:
                continue
            factor = utility(other[d])
        total += w * (lv if graded else 1) * factor
    return total


def trectools_rbp_resid(qrels, ranked, p, depth, ties):
    top, weights = _weights(ranked, p, depth, ties)
    unjudged = sum(w for (d, _), w in zip(top, weights) if qrels.get(d, -1) < 0)
    return unjudged + p ** depth
