"""The analyst views of sql/schema.sql against straightforward pandas/scipy computations."""

from __future__ import annotations

import math

import pytest
from typer.testing import CliRunner

from irwarehouse.api import Warehouse
from irwarehouse.cli import app

ANALYST_RELATIONS = ["run_family", "run_mean_ci", "topic_difficulty", "cross_campaign",
                     "campaign_measure", "run_delta", "run_delta_summary", "t_quantile_975"]


def test_t_quantile_matches_scipy():
    stats = pytest.importorskip("scipy.stats")
    with Warehouse(None) as wh:
        for df in [1, 2, 5, 29, 30, 31, 49, 99, 250, 10_000]:
            got = wh.con.execute("SELECT t_quantile_975(?)", [df]).fetchone()[0]
            assert got == pytest.approx(stats.t.ppf(0.975, df), abs=1e-7), df
        assert wh.con.execute("SELECT t_quantile_975(0)").fetchone()[0] is None


def test_run_mean_ci_is_the_t_interval(sample_warehouse):
    stats = pytest.importorskip("scipy.stats")
    with Warehouse(sample_warehouse) as wh:
        per_topic = wh.scores("sample").to_pandas()
        ci = wh.con.sql("SELECT * FROM run_mean_ci").to_df()
    assert len(ci) == per_topic.groupby(["run", "measure"]).ngroups
    for row in ci.itertuples():
        values = per_topic[(per_topic.run == row.run) & (per_topic.measure == row.measure)].value
        n = len(values)
        half = stats.t.ppf(0.975, n - 1) * values.std(ddof=1) / math.sqrt(n)
        assert row.num_topics == n
        assert row.mean == pytest.approx(values.mean())
        assert row.ci_low == pytest.approx(values.mean() - half)
        assert row.ci_high == pytest.approx(values.mean() + half)


def test_topic_difficulty_over_runs(sample_warehouse):
    with Warehouse(sample_warehouse) as wh:
        per_topic = wh.scores("sample", "map").to_pandas()
        diff = wh.con.sql("SELECT * FROM topic_difficulty WHERE measure = 'map' "
                          "ORDER BY difficulty_rank").to_df()
    expected = per_topic.groupby("topic").value.agg(["mean", "std", "count", "min", "max"])
    assert list(diff.topic) == list(expected.sort_values("mean").index)
    for row in diff.itertuples():
        assert row.num_runs == 4
        assert row.mean == pytest.approx(expected.loc[row.topic, "mean"])
        assert row.sd == pytest.approx(expected.loc[row.topic, "std"])
        assert (row.min, row.max) == pytest.approx(tuple(expected.loc[row.topic, ["min", "max"]]))


def test_run_delta_and_summary(sample_warehouse):
    with Warehouse(sample_warehouse) as wh:
        per_topic = wh.scores("sample", "map").to_pandas().set_index(["run", "topic"]).value
        delta = wh.con.sql("SELECT * FROM run_delta('STANDARD', 'map')").to_df()
        summary = wh.con.sql("SELECT * FROM run_delta_summary('STANDARD', 'map') "
                             "WHERE campaign = 'sample' ORDER BY run").to_df()
        none = wh.con.execute("SELECT count(*) FROM run_delta('STANDARD', 'nosuch')"
                              ).fetchone()[0]
    assert none == 0
    assert set(delta.run) == {"sys1", "sys2", "sys3"}
    for row in delta.itertuples():
        assert row.delta == pytest.approx(per_topic[(row.run, row.topic)]
                                          - per_topic[("STANDARD", row.topic)])
    assert list(summary.run) == ["sys1", "sys2", "sys3"]
    for row in summary.itertuples():
        d = delta[delta.run == row.run].delta
        assert row.mean_delta == pytest.approx(d.mean())
        assert (row.wins, row.losses, row.ties) == ((d > 0).sum(), (d < 0).sum(), (d == 0).sum())


def test_cross_campaign_lines_up_families_over_years(sample_warehouse, tmp_path, make_runs,
                                                     sample_data):
    with Warehouse(sample_warehouse) as wh:
        wh.ingest_qrels(sample_data / "qrels.rel_level", "sample-2025", name="graded")
        for run in make_runs(tmp_path, n=2, seed=11):
            wh.ingest_run(run, "sample-2025")                       # no team: family from name
        wh.evaluate(["map"], campaign="sample-2025", store=True)
        wh.con.execute("UPDATE campaign SET year = 2025 WHERE name = 'sample-2025'")
        rows = wh.con.sql("SELECT campaign, year, family, run, rank_in_campaign, "
                          "runs_in_campaign, relative_to_best FROM cross_campaign "
                          "WHERE measure = 'map' ORDER BY year, rank_in_campaign").to_df()
        best = wh.con.sql("SELECT year, num_runs, best, best_run FROM campaign_measure "
                          "WHERE measure = 'map' ORDER BY year").fetchall()
    assert set(rows.year) == {2024, 2025}
    assert set(rows[rows.year == 2025].family) == {"sys"}              # "sys1" -> "sys"
    assert set(rows[rows.year == 2024].family) == {"STANDARD", "sys"}  # team column
    for _, group in rows.groupby("campaign"):
        assert list(group.rank_in_campaign) == sorted(group.rank_in_campaign)
        assert group.relative_to_best.max() == pytest.approx(1.0)
        assert (group.runs_in_campaign == len(group)).all()
    assert [b[:2] for b in best] == [(2024, 4), (2025, 2)]


def test_irw_schema_documents_every_analyst_relation():
    result = CliRunner().invoke(app, ["schema"])
    assert result.exit_code == 0, result.output
    heads = {line.split()[1]: line for line in result.output.splitlines()
             if line.split()[:1] in (["table"], ["view"], ["macro"])}
    for name in ANALYST_RELATIONS + ["run", "score", "topic_score", "run_score"]:
        assert name in heads, name
        assert " -- " in heads[name], f"{name} has no doc line"
    full = CliRunner().invoke(app, ["schema", "run_mean_ci"])
    assert "ci_low" in full.output and "t(0.975, n-1)" in full.output
    bad = CliRunner().invoke(app, ["schema", "nosuch"])
    assert bad.exit_code == 1 and "nosuch" in bad.output
