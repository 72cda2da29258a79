"""The commands of the Spark engine that need no Spark (irwarehouse.spark.commands):
`irw sql --engine spark --explain`, the read-only guard, the Spark options' checks, the
campaign's qrels checked before a session starts."""

from __future__ import annotations

import shutil

import sqlglot
from sqlglot import exp
from typer.testing import CliRunner

from irwarehouse.api import Warehouse
from irwarehouse.cli import app
from irwarehouse.spark import dialect
from tests.helpers.paths import DATA


def test_irw_sql_explain_shows_the_transpiled_query(small):
    query = ("SELECT run, avg(value) AS mean FROM irw_ndcg_cut('sample', cutoff := 10) "
             "GROUP BY run ORDER BY run")
    result = CliRunner().invoke(app, ["sql", "--engine", "spark", "--explain", query, "-w",
                                      str(small)])
    assert result.exit_code == 0, result.output
    tree = sqlglot.parse_one(result.output, read=dialect.SparkSQL)
    tables = {t.name for t in tree.find_all(exp.Table)}
    assert {"run_row", "judgment", "judged_row", "run"} <= tables
    assert not any(t.lower().startswith(("irw_", "m_", "ev_make")) for t in tables)
    assert "'sample'" in result.output and "GROUP BY" in result.output


def test_irw_sql_engine_spark_keeps_the_read_only_guard(small):
    result = CliRunner().invoke(app, ["sql", "--engine", "spark", "--explain",
                                      "DELETE FROM run", "-w", str(small)])
    assert result.exit_code == 1
    assert "refused" in result.output


def test_spark_options_belong_to_the_spark_engine(small):
    result = CliRunner().invoke(app, ["sql", "--explain", "SELECT 1", "-w", str(small)])
    assert result.exit_code == 1 and "--engine spark" in result.output
    result = CliRunner().invoke(app, ["eval", "-C", "sample", "--data", "x", "-w", str(small)])
    assert result.exit_code == 1 and "--engine spark" in result.output


def test_irw_eval_engine_spark_checks_the_qrels_choice_before_starting_spark(small, tmp_path):
    """A campaign with two qrels and no --qrels: `irw eval`'s own one-line error, from the
    warehouse, before a JVM starts (the metric SQL would say it only after the export and the
    session); an unknown campaign likewise."""
    path = tmp_path / "w.duckdb"
    shutil.copy(small, path)
    with Warehouse(path) as wh:
        wh.ingest_qrels(DATA / "qrels.test", "sample", name="binary")
    for engine in ([], ["--engine", "spark"]):
        result = CliRunner().invoke(app, ["eval", *engine, "-C", "sample", "-m", "map", "-w",
                                          str(path)])
        assert result.exit_code == 1
        assert result.output.strip().splitlines() == [
            "irw: error: campaign 'sample' has several qrels (graded, binary); choose one "
            "with --qrels"]
    result = CliRunner().invoke(app, ["eval", "--engine", "spark", "-C", "nope", "-m", "map",
                                      "-w", str(path)])
    assert result.exit_code == 1 and "'nope'" in result.output
