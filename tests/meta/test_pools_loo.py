import pytest

from irwarehouse.api import Warehouse, evaluate_files
from irwarehouse.errors import WarehouseError
from irwarehouse.meta import loo as loo_mod
from irwarehouse.meta import pools
from tests.helpers.meta_campaign import RUNS, TOPICS, write_campaign

MEASURES = ["AP", "P@5", "nDCG@10"]


@pytest.fixture
def campaign(tmp_path):
    return write_campaign(tmp_path)


def slow_pool(runs, depth):
    """Per run and topic: sort by (score desc, docno desc), keep the top `depth`."""
    pool = {}
    for run, lines in runs.items():
        for topic in TOPICS:
            rows = sorted([ln for ln in lines if ln[0] == topic],
                          key=lambda ln: (-ln[2], [-ord(c) for c in ln[1]]))
            for t, doc, _, _ in rows[:depth]:
                pool.setdefault((t, doc), set()).add(RUNS[run])
    return pool


def load(wh, tmp_path):
    wh.ingest_qrels(tmp_path / "qrels", "c")
    for run in RUNS:
        wh.ingest_run(tmp_path / run, "c")


def test_pool_against_slow_loop(campaign, tmp_path):
    path, runs, _ = campaign
    with Warehouse(tmp_path / "w.duckdb") as wh:
        load(wh, path)
        pid = pools.build_pool(wh.con, "c", depth=3, team_pattern=r"^(alpha|beta|gamma)")
        got = {(t, d): set(teams) for t, d, teams in wh.con.execute(
            "SELECT topic, doc, teams FROM pool_doc WHERE pool_id = ?", [pid]).fetchall()}
        assert got == slow_pool(runs, 3)
        teams = dict(wh.con.execute("SELECT r.name, p.team FROM pool_run p JOIN run r "
                                    "USING (run_id) WHERE pool_id = ?", [pid]).fetchall())
        assert teams == RUNS
        with pytest.raises(WarehouseError):
            pools.build_pool(wh.con, "c", depth=3)        # name depth3 taken
        again = pools.build_pool(wh.con, "c", depth=3, replace=True,
                                 teams={r: RUNS[r] for r in RUNS})
        assert wh.con.execute("SELECT count(*) FROM pool").fetchone()[0] == 1
        assert pools.pool_id(wh.con, "c", "depth3") == again


def test_team_resolution(campaign, tmp_path):
    path, _, _ = campaign
    with Warehouse(tmp_path / "w.duckdb") as wh:
        load(wh, path)
        plain = {n: t for _, n, t in pools.run_teams(wh.con, "c")}
        assert plain == {r: r for r in RUNS}                 # no team known: the run name
        prefix = {n: t for _, n, t in pools.run_teams(wh.con, "c", team_pattern="^[a-z]+")}
        assert prefix["gamma2"] == "gamma"
        mapped = pools.run_teams(wh.con, "c", ["beta1"], teams={"beta1": "B"})
        assert [t for _, _, t in mapped] == ["B"]


def test_pool_stats(campaign, tmp_path):
    path, runs, qrels = campaign
    with Warehouse(tmp_path / "w.duckdb") as wh:
        load(wh, path)
        pid = pools.build_pool(wh.con, "c", depth=4, teams=RUNS)
        stats = pools.pool_stats(wh.con, pid, qrels_id=wh.qrels_id("c"))
        expected = slow_pool(runs, 4)
        judged = {(t, d): r for t, d, r in qrels}
        assert stats.n_docs == len(expected) and stats.n_topics == 3
        assert stats.n_runs == 5 and stats.n_teams == 3
        assert stats.judged_docs == sum(1 for k in expected if k in judged)
        assert stats.relevant_docs == sum(1 for k in expected if judged.get(k, 0) >= 1)
        assert stats.qrels_relevant == sum(1 for r in judged.values() if r >= 1)
        per_team = {row["team"]: row for row in stats.per_team.to_pylist()}
        for team in ("alpha", "beta", "gamma"):
            unique = [k for k, v in expected.items() if v == {team}]
            assert per_team[team]["unique_docs"] == len(unique)
            assert per_team[team]["unique_relevant"] == sum(1 for k in unique
                                                            if judged.get(k, 0) >= 1)


