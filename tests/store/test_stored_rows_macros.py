"""Issue 32, target 5: the metric macros of AP, P, recall, RR and nDCG@k read the relevant rows
stored at ingestion (relevant_row) for the runs whose rows apply, and AP reads its running sum
stored with them (relevant_row.precision_sum). The values are the same bits as the macros that
rank every run from judged_row (store.macros.callable_sql(stored_rows=False), the macro of
the commit before), under the options that read the stored rows and those that cannot, with
some runs' rows missing; the stored running sums are those of sequential double additions in
rank order (computed here in Python); a warehouse whose relevant rows predate the running sum
answers read-only from judged_row and gains the sums at its first read-write open."""

from __future__ import annotations

import struct
from itertools import groupby

import duckdb
import pytest

from irwarehouse.api import Warehouse
from irwarehouse.engine import relevant_rows
from irwarehouse.measures import registry
from irwarehouse.store.macros import RELEVANT_ROW_KERNELS, callable_sql
from tests.helpers.faults import irw

MEASURES = ["map", "P", "ndcg_cut", "recip_rank", "map_cut", "recall"]
# (measure, its own arguments) for each call compared
CALLS = [("map", ""), ("P", ", cutoff := 10"), ("ndcg_cut", ", cutoff := 10"),
         ("recip_rank", ""), ("map_cut", ", cutoff := 100"), ("recall", ", cutoff := 30"),
         ("P", ", cutoff := 1000")]
OPTIONS = ["", ", max_docs := 50", ", max_docs := 0", ", complete := true",
           ", relevance_level := 2", ", judged_only := true", ", trec_eval_version := 10",
           ", sort_order := 'rank'", ", run := 'STANDARD'"]


def _bits(rows):
    return [(run, topic, struct.pack("<d", value).hex()) for run, topic, value in rows]


def _general_macros(con):
    """TEMP macros general_<macro>: the metric macros that rank every run from judged_row."""
    defs = registry()
    for name in MEASURES:
        mdef = defs[name]
        assert mdef.kernel in RELEVANT_ROW_KERNELS
        sql = callable_sql(mdef, stored_rows=False)
        assert "relevant_row r" not in sql
        con.execute(sql.replace(f"CREATE OR REPLACE MACRO {mdef.macro}(",
                                f"CREATE OR REPLACE TEMP MACRO general_{mdef.macro}(", 1))
    return {name: defs[name].macro for name in MEASURES}


def _compare(path, qrels):
    """Every CALLS x OPTIONS call of the warehouse's macros against the general ones: the same
    rows, the same bits. Returns how many rows were compared."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        macros = _general_macros(con)
        compared = 0
        for name, args in CALLS:
            for options in OPTIONS:
                call = f"(campaign := 'sample', qrels := '{qrels}'{args}{options})"
                query = "SELECT run, topic, value FROM {}" + call + " ORDER BY run, topic"
                got = con.execute(query.format(macros[name])).fetchall()
                want = con.execute(query.format("general_" + macros[name])).fetchall()
                assert _bits(got) == _bits(want), (name, args, options)
                assert got, (name, args, options)
                compared += len(got)
        return compared
    finally:
        con.close()


def test_macros_over_stored_rows_same_bits(sample_warehouse):
    for name in MEASURES:                             # the warehouse's macros read the rows
        assert "FROM relevant_row r" in callable_sql(registry()[name])
    for qrels in ("binary", "graded"):
        assert _compare(sample_warehouse, qrels) > 500


@pytest.mark.parametrize("options, message", [
    (", max_docs := -1", "max_docs must be >= 0"),
    (", sort_order := 'docno'", "sort_order must be"),
    (", trec_eval_version := 8", "trec_eval_version must be 9 or 10")])
def test_invalid_ranking_options_fail_over_stored_rows(sample_warehouse, options, message):
    """An invalid ranking option fails the call also when every run's rows are stored: the
    resolved call checks them once (max_docs := -1 gave every list 0 before, the stored rows
    taking it unchecked)."""
    con = duckdb.connect(str(sample_warehouse), read_only=True)
    try:
        for name, args in CALLS[:4]:
            with pytest.raises(duckdb.Error, match=message):
                con.execute(f"FROM {registry()[name].macro}(campaign := 'sample', "
                            f"qrels := 'binary'{args}{options})").fetchall()
    finally:
        con.close()


def test_macros_with_some_runs_unstored(sample_warehouse):
    """Runs whose relevant rows are not stored (here: deleted) are ranked from judged_row in
    the same call as the others are read from relevant_row."""
    con = duckdb.connect(str(sample_warehouse))
    runs = con.execute("SELECT run_id FROM run ORDER BY run_id").fetchall()
    assert len(runs) >= 3
    con.execute("DELETE FROM relevant_pair WHERE run_id % 2 = 0")
    left = con.execute("SELECT count(DISTINCT run_id) FROM relevant_pair").fetchone()[0]
    con.close()
    assert 0 < left < len(runs)
    _compare(sample_warehouse, "graded")


def test_stored_running_sums_are_sequential_additions(sample_warehouse):
    """precision_sum of each relevant row: 0.0 + C(1)/r1 + C(2)/r2 + ... up to its own rank,
    added one by one in rank order (Python floats: IEEE doubles, each sum rounded once), as
    trec_eval's m_map.c adds them."""
    con = duckdb.connect(str(sample_warehouse), read_only=True)
    rows = con.execute("""
        SELECT qrels_id, run_id, topic, score_rank, rel_so_far, precision_sum
        FROM relevant_row ORDER BY qrels_id, run_id, topic, score_rank""").fetchall()
    con.close()
    assert len(rows) > 100
    lists = 0
    for _, members in groupby(rows, key=lambda r: r[:3]):
        total = 0.0
        for count, (*_, rank, so_far, stored) in enumerate(members, start=1):
            assert so_far == count
            total += count / rank
            assert struct.pack("<d", stored) == struct.pack("<d", total)
        lists += 1
    assert lists > 10


