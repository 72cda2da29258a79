"""`irw ingest runs DIR`: a folder of runs in one command, team from the file names."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from irwarehouse.analyst.bulk import run_name_from_file, team_of
from irwarehouse.api import Warehouse
from irwarehouse.cli import app


@pytest.fixture
def run_folder(tmp_path, make_runs):
    folder = tmp_path / "runs"
    folder.mkdir()
    for i, path in enumerate(make_runs(folder, n=3)):
        path.rename(folder / f"team{'ABC'[i]}-{path.name}")
    (folder / ".hidden").write_text("ignored\n")
    return folder


def _runs(path):
    with Warehouse(path, read_only=True) as wh:
        return wh.con.execute("SELECT run, team FROM run_info WHERE campaign = 'c' "
                              "ORDER BY run").fetchall()


def test_team_rules():
    assert team_of("input.MU03rob01.gz", "MU03rob01", None) == "MU"
    # the team acronym ends where the case changes (issue 19: uwmtCR was not a team)
    assert team_of("input.uwmtCR0.gz", "uwmtCR0", None) == "uwmt"
    assert team_of("teamB-x.run", "x", r"^team(\w)-") == "B"
    assert team_of("other.run", "x", r"^team(\w)-") is None
    # without a group the whole match is the team, as `irw meta pool --team-pattern` reads it
    assert team_of("teamB-x.run", "x", r"^team\w") == "teamB"


def test_ingest_folder_with_team_pattern(run_folder, tmp_path):
    wh = tmp_path / "wh.duckdb"
    res = CliRunner().invoke(app, ["ingest", "runs", str(run_folder), "-C", "c", "-w", str(wh),
                                   "--team-pattern", r"^team(\w)-", "--year", "2021",
                                   "--venue", "TEST"])
    assert res.exit_code == 0, res.output
    assert "3 runs stored in campaign c" in res.output
    assert "3/3" in res.output                                     # the progress bar
    assert _runs(wh) == [("sys1", "A"), ("sys2", "B"), ("sys3", "C")]
    with Warehouse(wh, read_only=True) as w:
        assert w.con.execute("SELECT year, venue FROM campaign WHERE name = 'c'"
                             ).fetchall() == [(2021, "TEST")]


def test_bad_file_stops_keep_going_reports_and_skip_existing(run_folder, tmp_path):
    wh = tmp_path / "wh.duckdb"
    (run_folder / "teamB-broken.run").write_text("1 Q0 d1 1 0.5 x\n1 Q0 d2 2 notanumber x\n")
    runner = CliRunner()
    base = ["ingest", "runs", str(run_folder), "-C", "c", "-w", str(wh)]
    res = runner.invoke(app, base)
    assert res.exit_code == 1
    assert "teamB-broken.run:2: score 'notanumber' is not a number" in res.output
    assert _runs(wh) == [("sys1", "sys")]                # files before the bad one are stored
    res = runner.invoke(app, base + ["--keep-going", "--skip-existing"])
    assert res.exit_code == 1
    assert "2 runs stored in campaign c, 1 skipped, 1 failed" in res.output
    assert "skipped teamA-sys1.run: already stored" in res.output
    assert [r for r, _ in _runs(wh)] == ["sys1", "sys2", "sys3"]


def test_not_a_folder_or_empty(tmp_path):
    (tmp_path / "empty").mkdir()
    res = CliRunner().invoke(app, ["ingest", "runs", str(tmp_path / "empty"), "-C", "c", "-w",
                                   str(tmp_path / "wh.duckdb")])
    assert res.exit_code == 1 and "no run files" in res.output


def test_runs_sharing_a_tag_need_file_names(tmp_path, make_runs):
    folder = tmp_path / "same"
    folder.mkdir()
    for i, path in enumerate(make_runs(folder, n=2)):
        text = path.read_text().replace(f" sys{i + 1}\n", " indri\n")
        (folder / f"{'ab'[i]}.results-{i}.txt.gz").write_bytes(__import__("gzip").compress(
            text.encode()))
        path.unlink()
    wh = tmp_path / "wh.duckdb"
    base = ["ingest", "runs", str(folder), "-C", "c", "-w", str(wh)]
    res = CliRunner().invoke(app, base)
    assert res.exit_code == 1 and "--names file" in res.output
    res = CliRunner().invoke(app, base + ["--names", "file", "--skip-existing"])
    assert res.exit_code == 0, res.output
    assert _runs(wh) == [("a.results-0", "a"), ("b.results-1", "b"), ("indri", "indri")]


def test_run_name_from_file():
    assert run_name_from_file("rm.results-cata.txt.gz") == "rm.results-cata"
    assert run_name_from_file("input.MU03rob01.gz") == "input.MU03rob01"
    assert run_name_from_file("sys1.run") == "sys1"
    assert run_name_from_file(".gz") == ".gz"
