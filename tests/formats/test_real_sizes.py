"""Readers at real sizes (issue 31 items 1 and 2): what small fixtures cannot show. The files are
generated at test time, as small as still reproduces each fault, and never committed.

- Two runs of about 10 MB read by one parallel CSV read: file order is each file's own line order
  (it was the rowid of a hash join on the file name, which interleaved the two files' rows), so
  every sort order gives the same bits together as one file at a time, and `irw ingest runs`
  stores each run's file order (it refused the folder: "a staged file's rows are not
  contiguous").
- A line longer than DuckDB's 32 MB CSV buffer: it was dropped with exit 0 when last, exit 4 in
  the middle, "empty file" alone without a line end; now refused with file, line and the limit,
  plain or gzipped, by every path (stage_run, stage_qrels, `irw eval`, `irw ingest runs`).
"""

from __future__ import annotations

import gzip
import json

import duckdb
import pytest
from typer.testing import CliRunner

from irwarehouse.analyst import bulk
from irwarehouse.api import Warehouse
from irwarehouse.cli import app
from irwarehouse.errors import InputError
from irwarehouse.formats.lines import LINE_LIMIT
from irwarehouse.formats.trec import stage_qrels, stage_run

TOPICS, DOCS = 30, 12_000         # 10.4 MB a run: 12 of 15 reads interleaved at 8.5 MB, all here
LIMIT_TEXT = f"line longer than {LINE_LIMIT:,} bytes (the limit)"


def irw(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def _twin_runs(folder, comment: bool = False):
    """The issue's twins: the same ranking twice (score 1/d, rank d, line order d; tags a and
    b), and qrels judging every 21st document. Score, rank and file order agree, so every
    sort order must give the same values. `comment`: b starts with a comment line, which sends
    the folder to the file-by-file reader."""
    folder.mkdir()
    lines = [f"T{t} Q0 D{d} {d} {1 / d:f}" for t in range(1, TOPICS + 1)
             for d in range(1, DOCS + 1)]
    a, b = folder / "a.txt", folder / "b.txt"
    a.write_text("".join(f"{line} a\n" for line in lines))
    b.write_text(("# the same run\n" if comment else "") + "".join(f"{line} b\n" for line in lines))
    qrels = folder.parent / f"{folder.name}.qrels"
    qrels.write_text("".join(f"T{t} 0 D{d * 7} {d % 3}\n" for t in range(1, TOPICS + 1)
                             for d in range(1, 60, 3)))
    return qrels, a, b


def _values(qrels, runs, order: str) -> dict:
    result = irw("eval", qrels, *runs, "-m", "map", "-m", "P.10", "-q", "-f", "json",
                 "--order", order)
    assert result.exit_code == 0, result.output
    return {(r["run"], r["topic"], r["measure"]): r["value"] for r in json.loads(result.stdout)}


@pytest.mark.slow
def test_large_runs_read_together_give_each_files_own_values_in_every_order(tmp_path):
    qrels, a, b = _twin_runs(tmp_path / "runs")
    alone = {**_values(qrels, [a], "score"), **_values(qrels, [b], "score")}
    assert len(alone) == 2 * 2 * (TOPICS + 1)
    assert len({v for (_, t, m), v in alone.items() if m == "map" and t != "all"}) == 1
    for order in ("score", "rank", "file"):
        assert _values(qrels, [a, b], order) == alone, order


@pytest.mark.slow
@pytest.mark.parametrize("way", ["one-read", "file-by-file", "a-batch-a-file"])
def test_a_folder_of_large_runs_ingests_with_each_files_order(tmp_path, way, monkeypatch):
    """Every reader of a folder: one CSV read of every file, file by file (a comment line makes
    b a file of the regex path), and a batch at a time handed over as a stream (a folder over
    analyst.bulk.ONE_READ_BYTES; here each file is a batch)."""
    if way == "a-batch-a-file":
        monkeypatch.setattr(bulk, "ONE_READ_BYTES", 0)
        monkeypatch.setattr(bulk, "BATCH_BYTES", 1)
    _, a, _ = _twin_runs(tmp_path / "runs", comment=way == "file-by-file")
    wh = tmp_path / "w.duckdb"
    result = irw("ingest", "runs", a.parent, "-C", "c", "-w", wh)
    assert result.exit_code == 0, result.output
    with Warehouse(wh, read_only=True) as w:
        # line order: topic by topic, document d at line d of its topic
        wrong = w.con.execute(f"""
            SELECT r.name, count(*), count(*) FILTER (WHERE rr.file_order
                       <> (CAST(substr(rr.topic, 2) AS INTEGER) - 1) * {DOCS} + rr.rank - 1)
            FROM run_row rr JOIN run r USING (run_id) GROUP BY r.name ORDER BY r.name
            """).fetchall()
    assert wrong == [("a", TOPICS * DOCS, 0), ("b", TOPICS * DOCS, 0)]


# -- a line longer than DuckDB's CSV buffer (32 MB) ----------------------------------------------
LONG = b"x" * (33 << 20)
RUN_HEAD = b"1 Q0 d1 1 3.0 tagA\n1 Q0 d2 2 2.0 tagA\n"


@pytest.fixture(scope="module")
def long_lines(tmp_path_factory):
    """name -> (file, the line of the long one). Gzip level 1: 33 MB of x in 0.1 s."""
    folder = tmp_path_factory.mktemp("long")
    files = {
        "run_last": (RUN_HEAD + b"1 Q0 d3 3 1.0 " + LONG + b"\n", 3),
        "run_middle": (b"1 Q0 d1 1 3.0 tagA\n1 Q0 d2 2 2.0 " + LONG + b"\n1 Q0 d3 3 1.0 tagA\n",
                       2),
        "run_alone_without_line_end": (b"1 Q0 d1 1 3.0 " + LONG, 1),
        "qrels_last": (b"1 0 d1 1\n1 0 " + LONG + b" 1\n", 2),
    }
    out = {}
    for name, (data, line) in files.items():
        out[name] = (folder / f"{name}.txt", line)
        out[name][0].write_bytes(data)
        out[f"{name}.gz"] = (folder / f"{name}.gz", line)
        out[f"{name}.gz"][0].write_bytes(gzip.compress(data, compresslevel=1))
    (folder / "q.txt").write_text("1 0 d1 1\n1 0 d3 1\n")
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", ["run_last", "run_middle", "run_alone_without_line_end",
                                  "qrels_last"])
