"""The shortcuts of `irw ingest runs` (issue 32 target 4) give what the general paths give:
the numpy byte scan of a printable-ASCII file (formats.lines._printable_ascii) the answer of
the memchr scans, and the CSV read that types score and rank itself (formats.trec
_absent_bytes) the rows and refusals of the read that casts text, and comment lines found
whether or not their rows are tested for one."""

from __future__ import annotations

import random
import sys

import duckdb
import numpy  # noqa: F401  (scan_mapped takes the numpy pass when numpy is loaded)
import pytest

from irwarehouse.errors import InputError
from irwarehouse.formats import lines, trec
from irwarehouse.formats.trec import stage_run, stage_runs_bulk


def _memchr_scan(data: bytes):
    """scan_mapped's answer without the numpy pass (as when numpy is not loaded)."""
    saved = sys.modules.pop("numpy")
    try:
        return lines.scan_mapped(data)
    finally:
        sys.modules["numpy"] = saved


@pytest.mark.parametrize("seed", range(40))
def test_numpy_scan_agrees_with_the_memchr_scans(seed):
    rnd = random.Random(seed)
    # mostly run lines; sometimes one odd byte (control, DEL, C1, tab, CR, BOM, UTF-8)
    odd = [b"\x00", b"\x01", b"\x1f", b"\x7f", b"\xc2\x85", b"\t", b"\x0b", b"\x0c", b"\r",
           b"\r\n", b"\xef\xbb\xbf", "é".encode(), b"~", b" "]
    text = b"".join(f"{rnd.randrange(50)} Q0 d{rnd.randrange(10**6)} 1 {rnd.random():.4f} t\n"
                    .encode() for _ in range(rnd.randrange(1, 400)))
    if seed % 4:
        at = rnd.randrange(len(text) + 1)
        text = text[:at] + rnd.choice(odd) + text[at:]
    assert lines.scan_mapped(text) == _memchr_scan(text)


def test_numpy_scan_crosses_its_chunks(monkeypatch):
    # a refused byte in the last chunk, and a file of exactly one chunk
    monkeypatch.setattr(lines, "_SCAN_CHUNK", 64)
    clean = b"1 Q0 d 1 0.5 t\n" * 40
    assert lines.scan_mapped(clean) == _memchr_scan(clean) == (True, True)
    bad = clean[:-5] + b"\x07" + clean[-4:]
    assert lines.scan_mapped(bad) == _memchr_scan(bad) == (False, True)
    assert lines.scan_mapped(clean[:64]) == _memchr_scan(clean[:64])


def test_numpy_scan_keeps_the_line_limit(monkeypatch):
    monkeypatch.setattr(lines, "LINE_LIMIT", 100)
    long = b"1 Q0 " + b"d" * 200 + b" 1 0.5 t\n"
    assert lines.scan_mapped(long) == _memchr_scan(long)


def test_absent_bytes(tmp_path):
    plain, under, plus, gz = (tmp_path / n for n in ("a", "b", "c", "d.gz"))
    plain.write_text("1 Q0 d 1 0.5 t\n")
    under.write_text("1 Q0 msmarco_doc 1 0.5 t\n")
    plus.write_text("1 Q0 d 1 1e+3 t\n")
    import gzip
    gz.write_bytes(gzip.compress(b"1 Q0 d 1 0.5 t\n"))
    needles = (b"_", b"+", b"#")
    assert trec._absent_bytes([str(plain)], needles) == [True, True, True]
    assert trec._absent_bytes([str(plain), str(under)], needles) == [False, True, True]
    assert trec._absent_bytes([str(plus), str(plain)], needles) == [True, False, True]
    assert trec._absent_bytes([str(gz)], needles) == [False, False, False]
    assert trec._absent_bytes([str(tmp_path / "gone")], needles) == [False, False, False]
    (tmp_path / "empty").write_bytes(b"")
    assert trec._absent_bytes([str(tmp_path / "empty")], needles) == [True, True, True]


def _staged(paths, typed: bool, monkeypatch):
    monkeypatch.setattr(trec, "_absent_bytes", lambda _paths, needles: [typed] * len(needles))
    con = duckdb.connect()
    found = stage_runs_bulk(con, paths, digest=False)
    rows = con.execute("SELECT fi, topic, doc, score, rank FROM stage_runs ORDER BY rowid"
                       ).fetchall() if found else None
    return found, rows


def test_typed_read_stages_the_same_rows(tmp_path, monkeypatch):
    rnd = random.Random(7)
    paths = []
    for i in range(3):
        p = tmp_path / f"run{i}"
        score = [f"{rnd.choice(['', '-'])}{rnd.random() * 10 ** rnd.randrange(-3, 4):.6g}"
                 for _ in range(150)]
        p.write_text("".join(f"{t} Q0 d{j} {j + 1}{rnd.choice(['', '.0'])} {score[t * 50 + j]} "
                             f"r{i}\n" for t in range(3) for j in range(50)))
        paths.append(p)
    typed, untyped = _staged(paths, True, monkeypatch), _staged(paths, False, monkeypatch)
    assert typed == untyped and typed[1] is not None and len(typed[1]) == 450


# Numbers the rule refuses that a file without '_' and '+' can hold: the typed read must refuse
# them as the cast does (a bad row, then the file and line named)
@pytest.mark.parametrize("score", ["inf", "-nan", "1e400", "0x10", "1.2.3", "-", "5d", "."])
def test_typed_read_refuses_what_the_rule_refuses(tmp_path, monkeypatch, score):
    run = tmp_path / "run"
    run.write_text(f"1 Q0 a 1 2.5 t\n1 Q0 b 2 {score} t\n")
    assert trec._absent_bytes([str(run)], (b"_", b"+")) == [True, True]
    assert _staged([run], True, monkeypatch)[0] is None
    with pytest.raises(InputError, match=r":2\b|line 2"):
        stage_run(duckdb.connect(), run)


@pytest.mark.parametrize("line", ["1  a 1 2.5 t", "1 Q0 a 1 2.5 ", " 1 Q0 a 1 2.5"])
def test_typed_read_refuses_empty_fields(tmp_path, monkeypatch, line):
    run = tmp_path / "run"
    run.write_text(f"1 Q0 b 1 3.5 t\n{line}\n")
    assert _staged([run], True, monkeypatch)[0] is None
    with pytest.raises(InputError):
        stage_run(duckdb.connect(), run)


@pytest.mark.parametrize("line", ["# a b c d e", "#1 Q0 a 1 2.5 t",
                                  "<SYSDESC>x</SYSDESC> a b c d e"])
def test_comment_lines_still_skipped(tmp_path, line):
    # a comment (or NTCIR's description line) of six fields is a bad row of the fast path,
    # then read by the regex path, which skips it; a '#' or '<' elsewhere changes nothing
    run, other = tmp_path / "run", tmp_path / "other"
    run.write_text(f"1 Q0 b 1 3.5 t\n{line}\n1 Q0 c 2 2.5 t\n")
    other.write_text("1 Q0 d#1 1 3.5 t\n1 Q0 <e> 2 2.5 t\n")
    assert stage_runs_bulk(duckdb.connect(), [run, other], digest=False) is None
    con = duckdb.connect()
    assert stage_run(con, run) == "t"
    assert con.execute("SELECT doc FROM stage_run ORDER BY rowid").fetchall() == [("b",), ("c",)]
    con = duckdb.connect()
    assert stage_runs_bulk(con, [other], digest=False) is not None
    assert con.execute("SELECT doc FROM stage_runs ORDER BY rowid").fetchall() == [
        ("d#1",), ("<e>",)]
