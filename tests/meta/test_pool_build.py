"""Issue 24: a pool is never half-made, records how it was built, and is reused only for the same
request; every LOO output names the pool's build; pools of older warehouses keep working."""

import json

import duckdb
import pytest
from typer.testing import CliRunner

from irwarehouse.api import Warehouse
from irwarehouse.cli import app
from irwarehouse.errors import WarehouseError
from irwarehouse.meta import loo as loo_mod
from irwarehouse.meta import pools
from tests.helpers.meta_campaign import RUNS, campaign_warehouse

PATTERN = "^(alpha|beta|gamma)"          # alphaA, alphaB -> alpha; beta1 -> beta; gamma* -> gamma


@pytest.fixture
def wh_path(tmp_path):
    return campaign_warehouse(tmp_path)


def irw(wh_path, *args):
    return CliRunner().invoke(app, [args[0], args[1], "-w", str(wh_path), *args[2:]])


def pool_rows(wh_path) -> dict[str, int]:
    con = duckdb.connect(str(wh_path), read_only=True)
    try:
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in ("pool", "pool_run", "pool_doc")}
    finally:
        con.close()


NOTHING = {"pool": 0, "pool_run": 0, "pool_doc": 0}


# ---------------------------------------------------------------- 1. never half-made


def test_failed_pool_command_leaves_nothing_behind_and_a_retry_works(wh_path):
    failed = irw(wh_path, "meta", "pool", "-C", "c", "--depth", "3", "--qrels", "NO-SUCH")
    assert failed.exit_code == 1
    assert "NO-SUCH" in failed.output and failed.output.count("\n") == 1
    assert pool_rows(wh_path) == NOTHING
    retry = irw(wh_path, "meta", "pool", "-C", "c", "--depth", "3")
    assert retry.exit_code == 0, retry.output
    assert pool_rows(wh_path)["pool"] == 1


@pytest.mark.parametrize("args, message", [
    (["--team-pattern", "("], "bad team pattern"),
    (["--run", "nope"], "no run 'nope'"),
    (["--depth", "0"], "positive integer"),
])
def test_other_bad_pool_requests_leave_nothing_behind(wh_path, args, message):
    base = ["meta", "pool", "-C", "c"] + ([] if "--depth" in args else ["--depth", "3"])
    result = irw(wh_path, *base, *args)
    assert result.exit_code == 1 and message in result.output
    assert result.output.count("\n") == 1
    assert pool_rows(wh_path) == NOTHING


def test_a_failure_inside_the_build_rolls_the_whole_pool_back(wh_path, monkeypatch):
    monkeypatch.setattr(pools, "POOL_SQL", "INSERT INTO pool_doc SELECT no_such_column")
    with Warehouse(wh_path) as wh, pytest.raises(duckdb.Error):
        pools.build_pool(wh.con, "c", depth=3)
    assert pool_rows(wh_path) == NOTHING


def test_a_failed_loo_drops_the_pool_it_built(wh_path):
    result = irw(wh_path, "meta", "loo", "-C", "c", "--depth", "3", "-m", "nope")
    assert result.exit_code == 1 and "unknown measure" in result.output
    assert pool_rows(wh_path) == NOTHING
    bad_qrels = irw(wh_path, "meta", "loo", "-C", "c", "--depth", "3", "-m", "AP",
                    "--qrels", "NO-SUCH")
    assert bad_qrels.exit_code == 1 and pool_rows(wh_path) == NOTHING


# ---------------------------------------------------------------- 2. a pool records its build


def test_pool_records_how_it_was_built(wh_path):
    with Warehouse(wh_path) as wh:
        qid = wh.qrels_id("c")
        by_pattern = pools.build_pool(wh.con, "c", depth=3, team_pattern=PATTERN, qrels_id=qid)
        by_mapping = pools.build_pool(wh.con, "c", depth=2, runs=["beta1", "alphaA"],
                                      teams={"beta1": "B"}, name="two")
        stored = pools.build_pool(wh.con, "c", depth=4)
        first = pools.pool_info(wh.con, by_pattern)
        assert (first.depth, first.n_runs, first.n_teams) == (3, 5, 3)
        assert (first.team_source, first.team_pattern, first.qrels) == ("pattern", PATTERN,
                                                                        "qrels")
        assert dict(first.members) == RUNS and first.recorded
        second = pools.pool_info(wh.con, by_mapping)
        assert second.members == [("alphaA", "alphaA"), ("beta1", "B")]
        assert (second.team_source, second.team_pattern, second.qrels) == ("mapping", None, None)
        assert pools.pool_info(wh.con, stored).team_source == "stored"
        assert [i.name for i in pools.list_pools(wh.con, "c")] == ["depth3", "depth4", "two"]
        with pytest.raises(WarehouseError, match="no campaign"):
            pools.list_pools(wh.con, "nope")
    listed = irw(wh_path, "meta", "pool", "--list", "-f", "json")
    assert listed.exit_code == 0, listed.output
    rows = {r["pool"]: r for r in json.loads(listed.output)}
    assert rows["depth3"] | {"created_at": None} == {
        "campaign": "c", "pool": "depth3", "pool_id": by_pattern, "depth": 3, "runs": 5,
        "teams": 3, "team_source": "pattern", "team_pattern": PATTERN, "qrels": "qrels",
        "recorded": True, "created_at": None}
    assert rows["two"]["runs"] == 2 and rows["two"]["qrels"] is None
    table = irw(wh_path, "meta", "pool", "--list", "-C", "c")
    assert table.exit_code == 0 and PATTERN in table.output and "team_source" in table.output
    assert irw(wh_path, "meta", "pool", "--list", "--depth", "3").exit_code == 1


