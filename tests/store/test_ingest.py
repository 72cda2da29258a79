"""Bad input files: through the `irw` CLI each gives one line on stderr naming the file (and the
line, when there is one), exit code 1, and leaves the warehouse unchanged. Also gzipped inputs,
--keep-first, --replace, and the ingest transaction (an ingest interrupted inside it leaves no
trace)."""

from __future__ import annotations

import gzip
import os
import shutil

import duckdb
import pytest
from typer.testing import CliRunner

from irwarehouse.api import Warehouse
from irwarehouse.cli import app
from irwarehouse.errors import InputError, WarehouseError
from irwarehouse.store import ingest as ingest_mod

TABLES = ("campaign", "topic", "qrels", "judgment", "run", "run_row", "score")
QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 2\n"
RUN = "1 Q0 a 1 1.0 good\n1 Q0 b 2 0.5 good\n2 Q0 c 1 1.0 good\n"


def irw(*args, env=None):
    return CliRunner().invoke(app, [str(a) for a in args], env=env)


def table_counts(path) -> dict[str, int]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
    finally:
        con.close()


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """A warehouse with one campaign `c`: a qrels, a run and stored scores (built once)."""
    tmp = tmp_path_factory.mktemp("template")
    path = tmp / "w.duckdb"
    (tmp / "qrels.txt").write_text(QRELS)
    (tmp / "good.run").write_text(RUN)
    assert irw("init", "-w", path).exit_code == 0
    assert irw("ingest", "qrels", tmp / "qrels.txt", "-C", "c", "-w", path).exit_code == 0
    assert irw("ingest", "run", tmp / "good.run", "-C", "c", "-w", path).exit_code == 0
    assert irw("eval", "-C", "c", "--store", "-m", "map", "-w", path).exit_code == 0
    return path


@pytest.fixture()
def wh_path(template, tmp_path):
    """A private copy of the template warehouse, with its input files in tmp_path."""
    path = tmp_path / "w.duckdb"
    shutil.copyfile(template, path)
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "good.run").write_text(RUN)
    return path


def assert_one_line_error(result, where: str, message: str) -> None:
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"irw: error: {where}: "), lines[0]
    assert message in lines[0], lines[0]


RUN_ERRORS = [
    # (file content, line of the error or None, part of the message)
    ("1 Q0 a 1 1.0 r\n1 Q0 b 2\n", 2, "expected 6 fields"),
    ("1 Q0 a 1 1.0\n", 1, "expected 6 fields"),
    ("1 Q0 a 1 1.0 r\n\n1 Q0 b 2 abc r\n", 3, "score 'abc' is not a number"),
    ("1 Q0 a 1 1.0 r\n1 Q0 b 2 nan r\n", 2, "score 'nan' is not finite"),
    ("1 Q0 a 1 inf r\n", 1, "score 'inf' is not finite"),
    ("1 Q0 a 1 -Infinity r\n", 1, "not finite"),
    ("1 Q0 a 1 1e400 r\n", 1, "score '1e400' is not finite"),
    ("1 Q0 a 1 1_000 r\n", 1, "score '1_000'"),
    ("1 Q0 a x 1.0 r\n", 1, "rank 'x' is not a number"),
    ("1 Q0 a 1.5 1.0 r\n", 1, "rank '1.5' is not an integer"),
    ("1 Q0 a 1 1.0 r\n1 Q0 b 2 0.5 r\n1 Q0 a 3 0.1 r\n", 3,
     "document 'a' appears twice for topic '1' (first at line 1)"),
    ("1 Q0 a 1 1.0 r\n1 Q0 \xff 2 0.5 r\n".encode("latin-1"), 2, "not valid UTF-8"),
    # a lone carriage return (trec_eval reads it as part of a field; DuckDB as a line break)
    ("1 Q0 a 1 1.0 r\r\n1 Q0 b\r 2 0.5 r\r\n", 2, "carriage return inside the line"),
    ("1 Q0 a 1 1.0 r\n# a comment\rwith a carriage return\n", 2,
     "carriage return inside the line"),
    ("", None, "empty file"),
    ("\n   \n# only a comment\n", None, "empty file"),
]

