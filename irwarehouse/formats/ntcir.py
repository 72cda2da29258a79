"""NTCIREVAL's files as irw reads them: per-topic `.rel` and `.res` files of its scripts, and
the per-topic `.nev` output of `ntcir_eval compute -out <topic>` (the golden files the tests
compare with; irwarehouse.writers.ntcireval writes them). NTCIR qrels (`topic doc Lx`) are read
by formats.trec.stage_qrels with fmt_name='ntcir_qrels'.

.nev line layout (printf in ntcir_eval.c `eval_compute`; docs/ntcireval_semantics.md section 4):
    "%s # syslen=%ld jrel=%ld jnonrel=%ld"      (outstr = topic, may be "")
    "%s # r1=%ld rp=%ld"
    "%s <NAME>=<spaces>%.4f"  the value starts at column len(outstr)+1+21,
                              i.e. "NAME=" is padded with spaces to 21 chars,
                              where a cutoff is always counted as 4 digits
                              (``%04ld``: a 5-digit cutoff pushes the value
                              one column right; the padding is literal).
Blank lines are ignored on reading (some old fixtures end with one).
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import InputError
from .lines import split_fields
from .numbers import number_problem
from .trec import text_lines

_FACTS1 = re.compile(r"^# syslen=(-?\d+) jrel=(-?\d+) jnonrel=(-?\d+)$")
_FACTS2 = re.compile(r"^# r1=(-?\d+) rp=(-?\d+)$")
FACTS = ("syslen", "jrel", "jnonrel", "r1", "rp")


def read_rel(path: str | Path) -> dict[str, int]:
    """A per-topic `.rel` file (`doc Lx`, NTCIRsplitqrels output) -> {doc: level}; read by the
    rules of every file (formats.lines, formats.numbers)."""
    out = {}
    for lineno, text in text_lines(Path(path), allow_empty=True):
        fields = split_fields(text)
        if not fields:
            continue
        if len(fields) < 2:
            raise InputError(path, lineno, f"expected 2 fields (doc level), found {len(fields)}")
        doc, label = fields[:2]
        level = label[1:] if re.fullmatch("L[0-9]+", label) else label
        problem = number_problem(level, "relevance level", integer=True, bits=32)
        if problem:
            raise InputError(path, lineno, problem)
        out[doc] = int(level)
    return out


def _split(line: str) -> tuple[str, str]:
    # outstr is everything before the first space (topic IDs have no spaces)
    i = line.index(" ")
    return line[:i], line[i + 1:]


def parse_nev_text(text: str) -> dict[str, dict[str, float | int]]:
    """{topic: {name: value}} in file order; facts become int keys
    syslen, jrel, jnonrel, r1, rp.  Values are floats as printed."""
    out: dict[str, dict[str, float | int]] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        topic, rest = _split(line)
        d = out.setdefault(topic, {})
        m = _FACTS1.match(rest)
        if m:
            d["syslen"], d["jrel"], d["jnonrel"] = (int(x) for x in m.groups())
            continue
        m = _FACTS2.match(rest)
        if m:
            d["r1"], d["rp"] = (int(x) for x in m.groups())
            continue
        name, _, val = rest.partition("=")
        if not _ or name in d:
            raise ValueError(f"bad or duplicate .nev line: {line!r}")
        d[name] = float(val)
    return out


def parse_nev(path: str | Path) -> dict[str, dict[str, float | int]]:
    return parse_nev_text(Path(path).read_text())


def read_res(path: str | Path) -> list[str]:
    """A per-topic `.res` file (TRECsplitruns output): one document per line, in rank order."""
    docs = []
    for lineno, text in text_lines(Path(path), allow_empty=True):
        fields = split_fields(text)
        if len(fields) > 1:
            raise InputError(path, lineno, f"expected one document, found {len(fields)} fields")
        docs += fields
    return docs
