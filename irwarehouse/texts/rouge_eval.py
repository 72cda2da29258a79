"""Running a ROUGE-1.5.5 evaluation: every peer of a configuration against its models, the
averages with ROUGE's bootstrap confidence intervals, and ROUGE's output layout.

ROUGE-1.5.5's "Average" is not the plain mean of the per-evaluation scores: it is the mean of
the bootstrap sample means. Resample i (i = 0 .. r-1) seeds Perl's generator with srand(i) and
draws `int(rand(n))` n times; Perl (5.20 and later, on every platform) draws with its own
drand48: x <- (0x5DEECE66D x + 0xB) mod 2^48, rand(n) = n x / 2^48, srand(s) sets
x = (s << 16) + 0x330E. That generator is reproduced here, so `irw rouge` prints the same
averages and intervals as ROUGE-1.5.5.pl for any -r and -c. The interval interpolates the
sorted sample means at r(100-c)/200 from either end, with ROUGE's own interpolation weight
(taken from the upper index for both bounds).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .rouge import (
    EvalScore,
    combine,
    fmt5,
    gram_pair,
    lcs_pair,
    ngram_counts,
    skip_bigram_counts,
    wlcs_pair,
)
from .rouge_config import Config, Evaluation
from .rougetext import TokenOptions, read_sentences, sentence_tokens, truncate

_MASK48 = (1 << 48) - 1


class PerlRand:
    """Perl's rand/srand (its internal drand48, the same on every platform since 5.20)."""

    def __init__(self, seed: int):
        self.state = ((seed & 0xFFFFFFFF) << 16) + 0x330E

    def rand(self, n: float) -> float:
        self.state = (0x5DEECE66D * self.state + 0xB) & _MASK48
        return n * (self.state / 2.0 ** 48)


@dataclass(frozen=True)
class RougeOptions:
    """ROUGE-1.5.5's options (the raw strings are kept where ROUGE prints them)."""
    max_n: int | None = None            # -n
    lcs: bool = True                    # not -x
    wlcs_weight: str | None = None      # -w, as given (printed in ROUGE-W-<w>)
    skip: str | None = None             # -2, as given (printed in ROUGE-S<skip>)
    unigrams: bool = False              # -u
    both_skip: bool = False             # -U
    formula: str = "A"                  # -f
    alpha: float = 0.5                  # -p
    word_limit: int = 0                 # -l
    byte_limit: int = 0                 # -b
    stem: bool = False                  # -m
    stopwords: bool = False             # -s
    average: int = 0                    # -t 0|1|2
    confidence: str = "95"              # -c, as given
    resamples: int = 1000               # -r
    per_eval: bool = False              # -d

    @property
    def tokens(self) -> TokenOptions:
        return TokenOptions(stem=self.stem, stopwords=self.stopwords)


@dataclass
class MethodResult:
    """One ROUGE method (e.g. ROUGE-SU4) of one peer: per-evaluation values keyed
    `evalID.peerID` (R, P, F strings with -t 0; model, peer and hit counts otherwise)."""
    peer: str
    tag: str
    scores: dict[str, tuple] = field(default_factory=dict)


@dataclass
class _Texts:
    """Token caches: one file is read and tokenised once per run."""
    options: RougeOptions
    cache: dict = field(default_factory=dict)

    def sentences(self, path: Path, fmt: str) -> list[list[str]]:
        key = (str(path), fmt)
        if key not in self.cache:
            raw = truncate(read_sentences(path, fmt), self.options.word_limit,
                           self.options.byte_limit)
            self.cache[key] = sentence_tokens(raw, self.options.tokens)
        return self.cache[key]


