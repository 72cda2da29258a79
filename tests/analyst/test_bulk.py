"""`irw ingest runs DIR`: a folder of runs in one command, team from the file names."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from irwarehouse.analyst import bulk
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


@pytest.fixture(params=["one read", "a batch a file"])
def batches(request, monkeypatch):
    """Both ways a folder is read: one CSV read of the whole folder before the transaction,
    and (a folder over analyst.bulk.ONE_READ_BYTES) a batch at a time inside it, each batch on
    a connection of its own and handed over as a stream; here every file is a batch."""
    if request.param != "one read":
        monkeypatch.setattr(bulk, "ONE_READ_BYTES", 0)
        monkeypatch.setattr(bulk, "BATCH_BYTES", 1)
    return request.param


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


def _campaigns(path):
    with Warehouse(path, read_only=True) as wh:
        return [n for (n,) in wh.con.execute("SELECT name FROM campaign").fetchall()]


def test_bad_file_stores_nothing_keep_going_stores_the_rest(run_folder, tmp_path, batches):
    """issue 19 item 8: a failed `irw ingest runs DIR` kept its first files without saying
    so. Now one bad file stores nothing (not even the campaign, its year or venue); with
    --keep-going the good files are stored and the bad one listed as file:line."""
    wh = tmp_path / "wh.duckdb"
    (run_folder / "teamB-broken.run").write_text("1 Q0 d1 1 0.5 x\n1 Q0 d2 2 notanumber x\n")
    runner = CliRunner()
    base = ["ingest", "runs", str(run_folder), "-C", "c", "-w", str(wh)]
    res = runner.invoke(app, base + ["--year", "2020"])
    assert res.exit_code == 1
    assert "teamB-broken.run:2: score 'notanumber' is not a number" in res.output
    assert _runs(wh) == [] and _campaigns(wh) == []
    res = runner.invoke(app, base + ["--keep-going"])
    assert res.exit_code == 1
    assert "3 runs stored in campaign c, 1 failed" in res.output
    assert "teamB-broken.run:2: score 'notanumber' is not a number" in res.output
    assert [r for r, _ in _runs(wh)] == ["sys1", "sys2", "sys3"]
    res = runner.invoke(app, base + ["--keep-going", "--skip-existing"])
    assert res.exit_code == 1
    assert "0 runs stored in campaign c, 3 skipped, 1 failed" in res.output
    assert "skipped teamA-sys1.run: already stored" in res.output
    # a name already stored, without --replace or --skip-existing: refused, nothing written
    (run_folder / "teamB-broken.run").unlink()
    res = runner.invoke(app, base)
    assert res.exit_code == 1 and "is already in campaign 'c'" in res.output
    assert [r for r, _ in _runs(wh)] == ["sys1", "sys2", "sys3"]


def _stored_rows(path, campaign):
    """Every stored row of a campaign's runs, with the provenance and digest of each run."""
    with Warehouse(path, read_only=True) as wh:
        runs = wh.con.execute("""
            SELECT r.name, r.team, r.sha256, r.num_rows, d.num_rows, r.source_path
            FROM run r JOIN campaign c USING (campaign_id)
            JOIN irw_digest d ON d.table_name = 'run_row' AND d.part = r.run_id
            WHERE c.name = ?
            ORDER BY r.run_id""", [campaign]).fetchall()
        rows = wh.con.execute("""
            SELECT r.name, x.topic, x.doc, x.score, x.rank, x.file_order, x.score_rank
            FROM run_row x JOIN run r USING (run_id) JOIN campaign c USING (campaign_id)
            WHERE c.name = ? ORDER BY ALL""", [campaign]).fetchall()
        lists = wh.con.execute("""
            SELECT r.name, l.topic, l.num_docs FROM run_list l JOIN run r USING (run_id)
            JOIN campaign c USING (campaign_id) WHERE c.name = ? ORDER BY ALL""",
                               [campaign]).fetchall()
        judged = wh.con.execute("""
            SELECT r.name, j.topic, j.score_rank, j.rel FROM judged_row j
            JOIN run r USING (run_id) JOIN campaign c USING (campaign_id)
            WHERE c.name = ? ORDER BY ALL""", [campaign]).fetchall()
    return runs, rows, lists, judged


@pytest.mark.parametrize("variant", ["clean", "tabs and a duplicate"])
def test_folder_stores_what_single_files_store(run_folder, tmp_path, sample_data, variant,
                                               batches):
    """The one-pass folder ingest (one CSV read, one transaction) stores the same rows, file
    order, stored ranks, list lengths, judged documents, provenance and digests as ingesting
    each file alone: clean files take the bulk read; a tab-separated file and a duplicate kept
    with --keep-first take the per-file reader."""
    files = sorted(run_folder.glob("team*"))
    if variant != "clean":
        files[1].write_text(files[1].read_text().replace(" ", "\t"))
        text = files[2].read_text()
        files[2].write_text(text + text.splitlines(keepends=True)[0])
    qrels = sample_data / "qrels.test"
    wh = tmp_path / "wh.duckdb"
    runner = CliRunner()
    extra = ["--keep-first"] if variant != "clean" else []
    assert runner.invoke(app, ["ingest", "qrels", str(qrels), "-C", "bulk", "-w", str(wh)]
                         ).exit_code == 0
    res = runner.invoke(app, ["ingest", "runs", str(run_folder), "-C", "bulk", "-w", str(wh),
                              *extra])
    assert res.exit_code == 0, res.output
    assert runner.invoke(app, ["ingest", "qrels", str(qrels), "-C", "one", "-w", str(wh)]
                         ).exit_code == 0
    for path in files:
        res = runner.invoke(app, ["ingest", "run", str(path), "-C", "one", "-w", str(wh),
                                  "--team", path.name[4], *extra])
        assert res.exit_code == 0, res.output
    bulk, one = _stored_rows(wh, "bulk"), _stored_rows(wh, "one")
    # name, sha256, rows, rows recorded with the digest, source (the team comes from the
    # folder's default rule); the digests themselves hash the run ids, which differ
    assert [r[:1] + r[2:] for r in bulk[0]] == [r[:1] + r[2:] for r in one[0]]
    assert all(r[3] == r[4] for r in bulk[0])
    assert bulk[1:] == one[1:]
    assert runner.invoke(app, ["check", "-w", str(wh)]).exit_code == 0
    assert len(bulk[1]) > 100 and len(bulk[3]) > 0


