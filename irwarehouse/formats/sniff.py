"""Which qrels format a file is in, read from its first lines, so that `irw eval QRELS RUN` and
`irw ingest qrels` need no format flag for a file that says what it is:

* 3 fields (`topic doc Lx`, or a plain level): NTCIREVAL's qrels (ntcir_qrels);
* 4 fields whose level is `Lx`: NTCIREVAL's Dqrels (`topic intent doc Lx`, diversity);
* 4 fields with a numeric level: trec_eval's `topic iteration doc rel` (qrels), or the
  diversity qrels `topic subtopic doc rel` of ndeval, which has the same shape, when the
  evaluation asks for diversity (ndeval's layout, --diversity, a diversity measure) or when
  the first lines judge a document of a topic under two subtopics (ad hoc qrels judge it
  once); a file whose second field is 0 on every line read is trec_eval's (its iteration
  field; subtopics are numbered from 1) even when diversity is asked for, so that a diversity
  measure on ad hoc qrels gets its warning (engine/checks.py) instead of one subtopic "0";
* 5 fields: sampled judgments (formats/sampled.py), sample_eval.pl's `topic iteration doc
  stratum rel` (sampleval) when the second field is an integer and the third is not, else the
  Million Query track's prels `topic doc rel method probability` (prels).

The first line that is not blank or a comment decides. A file whose lines do not all fit what
it decided fails on the first line that does not, with a one-line error naming the flag that
says the format; a first line of no qrels shape reads as trec_eval qrels (diversity qrels when
asked for), whose reader names the problem and the flag."""

from __future__ import annotations

import re
from contextlib import contextmanager
from pathlib import Path

from ..errors import InputError
from .lines import split_fields
from .trec import _is_skipped, text_lines

SAMPLE_LINES = 200          # lines read to tell subtopics from trec_eval's iteration field
_LABEL = re.compile(r"L[0-9]+")
_INTEGER = re.compile(r"[+-]?[0-9]+")
FORMAT_FIELDS = ("qrels: topic iteration doc rel; diversity: topic subtopic doc rel; "
                 "ntcir_qrels: topic doc Lx; sampleval: topic iteration doc stratum rel; "
                 "prels: topic doc rel method probability")


def sniff_qrels_format(path: str | Path, *, diversity: bool = False,
                       flag: str = "--qrels-format") -> str:
    """The format of qrels file `path` (qrels, diversity or ntcir_qrels) read from its first
    lines that are not blank or comments (module doc); `diversity`: the evaluation wants
    diversity qrels (decides a 4-field numeric file). A first line of no qrels shape reads as the default
    (trec_eval qrels, or diversity qrels when wanted), whose reader then names the problem;
    a run file given as qrels is an InputError."""
    default = "diversity" if diversity else "qrels"
    sample = _first_lines(path)
    if not sample:
        return default                  # the reader names the problem (no judgments)
    lineno, fields = sample[0]
    level = fields[-1]
    labelled = bool(_LABEL.fullmatch(level))
    if len(fields) == 3 and (labelled or _INTEGER.fullmatch(level)):
        return "ntcir_qrels"
    if len(fields) == 4 and labelled:
        return "diversity"
    if len(fields) == 5:
        return "sampleval" if _INTEGER.fullmatch(fields[1]) and not _INTEGER.fullmatch(
            fields[2]) else "prels"
    if len(fields) == 6:
        raise InputError(path, lineno, "this is a run (6 fields: topic Q0 doc rank score "
                         "tag), not qrels: the qrels file comes first (QRELS RUN)")
    if len(fields) == 4 and not diversity and _per_subtopic(sample):
        return "diversity"
    if len(fields) == 4 and diversity and _iteration_zero(sample):
        return "qrels"
    return default


def _first_lines(path: str | Path) -> list[tuple[int, list[str]]]:
    """(line number, fields) of the first SAMPLE_LINES lines that are not blank or comments."""
    out = []
    for lineno, text in text_lines(Path(path)):
        if not _is_skipped(text):
            out.append((lineno, split_fields(text)))
            if len(out) == SAMPLE_LINES:
                break
    return out


def _per_subtopic(sample: list[tuple[int, list[str]]]) -> bool:
    """Whether 4-field lines judge one document of a topic twice under different second
    fields: subtopics (TREC's `topic subtopic doc rel`), since ad hoc qrels judge a document
    once."""
    seen: dict[tuple[str, str], str] = {}
    for _, fields in sample:
        if len(fields) != 4:
            return False
        key = (fields[0], fields[2])
        if key in seen and seen[key] != fields[1]:
            return True
        seen.setdefault(key, fields[1])
    return False


def _iteration_zero(sample: list[tuple[int, list[str]]]) -> bool:
    """Whether every line read has 4 fields and 0 in the second: trec_eval's iteration field."""
    return all(len(fields) == 4 and fields[1] == "0" for _, fields in sample)


@contextmanager
def format_named(path: str | Path, fmt: str, flag: str = "--qrels-format"):
    """Errors of reading qrels file `path` as the sniffed `fmt` name the flag that says the
    format, in case the file's first line misled (a file that mixes shapes)."""
    try:
        yield
    except InputError as exc:
        if exc.path != str(path):
            raise                       # a run's error, not the qrels'
        raise InputError(exc.path, exc.line, f"{exc.message} (read as {fmt} from the first "
                         f"line; {flag} qrels|diversity|ntcir_qrels says the format: "
                         f"{FORMAT_FIELDS})") from None