def _scorer(kind: str, options: RougeOptions, n: int = 1, unigrams: bool = False):
    """A function (model sentences list, peer sentences) -> EvalScore for one method."""
    alpha, formula = options.alpha, options.formula

    def flat(sentences):
        return [t for s in sentences for t in s]

    if kind == "N":
        def score(models, peer):
            peer_grams = ngram_counts(flat(peer), n)
            pairs = [gram_pair(ngram_counts(flat(m), n), peer_grams) for m in models]
            return combine(pairs, formula, alpha)
    elif kind == "S":
        gap = float(options.skip)

        def score(models, peer):
            peer_grams = skip_bigram_counts(flat(peer), gap, unigrams)
            pairs = [gram_pair(skip_bigram_counts(flat(m), gap, unigrams), peer_grams)
                     for m in models]
            return combine(pairs, formula, alpha)
    elif kind == "L":
        def score(models, peer):
            return combine([lcs_pair(m, peer) for m in models], formula, alpha)
    else:
        weight = float(options.wlcs_weight)

        def score(models, peer):
            return combine([wlcs_pair(m, peer, weight) for m in models], formula, alpha,
                           root=weight)
    return score


def methods(options: RougeOptions) -> Iterator[tuple[str, Callable]]:
    """The methods ROUGE-1.5.5 runs for each peer, in its order, with their printed tags."""
    if options.max_n:
        for n in range(1, options.max_n + 1):
            yield f"ROUGE-{n}", _scorer("N", options, n)
    if options.lcs:
        yield "ROUGE-L", _scorer("L", options)
    if options.wlcs_weight is not None:
        yield f"ROUGE-W-{options.wlcs_weight}", _scorer("W", options)
    if options.skip is not None:
        gap = options.skip if float(options.skip) >= 0 else "*"
        plain, with_unigrams = _scorer("S", options), _scorer("S", options, unigrams=True)
        if options.unigrams:
            yield f"ROUGE-SU{gap}", with_unigrams
        else:
            yield f"ROUGE-S{gap}", plain
            if options.both_skip:
                yield f"ROUGE-SU{gap}", with_unigrams


def evaluate(config: Config, options: RougeOptions, peer_ids: list[str],
             warn: Callable[[str], None] | None = None) -> list[MethodResult]:
    """Every method for every peer, in ROUGE's order (peer by peer)."""
    warn = warn or (lambda msg: print(msg, file=sys.stderr))
    texts = _Texts(options)
    warned: set = set()
    results = []
    for peer_id in peer_ids:
        for tag, score in methods(options):
            result = MethodResult(peer_id, tag)
            for ev in config.evaluations:
                if peer_id not in ev.peers:
                    if (ev.eval_id, peer_id) not in warned:
                        warned.add((ev.eval_id, peer_id))
                        warn(f"*ROUGE Warning: test instance for peer {peer_id} does not "
                             f"exist for evaluation {ev.eval_id}")
                    continue
                fmt = _input_format(config, ev)
                models = [texts.sentences(p, fmt) for p in config.model_paths(ev)]
                peer = texts.sentences(config.peer_path(ev, peer_id), fmt)
                result.scores[f"{ev.eval_id}.{peer_id}"] = _record(score(models, peer), options)
            results.append(result)
    return results


def _input_format(config: Config, ev: Evaluation) -> str:
    from ..errors import InputError
    fmt = (ev.input_format or "").upper()
    if fmt not in ("SPL", "SEE", "ISI"):
        raise InputError(config.path, ev.line, f"evaluation {ev.eval_id}: input format "
                         f"{ev.input_format or '(none)'} cannot be scored as text "
                         "(SPL, SEE or ISI; SIMPLE is for Basic Elements, -3)")
    return fmt


def _record(score: EvalScore, options: RougeOptions) -> tuple:
    if options.average == 0:
        return (score.recall, score.precision, score.f)
    return (score.model_count, score.peer_count, score.hit)


@dataclass(frozen=True)
class Averages:
    recall: str
    precision: str
    f: str
    ci: tuple[str, str, str, str, str, str]   # low/high of R, P, F
    counts: tuple[float, float, float]         # sums (printed with -t 2)


