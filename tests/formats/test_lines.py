"""The rules every reader applies (formats.lines, formats.numbers), checked on every reader:
NUL bytes and control characters refused in keys, a byte-order mark stripped at the start and
refused elsewhere, fields split as trec_eval splits them (space and tab, leading and trailing
ones ignored) by every reading path, over-long lines refused with the limit in the message, one
number rule. Then a fuzz of every reader with random bytes, and a differential check of the run
and qrels readers (DuckDB's fast and regex paths) against an independent line-by-line oracle
(hypothesis, derandomised)."""

from __future__ import annotations

import gzip
import re

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irwarehouse.errors import InputError
from irwarehouse.formats import lines
from irwarehouse.formats.doclengths import read_doclengths
from irwarehouse.formats.intents import read_intents
from irwarehouse.formats.ntcir import read_rel, read_res
from irwarehouse.formats.numbers import number_problem
from irwarehouse.formats.trec import stage_qrels, stage_run
from irwarehouse.online.formats import read_known, read_preferences, read_sessions
from irwarehouse.texts.store import read_text_tsv

FUZZ = settings(derandomize=True, deadline=None, max_examples=60,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ufeff]")


def _run_rows(path, **kw):
    con = duckdb.connect()
    tag = stage_run(con, path, **kw)
    rows = con.execute("SELECT topic, doc, rank, score FROM stage_run ORDER BY rowid").fetchall()
    con.close()
    return tag, [(t, d, int(float(r)), float(s)) for t, d, r, s in rows]


def _qrels_rows(path, fmt="qrels"):
    con = duckdb.connect()
    stage_qrels(con, path, fmt_name=fmt)
    rows = con.execute("SELECT topic, intent, doc, rel FROM stage_qrels ORDER BY rowid")
    out = rows.fetchall()
    con.close()
    return out


