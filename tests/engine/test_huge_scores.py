"""Scores beyond a C float's range (|score| >= 2^128 - 2^103, about 3.4e38). trec_eval 9.x
reads a score into `float sim` (trec_format.h), where C's conversion makes such a score
+-infinity, so two huge scores tie and are ordered by docno; trec_eval 10 keeps the double.
DuckDB's CAST to FLOAT raises there instead ("Conversion Error"), which `irw eval` and
`irw ingest` once reported as an internal error.

Worked by hand (the same values as trec_eval 9.0.8 and 10.0 built from their sources):

    doc  score          rel   trec_eval 9 (float)       trec_eval 10 (double)
    d1   3.5e38         1     inf   -> rank 2           rank 1
    d2   1.0            0     1.0   -> rank 4           rank 4
    d3   -3.5e38        1     -inf  -> rank 5           rank 5
    d4   3.45e38        0     inf   -> rank 1 (d4 > d1) rank 2
    d5   3.4028235e38   1     FLT_MAX (rounds down)     rank 3
                              -> rank 3

    trec_eval 9:  relevant at ranks 2, 3, 5: AP = (1/2 + 2/3 + 3/5) / 3, RR = 1/2
    trec_eval 10: relevant at ranks 1, 3, 5: AP = (1 + 2/3 + 3/5) / 3,   RR = 1
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from irwarehouse.analyst import bulk
from irwarehouse.api import Warehouse
from irwarehouse.cli import app

RUN = ("1 Q0 d1 1 3.5e38 t\n1 Q0 d2 2 1.0 t\n1 Q0 d3 3 -3.5e38 t\n"
       "1 Q0 d4 4 3.45e38 t\n1 Q0 d5 5 3.4028235e38 t\n")
QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 1\n1 0 d4 0\n1 0 d5 1\n"
EXPECTED = {9: {"map": (1 / 2 + 2 / 3 + 3 / 5) / 3, "recip_rank": 0.5},
            10: {"map": (1 + 2 / 3 + 3 / 5) / 3, "recip_rank": 1.0}}
RANKS_9 = {"d4": 1, "d1": 2, "d5": 3, "d2": 4, "d3": 5}


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "t.run").write_text(RUN)
    return tmp_path


def _values(output: str) -> dict[str, float]:
    return {line.split()[0]: float(line.split()[2]) for line in output.splitlines()
            if line.split()[1:2] == ["all"]}


@pytest.mark.parametrize("version", [9, 10])
def test_files_rank_huge_scores_as_trec_eval(files, version):
    res = CliRunner().invoke(app, ["eval", "--trec-eval-version", str(version), "-m", "map",
                                   "-m", "recip_rank", str(files / "qrels"),
                                   str(files / "runs" / "t.run")])
    assert res.exit_code == 0, res.output
    got = _values(res.output)
    for measure, value in EXPECTED[version].items():
        assert got[measure] == pytest.approx(value, abs=5e-5)


@pytest.fixture(params=["one run", "a folder in batches"])
def ingest_command(request, monkeypatch, files):
    if request.param == "one run":
        return ["ingest", "run", str(files / "runs" / "t.run")]
    monkeypatch.setattr(bulk, "ONE_READ_BYTES", 0)
    monkeypatch.setattr(bulk, "BATCH_BYTES", 1)
    return ["ingest", "runs", str(files / "runs")]


def test_stored_ranks_of_huge_scores(files, ingest_command):
    """The stored trec_eval 9 rank (store/ranks.py reads float32 scores in numpy) and a
    stored campaign's values."""
    wh = str(files / "wh.duckdb")
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", "qrels", str(files / "qrels"), "-C", "c", "-w", wh]
                         ).exit_code == 0
    res = runner.invoke(app, [*ingest_command, "-C", "c", "-w", wh])
    assert res.exit_code == 0, res.output
    with Warehouse(wh, read_only=True) as w:
        assert dict(w.con.execute("SELECT doc, score_rank FROM run_row").fetchall()) == RANKS_9
    res = runner.invoke(app, ["eval", "--campaign", "c", "-m", "map", "-m", "recip_rank",
                              "-w", wh])
    assert res.exit_code == 0, res.output
    got = _values(res.output)
    for measure, value in EXPECTED[9].items():
        assert got[measure] == pytest.approx(value, abs=5e-5)