@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_a_line_over_the_csv_buffer_is_refused_with_file_line_and_limit(long_lines, name, gz):
    path, line = long_lines[name + ".gz" * gz]
    con = duckdb.connect()
    with pytest.raises(InputError) as info:
        (stage_qrels if name.startswith("qrels") else stage_run)(con, path)
    assert str(info.value) == f"{path}:{line}: {LIMIT_TEXT}"


@pytest.mark.slow
def test_eval_and_ingest_runs_refuse_a_last_line_over_the_csv_buffer(long_lines, tmp_path):
    """The user's view of the fault: `irw eval` printed a value of the first two lines (exit 0),
    `irw ingest runs` stored 'run tagA (2 rows)'."""
    path, line = long_lines["run_last.gz"]
    result = irw("eval", path.parent / "q.txt", path, "-m", "map")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"irw: error: {path}:{line}: {LIMIT_TEXT}\n"
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "good.txt").write_bytes(RUN_HEAD)
    (folder / "long.txt").symlink_to(long_lines["run_middle"][0])
    result = irw("ingest", "runs", folder, "-C", "c", "-w", tmp_path / "w.duckdb")
    assert result.exit_code == 1, result.output
    assert result.stderr.splitlines()[-1] == f"irw: error: {folder / 'long.txt'}:2: {LIMIT_TEXT}"
    with Warehouse(tmp_path / "w.duckdb", read_only=True) as w:
        assert w.con.execute("SELECT count(*) FROM run").fetchone()[0] == 0