QRELS_ERRORS = [
    ("1 0 a 1\n1 0 b 1 extra\n", 2, "expected 4 fields"),
    ("1 0 a\n", 1, "expected 4 fields"),
    ("1 0 a x\n", 1, "relevance level 'x' is not a number"),
    ("1 0 a 1.5\n", 1, "relevance level '1.5' is not an integer"),
    ("1 0 a 1e2\n", 1, "relevance level '1e2' is not an integer"),
    ("1 0 a 0x10\n", 1, "relevance level '0x10' is not a number"),
    ("1 0 a 99999999999\n", 1, "out of range"),
    ("1 0 a 1\n2 0 a 1\n1 0 a 0\n", 3, "document 'a' appears twice for topic '1'"),
    (b"1 0 a 1\n1 0 \xe9t\xe9 1\n", 2, "not valid UTF-8"),
    ("1 0 a 1\n1 0 b\r 1\n", 2, "carriage return inside the line"),
    ("", None, "empty file"),
]


def _write(path, content) -> None:
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)


def _check_refused(wh_path, tmp_path, kind, content, line, message, gz=False):
    bad = tmp_path / ("bad.gz" if gz else "bad.txt")
    if gz:
        with gzip.open(bad, "wb") as f:
            f.write(content if isinstance(content, bytes) else content.encode())
    else:
        _write(bad, content)
    before = table_counts(wh_path)
    result = irw("ingest", kind, bad, "-C", "c", "-w", wh_path)
    assert_one_line_error(result, f"{bad}:{line}" if line else str(bad), message)
    assert table_counts(wh_path) == before
    # the API raises an InputError carrying the same file and line
    with Warehouse(wh_path) as wh, pytest.raises(InputError) as info:
        (wh.ingest_run if kind == "run" else wh.ingest_qrels)(bad, "c")
    assert (info.value.path, info.value.line) == (str(bad), line)
    assert table_counts(wh_path) == before


@pytest.mark.parametrize(("content", "line", "message"), RUN_ERRORS)
def test_bad_run(wh_path, tmp_path, content, line, message):
    _check_refused(wh_path, tmp_path, "run", content, line, message)


@pytest.mark.parametrize(("content", "line", "message"), QRELS_ERRORS)
def test_bad_qrels(wh_path, tmp_path, content, line, message):
    _check_refused(wh_path, tmp_path, "qrels", content, line, message)


@pytest.mark.parametrize(("content", "line", "message"), [RUN_ERRORS[0], RUN_ERRORS[2],
                                                            RUN_ERRORS[10], RUN_ERRORS[11]])
def test_bad_gzipped_run(wh_path, tmp_path, content, line, message):
    """Line numbers are those of the uncompressed text."""
    _check_refused(wh_path, tmp_path, "run", content, line, message, gz=True)


def test_missing_file_and_directory(wh_path, tmp_path):
    before = table_counts(wh_path)
    assert_one_line_error(irw("ingest", "run", tmp_path / "nope", "-C", "c", "-w", wh_path),
                          str(tmp_path / "nope"), "no such file")
    assert_one_line_error(irw("ingest", "qrels", tmp_path, "-C", "c", "-w", wh_path),
                          str(tmp_path), "not a file")
    assert table_counts(wh_path) == before


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="root reads files whatever their mode")
def test_unreadable_file(wh_path, tmp_path):
    bad = tmp_path / "secret.run"
    bad.write_text(RUN)
    bad.chmod(0)
    before = table_counts(wh_path)
    assert_one_line_error(irw("ingest", "run", bad, "-C", "c", "-w", wh_path), str(bad),
                          "cannot read")
    assert table_counts(wh_path) == before


