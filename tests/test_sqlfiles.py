"""The SQL files themselves: sqlglot checks, header/registry consistency, lookup of sql/."""

import shutil

import pytest

from irwarehouse import sqlfiles
from irwarehouse.errors import SqlAssetError
from irwarehouse.measures import registry
from irwarehouse.store.sqlcheck import check


def test_sqlglot_finds_no_problem_in_the_metric_sql():
    assert [str(p) for p in check()] == []


def test_every_measure_header_matches_a_macro_and_names_are_unique():
    reg = registry()
    assert "map" in reg and "ndcg_cut" in reg and "11pt_avg" in reg
    assert reg["11pt_avg"].kernel == "m_pt11_avg" and reg["11pt_avg"].macro == "irw_pt11_avg"
    assert all(m.summary in ("mean", "sum", "gmean", "none", "num_rel") for m in reg.values())


@pytest.fixture
def sql_copy(tmp_path, monkeypatch):
    copy = tmp_path / "sql"
    shutil.copytree(sqlfiles.sql_dir(), copy)
    monkeypatch.setenv("IRW_SQL_DIR", str(copy))
    _clear()
    yield copy
    _clear()


def _clear():
    from irwarehouse.measures.catalog import names
    registry.cache_clear()
    names.cache_clear()
    sqlfiles.all_macros.cache_clear()
    sqlfiles.context_relations.cache_clear()
    sqlfiles.context_section.cache_clear()


def test_an_unused_parameter_is_reported(sql_copy):
    (sql_copy / "metrics" / "zz_bad.sql").write_text(
        "-- measure: bad\n-- params: k INTEGER = 3\n"
        "CREATE OR REPLACE MACRO m_bad(k) AS TABLE SELECT run_id, topic, 1.0 AS value "
        "FROM ev_base();\n")
    assert [p.message for p in check()] == ["parameter 'k' is never used"]


def test_a_duplicate_measure_name_is_refused(sql_copy):
    (sql_copy / "metrics" / "zz_dup.sql").write_text(
        "-- measure: map\n"
        "CREATE OR REPLACE MACRO m_map2() AS TABLE SELECT run_id, topic, 1.0 AS value "
        "FROM ev_base();\n")
    with pytest.raises(SqlAssetError, match="defined in both"):
        registry()


def test_a_header_that_does_not_match_its_macro_is_refused(sql_copy):
    (sql_copy / "metrics" / "zz_mismatch.sql").write_text(
        "-- measure: thing\n-- params: k INTEGER = 3\n"
        "CREATE OR REPLACE MACRO m_thing(j) AS TABLE SELECT run_id, topic, j AS value "
        "FROM ev_base();\n")
    with pytest.raises(SqlAssetError, match="header params"):
        registry()


def test_a_new_measure_is_one_sql_block_and_no_python(sql_copy):
    """Adding a measure touches its SQL (and its test) only: a block with its header in a new
    metrics file is evaluated by name, through irw eval and through its metric macro."""
    from irwarehouse.api import evaluate_files
    from irwarehouse.store.connection import connect
    (sql_copy / "metrics" / "zz_toy.sql").write_text(
        "-- measure: toy\n-- dialect: irw\n-- aliases: ir_measures Toy@k\n"
        "-- params: cutoff INTEGER = 10\n-- summary: mean\n"
        "-- doc: the share of the top k that is relevant, twice.\n-- source: a test\n"
        "CREATE OR REPLACE MACRO m_toy(cutoff) AS TABLE\n"
        "SELECT run_id, topic, 2.0 * hits / cutoff AS value FROM ev_hits_at(cutoff);\n")
    try:
        from tests.helpers.paths import DATA
        result = evaluate_files(DATA / "qrels.test", [DATA / "runs" / "STANDARD.results.test"],
                                ["toy@5", "Toy@5", "P@5"])
        rows = {(r["measure"], r["topic"]): r["value"] for r in result.per_topic.to_pylist()}
        assert {m for m, _ in rows} == {"toy@5", "Toy@5", "P@5"}
        assert all(rows[("toy@5", t)] == 2 * rows[("P@5", t)] == rows[("Toy@5", t)]
                   for _, t in rows)
        con = connect(None)
        row = con.execute("SELECT measure, macro, summary FROM measure_catalog "
                          "WHERE measure = 'toy'").fetchone()
        assert row == ("toy", "irw_toy", "mean")
    finally:
        _clear()
