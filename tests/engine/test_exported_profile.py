"""A campaign's profile read from an export (spark.export.exported_profile), whose tables are
views over its Parquet files: engine.settings.load_profile finds the profile there as in the
warehouse (it once looked among tables only, and an export's evaluation on Spark ran without
the profile)."""

from __future__ import annotations

from typer.testing import CliRunner

from irwarehouse.api import Warehouse
from irwarehouse.cli import app
from irwarehouse.engine.settings import load_profile
from irwarehouse.spark.export import exported_profile
from tests.helpers.small_campaign import build_small_warehouse


def test_an_exported_profile_is_the_warehouse_profile(tmp_path):
    wh = build_small_warehouse(tmp_path / "w.duckdb")
    runner = CliRunner()
    for args in (["campaign", "set", "sample", "--order", "file", "-c", "-M", "5"],
                 ["export", "campaign", "sample", "--format", "parquet", str(tmp_path / "x")]):
        res = runner.invoke(app, [*args, "-w", str(wh)])
        assert res.exit_code == 0, res.output
    with Warehouse(wh, read_only=True) as w:
        stored = load_profile(w.con, "sample")
    assert (stored.order, stored.complete, stored.depth) == ("file", True, 5)
    assert exported_profile(tmp_path / "x", "sample") == stored