@pytest.mark.parametrize("damage", ["truncated", "garbage"])
def test_corrupt_gzip(wh_path, tmp_path, damage):
    bad = tmp_path / "bad.run.gz"
    data = gzip.compress("".join(f"1 Q0 d{i} {i} {1000 - i} r\n" for i in range(2000)).encode())
    bad.write_bytes(data[:len(data) // 2] if damage == "truncated" else data[:10] + b"junk" * 9)
    before = table_counts(wh_path)
    assert_one_line_error(irw("ingest", "run", bad, "-C", "c", "-w", wh_path), str(bad),
                          "cannot read")
    assert table_counts(wh_path) == before


def test_duplicate_keep_first(wh_path, tmp_path):
    dup = tmp_path / "dup.run"
    dup.write_text("1 Q0 a 1 1.0 dup\n1 Q0 b 2 0.5 dup\n1 Q0 a 3 0.1 dup\n")
    assert irw("ingest", "run", dup, "-C", "c", "-w", wh_path).exit_code == 1
    result = irw("ingest", "run", dup, "-C", "c", "--keep-first", "-w", wh_path)
    assert result.exit_code == 0, result.output
    con = duckdb.connect(str(wh_path), read_only=True)
    rows = con.execute("""SELECT doc, score, rank, file_order FROM run_row JOIN run USING (run_id)
                          WHERE name = 'dup' ORDER BY doc""").fetchall()
    con.close()
    assert [(d, s, r) for d, s, r, _ in rows] == [("a", 1.0, 1), ("b", 0.5, 2)]


def test_run_ingested_twice(wh_path, tmp_path):
    before = table_counts(wh_path)
    result = irw("ingest", "run", tmp_path / "good.run", "-C", "c", "-w", wh_path)
    assert_one_line_error(result, str(tmp_path / "good.run"),
                          "run 'good' is already in campaign 'c' (use --replace")
    assert table_counts(wh_path) == before
    # the same file under another name is a new run
    assert irw("ingest", "run", tmp_path / "good.run", "-C", "c", "--name", "good2",
               "-w", wh_path).exit_code == 0
    # --replace swaps the rows and drops the stored scores of the old run
    (tmp_path / "new.run").write_text("1 Q0 b 1 1.0 good\n")
    result = irw("ingest", "run", tmp_path / "new.run", "-C", "c", "--replace", "-w", wh_path)
    assert result.exit_code == 0, result.output
    after = table_counts(wh_path)
    assert after["run"] == before["run"] + 1
    assert after["run_row"] == before["run_row"] + 3 - 3 + 1
    assert after["score"] == before["score"] - 2          # map of topics 1 and 2 of `good`


def test_qrels_ingested_twice(wh_path, tmp_path):
    before = table_counts(wh_path)
    result = irw("ingest", "qrels", tmp_path / "qrels.txt", "-C", "c", "-w", wh_path)
    assert_one_line_error(result, str(tmp_path / "qrels.txt"),
                          "qrels 'qrels.txt' is already in campaign 'c' (use --replace")
    assert table_counts(wh_path) == before
    assert irw("ingest", "qrels", tmp_path / "qrels.txt", "-C", "c", "--replace",
               "-w", wh_path).exit_code == 0
    after = table_counts(wh_path)
    assert after["judgment"] == before["judgment"] and after["score"] == 0


def test_gzipped_inputs_ingest_and_evaluate_like_plain_ones(tmp_path):
    for name, text in (("q", QRELS), ("r", RUN)):
        (tmp_path / name).write_text(text)
        with gzip.open(tmp_path / f"{name}.gz", "wt") as f:
            f.write(text)
    plain = irw("eval", tmp_path / "q", tmp_path / "r", "-q", "-m", "all_trec")
    zipped = irw("eval", tmp_path / "q.gz", tmp_path / "r.gz", "-q", "-m", "all_trec")
    assert plain.exit_code == zipped.exit_code == 0
    assert plain.stdout == zipped.stdout and "map" in plain.stdout
    with Warehouse(tmp_path / "w.duckdb") as wh:
        wh.ingest_qrels(tmp_path / "q.gz", "z")
        wh.ingest_run(tmp_path / "r.gz", "z")
        assert wh.con.execute("SELECT count(*) FROM run_row").fetchone()[0] == 3
        assert wh.con.execute("SELECT count(*) FROM judgment").fetchone()[0] == 3


# -- transactions ------------------------------------------------------------------------------
class Boom(Exception):
    pass


class FailingConnection:
    """A connection that runs every statement, then fails right after the one that contains
    `after` (inside the ingest transaction)."""

    def __init__(self, con, after: str, exc: type[BaseException] = Boom):
        self._con, self._after, self._exc = con, after, exc

    def __getattr__(self, name):
        return getattr(self._con, name)

    def execute(self, sql, *args, **kwargs):
        out = self._con.execute(sql, *args, **kwargs)
        if self._after in sql:
            raise self._exc("interrupted")
        return out


@pytest.mark.parametrize("exc", [Boom, KeyboardInterrupt])
@pytest.mark.parametrize("replace", [False, True])
def test_interrupted_run_ingest_leaves_no_trace(wh_path, tmp_path, exc, replace):
    run = tmp_path / ("good.run" if replace else "other.run")
    if not replace:
        run.write_text("1 Q0 a 1 1.0 other\n3 Q0 z 1 1.0 other\n")
    before = table_counts(wh_path)
    with Warehouse(wh_path) as wh:
        with pytest.raises(exc):
            ingest_mod.ingest_run(FailingConnection(wh.con, "INSERT INTO run_row", exc), run,
                                  "c", replace=replace)
        names = [r[0] for r in wh.con.execute("SELECT name FROM run ORDER BY name").fetchall()]
    assert names == ["good"]
    assert table_counts(wh_path) == before


@pytest.mark.parametrize("exc", [Boom, KeyboardInterrupt])
def test_interrupted_qrels_ingest_leaves_no_trace(wh_path, tmp_path, exc):
    qrels = tmp_path / "more.qrels"
    qrels.write_text("9 0 a 1\n")
    before = table_counts(wh_path)
    with Warehouse(wh_path) as wh, pytest.raises(exc):
        ingest_mod.ingest_qrels(FailingConnection(wh.con, "INSERT OR IGNORE INTO topic", exc),
                                qrels, "new-campaign")
    assert table_counts(wh_path) == before


def test_interrupted_store_leaves_old_scores(wh_path):
    before = table_counts(wh_path)
    with Warehouse(wh_path) as wh:
        real = wh.con
        wh.con = FailingConnection(real, "INSERT INTO score")
        with pytest.raises(Boom):
            wh.evaluate(["map", "P.5"], campaign="c", store=True)
        wh.con = real
    assert table_counts(wh_path) == before


def test_warehouse_errors_are_one_line(wh_path):
    for args, message in [
        (("eval", "-C", "nope", "-w", wh_path), "no campaign 'nope' in the warehouse"),
        (("eval", "-C", "c", "--run", "nope", "-w", wh_path), "no run 'nope'"),
        (("eval", "-C", "c", "-m", "nonsense", "-w", wh_path), "unknown measure 'nonsense'"),
    ]:
        result = irw(*args)
        assert result.exit_code == 1 and message in result.stderr
        assert len(result.stderr.splitlines()) == 1
    with Warehouse(wh_path) as wh, pytest.raises(WarehouseError):
        wh.run_ids("c", ["nope"])


def test_qrels_provenance_digest_except_in_a_private_lean_warehouse(tmp_path):
    """A warehouse records the sha256 of the qrels file it stores; the private lean warehouse of
    files evaluated without a warehouse (api.evaluate_files), thrown away after, skips it."""
    import hashlib
    path = tmp_path / "qrels"
    path.write_text("1 0 d1 1\n1 0 d2 0\n")
    want = hashlib.sha256(path.read_bytes()).hexdigest()
    for kwargs, expected in (({}, want), ({"lean": True, "macros": False}, None)):
        with Warehouse(None, **kwargs) as wh:
            wh.ingest_qrels(path, "c")
            assert wh.con.execute("SELECT sha256 FROM qrels").fetchone()[0] == expected
    with Warehouse(tmp_path / "w.duckdb", lean=True) as wh:       # a file keeps its provenance
        wh.ingest_qrels(path, "c")
        assert wh.con.execute("SELECT sha256 FROM qrels").fetchone()[0] == want