def test_older_relevant_rows_read_only_then_filled(sample_warehouse, monkeypatch):
    """A warehouse whose relevant_row predates precision_sum (dropped here; its SQL digest
    older): read-only, irw eval answers from judged_row (the stored rows unread), the same
    values as after its first read-write open, which stores the sums."""
    con = duckdb.connect(str(sample_warehouse))
    con.execute("ALTER TABLE relevant_row DROP COLUMN precision_sum")
    con.execute("UPDATE irw_meta SET value = 'older' WHERE key = 'sql_sha256'")
    con.close()
    used = []
    saved = relevant_rows.usable
    monkeypatch.setattr(relevant_rows, "usable",
                        lambda *a, **k: used.append(saved(*a, **k)) or used[-1])
    names = ["map", "P.10", "ndcg_cut.10", "recip_rank", "map_cut.100"]
    with Warehouse(sample_warehouse, read_only=True) as wh:
        before = [tuple(r.values()) for r in wh.evaluate(
            names, campaign="sample", qrels="graded").per_topic.to_pylist()]
    assert used == [False] and before
    con = duckdb.connect(str(sample_warehouse), read_only=True)
    assert "precision_sum" not in [c for (c,) in con.execute(
        "SELECT column_name FROM duckdb_columns() WHERE table_name = 'relevant_row'").fetchall()]
    con.close()
    with Warehouse(sample_warehouse):                 # read-write: upgraded
        pass
    con = duckdb.connect(str(sample_warehouse), read_only=True)
    assert con.execute("SELECT count(*), count(precision_sum) FROM relevant_row").fetchone() \
        == con.execute("SELECT count(*), count(*) FROM relevant_row").fetchone()
    con.close()
    with Warehouse(sample_warehouse, read_only=True) as wh:
        after = [tuple(r.values()) for r in wh.evaluate(
            names, campaign="sample", qrels="graded").per_topic.to_pylist()]
    assert used == [False, True]
    assert after == before
    test_stored_running_sums_are_sequential_additions(sample_warehouse)
    assert irw("check", "-w", sample_warehouse).exit_code == 0


@pytest.mark.parametrize("name", ["map", "P", "ndcg_cut", "recip_rank"])
def test_portable_macro_ranks_every_run(name):
    """Spark inlines the macro without relevant_row (not exported to Spark)."""
    from irwarehouse.spark.inline import metric_macro
    macro = metric_macro(registry()[name].macro)
    assert "relevant_row" not in macro.body.sql(dialect="duckdb")


def test_threads_given_back_after_evaluating_from_stored_rows(sample_warehouse, monkeypatch):
    """A small evaluation from relevant_row runs on one thread (relevant_rows.one_thread); the
    connection has its own setting back afterwards, the values unchanged; a measure that
    needs the general path (bpref) keeps the connection's threads."""
    names = ["map", "P.10", "ndcg_cut.10", "recip_rank"]
    seen = []
    saved = relevant_rows.build

    def build(con, *args):
        seen.append(con.execute("SELECT current_setting('threads')").fetchone()[0])
        return saved(con, *args)
    monkeypatch.setattr(relevant_rows, "build", build)
    with Warehouse(sample_warehouse, read_only=True) as wh:
        wh.con.execute("SET threads = 3")
        first = wh.evaluate(names, campaign="sample", qrels="graded").per_topic.to_pylist()
        assert seen == [1]
        assert wh.con.execute("SELECT current_setting('threads')").fetchone()[0] == 3
        wh.evaluate(["map", "bpref"], campaign="sample", qrels="graded")
        assert seen == [1]                            # no views: the general path
        assert wh.con.execute("SELECT current_setting('threads')").fetchone()[0] == 3
        wh.con.execute("SET threads = 1")
        again = wh.evaluate(names, campaign="sample", qrels="graded").per_topic.to_pylist()
        assert wh.con.execute("SELECT current_setting('threads')").fetchone()[0] == 1
    assert first == again and first
