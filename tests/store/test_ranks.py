"""The stored trec_eval rank (run_row.score_rank) without sorting every list (store/ranks.py),
and `irw ingest runs` of a folder read in several batches (issue 32 target 4): the ranks equal
an independent sort by trec_eval 9's rule (score read as a C float, descending, then docno
descending: comp_sim_docno), with ties, lists out of order, lists in several places of a file
and missing topics; a bad line in the last file leaves the warehouse as it was."""

from __future__ import annotations

import random
import struct

import duckdb
import pytest
from typer.testing import CliRunner

from irwarehouse.analyst import bulk
from irwarehouse.api import Warehouse
from irwarehouse.cli import app
from irwarehouse.store.connection import install_sort_macros
from irwarehouse.store.ranks import score_ranks, staged_lists


def _float32(x: float) -> float:
    """x as trec_eval 9 reads a score (a C float), by the struct module's rounding."""
    return struct.unpack("f", struct.pack("f", x))[0]


def trec_eval_ranks(rows) -> dict[int, int]:
    """{row index: rank in its (file, topic) list} by sorting each list in Python: score as
    float32 descending, then docno descending (trec_eval 9's comp_sim_docno)."""
    lists: dict[tuple, list[int]] = {}
    for i, (fi, topic, doc, score) in enumerate(rows):
        lists.setdefault((fi, topic), []).append(i)
    ranks = {}
    for members in lists.values():
        # docno descending within a tie: sort ascending by (-score, docno) then reverse the
        # docno order with a stable two-key sort
        members.sort(key=lambda i: rows[i][2], reverse=True)
        members.sort(key=lambda i: _float32(rows[i][3]), reverse=True)
        ranks.update({i: r for r, i in enumerate(members, 1)})
    return ranks


