"""Document lengths (for TBG and the U-measure): one document a line, `docno<TAB>length` in the
unit the caller names (words or characters), or `docno<TAB>words<TAB>chars`. Fields may be
separated by any whitespace; blank lines and `#` comments are skipped; gzip is read. Lengths are
non-negative integers; a document listed twice is an error naming both lines."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from ..errors import InputError
from ..failures import shown
from .numbers import number_problem
from .trec import field_lines

UNITS = ("words", "chars")


def _length(path: Path, lineno: int, text: str, what: str) -> int:
    """A length: an integer (formats.numbers) that is not negative."""
    if number_problem(text, what, integer=True) or int(text) < 0:
        raise InputError(path, lineno, f"{what} {shown(text)} is not a non-negative integer")
    return int(text)


def read_doclengths(path, *, unit: str = "words") -> pa.Table:
    """Parse a length file into an Arrow table (doc, length_words, length_chars); a 2-field
    line gives the length in `unit`, the other column is null."""
    if unit not in UNITS:
        raise InputError(path, None, f"unknown length unit {unit!r}; use words or chars")
    path = Path(path)
    docs: list[str] = []
    words: list[int | None] = []
    chars: list[int | None] = []
    seen: dict[str, int] = {}
    for lineno, fields in field_lines(path):
        if len(fields) not in (2, 3):
            raise InputError(path, lineno, "expected 2 or 3 fields (docno length, or docno "
                             f"words chars), found {len(fields)}")
        doc = fields[0]
        if doc in seen:
            raise InputError(path, lineno, f"document {shown(doc)} appears twice (first at "
                             f"line {seen[doc]})")
        seen[doc] = lineno
        if len(fields) == 3:
            w = _length(path, lineno, fields[1], "word count")
            c = _length(path, lineno, fields[2], "character count")
        elif unit == "words":
            w, c = _length(path, lineno, fields[1], "word count"), None
        else:
            w, c = None, _length(path, lineno, fields[1], "character count")
        docs.append(doc)
        words.append(w)
        chars.append(c)
    if not docs:
        raise InputError(path, None, "no document lengths (only comments or blank lines)")
    return pa.table({"doc": pa.array(docs, pa.string()),
                     "length_words": pa.array(words, pa.int64()),
                     "length_chars": pa.array(chars, pa.int64())})
