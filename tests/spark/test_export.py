"""`irw export campaign C --format parquet DIR` (irwarehouse.spark.export): a campaign's tables
as Parquet, run rows partitioned by run; an export never overwrites what is not an export."""

from __future__ import annotations

import json

import duckdb
import pyarrow.dataset as ds
import pytest
from typer.testing import CliRunner

from irwarehouse.cli import app
from irwarehouse.spark.export import MANIFEST, export_campaign


def test_export_campaign_writes_its_tables_partitioned_by_run(small, tmp_path):
    out = tmp_path / "export"
    result = CliRunner().invoke(app, ["export", "campaign", "div", "--format", "parquet",
                                      str(out), "-w", str(small)])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["campaigns"] == ["div"]
    with duckdb.connect(str(small), read_only=True) as con:
        run_ids = {r for (r,) in con.execute(
            "SELECT run_id FROM run JOIN campaign USING (campaign_id) WHERE campaign.name = "
            "'div'").fetchall()}
        div = "(SELECT campaign_id FROM campaign WHERE name = 'div')"
        for table, want_sql in (
                ("run_row", ("SELECT * FROM run_row WHERE run_id IN (SELECT run_id FROM run "
                             f"WHERE campaign_id = {div})")),
                ("judgment", ("SELECT * FROM judgment WHERE qrels_id IN (SELECT qrels_id "
                              f"FROM qrels WHERE campaign_id = {div})")),
                ("intent", f"SELECT * FROM intent WHERE campaign_id = {div}")):
            cursor = con.execute(want_sql)
            names = [d[0] for d in cursor.description]
            want = sorted(cursor.fetchall(), key=str)
            got = ds.dataset(out / table, format="parquet", partitioning="hive").to_table()
            got = sorted(zip(*[got[n].to_pylist() for n in names]), key=str)
            assert got == want, table
            assert manifest["tables"][table]["rows"] == len(want)
    assert {p.name for p in (out / "run_row").iterdir()} == {f"run_id={r}" for r in run_ids}
    assert {p.name for p in (out / "judged_row").iterdir()} == {f"run_id={r}" for r in run_ids}
    assert not (out / "session_row").exists()          # none stored: not written


def test_export_refuses_a_folder_that_is_not_an_earlier_export(small, tmp_path):
    out = tmp_path / "export"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    result = CliRunner().invoke(app, ["export", "campaign", "div", str(out), "-w", str(small),
                                      "--replace"])
    assert result.exit_code == 1
    assert "not an irw export" in result.output
    assert (out / "notes.txt").read_text() == "mine"
    with duckdb.connect(str(small), read_only=True) as con:
        export_campaign(con, "div", tmp_path / "again")
        with pytest.raises(Exception, match="not empty"):
            export_campaign(con, "div", tmp_path / "again")
        export_campaign(con, "sample", tmp_path / "again", replace=True)
        with pytest.raises(Exception, match="no campaign 'nope'"):
            export_campaign(con, "nope", tmp_path / "other")
    assert json.loads((tmp_path / "again" / MANIFEST).read_text())["campaign"] == "sample"
    assert not (tmp_path / "other").exists()
