"""irwarehouse.evaluate on qrels and runs held in memory (issue 35 item 1): every shape gives the
bits of the files, and the bits `irw eval` prints; options are the request's; the same inputs go
into a warehouse as the files do."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from typer.testing import CliRunner

import irwarehouse
from irwarehouse.api import Warehouse
from irwarehouse.argcheck import ArgumentError
from irwarehouse.cli import app
from tests.frames.shapes import qrels_rows, run_rows, shapes
from tests.helpers.paths import DATA

QRELS = DATA / "qrels.test"
RUN = DATA / "runs" / "STANDARD.results.test"
MEASURES = ["map", "P@10", "ndcg_cut.20", "bpref", "recip_rank", "num_rel_ret", "gm_map"]


def irw_tsv(*args) -> dict[tuple[str, str], float | str]:
    """(topic, measure) -> value of `irw eval -f tsv` (values printed with repr: every bit)."""
    res = CliRunner().invoke(app, ["eval", "-f", "tsv", *map(str, args)])
    assert res.exit_code == 0, res.output
    out = {}
    for line in res.output.splitlines()[1:]:
        _, topic, measure, value = line.split("\t")
        out[(topic, measure)] = value
    return out


def same_bits(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a.hex() == b.hex()


def test_every_shape_gives_the_bits_of_the_files():
    expected = irwarehouse.evaluate(QRELS, RUN, MEASURES)
    assert len(expected) == 3 * len(MEASURES) - 3          # gm_map has no per-topic row
    for name, (qrels, run) in shapes(QRELS, RUN).items():
        got = irwarehouse.evaluate(qrels, run, MEASURES)
        assert list(got.columns) == ["query_id", "measure", "value"], name
        assert got[["query_id", "measure"]].equals(expected[["query_id", "measure"]]), name
        assert all(same_bits(a, b) for a, b in zip(got.value, expected.value)), name


def test_values_are_irw_evals_bits():
    printed = irw_tsv("-q", "-m", "map", "-m", "P@10", "-m", "num_rel_ret", "-m", "gm_map",
                      QRELS, RUN)
    qrels, run = shapes(QRELS, RUN)["pandas, ir_measures' names"]
    per_topic = irwarehouse.evaluate(qrels, run, ["map", "P@10", "num_rel_ret", "gm_map"])
    for row in per_topic.itertuples():
        assert same_bits(row.value, float(printed[(row.query_id, row.measure)]))
    summary = irwarehouse.evaluate(qrels, run, ["map", "P@10", "num_rel_ret", "gm_map"],
                                   aggregate=True)
    assert list(summary.columns) == ["measure", "value"]
    assert sorted(summary.measure) == sorted(["map", "P@10", "num_rel_ret", "gm_map"])
    for row in summary.itertuples():
        assert same_bits(row.value, float(printed[("all", row.measure)]))


@pytest.mark.parametrize("options,flags", [
    ({"threshold": 2}, ["-l", "2"]),
    ({"complete": True, "depth": 100}, ["-c", "-M", "100"]),
    ({"judged_only": True, "version": 10}, ["-J", "--trec-eval-version", "10"]),
])
def test_options_are_the_requests(options, flags):
    printed = irw_tsv("-m", "map", "-m", "P@10", "-m", "bpref", *flags, QRELS, RUN)
    qrels, run = shapes(QRELS, RUN)["dicts (pytrec_eval)"]
    got = irwarehouse.evaluate(qrels, run, ["map", "P@10", "bpref"], aggregate=True,
                               **options)
    assert {m: float(printed[("all", m)]) for m in got.measure} == dict(
        zip(got.measure, got.value))


def test_options_are_checked_by_the_request():
    qrels, run = shapes(QRELS, RUN)["dicts (pytrec_eval)"]
    with pytest.raises(ArgumentError, match="not evaluation options: \\['treshold'\\]"):
        irwarehouse.evaluate(qrels, run, "map", treshold=2)
    with pytest.raises(irwarehouse.errors.IrwError, match="unknown order"):
        irwarehouse.evaluate(qrels, run, "map", order="random")
    with pytest.raises(irwarehouse.errors.MeasureError):
        irwarehouse.evaluate(qrels, run, "mapp")


def test_text_measures_add_a_text_column():
    got = irwarehouse.evaluate(QRELS, RUN, ["relstring", "P@5"])
    assert list(got.columns) == ["query_id", "measure", "value", "text"]
    strings = got[got.measure == "relstring"]
    assert strings.value.isna().all()
    # relstring: the relevance of the top documents, as trec_eval prints it (with -q)
    res = CliRunner().invoke(app, ["eval", "-q", "-m", "relstring", str(QRELS), str(RUN)])
    printed = {line.split("\t")[1]: line.split("\t")[2].strip("'")
               for line in res.output.splitlines() if line.startswith("relstring")}
    assert dict(zip(strings.query_id, strings.text)) == {
        k: v for k, v in printed.items() if k != "all"}


def test_ties_follow_trec_eval_whatever_the_order_given():
    """Two documents of equal score: trec_eval ranks the larger docno first (score desc, docno
    desc), whatever the rows' order or rank column says."""
    qrels = {"1": {"a": 1, "b": 0}}
    for run in ({"1": {"a": 1.0, "b": 1.0}}, {"1": {"b": 1.0, "a": 1.0}},
                pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, 1.0],
                              "rank": [1, 2]})):
        got = irwarehouse.evaluate(qrels, run, "recip_rank", aggregate=True)
        assert got.value.tolist() == [0.5]            # b first, a (relevant) at rank 2
    by_rank = irwarehouse.evaluate(qrels, pd.DataFrame(
        {"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, 1.0], "rank": [1, 2]}),
        "recip_rank", aggregate=True, order="rank")
    assert by_rank.value.tolist() == [1.0]


def test_integer_ids_are_their_digits():
    got = irwarehouse.evaluate({301: {7: 1}}, pd.DataFrame({"query_id": [301, 301],
                                                           "doc_id": [7, 8],
                                                           "score": [2, 1]}), "P@1")
    assert got.query_id.tolist() == ["301"] and got.value.tolist() == [1.0]


def test_warehouse_ingest_takes_every_shape(tmp_path):
    """Warehouse.ingest_run / ingest_qrels: a frame stores what its file stores (rows, their
    trec_eval order), named by name=, the tag column, or the ranx Run's name."""
    with Warehouse(tmp_path / "w.duckdb") as wh:
        wh.ingest_qrels(QRELS, "files")
        file_run = wh.ingest_run(RUN, "files")
        for i, (name, (qrels, run)) in enumerate(shapes(QRELS, RUN).items()):
            wh.ingest_qrels(qrels, campaign=f"c{i}")
            wh.ingest_run(run, name=f"run {i}", campaign=f"c{i}")
        rows = """SELECT topic, doc, score, score_rank FROM run_row WHERE run_id = ?
                  ORDER BY topic, score_rank"""
        expected = wh.con.execute(rows, [file_run]).fetchall()
        judged = """SELECT topic, intent, doc, rel FROM judgment WHERE qrels_id = ?
                    ORDER BY ALL"""
        expected_judged = wh.con.execute(judged, [wh.qrels_id("files")]).fetchall()
        for i in range(len(shapes(QRELS, RUN))):
            (rid,) = wh.run_ids(f"c{i}")
            assert wh.con.execute(rows, [rid]).fetchall() == expected
            assert wh.con.execute(judged, [wh.qrels_id(f"c{i}")]).fetchall() == expected_judged
        stored = wh.evaluate(["map"], campaign="c0").summary.to_pylist()
        assert stored[0]["run"] == "run 0"
        source = wh.con.execute("SELECT source_path FROM run_info WHERE campaign = 'c1'"
                                ).fetchall()[0][0]
        assert source == "run (pandas DataFrame)"
        tagged = shapes(QRELS, RUN)["pandas, trec_eval's names"][1]
        wh.ingest_run(tagged, "tagged")                  # the tag column names it
        assert wh.con.execute("SELECT run FROM run_info WHERE campaign = 'tagged'"
                              ).fetchall()[0][0] == "STANDARD"


def test_a_diversity_frame_is_diversity_qrels(tmp_path):
    frame = pd.DataFrame({"query_id": ["1", "1", "1"], "subtopic_id": ["1", "2", "2"],
                          "doc_id": ["a", "a", "b"], "relevance": [1, 1, 0]})
    with Warehouse(None) as wh:
        wh.ingest_qrels(frame, "div")
        assert wh.con.execute("SELECT format FROM qrels").fetchall()[0][0] == "diversity"
        assert wh.con.execute("SELECT count(DISTINCT intent) FROM judgment").fetchall()[0][0] == 2
    run = {"1": {"a": 2.0, "b": 1.0}}
    # two intents, `a` covers both at rank 1: alpha-nDCG@5 = 1 (the ideal list's first doc)
    got = irwarehouse.evaluate(frame, run, "alpha_nDCG@5", aggregate=True)
    assert got.value.tolist() == [1.0]


def test_the_file_parse_is_the_frames(tmp_path):
    """The helper's own parse agrees with the files (the inputs above are the same data)."""
    assert len(qrels_rows(QRELS)) == 3681 and len(run_rows(RUN)) == 1500


def test_lazy_frames_record_batches_and_ir_datasets_tuples():
    """A polars LazyFrame is collected, a RecordBatch read as a table, and ir_datasets'
    TrecSubQrel shape (query_id, doc_id, relevance, subtopic_id) is diversity qrels."""
    from collections import namedtuple

    import polars as pl
    import pyarrow as pa
    run = {"1": {"a": 2.0, "b": 1.0}}
    lazy = pl.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "label": [0, 1]}).lazy()
    batch = pa.RecordBatch.from_pydict({"topic": ["1", "1"], "doc": ["a", "b"],
                                        "rel": [0, 1]})
    for qrels in (lazy, batch):
        got = irwarehouse.evaluate(qrels, run, "recip_rank", aggregate=True)
        assert got.value.tolist() == [0.5]
    SubQrel = namedtuple("TrecSubQrel", "query_id doc_id relevance subtopic_id")
    sub = [SubQrel("1", "a", 1, "1"), SubQrel("1", "b", 1, "2")]
    with Warehouse(None) as wh:
        wh.ingest_qrels(iter(sub), "d")
        assert wh.con.execute("SELECT format, count(*) FROM qrels JOIN judgment "
                              "USING (qrels_id) GROUP BY format").fetchall() == [("diversity", 2)]
