"""Exports (Parquet/CSV/Arrow) and importing a run from a table, with the file path's checks."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from pyarrow import ipc
from typer.testing import CliRunner

from irwarehouse.api import Warehouse
from irwarehouse.cli import app
from irwarehouse.errors import InputError, WarehouseError


def _read(path, fmt):
    if fmt == "parquet":
        return pq.read_table(path)
    if fmt == "csv":
        return pacsv.read_csv(path)
    return ipc.open_file(path).read_all()


@pytest.mark.parametrize("fmt", ["parquet", "csv", "arrow"])
def test_export_scores_and_runs(sample_warehouse, tmp_path, fmt):
    runner = CliRunner()
    base = ["-w", str(sample_warehouse), "-C", "sample", "--format", fmt]
    scores, runs = tmp_path / f"scores.{fmt}", tmp_path / f"runs.{fmt}"
    res = runner.invoke(app, ["export", "scores", *base, "--out", str(scores), "-m", "map"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["export", "runs", *base, "--out", str(runs)])
    assert res.exit_code == 0, res.output
    with Warehouse(sample_warehouse, read_only=True) as wh:
        expected = wh.scores("sample", "map").to_pandas()
        n_rows = wh.con.execute("SELECT count(*) FROM run_row").fetchall()[0][0]
    got = _read(scores, fmt).to_pandas()
    assert len(got) == len(expected) == 4 * 3
    assert sorted(got.value) == pytest.approx(sorted(expected.value))
    assert set(got.measure) == {"map"}
    got_runs = _read(runs, fmt)
    assert got_runs.num_rows == n_rows
    assert got_runs.column_names[:5] == ["campaign", "run", "team", "topic", "doc"]
    assert not list(tmp_path.glob("*.part"))


def test_export_unknown_campaign_is_one_line(sample_warehouse, tmp_path):
    res = CliRunner().invoke(app, ["export", "scores", "-w", str(sample_warehouse), "-C", "nope",
                                   "--out", str(tmp_path / "x.parquet")])
    assert res.exit_code == 1
    assert res.output.strip() == "irw: error: no campaign 'nope' in the warehouse"
    assert not (tmp_path / "x.parquet").exists()


def test_round_trip_run_through_parquet_and_pandas(sample_warehouse, tmp_path):
    path = tmp_path / "runs.parquet"
    with Warehouse(sample_warehouse) as wh:
        wh.export("runs", "sample", path)
        exported = pq.read_table(path)
        table = exported.filter(pa.compute.equal(exported["run"], "sys1"))
        single = tmp_path / "sys1.parquet"
        tagged = table.drop_columns(["campaign", "team"])
        pq.write_table(tagged.rename_columns(["tag" if c == "run" else c
                                              for c in tagged.column_names]), single)
        from_file = wh.ingest_run_table(single, "copy")            # name from the tag column
        from_pandas = wh.ingest_run_table(table.to_pandas(), "copy", "sys1-df", "me")
        original = wh.con.execute("""SELECT topic, doc, score, rank FROM run_row
            WHERE run_id = (SELECT run_id FROM run_info WHERE campaign='sample' AND run='sys1')
            ORDER BY file_order""").fetchall()
        for rid in (from_file, from_pandas):
            copy = wh.con.execute("SELECT topic, doc, score, rank FROM run_row WHERE run_id = ? "
                                  "ORDER BY file_order", [rid]).fetchall()
            assert copy == original
        info = wh.con.execute("SELECT run, team, source_path FROM run_info WHERE campaign = "
                              "'copy' ORDER BY run").fetchall()
    assert info == [("sys1", None, str(single.resolve())), ("sys1-df", "me", "run (pandas DataFrame)")]


def _rows(**changes):
    data = {"topic": ["1", "1", "2"], "doc": ["a", "b", "a"], "score": [3.0, 2.0, 1.0],
            "rank": [1, 2, 1]}
    data.update(changes)
    return pa.table(data)


@pytest.mark.parametrize("table,message", [
    (_rows(score=[3.0, float("inf"), 1.0]), "row 2: score inf is not finite"),
    (_rows(score=[3.0, None, 1.0]), "row 2: score is missing (NaN or None)"),
    (_rows(score=["3", "x", "1"]), "row 2: score x is not a number"),
    (_rows(doc=["a", "a", "a"]), "row 2: document 'a' appears twice for topic '1'"),
    (_rows(doc=["a", "", "a"]), "row 2: empty doc"),
    (_rows(rank=["1", "2.5", "3"]), "row 2: rank 2.5 is not an integer"),
    (pa.table({"topic": ["1"], "doc": ["a"]}), "missing column: the score"),
    (_rows(tag=["x", "y", "x"]), "several run tags"),
])
def test_bad_tables_are_refused_and_nothing_is_written(sample_warehouse, table, message):
    with Warehouse(sample_warehouse) as wh:
        before = wh.con.execute("SELECT count(*), (SELECT count(*) FROM run_row) FROM run"
                                ).fetchall()
        with pytest.raises(InputError) as info:
            wh.ingest_run_table(table, "sample", "bad")
        assert message in str(info.value)
        after = wh.con.execute("SELECT count(*), (SELECT count(*) FROM run_row) FROM run"
                               ).fetchall()
    assert before == after


def test_table_import_rules(sample_warehouse):
    with Warehouse(sample_warehouse) as wh:
        with pytest.raises(WarehouseError, match="needs a name"):
            wh.ingest_run_table(_rows(), "sample")
        with pytest.raises(WarehouseError, match="already in campaign"):
            wh.ingest_run_table(_rows(), "sample", "sys1")
        rid = wh.ingest_run_table(_rows(doc=["a", "a", "b"]), "sample", "dup", keep_first=True)
        assert wh.con.execute("SELECT count(*) FROM run_row WHERE run_id = ?",
                              [rid]).fetchall()[0][0] == 2
        no_rank = wh.ingest_run_table(_rows().drop_columns(["rank"]), "sample", "norank")
        ranks = wh.con.execute("SELECT topic, doc, rank FROM run_row WHERE run_id = ? "
                               "ORDER BY file_order", [no_rank]).fetchall()
        assert ranks == [("1", "a", 1), ("1", "b", 2), ("2", "a", 1)]
        with pytest.raises(InputError, match=r"run \(list\): row 1: a int, not a named tuple"):
            wh.ingest_run_table([1, 2], "sample", "x")


def test_export_scores_keeps_text_values(sample_warehouse, tmp_path):
    """A text-valued measure (relstring: trec_eval's string of relevance levels) is exported
    with its text, as topic_score holds it."""
    out = tmp_path / "rel.parquet"
    with Warehouse(sample_warehouse) as wh:
        wh.evaluate(["relstring"], campaign="sample", qrels="graded", store=True)
        expected = wh.con.execute("""SELECT run, topic, text FROM topic_score
            WHERE campaign = 'sample' AND measure = 'relstring' ORDER BY run, topic""").fetchall()
        assert wh.export("scores", "sample", out, measure="relstring") == len(expected)
    got = pq.read_table(out).select(["run", "topic", "value", "text"]).to_pylist()
    assert [(r["run"], r["topic"], r["text"]) for r in got] == expected
    assert all(r["value"] is None and r["text"] for r in got)
