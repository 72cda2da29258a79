"""The one grammar of measure names: how a name is written, before anything says what it means
(irwarehouse.measures.resolve does that, with the catalog's names).

    measure     = set | [ "gm:" ] [ "condensed:" ] [ "ntcir:" ] term [ "'" ]
    set         = "all_trec" | "official" | "ntcireval" | "ntcireval-j" | "runid"
    term        = trec-term | call-term
    trec-term   = word "." trec-params                      trec_eval: P.5,10  ndcg.1=3,2=7
                | word "_" number { "," number }            trec_eval's printed: P_10, P_5,10
                | word                                      map, P (its default cutoffs)
    trec-params = value { "," value }                       5,10   .10,.20   2,-1,0,0
                | level "=" value { "," level "=" value }   1=3,2=7  (gain per level)
                | key "=" value                             rbp.p=0.8
    call-term   = stem [ "(" kwargs ")" ] [ "@" cutoff ]    ir_measures, NTCIREVAL, ndeval:
                                                            nDCG@10  SetF(beta=1)  Q(beta=0.5)
                                                            Q@0010  alpha-nDCG(alpha=0.3)@20
    kwargs      = key "=" value { ("," | ";") key "=" value }
    cutoff      = digits | "k"                              @k: every cutoff of --cutoffs
    stem        = letter { letter | digit | "_" | "-" | "#" | "+" | "," }
    word        = letter-or-digit { letter | digit | "_" }

`condensed:M` or `M'` is M on the condensed list (unjudged documents dropped first; Sakai, SIGIR
2007). `gm:M` is M summarised by the geometric mean over topics, each value floored at 1e-5
first (trec_eval's gm_map; Robertson, CIKM 2006) instead of M's own summary. `ntcir:` reads
the term as NTCIREVAL's name. A catalog name that the grammar would split (`I-rec@n`) is read
whole. Several names may share one argument, separated by spaces (the
ir_measures habit: `-m "P@10 nDCG@10"`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import MeasureError

GEOMETRIC_PREFIX = "gm:"
CONDENSED_PREFIX = "condensed:"
CONDENSED_SUFFIX = "'"
NTCIR_PREFIX = "ntcir:"

_TREC_DOTTED = re.compile(r"^(\w+)\.(.*)$")
_TREC_PRINTED = re.compile(r"^(\w+?)_([0-9][0-9.]*(?:,[0-9][0-9.]*)*)$")
_CALL = re.compile(r"^([A-Za-z][\w#+,\-]*?)(?:\((.*)\))?(?:@([^@()]+))?$")


@dataclass(frozen=True)
class Name:
    """A measure name taken apart. `form` is how the term is written: "trec" (a word, maybe with
    `.params` or `_number`), or "call" (stem, maybe `(kwargs)` and `@cutoff`)."""
    text: str                       # the term as typed (no prefix, no prime)
    stem: str
    form: str                       # trec | call
    dotted: str | None = None       # trec: the text after '.'
    printed: str | None = None      # trec: the number after '_'
    kwargs: tuple[tuple[str, str], ...] | None = None    # call: (key, value) as typed
    cutoff: str | None = None       # call: the text after '@'
    ntcir: bool = False             # `ntcir:` prefix
    condensed: bool = False         # `condensed:` prefix or `'` suffix

    @property
    def has_cutoff(self) -> bool:
        return self.cutoff is not None


def split_list(raw: str) -> list[str]:
    """`-m map -m P.10` and the ir_measures habit of one space-separated string."""
    return [t for t in raw.split() if t]


def parse(text: str) -> Name:
    """Take a name apart (no lookup: what it means is resolve's business)."""
    condensed = False
    if text.startswith(CONDENSED_PREFIX):
        text, condensed = text[len(CONDENSED_PREFIX):], True
    elif text.endswith(CONDENSED_SUFFIX) and len(text) > 1:
        text, condensed = text[:-len(CONDENSED_SUFFIX)], True
    if condensed and (text.startswith(CONDENSED_PREFIX) or text.endswith(CONDENSED_SUFFIX)
                      or not text):
        raise MeasureError(f"{text!r}: expected one measure name after condensed: or before '")
    ntcir = text.startswith(NTCIR_PREFIX)
    if ntcir:
        text = text[len(NTCIR_PREFIX):]
    common = {"ntcir": ntcir, "condensed": condensed}
    m = _TREC_DOTTED.match(text)
    if m:
        if not m.group(2):
            raise MeasureError(f"{text}: empty parameter list")
        return Name(text, m.group(1), "trec", dotted=m.group(2), **common)
    if re.fullmatch(r"\w+", text) or _TREC_PRINTED.fullmatch(text):   # map; ndcg_cut_20,4
        return Name(text, text, "trec", **common)
    m = _CALL.match(text)
    if not m:
        raise MeasureError(f"{text!r} is not a measure name (see `irw measures`)")
    stem, args, cutoff = m.groups()
    return Name(text, stem, "call", kwargs=_kwargs(args, text) if args is not None else None,
                cutoff=cutoff, **common)


def printed_form(name: Name) -> Name | None:
    """The name read as trec_eval's printed name with a parameter (`P_10`,
    `iprec_at_recall_0.10`, which the `.` rule would split), for when it means nothing else."""
    m = _TREC_PRINTED.fullmatch(name.text) if name.form == "trec" else None
    if not m:
        return None
    return Name(name.text, m.group(1), "trec", printed=m.group(2), ntcir=name.ntcir,
                condensed=name.condensed)


def _split_top(args: str, sep: str) -> list[str]:
    """`args` split at `sep` outside braces, brackets and quotes (ir_measures' Python-like
    `gains={0:0,1:1},dcg='exp-log2'`)."""
    parts, depth, quote, current = [], 0, None, []
    for ch in args:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    return parts


def _kwargs(args: str, text: str) -> tuple[tuple[str, str], ...]:
    """`key=value` pairs separated by `,` (or `;`, when a value is itself a list: NTCIREVAL's
    `gains=1:2;beta=0.5`); a quoted value is unquoted (`dcg='exp-log2'`)."""
    out = []
    for part in filter(None, (p.strip() for p in _split_top(args, ";" if ";" in args else ","))):
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise MeasureError(f"{text}: expected name=value parameters")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        out.append((key.strip(), value))
    return tuple(out)
