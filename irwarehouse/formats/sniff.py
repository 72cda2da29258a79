"""Which qrels format a file is in, read from its first lines, so that `irw eval QRELS RUN` and
`irw ingest qrels` need no format flag for a file that says what it is:

* 3 fields (`topic doc Lx`, or a plain level): NTCIREVAL's qrels (ntcir_qrels);
* 4 fields whose level is `Lx`: NTCIREVAL's Dqrels (`topic intent doc Lx`, diversity);
* 4 fields with a numeric level: trec_eval's `topic iteration doc rel` (qrels), or, when the
  evaluation asks for diversity (ndeval's layout, --diversity, a diversity measure), the
  diversity qrels `topic subtopic doc rel` of ndeval, which has the same shape.

Anything else (lines of different lengths, 2 or 5+ fields) is not guessed: a one-line error
names the flag that says the format."""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import InputError
from .lines import split_fields
from .trec import _is_skipped, text_lines

SAMPLE_LINES = 20           # the first non-blank, non-comment lines read
_LABEL = re.compile(r"L[0-9]+")
FORMAT_FIELDS = ("qrels: topic iteration doc rel; diversity: topic subtopic doc rel; "
                 "ntcir_qrels: topic doc Lx")


def sniff_qrels_format(path: str | Path, *, diversity: bool = False,
                       flag: str = "--qrels-format") -> str:
    """The format of qrels file `path` (qrels, diversity or ntcir_qrels) from its first
    SAMPLE_LINES lines; `diversity`: the evaluation wants diversity qrels (decides a 4-field
    numeric file). An InputError naming `flag` when the lines do not tell."""
    sample: list[tuple[int, list[str]]] = []
    for lineno, text in text_lines(Path(path)):
        if _is_skipped(text):
            continue
        sample.append((lineno, split_fields(text)))
        if len(sample) == SAMPLE_LINES:
            break
    if not sample:
        return "diversity" if diversity else "qrels"    # the reader names the problem
    counts = {len(fields) for _, fields in sample}
    labels = {bool(_LABEL.fullmatch(fields[-1])) for _, fields in sample}
    if counts == {3}:
        return "ntcir_qrels"
    if counts == {4} and labels == {True}:
        return "diversity"
    if counts == {4} and labels == {False}:
        return "diversity" if diversity else "qrels"
    if counts == {6}:
        raise InputError(path, sample[0][0], "this is a run (6 fields: topic Q0 doc rank score "
                         "tag), not qrels: the qrels file comes first (QRELS RUN)")
    first, n = next((ln, len(f)) for ln, f in sample if len(f) != len(sample[0][1])) \
        if len(counts) > 1 else (sample[0][0], len(sample[0][1]))
    raise InputError(path, first, f"cannot tell the qrels format from the first lines "
                     f"({n} fields here, {sorted(counts)} in the first {len(sample)} lines); "
                     f"give {flag} qrels|diversity|ntcir_qrels ({FORMAT_FIELDS})")