def test_not_a_folder_or_empty(tmp_path):
    (tmp_path / "empty").mkdir()
    res = CliRunner().invoke(app, ["ingest", "runs", str(tmp_path / "empty"), "-C", "c", "-w",
                                   str(tmp_path / "wh.duckdb")])
    assert res.exit_code == 1 and "no run files" in res.output


def test_runs_sharing_a_tag_need_file_names(tmp_path, make_runs, batches):
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
    assert _runs(wh) == []                          # all or nothing: the first file neither
    res = CliRunner().invoke(app, base + ["--names", "file", "--skip-existing"])
    assert res.exit_code == 0, res.output
    assert _runs(wh) == [("a.results-0", "a"), ("b.results-1", "b")]


def test_run_name_from_file():
    assert run_name_from_file("rm.results-cata.txt.gz") == "rm.results-cata"
    assert run_name_from_file("input.MU03rob01.gz") == "input.MU03rob01"
    assert run_name_from_file("sys1.run") == "sys1"
    assert run_name_from_file(".gz") == ".gz"


@pytest.mark.parametrize("stop", [KeyboardInterrupt, MemoryError])
def test_a_folder_read_in_batches_stopped_in_its_last_batch_leaves_nothing(
        run_folder, tmp_path, monkeypatch, stop):
    """The batches of a large folder are written inside one transaction: Ctrl-C (or a failure
    of any kind) while the last batch is read leaves no run and no campaign, and the warehouse
    opens and takes the folder afterwards."""
    from irwarehouse.api import Warehouse as W
    monkeypatch.setattr(bulk, "ONE_READ_BYTES", 0)
    monkeypatch.setattr(bulk, "BATCH_BYTES", 1)
    staged, read = [], bulk._stage_folder

    def stage_then_stop(con, files, *args):
        staged.append(files)
        if len(staged) == 3:
            raise stop()
        return read(con, files, *args)
    monkeypatch.setattr(bulk, "_stage_folder", stage_then_stop)
    wh = tmp_path / "wh.duckdb"
    with W(wh) as w, pytest.raises(stop):
        bulk.ingest_folder(w.con, run_folder, "c")
    assert len(staged) == 3                         # two batches were written before
    assert _runs(wh) == [] and _campaigns(wh) == []
    monkeypatch.setattr(bulk, "_stage_folder", read)
    with W(wh) as w:
        assert len(bulk.ingest_folder(w.con, run_folder, "c").stored) == 3


def test_digests_of_a_folder_are_the_files_own(run_folder, tmp_path, batches):
    """The sha256 stored for each file is that of its bytes (hashlib over the file, here
    independent of the reader, which hashes in a thread while DuckDB reads), and a bad file
    added afterwards fails its own ingest, naming its line."""
    import hashlib
    with Warehouse(tmp_path / "wh.duckdb") as wh:
        assert len(bulk.ingest_folder(wh.con, run_folder, "c").stored) == 3
        got = dict(wh.con.execute("SELECT source_path, sha256 FROM run").fetchall())
        (run_folder / "teamD-bad.run").write_text("1 Q0 d1 1 0.5 x\n1 Q0 d2 2 nan x\n")
        with pytest.raises(Exception, match="teamD-bad.run:2"):
            bulk.ingest_folder(wh.con, run_folder, "d")
    assert got == {str(p.resolve()): hashlib.sha256(p.read_bytes()).hexdigest()
                   for p in run_folder.glob("team[ABC]*")}


def test_a_file_that_cannot_be_hashed_stores_nothing(run_folder, tmp_path, monkeypatch,
                                                     batches):
    """A file whose bytes cannot be read for its digest (here the hashing made to fail for
    one file) is reported by name and nothing is stored: the folder's read, whose digests
    come from a thread, falls back to the file-by-file reader, which reports it."""
    from irwarehouse.errors import IrwError
    from irwarehouse.formats import trec
    hashed = trec._sha256

    def failing(path):
        if path.name.startswith("teamB"):
            raise OSError(5, "Input/output error")
        return hashed(path)
    monkeypatch.setattr(trec, "_sha256", failing)
    trec._FACTS_CACHE.clear()
    wh = tmp_path / "wh.duckdb"
    with Warehouse(wh) as w, pytest.raises(IrwError, match="teamB-.*cannot read"):
        bulk.ingest_folder(w.con, run_folder, "c")
    assert _runs(wh) == [] and _campaigns(wh) == []