def test_the_pool_command_prints_the_build(wh_path):
    result = irw(wh_path, "meta", "pool", "-C", "c", "--depth", "3", "--team-pattern", PATTERN,
                 "--qrels", "qrels", "-f", "json")
    assert result.exit_code == 0, result.output
    head = json.loads(result.output)
    assert (head["team_pattern"], head["qrels"], head["counted_with_qrels"]) == (PATTERN, "qrels",
                                                                                 "qrels")
    again = irw(wh_path, "meta", "pool", "-C", "c", "--depth", "3", "--team-pattern", PATTERN)
    assert again.exit_code == 1 and "built the same way" in again.output
    other = irw(wh_path, "meta", "pool", "-C", "c", "--depth", "3")
    assert other.exit_code == 1 and "teams of 5 runs differ" in other.output


def test_loo_reuses_a_pool_only_for_the_same_request(wh_path):
    """The issue's case: `loo --depth 3 --team-pattern X` must not silently take a depth3 pool
    built with other teams."""
    assert irw(wh_path, "meta", "pool", "-C", "c", "--depth", "3",
               "--team-pattern", PATTERN).exit_code == 0
    loo = ["meta", "loo", "-C", "c", "-m", "AP", "-f", "json"]
    other_teams = irw(wh_path, *loo, "--depth", "3", "--team-pattern", "^(alpha|beta)")
    assert other_teams.exit_code == 1
    message = other_teams.output
    assert "depth3" in message and "teams of 2 runs differ" in message
    assert "'gamma' in the pool, 'gamma1' requested" in message and PATTERN in message
    assert message.count("\n") == 1
    no_pattern = irw(wh_path, *loo, "--depth", "3")
    assert no_pattern.exit_code == 1 and "team pattern" in no_pattern.output
    same = irw(wh_path, *loo, "--depth", "3", "--team-pattern", PATTERN)
    assert same.exit_code == 0, same.output
    # a pattern giving every run the same team asks for the same pool
    equivalent = irw(wh_path, *loo, "--depth", "3", "--team-pattern", "^[a-z]+")
    assert equivalent.exit_code == 0, equivalent.output
    assert json.loads(equivalent.output)[0]["team_pattern"] == PATTERN   # the stored one
    # an explicit --pool is checked against what else the command asks
    assert irw(wh_path, *loo, "--pool", "depth3").exit_code == 0
    deeper = irw(wh_path, *loo, "--pool", "depth3", "--depth", "4")
    assert deeper.exit_code == 1 and "depth 3 in the pool, 4 requested" in deeper.output
    regrouped = irw(wh_path, *loo, "--pool", "depth3", "--team-pattern", ".*")
    assert regrouped.exit_code == 1 and "teams of 5 runs differ" in regrouped.output
    with Warehouse(wh_path) as wh:
        assert [i.name for i in pools.list_pools(wh.con)] == ["depth3"]


def test_a_pool_of_other_runs_is_not_reused(wh_path):
    assert irw(wh_path, "meta", "pool", "-C", "c", "--depth", "3", "--run", "alphaA",
               "--run", "beta1").exit_code == 0
    result = irw(wh_path, "meta", "loo", "-C", "c", "--depth", "3", "-m", "AP")
    assert result.exit_code == 1
    assert "2 runs in the pool, 5 requested" in result.output
    assert "not in the pool: alphaB, gamma1, gamma2" in result.output


def test_a_pool_built_for_other_qrels_is_not_reused(wh_path, tmp_path):
    path = tmp_path
    with Warehouse(wh_path) as wh:
        wh.ingest_qrels(path / "qrels", "c", name="second")
    assert irw(wh_path, "meta", "pool", "-C", "c", "--depth", "3", "--qrels",
               "qrels").exit_code == 0
    result = irw(wh_path, "meta", "loo", "-C", "c", "--pool", "depth3", "-m", "AP",
                 "--qrels", "second")
    assert result.exit_code == 1
    assert "built for qrels 'qrels', qrels 'second' requested" in result.output
    assert irw(wh_path, "meta", "loo", "-C", "c", "--pool", "depth3", "-m", "AP",
               "--qrels", "qrels").exit_code == 0