def _write(tmp_path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _refused(fn, path, line: int | None, words: str):
    with pytest.raises(InputError) as info:
        fn(path)
    message = str(info.value)
    assert "\n" not in message and not CONTROL.search(message)
    assert message.startswith(f"{path}:{line}:" if line else f"{path}:"), message
    assert words in message, message
    return message


# -- NUL bytes and control characters: refused in every reader, naming the line ------------------
READERS = {
    "run": (lambda p: _run_rows(p), b"401 Q0 d1 1 0.5 r1\n401 Q0 %s 2 0.4 r1\n"),
    "qrels": (lambda p: _qrels_rows(p), b"401 0 d1 1\n401 0 %s 0\n"),
    "diversity": (lambda p: _qrels_rows(p, "diversity"), b"401 1 d1 1\n401 1 %s 0\n"),
    "ntcir_qrels": (lambda p: _qrels_rows(p, "ntcir_qrels"), b"401 d1 L1\n401 %s L0\n"),
    "intents": (read_intents, b"401 1 0.5\n401 %s 0.5\n"),
    "doclengths": (read_doclengths, b"d1 10\n%s 12\n"),
    "sessions": (read_sessions,
                 b"session\ttopic\tquery_no\trank\tdoc\ns1\t401\t1\t1\td1\ns1\t401\t1\t2\t%s\n"),
    "preferences": (read_preferences, b"401 r1 r2 left a1\n401 r1 %s left a1\n"),
    "known": (read_known, b"u1 401 d1\nu1 401 %s\n"),
    "texts": (lambda p: read_text_tsv(p, "run"), b"r1\t401\thello\nr1\t%s\tworld\n"),
    "ntcir_rel": (read_rel, b"d1 L1\n%s L0\n"),
    "ntcir_res": (read_res, b"d1\n%s\n"),
}


@pytest.mark.parametrize("kind", READERS)
@pytest.mark.parametrize("bad, words", [
    (b"d\x00x", "NUL byte"), (b"d\x1b[31mx", "control character U+001B"),
    (b"d\xc2\x85x", "control character U+0085"), (b"d\xef\xbb\xbfx", "byte-order mark"),
    (b"d\x7fx", "control character U+007F"), (b"d\rx", "carriage return"),
])
def test_control_characters_are_refused_by_every_reader(tmp_path, kind, bad, words):
    read, template = READERS[kind]
    path = _write(tmp_path, f"{kind}.txt", template % bad)
    _refused(read, path, template.count(b"\n"), words)


@pytest.mark.parametrize("kind", READERS)
def test_every_reader_reads_its_clean_sample(tmp_path, kind):
    read, template = READERS[kind]
    assert read(_write(tmp_path, f"{kind}.txt", template % b"d2"))


# -- byte-order marks: dropped at the start of every file kind, the first key stays clean -------
@pytest.mark.parametrize("kind", READERS)
def test_a_leading_bom_is_dropped_by_every_reader(tmp_path, kind):
    read, template = READERS[kind]
    plain = read(_write(tmp_path, f"{kind}.txt", template % b"d2"))
    with_bom = read(_write(tmp_path, f"bom_{kind}.txt", b"\xef\xbb\xbf" + template % b"d2"))
    assert repr(with_bom) == repr(plain)
    assert "\ufeff" not in repr(with_bom)


def test_doclengths_and_intents_keep_their_first_key_after_a_bom(tmp_path):
    lengths = read_doclengths(_write(tmp_path, "l.txt", b"\xef\xbb\xbfd1 10\nd2 12\n"))
    assert lengths.column("doc").to_pylist() == ["d1", "d2"]
    intents = read_intents(_write(tmp_path, "i.txt", b"\xef\xbb\xbf401 1 0.5\n401 2 0.5\n"))
    assert [r.topic for r in intents] == ["401", "401"]


# -- field separators: space and tab, as trec_eval; every path gives the same answer -------------
@pytest.mark.parametrize("text", [
    b"401 Q0 d1 1 0.5 r1\n",                    # the single-space fast path
    b"401\tQ0\td1\t1\t0.5\tr1\n",               # tabs: the regex path
    b"  401   Q0 d1  1 0.5 r1   \n",            # leading, trailing, repeated spaces
    b"\t401 Q0\t d1 1 0.5 r1\t\n",              # a line that begins and ends with a tab
    b"401 Q0 d1 1 0.5 r1\r\n",                  # CRLF
    b"401\x0bQ0\x0cd1 1 0.5 r1\n",              # vertical tab and form feed (C's isspace)
])
def test_runs_split_fields_as_trec_eval_on_every_path(tmp_path, text):
    assert _run_rows(_write(tmp_path, "r.txt", text)) == ("r1", [("401", "d1", 1, 0.5)])


@pytest.mark.parametrize("text", [b"\t401 0 d1 1\t\n", b"401\t0\td1\t1\n", b" 401 0 d1 1 \n"])
def test_qrels_lines_that_begin_or_end_with_a_tab_are_read(tmp_path, text):
    assert _qrels_rows(_write(tmp_path, "q.txt", text)) == [("401", "", "d1", 1)]


@pytest.mark.parametrize("space, name", [("\u00a0", "NO-BREAK SPACE"), ("\u2003", "EM SPACE")])
def test_other_spaces_are_not_separators_and_are_named(tmp_path, space, name):
    data = f"401 Q0 d1 1 0.5 r1\n401{space}Q0 d2 2 0.4 r1\n".encode()
    message = _refused(_run_rows, _write(tmp_path, "r.txt", data), 2, "expected 6 fields")
    assert name in message
    data = f"401 0 d1 1\n401 0{space}d2 0\n".encode()
    _refused(_qrels_rows, _write(tmp_path, "q.txt", data), 2, "expected 4 fields")


# -- over-long lines: refused with the limit, by every path -------------------------------------
@pytest.mark.parametrize("kind", ["run", "qrels", "intents", "known"])
def test_an_over_long_line_is_refused_with_the_limit(tmp_path, kind):
    read, template = READERS[kind]
    long_key = b"x" * (lines.LINE_LIMIT + 10)
    path = _write(tmp_path, f"{kind}.txt", template % long_key)
    message = _refused(read, path, template.count(b"\n"), "line longer than")
    assert f"{lines.LINE_LIMIT:,} bytes" in message


def test_an_over_long_line_in_a_gzip_file_is_refused(tmp_path):
    data = b"401 Q0 d1 1 0.5 r1\n401 Q0 " + b"y" * (2 * lines.LINE_LIMIT) + b" 2 0.4 r1\n"
    path = _write(tmp_path, "r.gz", gzip.compress(data))
    _refused(_run_rows, path, 2, "line longer than")


def _longest_body(data: bytes) -> int:
    """The oracle of the line-length scan: the longest line, split on \\n, a \\r before its
    \\n not counted (a line without \\n keeps its \\r)."""
    parts = data.split(b"\n")
    return max(len(p) - (i < len(parts) - 1 and p.endswith(b"\r")) for i, p in enumerate(parts))


@FUZZ
@given(pieces=st.lists(st.tuples(st.integers(0, 30), st.sampled_from([b"\n", b"\r\n", b"\r", b""])),
                       max_size=8),
       limit=st.integers(1, 12), block=st.integers(1, 40))
def test_the_line_length_scan_agrees_with_an_oracle(pieces, limit, block):
    """The scan that keeps lines over the limit from DuckDB's reader (lines.long_line_in on a
    mapped file, lines.LineLengths on a stream of blocks) with a small limit."""
    data = b"".join(b"a" * n + end for n, end in pieces)
    expected = _longest_body(data) > limit
    assert lines.long_line_in(data, limit) == expected
    scan = lines.LineLengths(limit)
    fed = [scan.feed(data[i:i + block]) for i in range(0, len(data), block)]
    assert (not all(fed) or not scan.finish()) == expected


def test_a_gzip_file_with_a_bad_crc_is_one_line(tmp_path):
    for kind in ("run", "qrels", "intents", "doclengths", "known"):
        read, template = READERS[kind]
        blob = bytearray(gzip.compress(template % b"d2"))
        blob[-6] ^= 0xFF                        # the CRC32 of the trailer
        _refused(read, _write(tmp_path, f"{kind}.gz", bytes(blob)), None, "CRC")


# -- numbers: one rule in every file kind --------------------------------------------------------
@pytest.mark.parametrize("value", ["1_000", "0.2_5", "0x10", "nan", "inf", "-inf", " 1", "1e",
                                   "", "½", "١"])
def test_numbers_follow_one_rule(value):
    assert number_problem(value, "x") is not None
    assert number_problem(value, "x", integer=True) is not None


@pytest.mark.parametrize("value", ["1", "+1", "-0", "1.5", ".5", "5.", "1e-3", "2E+10"])
def test_decimal_numbers_are_read(value):
    assert number_problem(value, "x") is None


@pytest.mark.parametrize("kind, data", [
    ("run", b"401 Q0 d1 1 1_000 r1\n"), ("intents", b"401 1 0.2_5\n"),
    ("doclengths", b"d1 1_000\n"), ("qrels", b"401 0 d1 1_0\n"),
    ("preferences", b"401 r1 r2 left a1\n401 r1 r2 1_0 a1\n"),
    ("sessions", b"session\ttopic\tquery_no\trank\tdoc\ns1\t401\t1\t1_0\td1\n"),
])
def test_digit_separators_are_refused_in_every_file_kind(tmp_path, kind, data):
    read = READERS[kind][0]
    path = _write(tmp_path, f"{kind}.txt", data)
    with pytest.raises(InputError) as info:
        read(path)
    assert re.match(rf"{re.escape(str(path))}:\d+: ", str(info.value)), str(info.value)


# -- run tags -----------------------------------------------------------------------------------
def test_a_long_run_tag_is_cut_in_the_message_and_names_the_line(tmp_path):
    path = _write(tmp_path, "r.txt", b"401 Q0 d1 1 0.5 r1\n401 Q0 d2 2 0.4 " + b"t" * 300 + b"\n")
    message = _refused(_run_rows, path, 2, "run tag")
    assert "(300 characters)" in message and len(message) < 200 + len(str(path))


# -- fuzz: random bytes into every reader --------------------------------------------------------
LINE_BYTES = st.lists(st.sampled_from([
    b"401", b"Q0", b"d1", b"d2", b"1", b"0.5", b"r1", b"L1", b"0", b"-1", b"1e3", b"nan",
    b" ", b"  ", b"\t", b"\x00", b"\xef\xbb\xbf", b"\r", b"\x1b", b"\xc2\xa0", b"\xff", b"#",
    b"\xc2\x85", b"\n", b"\r\n", b"<SYSDESC>", b"1_0", b"\x0b", b"\xe2\x80\x83",
]), max_size=40).map(b"".join)


def _strings(value):
    """Every string a reader returned (rows, tables, dicts, dataclasses)."""
    if isinstance(value, str):
        yield value
    elif hasattr(value, "to_pylist"):
        yield from _strings(value.to_pylist())
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)
    elif hasattr(value, "__dict__"):
        yield from _strings(vars(value))


