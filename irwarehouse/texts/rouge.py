"""ROUGE-N, -L, -W, -S and -SU of one peer summary against its models, as ROUGE-1.5.5.pl
computes them (Lin 2004, "ROUGE: A package for automatic evaluation of summaries", ACL 2004
Workshop on Text Summarization Branches Out).

This module is the faithful port (and the slow oracle of the SQL macros in sql/texts/): every
count, tie-break and rounding follows the Perl script. The quirks kept on purpose:
- scores are rounded to 5 decimals (`%7.5f`) and F is formed from the rounded R and P;
- formula A sums clipped hits and counts over the models (the peer count once per model);
  formula B keeps the model whose 5-decimal recall is highest (the first one on ties);
- ROUGE-N joins the sentences, so n-grams cross sentence boundaries; LCS works per sentence:
  the union LCS of each model sentence with every peer sentence, clipped by unigram counts;
- ROUGE-W weights a run of k consecutive LCS hits k^w, divides by (sum of model sentence
  lengths^w)^w and by (peer length)^w, and takes the w-th root (the double weighting of the
  model length is ROUGE's own);
- with -u the unigram of the last token is not counted (ROUGE's loop stops one early).
Python loops stand in for SQL here because the LCS back-trace and the clipping are sequential.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass


def fmt5(x: float) -> str:
    """Perl's sprintf("%7.5f"): the string ROUGE stores and prints."""
    return format(x, "7.5f")


@dataclass(frozen=True)
class PairScore:
    """One model's contribution: clipped hits, model count, peer count, and the recall used
    by formula B to pick the best model."""
    hit: float
    model_count: float
    peer_count: float
    best_key: float


@dataclass(frozen=True)
class EvalScore:
    """ROUGE's @results of one evaluation: totals and the 5-decimal R, P, F strings."""
    model_count: float
    hit: float
    peer_count: float
    recall: str
    precision: str
    f: str