def test_every_loo_output_names_the_build(wh_path):
    loo = ["meta", "loo", "-C", "c", "--depth", "3", "--team-pattern", PATTERN, "-m", "AP"]
    table = irw(wh_path, *loo)
    assert table.exit_code == 0, table.output
    first = table.output.splitlines()[0]
    assert first.startswith("# pool depth3 of campaign c: depth 3, 5 runs, 3 teams")
    assert PATTERN in first and "LOO with qrels 'qrels'" in first
    for extra in ([], ["--per-run"]):
        rows = json.loads(irw(wh_path, *loo, *extra, "-f", "json").output)
        assert all(r["pool"] == "depth3" and r["pool_depth"] == 3 and r["pool_runs"] == 5
                   and r["pool_teams"] == 3 and r["team_pattern"] == PATTERN
                   and r["team_source"] == "pattern" and r["pool_qrels"] == "qrels"
                   and r["loo_qrels"] == "qrels" for r in rows)
    csv = irw(wh_path, *loo, "-f", "csv").output.splitlines()
    assert "team_pattern" in csv[0].split(",") and PATTERN in csv[1]


def test_the_report_names_the_build(wh_path, tmp_path):
    out = tmp_path / "report"
    result = irw(wh_path, "meta", "report", "-C", "c", "-m", "AP", "--out", str(out),
                 "--B-bootstrap", "100", "--B-tukey", "100", "--B-swap", "50",
                 "--loo-depth", "3", "--team-pattern", PATTERN)
    assert result.exit_code == 0, result.output
    text = (out / "report.md").read_text()
    assert f"Pool depth3 of campaign c: depth 3, 5 runs, 3 teams from pattern '{PATTERN}'" in text
    build = json.loads((out / "report.json").read_text())["loo"]["pool_build"]
    assert build["team_pattern"] == PATTERN and build["depth"] == 3 and "created_at" not in build
    stray = irw(wh_path, "meta", "report", "-C", "c", "-m", "AP", "--out", str(out),
                "--team-pattern", PATTERN)
    assert stray.exit_code == 1 and "--loo-depth" in stray.output


def test_loo_result_carries_the_pool(wh_path):
    with Warehouse(wh_path) as wh:
        pid = pools.build_pool(wh.con, "c", depth=3, teams=RUNS)
        res = loo_mod.leave_one_team_out(wh.con, pool_id=pid, qrels_id=wh.qrels_id("c"),
                                         measures=["AP"])
    assert res.pool.team_source == "mapping" and res.qrels == "qrels"
    assert res.pool_record()["pool_teams"] == 3


# ---------------------------------------------------------------- older warehouses


def make_old(wh_path):
    """A pool as the previous version stored it: no team_source / team_pattern / qrels_id
    columns, and the warehouse's record of the SQL applied from before."""
    with Warehouse(wh_path) as wh:
        pools.build_pool(wh.con, "c", depth=3, team_pattern=PATTERN)
    con = duckdb.connect(str(wh_path))
    for column in ("team_source", "team_pattern", "qrels_id"):
        con.execute(f"ALTER TABLE pool DROP COLUMN {column}")
    con.execute("UPDATE irw_meta SET value = 'an older version' WHERE key = 'sql_sha256'")
    con.close()


def test_pools_of_an_older_warehouse_keep_working(wh_path):
    make_old(wh_path)
    listed = irw(wh_path, "meta", "pool", "--list", "-f", "json")    # the schema is upgraded
    assert listed.exit_code == 0, listed.output
    (row,) = json.loads(listed.output)
    assert (row["depth"], row["runs"], row["teams"], row["recorded"]) == (3, 5, 3, False)
    assert row["team_source"] == row["team_pattern"] == row["qrels"] == "not recorded"
    loo = ["meta", "loo", "-C", "c", "-m", "AP"]
    named = irw(wh_path, *loo, "--pool", "depth3")
    assert named.exit_code == 0, named.output
    assert "3 teams (team rule and qrels not recorded: an older pool)" in named.output
    # depth, runs and teams are compared all the same (pool_run has them)
    assert irw(wh_path, *loo, "--depth", "3", "--team-pattern", PATTERN).exit_code == 0
    differing = irw(wh_path, *loo, "--depth", "3")
    assert differing.exit_code == 1
    assert "team pattern not recorded in the pool, none requested" in differing.output
    # a rebuild records everything
    assert irw(wh_path, "meta", "pool", "-C", "c", "--depth", "3", "--team-pattern", PATTERN,
               "--replace").exit_code == 0
    (row,) = json.loads(irw(wh_path, "meta", "pool", "--list", "-f", "json").output)
    assert row["recorded"] and row["team_pattern"] == PATTERN