def test_loo_against_files_evaluation(campaign, tmp_path):
    path, runs, qrels = campaign
    with Warehouse(tmp_path / "w.duckdb") as wh:
        load(wh, path)
        pid = pools.build_pool(wh.con, "c", depth=3, teams=RUNS)
        qid = wh.qrels_id("c")
        res = loo_mod.leave_one_team_out(wh.con, pool_id=pid, qrels_id=qid, measures=MEASURES)
        # rolled back: no derived qrels left behind
        assert wh.con.execute("SELECT count(*) FROM qrels").fetchone()[0] == 1
        assert wh.con.execute("SELECT count(*) FROM judgment").fetchone()[0] == len(qrels)
    pool = slow_pool(runs, 3)
    full = evaluate_files(path / "qrels", [path / r for r in RUNS], MEASURES).summary.to_pylist()
    full = {(row["run"], row["measure"]): row["value"] for row in full}
    for team in ("alpha", "beta", "gamma"):
        unique = {k for k, v in pool.items() if v == {team}}
        kept = [q for q in qrels if (q[0], q[1]) not in unique]
        assert res.unique_docs[team] == len(unique)
        assert res.unique_judged[team] == len(qrels) - len(kept)
        loo_file = tmp_path / f"loo-{team}"
        loo_file.write_text("".join(f"{t} 0 {d} {r}\n" for t, d, r in kept))
        members = [r for r in RUNS if RUNS[r] == team]
        expected = evaluate_files(loo_file, [path / r for r in members], MEASURES).summary
        for row in expected.to_pylist():
            got = [r for r in res.runs if r.run == row["run"] and r.measure == row["measure"]]
            assert got[0].loo == pytest.approx(row["value"])
            assert got[0].full == pytest.approx(full[(row["run"], row["measure"])])
    for m in MEASURES:
        rows = [r for r in res.runs if r.measure == m]
        fulls = {r.run: r.full for r in rows}
        for r in rows:
            better = sum(1 for o, v in fulls.items() if o != r.run and v > r.loo)
            assert r.loo_rank == 1 + better
            assert r.full_rank == 1 + sum(1 for o, v in fulls.items()
                                          if o != r.run and v > r.full)
        summary = next(s for s in res.summary if s.measure == m)
        assert summary.max_rank_change == max(abs(r.rank_change) for r in rows)
    assert res.largest_rank_change() is not None


def test_loo_keep_writes_derived_qrels(campaign, tmp_path):
    path, _, _ = campaign
    with Warehouse(tmp_path / "w.duckdb") as wh:
        load(wh, path)
        pid = pools.build_pool(wh.con, "c", depth=3, teams=RUNS)
        loo_mod.leave_one_team_out(wh.con, pool_id=pid, qrels_id=wh.qrels_id("c"),
                                   measures=["AP"], keep=True)
        names = sorted(n for (n,) in wh.con.execute("SELECT name FROM qrels").fetchall())
        assert names == ["loo:depth3:alpha", "loo:depth3:beta", "loo:depth3:gamma", "qrels"]
        # a second run replaces them
        loo_mod.leave_one_team_out(wh.con, pool_id=pid, qrels_id=wh.qrels_id("c", "qrels"),
                                   measures=["AP"], keep=True)
        assert wh.con.execute("SELECT count(*) FROM qrels").fetchone()[0] == 4


def test_bad_pool_arguments(campaign, tmp_path):
    path, _, _ = campaign
    with Warehouse(tmp_path / "w.duckdb") as wh:
        load(wh, path)
        with pytest.raises(WarehouseError):
            pools.build_pool(wh.con, "c", depth=0)
        with pytest.raises(WarehouseError):
            pools.build_pool(wh.con, "c", depth=3, runs=["nope"])
        with pytest.raises(WarehouseError):
            pools.pool_id(wh.con, "c", "missing")