def run_lines(rng: random.Random, tag: str, *, shape: str) -> list[tuple[str, str, float]]:
    """(topic, doc, score) lines of one run file in file order. Scores of one decimal make
    ties; `shape`: 'sorted' (score order, ties in random docno order), 'reversed' (some
    lists in rising order), 'scattered' (a topic's lines in two places), with topics missing
    at random."""
    out = []
    topics = [t for t in ("101", "102", "103", "104", "7") if rng.random() > 0.2] or ["101"]
    for topic in topics:
        docs = rng.sample(range(1000), rng.randint(1, 40))
        scored = [(f"D{d:04d}", round(rng.uniform(0, 3), 1)) for d in docs]
        if rng.random() < 0.3:                       # a large score: float32 rounding ties it
            scored.append(("DBIG1", 16777217.0))
            scored.append(("DBIG2", 16777216.0))
        scored.sort(key=lambda x: x[1], reverse=True)
        if shape == "reversed" and rng.random() < 0.5:
            scored.reverse()
        out += [(topic, d, s) for d, s in scored]
    if shape == "scattered" and len(out) > 3:
        moved = out[: len(out) // 3]
        out = out[len(out) // 3:] + moved[::-1]
    return out


def _stage(con, files) -> list[tuple]:
    """TEMP table stage_runs as formats.trec stages a folder: rowids 0..N-1 in file order, on a
    bare connection given trec_eval's order as analyst.bulk gives its reader."""
    install_sort_macros(con)
    rows = [(fi, t, d, s) for fi, lines in enumerate(files, 1) for t, d, s in lines]
    con.execute("CREATE OR REPLACE TEMP TABLE stage_runs (fi INTEGER, topic VARCHAR, "
                "doc VARCHAR, score DOUBLE, rank BIGINT)")
    con.executemany("INSERT INTO stage_runs VALUES (?, ?, ?, ?, NULL)", rows)
    return rows


@pytest.mark.parametrize("seed", range(6))
def test_ranks_equal_trec_eval_sort(seed):
    rng = random.Random(seed)
    files = [run_lines(rng, f"r{i}", shape=rng.choice(["sorted", "reversed", "scattered"]))
             for i in range(5)]
    con = duckdb.connect()
    rows = _stage(con, files)
    want = trec_eval_ranks(rows)
    got = score_ranks(con, staged_lists(con))
    assert [int(r) for r in got] == [want[i] for i in range(len(rows))]


def test_ranks_of_hand_worked_lists():
    """Worked by hand: ties in docno order descending; a list that rises is sorted whole;
    1.00000001 and 1.0 are one float32 and tie."""
    con = duckdb.connect()
    rows = _stage(con, [
        [("1", "a", 3.0), ("1", "b", 2.0), ("1", "c", 2.0), ("1", "d", 1.0)],
        [("1", "x", 1.0), ("1", "y", 5.0), ("2", "p", 1.00000001), ("2", "q", 1.0)],
    ])
    assert len(rows) == 8
    got = [int(r) for r in score_ranks(con, staged_lists(con))]
    assert got == [1, 3, 2, 4,      # c > b among the tied 2.0
                   2, 1,            # the list rises: sorted whole
                   2, 1]            # q > p: their float32 scores are equal


def _write_folder(folder, rng, n=9):
    folder.mkdir()
    expected = {}
    for i in range(n):
        shape = ("sorted", "reversed", "scattered")[i % 3]
        lines = run_lines(rng, f"run{i}", shape=shape)
        text = "".join(f"{t} Q0 {d} {r} {s!r} run{i}\n" for r, (t, d, s) in enumerate(lines, 1))
        (folder / f"r{i:02d}.run").write_text(text)
        expected[f"run{i}"] = lines
    return expected


@pytest.fixture(params=["one read", "batches of a file"])
def batches(request, monkeypatch):
    if request.param != "one read":
        monkeypatch.setattr(bulk, "ONE_READ_BYTES", 0)
        monkeypatch.setattr(bulk, "BATCH_BYTES", 1)
    return request.param


def test_folder_stores_trec_eval_ranks_file_order_and_lists(tmp_path, batches):
    expected = _write_folder(tmp_path / "runs", random.Random(11))
    wh = tmp_path / "wh.duckdb"
    res = CliRunner().invoke(app, ["ingest", "runs", str(tmp_path / "runs"), "-C", "c",
                                   "-w", str(wh)])
    assert res.exit_code == 0, res.output
    with Warehouse(wh, read_only=True) as w:
        for name, lines in expected.items():
            stored = w.con.execute("""
                SELECT x.topic, x.doc, x.score, x.rank, x.file_order, x.score_rank
                FROM run_row x JOIN run r USING (run_id) WHERE r.name = ?
                ORDER BY x.file_order""", [name]).fetchall()
            rows = [(1, t, d, s) for t, d, s in lines]
            want = trec_eval_ranks(rows)
            assert stored == [(t, d, s, i + 1, i, want[i]) for i, (t, d, s) in enumerate(lines)]
            counts = dict(w.con.execute("""
                SELECT l.topic, l.num_docs FROM run_list l JOIN run r USING (run_id)
                WHERE r.name = ?""", [name]).fetchall())
            assert counts == {t: sum(1 for x in lines if x[0] == t) for t, _, _ in lines}
    assert CliRunner().invoke(app, ["check", "-w", str(wh)]).exit_code == 0


def _state(path):
    with Warehouse(path, read_only=True) as w:
        return {t: w.con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()
                for t in ("campaign", "run", "run_row", "run_list", "judged_row", "irw_digest")}


def test_bad_line_in_the_last_file_of_a_batched_folder_changes_nothing(tmp_path, batches):
    """All or nothing across batches: the earlier batches were written inside the same
    transaction, and the error names the file and line."""
    runs = tmp_path / "runs"
    _write_folder(runs, random.Random(5), n=6)
    wh = tmp_path / "wh.duckdb"
    runner = CliRunner()
    first = tmp_path / "first"
    _write_folder(first, random.Random(6), n=2)
    assert runner.invoke(app, ["ingest", "runs", str(first), "-C", "c", "-w", str(wh)]
                         ).exit_code == 0
    before = _state(wh)
    last = sorted(runs.iterdir())[-1]
    lines = last.read_text().splitlines(keepends=True)
    last.write_text("".join(lines) + "101 Q0 DX 9 notanumber run5\n")
    res = runner.invoke(app, ["ingest", "runs", str(runs), "-C", "c", "-w", str(wh),
                              "--names", "file"])
    assert res.exit_code == 1
    assert f"{last.name}:{len(lines) + 1}: score 'notanumber' is not a number" in res.output
    assert _state(wh) == before
    assert runner.invoke(app, ["check", "-w", str(wh)]).exit_code == 0
