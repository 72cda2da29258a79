"""docs/walkthrough.py, the notebook-style walk-through (issue 35 item 5), runs from top to bottom:
DataFrames in, a leaderboard, a significance table and a plot out. Its baseline's values are
trec_eval's own (tests/data/trec_eval/out.test*, NIST's expected output for the same files)."""

from __future__ import annotations

import runpy

import pytest

from tests.helpers.paths import REPO, TEST_DATA

SCRIPT = REPO / "docs" / "walkthrough.py"


def _trec_eval(name: str, measure: str) -> str:
    for line in (TEST_DATA / "trec_eval" / name).read_text().splitlines():
        fields = line.split()
        if fields[:2] == [measure, "all"]:
            return fields[2]
    raise AssertionError(f"{measure} not in {name}")


def test_the_walkthrough_runs_and_shows_what_it_promises(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("IRW_WALKTHROUGH_OUT", str(tmp_path))
    cells = SCRIPT.read_text().count("\n# %%")
    assert cells >= 10                          # markdown and code cells, as a notebook has
    names = runpy.run_path(str(SCRIPT), run_name="__main__")
    leaderboard = names["leaderboard"]
    assert list(leaderboard.columns) == ["map", "P@10", "nDCG@10"]
    assert sorted(leaderboard.index) == ["STANDARD", "noisy", "reordered"]
    assert list(leaderboard["map"]) == sorted(leaderboard["map"], reverse=True)
    standard = leaderboard.loc["STANDARD"]
    assert f"{standard['map']:.4f}" == _trec_eval("out.test", "map")
    assert f"{standard['P@10']:.4f}" == _trec_eval("out.test", "P_10")
    assert f"{standard['nDCG@10']:.4f}" == _trec_eval("out.test.a", "ndcg_cut_10")
    significance = names["significance"]
    assert len(significance) == 3                          # every pair of three runs
    assert significance.p.between(0, 1).all()
    # each pair's difference is the leaderboard's difference of the two runs' MAP
    row = significance[(significance.run_a == "STANDARD") & (significance.run_b == "reordered")]
    assert row.delta.item() == pytest.approx(leaderboard["map"]["STANDARD"]
                                             - leaderboard["map"]["reordered"], abs=1e-12)
    figure = names["figure"]
    assert figure.parent == tmp_path and figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "walkthrough.duckdb").is_file()