def ngram_counts(tokens: list[str], n: int) -> tuple[Counter, int]:
    """createNGram: the n-grams of the joined tokens and their number."""
    grams = Counter(" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
    return grams, max(0, len(tokens) - n + 1)


def skip_bigram_counts(tokens: list[str], max_gap: float, unigrams: bool) -> tuple[Counter, int]:
    """createSkipBigram: ordered pairs at most max_gap words apart (max_gap < 0: any gap);
    with unigrams, every token but the last also counts on its own."""
    grams: Counter = Counter()
    for i in range(len(tokens) - 1):
        if unigrams:
            grams[tokens[i]] += 1
        last = len(tokens) - 1
        if max_gap >= 0:    # ROUGE: j <= i + max_gap + 1 (a fractional gap rounds down)
            last = min(last, math.floor(i + max_gap + 1))
        for j in range(i + 1, last + 1):
            grams[tokens[i] + " " + tokens[j]] += 1
    return grams, sum(grams.values())


def clipped_hits(model: Counter, peer: Counter) -> int:
    return sum(min(count, peer[gram]) for gram, count in model.items() if gram in peer)


def _recall_key(hit: float, count: float) -> float:
    """The score formula B compares: sprintf("%07.5f") of the recall, 0 without model grams."""
    return float(format(hit / count, "07.5f")) if count else 0.0


def gram_pair(model_grams: tuple[Counter, int], peer_grams: tuple[Counter, int]) -> PairScore:
    hit = clipped_hits(model_grams[0], peer_grams[0])
    return PairScore(hit, model_grams[1], peer_grams[1], _recall_key(hit, model_grams[1]))


def _lcs_directions(model: list[str], peer: list[str], weight: float | None) -> list[list[str]]:
    """ROUGE's DP table of moves ('d' diagonal, 'u' up, 'l' left) for LCS (weight None) or
    WLCS: c[i][j] += f(k+1) - f(k) for a run of k consecutive matches, f(k) = k^weight."""
    m, n = len(model), len(peer)
    c = [[0.0] * (n + 1) for _ in range(m + 1)]
    run = [[0] * (n + 1) for _ in range(m + 1)]
    move = [[""] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            if model[i - 1] == peer[j - 1]:
                k = run[i - 1][j - 1]
                if weight is None:
                    c[i][j] = c[i - 1][j - 1] + 1
                else:   # Perl evaluates c + f(k+1) - f(k) left to right
                    c[i][j] = c[i - 1][j - 1] + (k + 1) ** weight - k ** weight
                run[i][j] = k + 1
                move[i][j] = "d"
            elif c[i - 1][j] >= c[i][j - 1]:
                c[i][j], move[i][j] = c[i - 1][j], "u"
            else:
                c[i][j], move[i][j] = c[i][j - 1], "l"
    return move


def _mark_lcs(hit_mask: list[int], model: list[str], peer: list[str], weight) -> None:
    """markLCS: walk back from the corner, marking the model positions on the LCS."""
    if not model:
        return
    move = _lcs_directions(model, peer, weight)
    i, j = len(model), len(peer)
    while i and j:
        step = move[i][j]
        if step == "d":
            i, j = i - 1, j - 1
            hit_mask[i] = 1
        elif step == "u":
            i -= 1
        else:
            j -= 1


def _union_lcs_hits(model_sentence, peer_sentences, weight, model_left, peer_left):
    """The clipped union-LCS hits of one model sentence: a marked token counts while both its
    model and peer unigram budgets last. Returns the hit positions (True/False per token)."""
    hit_mask = [0] * len(model_sentence)
    for peer_sentence in peer_sentences:
        _mark_lcs(hit_mask, model_sentence, peer_sentence, weight)
    counted = []
    for j, token in enumerate(model_sentence):
        ok = hit_mask[j] == 1 and model_left.get(token, 0) > 0 and peer_left.get(token, 0) > 0
        if ok:
            model_left[token] -= 1
            peer_left[token] -= 1
        counted.append((hit_mask[j] == 1, ok))
    return counted


def lcs_pair(model: list[list[str]], peer: list[list[str]]) -> PairScore:
    """ROUGE-L of one model (lcs): union-LCS hits over model sentences, clipped."""
    peer_flat = [t for s in peer for t in s]
    model_left = Counter(t for s in model for t in s)
    peer_left = Counter(peer_flat)
    hit = base = 0
    for sentence in model:
        base += len(sentence)
        hit += sum(ok for _, ok in _union_lcs_hits(sentence, peer, None, model_left, peer_left))
    return PairScore(hit, base, len(peer_flat), hit / base if base else 0.0)


def wlcs_pair(model: list[list[str]], peer: list[list[str]], weight: float) -> PairScore:
    """ROUGE-W of one model (wlcs + computeWLCSScore's weighting of the totals)."""
    peer_flat = [t for s in peer for t in s]
    model_left = Counter(t for s in model for t in s)
    peer_left = Counter(peer_flat)
    hit = base = 0.0
    for sentence in model:
        base += len(sentence) ** weight
        counted = _union_lcs_hits(sentence, peer, weight, model_left, peer_left)
        run = 0
        for j, (_, ok) in enumerate(counted):
            if not ok:
                continue      # a marked but clipped token neither extends nor ends a run
            run += 1
            if j + 1 == len(counted) or not counted[j + 1][0]:
                hit += run ** weight
                run = 0
    key = (hit / base) ** (1 / weight) if base else 0.0
    return PairScore(hit, base ** weight, len(peer_flat) ** weight, key)


def combine(pairs: list[PairScore], formula: str, alpha: float,
            root: float | None = None) -> EvalScore:
    """Formula A (sum over models) or B (best model), then ROUGE's 5-decimal R, P and F;
    root = the ROUGE-W weight (R and P are the weight-th roots of the ratios)."""
    if formula == "B":
        best, best_key = None, -1.0
        for pair in pairs:
            if pair.best_key > best_key:
                best, best_key = pair, pair.best_key
        chosen = [best] if best else []
    else:
        chosen = pairs
    hit = sum(p.hit for p in chosen)
    count = sum(p.model_count for p in chosen)
    peer = sum(p.peer_count for p in chosen)

    def ratio(total: float) -> str:
        if not total:
            return fmt5(0)
        r = hit / total
        return fmt5(r ** (1 / root) if root else r)

    recall, precision = ratio(count), ratio(peer)
    r, p = float(recall), float(precision)
    denominator = (1 - alpha) * p + alpha * r
    f = fmt5(p * r / denominator) if denominator > 0 else fmt5(0)
    return EvalScore(count, hit, peer, recall, precision, f)
