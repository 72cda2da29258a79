"""The SQL files themselves: sqlglot checks, header/registry consistency, lookup of sql/."""

import shutil

import pytest

from irwarehouse import sqlassets
from irwarehouse.errors import SqlAssetError
from irwarehouse.measures import registry
from irwarehouse.sqlcheck import check


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
    shutil.copytree(sqlassets.sql_dir(), copy)
    monkeypatch.setenv("IRW_SQL_DIR", str(copy))
    _clear()
    yield copy
    _clear()


def _clear():
    registry.cache_clear()
    sqlassets.all_macros.cache_clear()
    sqlassets.context_relations.cache_clear()


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