def _bootstrap_sample(values: list[tuple[float, float, float]], seed: int, average: int,
                      alpha: float) -> tuple[float, float, float]:
    n = len(values)
    rng = PerlRand(seed)
    sums = [0.0, 0.0, 0.0]
    for _ in range(n):
        row = values[int(rng.rand(n))]
        sums = [sums[0] + row[0], sums[1] + row[1], sums[2] + row[2]]
    if average == 0:
        return tuple(s / n for s in sums) if n else (0.0, 0.0, 0.0)
    model, peer, hit = sums
    r = hit / model if model > 0 else 0.0
    p = hit / peer if peer > 0 else 0.0
    denominator = (1 - alpha) * p + alpha * r
    return r, p, (r * p / denominator if denominator > 0 else 0.0)


def averages(scores: dict[str, tuple], options: RougeOptions) -> Averages:
    """computeAverages of ROUGE-1.5.5: bootstrap means and confidence intervals."""
    keys = sorted(scores)
    values = [tuple(float(x) for x in scores[k]) for k in keys]
    counts = tuple(sum(v[i] for v in values) for i in range(3))
    if options.average == 2:
        return Averages("", "", "", ("",) * 6, counts)
    samples = [_bootstrap_sample(values, i, options.average, options.alpha)
               for i in range(options.resamples)]
    r_count = options.resamples
    delta = r_count * ((100 - float(options.confidence)) / 2.0) / 100.0
    upper_a = int(r_count - delta - 1)
    lower_a = int(delta)
    weight = r_count - delta - 1 - upper_a
    means, bounds = [], []
    for column in range(3):
        ranked = sorted(s[column] for s in samples)
        total = 0.0
        for x in ranked:
            total += x
        means.append(fmt5(total / len(ranked)))

        low = _at(ranked, lower_a) + (_at(ranked, lower_a + 1) - _at(ranked, lower_a)) * weight
        high = _at(ranked, upper_a) + (_at(ranked, upper_a + 1) - _at(ranked, upper_a)) * weight
        bounds += [fmt5(low), fmt5(high)]
    return Averages(means[0], means[1], means[2], tuple(bounds), counts)


def _at(ranked: list[float], i: int) -> float:
    """Perl's $array[i]: an index past the end is undef (0), a negative one counts from the end."""
    return ranked[i] if -len(ranked) <= i < len(ranked) else 0.0


def _eval_sort_key(key: str):
    """ROUGE's by_evalID: leading numbers compare as numbers (when both have one), else
    strings; ties (which Perl leaves to hash order) fall back to the string."""
    digits = len(key) - len(key.lstrip("0123456789"))
    return (int(key[:digits]) if digits else None, key)


def _sorted_eval_keys(keys) -> list[str]:
    from functools import cmp_to_key

    def cmp(a: str, b: str) -> int:
        ka, kb = _eval_sort_key(a), _eval_sort_key(b)
        if ka[0] is not None and kb[0] is not None and ka[0] != kb[0]:
            return -1 if ka[0] < kb[0] else 1
        return (a > b) - (a < b)
    return sorted(keys, key=cmp_to_key(cmp))


def perl_number(x: float) -> str:
    """How Perl prints a number: integers plainly, others with 15 significant digits."""
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return format(x, ".15g")


def format_result(result: MethodResult, options: RougeOptions) -> str:
    """printResults of ROUGE-1.5.5 for one peer and method."""
    avg = averages(result.scores, options)
    head = f"{result.peer} {result.tag}"
    lines = ["---------------------------------------------"]
    if options.average in (0, 1):
        c = options.confidence
        for name, mean, low, high in (("R", avg.recall, avg.ci[0], avg.ci[1]),
                                      ("P", avg.precision, avg.ci[2], avg.ci[3]),
                                      ("F", avg.f, avg.ci[4], avg.ci[5])):
            lines.append(f"{head} Average_{name}: {mean} ({c}%-conf.int. {low} - {high})")
    else:
        m, p, h = (int(x) for x in avg.counts)
        lines.append(f"{head} M_count: {m} P_count: {p} H_count: {h}")
    if options.per_eval:
        lines.append(".............................................")
        for key in _sorted_eval_keys(result.scores):
            r, p, f = result.scores[key]
            if options.average:
                r, p, f = perl_number(r), perl_number(p), perl_number(f)
            lines.append(f"{head} Eval {key} R:{r} P:{p} F:{f}")
    return "\n".join(lines) + "\n"
