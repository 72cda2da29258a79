"""Readers of the online-evaluation files: session logs, side-by-side preferences, known
documents. Each returns an Arrow table; a bad line is an InputError naming the file and line.

Session log (`irw ingest sessions`): tab-separated, a header line naming the columns
`session topic query_no rank doc` and optionally `clicked` (0/1), `click_time` (seconds from the
session start) and `dwell` (seconds); one row per shown result. Preferences: `topic left_run
right_run preference assessor`, preference = left | right | tie. Known documents: `user topic
doc`. The last two are whitespace-separated with an optional header line of those names.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from ..errors import InputError
from ..failures import shown
from ..formats.lines import SEPARATORS, tab_fields
from ..formats.numbers import number_problem
from ..formats.trec import field_lines, text_lines

SESSION_REQUIRED = ("session", "topic", "query_no", "rank", "doc")
SESSION_OPTIONAL = ("clicked", "click_time", "dwell")
PREFERENCE_COLUMNS = ("topic", "left_run", "right_run", "preference", "assessor")
PREFERENCES = ("left", "right", "tie")
KNOWN_COLUMNS = ("user", "topic", "doc")


def _header(path: Path, lineno: int, text: str) -> list[str]:
    names = [n.strip(SEPARATORS) for n in text.split("\t")]
    missing = [c for c in SESSION_REQUIRED if c not in names]
    if missing:
        raise InputError(path, lineno, "the header line must name the tab-separated columns "
                         f"{' '.join(SESSION_REQUIRED)} (optional: {' '.join(SESSION_OPTIONAL)}); "
                         f"missing {', '.join(missing)}")
    unknown = [n for n in names if n not in SESSION_REQUIRED + SESSION_OPTIONAL]
    if unknown:
        raise InputError(path, lineno, f"unknown column {unknown[0]!r} in the header (columns: "
                         f"{' '.join(SESSION_REQUIRED + SESSION_OPTIONAL)})")
    twice = [n for n in names if names.count(n) > 1]
    if twice:
        raise InputError(path, lineno, f"column {twice[0]!r} appears twice in the header")
    return names


def _positive(path, lineno, text: str, what: str) -> int:
    """A positive integer (the number rule of formats.numbers)."""
    if number_problem(text, what, integer=True) or int(text) < 1:
        raise InputError(path, lineno, f"{what} {shown(text)} is not a positive integer")
    return int(text)


def _seconds(path, lineno, text: str, what: str) -> float | None:
    """Seconds: empty (not given) or a decimal number (formats.numbers) that is not negative."""
    if text == "":
        return None
    if number_problem(text, what):
        raise InputError(path, lineno, f"{what} {shown(text)} is not a number of seconds")
    value = float(text)
    if value < 0:
        raise InputError(path, lineno, f"{what} {shown(text)} is not a non-negative number")
    return value


def _clicked(path, lineno, text: str) -> bool:
    if text not in ("0", "1"):
        raise InputError(path, lineno, f"clicked {text!r} is not 0 or 1")
    return text == "1"


class _SessionChecks:
    """Consistency across lines: one topic per session, one document per (session, query,
    rank), a document shown once per query."""

    def __init__(self, path: Path):
        self.path = path
        self.topic: dict[str, tuple[str, int]] = {}
        self.slots: dict[tuple, int] = {}
        self.docs: dict[tuple, int] = {}

    def check(self, lineno: int, session: str, topic: str, query_no: int, rank: int,
              doc: str) -> None:
        first = self.topic.setdefault(session, (topic, lineno))
        if first[0] != topic:
            raise InputError(self.path, lineno, f"session {session!r} has topic {topic!r} here "
                             f"but {first[0]!r} at line {first[1]} (one topic per session)")
        slot = (session, query_no, rank)
        if slot in self.slots:
            raise InputError(self.path, lineno, f"session {session!r} query {query_no} rank "
                             f"{rank} appears twice (first at line {self.slots[slot]})")
        self.slots[slot] = lineno
        shown = (session, query_no, doc)
        if shown in self.docs:
            raise InputError(self.path, lineno, f"document {doc!r} is shown twice in session "
                             f"{session!r} query {query_no} (first at line {self.docs[shown]})")
        self.docs[shown] = lineno


def read_sessions(path) -> tuple[pa.Table, dict[str, bool]]:
    """Parse a session log into (session, topic, query_no, rank, doc, clicked, click_time,
    dwell, file_order, line) and which optional columns the header named."""
    path = Path(path)
    names: list[str] | None = None
    cols: dict[str, list] = {c: [] for c in SESSION_REQUIRED + SESSION_OPTIONAL}
    lines: list[int] = []
    checks = _SessionChecks(path)
    for lineno, text in text_lines(path):
        if not text.strip(SEPARATORS):
            continue
        if names is None:
            names = _header(path, lineno, text)
            continue
        fields = tab_fields(path, lineno, text)
        if len(fields) != len(names):
            raise InputError(path, lineno, f"expected {len(names)} tab-separated fields (as the "
                             f"header), found {len(fields)}")
        row = dict(zip(names, (f.strip(SEPARATORS) for f in fields)))
        for c in ("session", "topic", "doc"):
            if not row[c]:
                raise InputError(path, lineno, f"empty {c}")
        query_no = _positive(path, lineno, row["query_no"], "query_no")
        rank = _positive(path, lineno, row["rank"], "rank")
        clicked = _clicked(path, lineno, row["clicked"]) if "clicked" in row else None
        click_time = _seconds(path, lineno, row.get("click_time", ""), "click_time")
        dwell = _seconds(path, lineno, row.get("dwell", ""), "dwell")
        if not clicked and (click_time is not None or dwell is not None):
            raise InputError(path, lineno, "click_time or dwell given for a result that was not "
                             "clicked")
        checks.check(lineno, row["session"], row["topic"], query_no, rank, row["doc"])
        for c, v in (("session", row["session"]), ("topic", row["topic"]),
                     ("query_no", query_no), ("rank", rank), ("doc", row["doc"]),
                     ("clicked", clicked), ("click_time", click_time), ("dwell", dwell)):
            cols[c].append(v)
        lines.append(lineno)
    if names is None:
        raise InputError(path, None, "no header line")
    if not cols["session"]:
        raise InputError(path, None, "no rows after the header line")
    table = pa.table({
        "session": pa.array(cols["session"], pa.string()),
        "topic": pa.array(cols["topic"], pa.string()),
        "query_no": pa.array(cols["query_no"], pa.int32()),
        "rank": pa.array(cols["rank"], pa.int32()),
        "doc": pa.array(cols["doc"], pa.string()),
        "clicked": pa.array(cols["clicked"], pa.bool_()),
        "click_time": pa.array(cols["click_time"], pa.float64()),
        "dwell": pa.array(cols["dwell"], pa.float64()),
        "file_order": pa.array(range(len(cols["session"])), pa.int64()),
        "line": pa.array(lines, pa.int64()),
    })
    return table, {c: c in names for c in SESSION_OPTIONAL}


def _rows(path: Path, columns: tuple[str, ...]):
    """Whitespace-separated lines of exactly len(columns) fields; a first line that is the
    column names is a header and skipped."""
    first = True
    for lineno, fields in field_lines(path):
        if first and tuple(fields) == columns:
            first = False
            continue
        first = False
        if len(fields) != len(columns):
            raise InputError(path, lineno, f"expected {len(columns)} fields "
                             f"({' '.join(columns)}), found {len(fields)}")
        yield lineno, fields


def read_preferences(path) -> list[tuple]:
    """(line, topic, left_run, right_run, preference, assessor) rows."""
    path = Path(path)
    out = []
    for lineno, (topic, left, right, pref, assessor) in _rows(path, PREFERENCE_COLUMNS):
        if pref not in PREFERENCES:
            raise InputError(path, lineno, f"preference {pref!r} is not left, right or tie")
        if left == right:
            raise InputError(path, lineno, f"a run is compared with itself ({left!r})")
        out.append((lineno, topic, left, right, pref, assessor))
    if not out:
        raise InputError(path, None, "no preference judgments")
    return out


def read_known(path) -> list[tuple]:
    """(line, user, topic, doc) rows; a triple listed twice is an error."""
    path = Path(path)
    out, seen = [], {}
    for lineno, (user, topic, doc) in _rows(path, KNOWN_COLUMNS):
        key = (user, topic, doc)
        if key in seen:
            raise InputError(path, lineno, f"user {user!r} topic {topic!r} document {doc!r} "
                             f"appears twice (first at line {seen[key]})")
        seen[key] = lineno
        out.append((lineno, user, topic, doc))
    if not out:
        raise InputError(path, None, "no known documents")
    return out
