"""Slow, loop-for-loop reference implementations of the length-aware user-model metrics and of
bpref-10, written from the papers (not from the SQL) for the property tests:

* TBG, Smucker & Clarke SIGIR 2012 (Sakai, PROMISE 2014, eq 17-18);
* U-measure over a linear-traversal trailtext, Sakai & Dou SIGIR 2013 (Sakai, PROMISE 2014, eq 19-20,
  Fig 5 and the Fig 9 pseudocode), and its diversity forms D-U (global gains, eq 30) and U-IA
  (eq 31);
* bpref-10 as Baeza-Yates & Ribeiro-Neto, Modern Information Retrieval 2011 defines it.

A ranking is a list of docnos; qrels map docno -> level (negative = in the pool, unjudged);
lengths map docno -> length (absent = `missing_length`).
"""

from __future__ import annotations

import math


def tbg(ranking, qrels, words, *, threshold=1, t_s=4.4, half_life=224.0, p_click_rel=0.64,
        p_click_nonrel=0.39, gain=0.64 * 0.77, td_slope=0.018, td_intercept=7.8,
        missing_length=0.0):
    total, elapsed = 0.0, 0.0           # elapsed = T(r): time to reach rank r
    for doc in ranking:
        relevant = qrels.get(doc, -1) >= threshold
        if relevant:
            total += gain * math.exp(-elapsed * math.log(2) / half_life)
        p_click = p_click_rel if relevant else p_click_nonrel
        t_doc = td_slope * words.get(doc, missing_length) + td_intercept
        elapsed += t_s + p_click * t_doc
    return total


def reach_times(ranking, qrels, words, **params):
    """T(r) for r = 1..n (eq 18), for the worked example."""
    times, elapsed = [], 0.0
    for doc in ranking:
        times.append(elapsed)
        relevant = qrels.get(doc, -1) >= params.get("threshold", 1)
        p_click = params.get("p_click_rel", 0.64) if relevant else params.get("p_click_nonrel",
                                                                               0.39)
        length = words.get(doc, params.get("missing_length", 0.0))
        elapsed += params.get("t_s", 4.4) + p_click * (0.018 * length + 7.8)
    return times


def trailtext(ranking, is_read, chars, *, snippet=200.0, f=0.2, missing_length=0.0):
    """Linear traversal (Fig 5 b, Fig 9): the offset after each rank's strings; a rank's snippet
    is read, then F of the document when `is_read(doc)`."""
    pos, out = 0.0, []
    for doc in ranking:
        pos += snippet
        if is_read(doc):
            pos += f * chars.get(doc, missing_length)
        out.append(pos)
    return out


def _u_sum(ranking, gain_of, is_read, chars, *, snippet, f, l, missing_length):
    positions = trailtext(ranking, is_read, chars, snippet=snippet, f=f,
                          missing_length=missing_length)
    return sum(gain_of(doc) * max(0.0, 1.0 - pos / l)
               for doc, pos in zip(ranking, positions) if is_read(doc))


def u_gain(level, top):
    return (2.0 ** level - 1.0) / 2.0 ** top if level >= 1 else 0.0


def u_measure(ranking, qrels, chars, *, snippet=200.0, f=0.2, l=132000.0, norm=1.0,
              max_level=0, missing_length=0.0):
    top = max_level if max_level > 0 else max(qrels.values())
    total = _u_sum(ranking, lambda d: u_gain(qrels.get(d, 0), top),
                   lambda d: qrels.get(d, 0) >= 1, chars, snippet=snippet, f=f, l=l,
                   missing_length=missing_length)
    return total / norm


def d_u(ranking, intent_qrels, probs, chars, *, snippet=200.0, f=0.2, l=132000.0, norm=1.0,
        max_level=0, missing_length=0.0):
    """intent_qrels: {intent: {doc: level}}; probs: {intent: Pr(i|q)} over the intents with a
    relevant document. Global gain GG(d) = sum_i Pr(i|q) g_i(d); F of a document is read when
    it is relevant to some intent."""
    top = max_level if max_level > 0 else max(lv for q in intent_qrels.values()
                                              for lv in q.values())

    def gg(doc):
        return sum(p * u_gain(intent_qrels[i].get(doc, 0), top) for i, p in probs.items())

    def read(doc):
        return any(q.get(doc, 0) >= 1 for i, q in intent_qrels.items() if i in probs)
    return _u_sum(ranking, gg, read, chars, snippet=snippet, f=f, l=l,
                  missing_length=missing_length) / norm


def u_ia(ranking, intent_qrels, probs, chars, *, snippet=200.0, f=0.2, l=132000.0, norm=1.0,
         max_level=0, missing_length=0.0):
    """sum_i Pr(i|q) U_i, U_i on intent i's own trailtext (F of the documents relevant to i)."""
    top = max_level if max_level > 0 else max(lv for q in intent_qrels.values()
                                              for lv in q.values())
    total = 0.0
    for i, p in probs.items():
        q = intent_qrels[i]
        total += p * _u_sum(ranking, lambda d, q=q: u_gain(q.get(d, 0), top),
                            lambda d, q=q: q.get(d, 0) >= 1, chars, snippet=snippet, f=f,
                            l=l, missing_length=missing_length)
    return total / norm


def bpref_10(ranking, qrels, *, threshold=1):
    """Seed 003: (1/|R|) sum over relevant retrieved d of 1 - C10(d) / min(|R| + 10,
    |(J - R) ∩ A|), C10(d) = how many of the first |R| + 10 judged non-relevant retrieved
    documents rank above d."""
    num_rel = sum(1 for lv in qrels.values() if lv >= threshold)
    if num_rel == 0:
        return 0.0
    nonrel_ret = sum(1 for d in ranking if 0 <= qrels.get(d, -1) < threshold)
    first = min(num_rel + 10, nonrel_ret)
    total, above = 0.0, 0
    for doc in ranking:
        level = qrels.get(doc, -1)
        if level >= threshold:
            total += 1.0 if above == 0 else 1.0 - min(above, num_rel + 10) / first
        elif level >= 0:
            above += 1
    return total / num_rel