def _check_outcome(read, path):
    """A reader either returns, with no control character in any key it read, or refuses with
    one clean line naming the file."""
    try:
        result = read(path)
    except InputError as exc:
        message = str(exc)
        assert message.startswith(f"{path}"), message
        assert "\n" not in message and not CONTROL.search(message), message
        return
    bad = [s for s in _strings(result) if CONTROL.search(s.replace("\t", ""))]
    assert not bad, bad


@pytest.mark.parametrize("kind", READERS)
@FUZZ
@given(data=st.one_of(st.binary(max_size=200), LINE_BYTES))
def test_fuzz_every_reader_with_random_bytes(tmp_path, kind, data):
    read = READERS[kind][0]
    _check_outcome(read, _write(tmp_path, f"{kind}.txt", data))


# -- differential: the fast readers against a line-by-line oracle ---------------------------------
def _oracle_fields(data: bytes):
    """An independent reading of a whitespace-separated file by the rules of the issue
    (trec_eval's split on space and tab, leading and trailing ones ignored; control characters
    and a BOM after the start refused; a leading BOM dropped): (line number, fields) of each
    line that is not blank or a comment, or (line number, None) for a refused line."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    parts = data.split(b"\n")
    if parts and parts[-1] == b"":
        parts.pop()
    for lineno, raw in enumerate(parts, start=1):
        raw = raw[:-1] if raw.endswith(b"\r") else raw
        text = raw.decode("utf-8", "replace")
        if "\r" in text or re.search("[\x00-\x08\x0e-\x1f\x7f-\x9f\ufeff\ufffd]", text):
            yield lineno, None
            return
        fields = [f for f in re.split("[ \t\v\f]+", text.strip(" \t\v\f")) if f]
        if fields and not fields[0].startswith(("#", "<SYSDESC>")):
            yield lineno, fields


def _oracle(data: bytes, row):
    """('ok', rows) or ('refused', line) (None: the file as a whole) of a file whose lines
    `row(fields)` turns into a row (None: a bad line); (topic, doc) appears once."""
    rows, seen = [], set()
    for lineno, fields in _oracle_fields(data):
        got = row(fields) if fields is not None else None
        if got is None or (fields[0], fields[2]) in seen:
            return "refused", lineno
        seen.add((fields[0], fields[2]))
        rows.append(got)
    return ("ok", rows) if rows else ("refused", None)


DECIMAL = re.compile(r"[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?")


def _run_row(fields):
    if len(fields) < 6 or not DECIMAL.fullmatch(fields[4]) or not DECIMAL.fullmatch(fields[3]) \
            or float(fields[3]) != int(float(fields[3])):
        return None
    return fields[0], fields[2], int(float(fields[3])), float(fields[4])


def _qrels_row(fields):
    if len(fields) != 4 or not re.fullmatch(r"[+-]?[0-9]+", fields[3]):
        return None
    return fields[0], "", fields[2], int(fields[3])


RUN_FIELD = st.sampled_from(["401", "402", "Q0", "d1", "d2", "d3", "1", "2", "3.0", "0.5",
                             "-1e2", "r1", "x", "1_0", "nan", "#c", "\u00a0", "\x00", "\ufeff"])
SEPARATOR = st.sampled_from([" ", " ", " ", "  ", "\t", " \t", "\x0b"])


@st.composite
def run_files(draw) -> bytes:
    out = []
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.integers(0, 4)) == 0:
            fields = draw(st.lists(RUN_FIELD, min_size=0, max_size=7))
        else:
            fields = [draw(st.sampled_from(["401", "402"])), "Q0",
                      draw(st.sampled_from(["d1", "d2", "d3", "d4"])),
                      draw(st.sampled_from(["1", "2", "3", "4.0"])),
                      draw(st.sampled_from(["0.5", "1", "-2.5e1", ".25"])), "r1"]
        lead, trail = draw(st.sampled_from(["", " ", "\t"])), draw(st.sampled_from(["", " "]))
        out.append(lead + "".join(f + draw(SEPARATOR) for f in fields[:-1])
                   + (fields[-1] if fields else "") + trail)
    end = draw(st.sampled_from(["\n", "\r\n"]))
    return (draw(st.sampled_from(["", "\ufeff"])) + end.join(out) + end).encode()


@settings(derandomize=True, deadline=None, max_examples=150,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=run_files(), gz=st.booleans())
def test_differential_run_reader_against_the_line_oracle(tmp_path, data, gz):
    path = _write(tmp_path, "r.txt.gz" if gz else "r.txt", gzip.compress(data) if gz else data)
    expected = _oracle(data, _run_row)
    try:
        _, got = _run_rows(path)
    except InputError as exc:
        assert expected[0] == "refused", (data, str(exc))
        assert exc.line == expected[1], (data, str(exc), expected)
        return
    assert expected == ("ok", got), data


@st.composite
def qrels_files(draw) -> bytes:
    out = []
    for _ in range(draw(st.integers(1, 6))):
        fields = [draw(st.sampled_from(["401", "402"])), draw(st.sampled_from(["0", "Q0"])),
                  draw(st.sampled_from(["d1", "d2", "d3", "d\u00a0", "d\x00"])),
                  draw(st.sampled_from(["0", "1", "2", "-1", "1.5", "1_0", "L1"]))]
        if draw(st.integers(0, 5)) == 0:
            fields = fields[:draw(st.integers(0, 3))] + draw(st.lists(RUN_FIELD, max_size=2))
        lead, trail = draw(st.sampled_from(["", " ", "\t"])), draw(st.sampled_from(["", "\t"]))
        out.append(lead + draw(SEPARATOR).join(fields) + trail)
    end = draw(st.sampled_from(["\n", "\r\n"]))
    return (draw(st.sampled_from(["", "\ufeff"])) + end.join(out) + end).encode()


@settings(derandomize=True, deadline=None, max_examples=150,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=qrels_files())
def test_differential_qrels_reader_against_the_line_oracle(tmp_path, data):
    path = _write(tmp_path, "q.txt", data)
    expected = _oracle(data, _qrels_row)
    try:
        got = _qrels_rows(path)
    except InputError as exc:
        assert expected[0] == "refused", (data, str(exc))
        assert exc.line == expected[1], (data, str(exc), expected)
        return
    assert expected == ("ok", got), data
