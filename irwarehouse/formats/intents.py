"""Intent probabilities and types: NTCIREVAL's `.Iprob` (`topic intent prob`) and `.DINprob`
(`topic intent prob inf|nav`) files, and the same as whitespace- or tab-separated text with an
optional header line. A line `topic intent inf|nav` gives a type without a probability (uniform
probabilities then apply to the topic). Blank lines and `#` comments are skipped. Also the
order of a topic's intents and the probability schemes given to intents without a file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError, MeasureError
from ..failures import shown
from .numbers import number_problem
from .trec import field_lines

TYPES = ("inf", "nav")
TYPE_ALIASES = {"inf": "inf", "informational": "inf", "nav": "nav", "navigational": "nav"}
SUM_TOLERANCE = 1e-3       # NTCIREVAL files print 4 decimals (0.5714 + 0.2857 + 0.1429)


@dataclass(frozen=True)
class IntentRow:
    topic: str
    intent: str
    probability: float | None
    intent_type: str | None
    line: int


def _is_header(fields: list[str]) -> bool:
    return fields[:2] in (["topic", "intent"], ["qid", "intent"], ["topic", "subtopic"])


def read_intents(path: Path, *, normalise: bool = False) -> list[IntentRow]:
    """Parse an intent file; probabilities of a topic must sum to 1 (within 1e-3) unless
    `normalise`, which rescales them."""
    path = Path(path)
    rows: list[IntentRow] = []
    seen: dict[tuple[str, str], int] = {}
    for lineno, fields in field_lines(path):
        if not rows and _is_header(fields):
            continue
        if not 3 <= len(fields) <= 4:
            raise InputError(path, lineno, "expected 3 or 4 fields (topic intent "
                             f"probability [inf|nav]), found {len(fields)}")
        topic, intent = fields[0], fields[1]
        prob, kind = None, None
        rest = fields[2:]
        if len(rest) == 1 and rest[0].lower() in TYPE_ALIASES:
            kind = TYPE_ALIASES[rest[0].lower()]
        else:
            problem = number_problem(rest[0], "probability")
            if problem:
                raise InputError(path, lineno, problem)
            prob = float(rest[0])
            if not 0.0 <= prob <= 1.0:
                raise InputError(path, lineno, f"probability {shown(rest[0])} is not in [0, 1]")
            if len(rest) == 2:
                if rest[1].lower() not in TYPE_ALIASES:
                    raise InputError(path, lineno, f"intent type {shown(rest[1])} is not inf "
                                     "or nav")
                kind = TYPE_ALIASES[rest[1].lower()]
        if (topic, intent) in seen:
            raise InputError(path, lineno, f"intent {shown(intent)} of topic {shown(topic)} "
                             f"appears twice (first at line {seen[(topic, intent)]})")
        seen[(topic, intent)] = lineno
        rows.append(IntentRow(topic, intent, prob, kind, lineno))
    if not rows:
        raise InputError(path, None, "no intents (empty file)")
    return _check_sums(path, rows, normalise)


def _check_sums(path: Path, rows: list[IntentRow], normalise: bool) -> list[IntentRow]:
    totals: dict[str, float] = {}
    some: dict[str, bool] = {}
    for r in rows:
        some[r.topic] = some.get(r.topic, False) or r.probability is not None
        totals[r.topic] = totals.get(r.topic, 0.0) + (r.probability or 0.0)
    for r in rows:
        if some[r.topic] and r.probability is None:
            raise InputError(path, r.line, f"topic {r.topic!r} gives probabilities to some "
                             "intents but not to this one")
    out = []
    for r in rows:
        total = totals[r.topic]
        if some[r.topic] and abs(total - 1.0) > SUM_TOLERANCE:
            if not normalise or total <= 0:
                first = next(x.line for x in rows if x.topic == r.topic)
                raise InputError(path, first, f"probabilities of topic {r.topic!r} sum to "
                                 f"{total:.4f}, not 1 (use --normalise to rescale them)")
            r = IntentRow(r.topic, r.intent, r.probability / total, r.intent_type, r.line)
        out.append(r)
    return out


def intent_key(intent: str):
    """ndeval's subtopic order: subtopics are numbers (array indices), summed in ascending order."""
    return (0, int(intent), "") if intent.isdigit() else (1, 0, intent)


# "seed001" is the name the scheme had first; kept so that earlier commands keep working
SCHEMES = ("uniform", "sakai2013", "seed001")


def scheme_probabilities(intents: list[str], scheme: str) -> dict[str, float]:
    """Pr(i|q) for a topic's intents (in NTCIREVAL's order: numbers ascending, then names):
    uniform 1/n, or the non-uniform 2^(n-j+1) / sum_{k=1..n} 2^k for the j-th intent of
    Sakai (IPSJ Journal of Information Processing 2013, Table 1)."""
    ordered = sorted(intents, key=intent_key)
    n = len(ordered)
    if scheme == "uniform":
        return {i: 1.0 / n for i in ordered}
    if scheme in ("sakai2013", "seed001"):
        total = sum(2.0 ** k for k in range(1, n + 1))
        return {i: 2.0 ** (n - j + 1) / total for j, i in enumerate(ordered, start=1)}
    raise MeasureError(f"unknown probability scheme {scheme!r}; use one of {', '.join(SCHEMES)}")


def read_topic_alphas(path: Path) -> dict[str, float]:
    """Per-topic novelty parameters of alpha-nDCG-Pr (Leelanupab, Zuccon & Jose, ICTIR 2011 set
    alpha on a query basis): `topic alpha` lines, alpha in [0, 1]; blank lines and `#` comments
    skipped. A bad line is one error naming the file and the line."""
    path = Path(path)
    out: dict[str, float] = {}
    first: dict[str, int] = {}
    for lineno, fields in field_lines(path):
        if len(fields) != 2:
            raise InputError(path, lineno, f"expected 2 fields (topic alpha), found {len(fields)}")
        topic, text = fields
        problem = number_problem(text, "alpha")
        if problem:
            raise InputError(path, lineno, problem)
        if not 0.0 <= float(text) <= 1.0:
            raise InputError(path, lineno, f"alpha {shown(text)} is not in [0, 1]")
        if topic in first:
            raise InputError(path, lineno, f"topic {shown(topic)} appears twice (first at line "
                             f"{first[topic]})")
        first[topic] = lineno
        out[topic] = float(text)
    if not out:
        raise InputError(path, None, "no topics (empty file)")
    return out
