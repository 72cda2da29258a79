"""Bad qrels and runs in memory (issue 35 item 1): wrong types, NaN, duplicates, missing columns.
Each is one line naming the input and, for a bad value, its row (counted from 1, as the rows
were given), and leaves the warehouse as it was."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import polars as pl
import pytest

import irwarehouse
from irwarehouse.api import Warehouse
from irwarehouse.errors import InputError
from tests.helpers.paths import DATA

QRELS = DATA / "qrels.test"
RUN = DATA / "runs" / "STANDARD.results.test"


def run_frame(**changes) -> pd.DataFrame:
    data = {"query_id": ["401", "401", "402"], "doc_id": ["D1", "D2", "D1"],
            "score": [3.0, 2.0, 1.0]}
    data.update(changes)
    return pd.DataFrame(data)


def qrels_frame(**changes) -> pd.DataFrame:
    data = {"query_id": ["401", "401", "402"], "doc_id": ["D1", "D2", "D1"],
            "relevance": [1, 0, 2]}
    data.update(changes)
    return pd.DataFrame(data)


BAD_RUNS = [
    (run_frame(doc_id=["D1", "D1", "D1"]),
     "run (pandas DataFrame): row 2: document 'D1' appears twice for topic '401' "
     "(first at row 1)"),
    (run_frame(score=[3.0, math.nan, 1.0]),
     "run (pandas DataFrame): row 2: score is missing (NaN or None)"),
    ({"401": {"D1": 1.0, "D2": float("nan")}},
     "run (dict): row 2: score is missing (NaN or None)"),
    (run_frame(score=[3.0, 2.0, math.inf]), "run (pandas DataFrame): row 3: score inf is not "
     "finite"),
    (run_frame(score=["3", "high", "1"]), "run (pandas DataFrame): row 2: score high is not a "
     "number"),
    (run_frame(score=[True, False, True]), "column 'score' (score) holds bool values, not "
     "numbers"),
    (run_frame(query_id=[401.0, 401.0, np.nan]), "column 'query_id' (topic) holds double "
     "values; ids are strings or integers"),
    (run_frame(doc_id=["D1", "", "D3"]), "run (pandas DataFrame): row 2: empty doc"),
    (run_frame().drop(columns="score"), "run (pandas DataFrame): missing column: the score "
     "(one of score, sim; the table has query_id, doc_id)"),
    (pd.DataFrame({"qid": ["1"], "query": ["text"], "score": [1.0]}),
     "missing column: the doc (one of doc, doc_id, docno, docid"),
    (pl.DataFrame({"q_id": ["1", "1"], "doc_id": ["a", "a"], "score": [1.0, 2.0]}),
     "run (polars DataFrame): row 2: document 'a' appears twice for topic '1'"),
    (run_frame(rank=[1, 2.5, 1]), "row 2: rank 2.5 is not an integer"),
    (pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [1.0, 2.0],
                   "run": ["x", "y"]}), "several run tags in one table (x, y)"),
    (run_frame().iloc[0:0], "run (pandas DataFrame): no run rows (empty table)"),
    (pd.DataFrame({"query_id": ["1", 2], "doc_id": ["a", "b"], "score": [1.0, 2.0]}),
     "run (pandas DataFrame): a column of mixed or unreadable types"),
    ([("1", "a", 1.0)], "run (list): row 1: a tuple, not a named tuple"),
    ({"1": [("a", 1.0)]}, "run (dict): query '1' maps to a list, not a dict {doc_id: score}"),
    (42, "run (int): cannot read a int"),
]
BAD_QRELS = [
    (qrels_frame(doc_id=["D1", "D1", "D1"]),
     "qrels (pandas DataFrame): row 2: document 'D1' judged twice for topic '401' "
     "(first at row 1)"),
    (qrels_frame(relevance=[1, None, 0]),
     "qrels (pandas DataFrame): row 2: relevance level is missing (NaN or None)"),
    (qrels_frame(relevance=[1, 0.5, 0]),
     "qrels (pandas DataFrame): row 2: relevance level 0.5 is not an integer"),
    (qrels_frame(relevance=["1", "x", "0"]), "row 2: relevance level x is not an integer"),
    (qrels_frame(relevance=[True, False, True]), "column 'relevance' (rel) holds bool values"),
    (qrels_frame().drop(columns="relevance"), "qrels (pandas DataFrame): missing column: the "
     "rel (one of rel, relevance, label, judgment, score"),
    (qrels_frame(query_id=["401", "401\n", "402"]), "row 2: control character"),
]


def _counts(wh) -> list:
    tables = ("campaign", "run", "run_row", "run_list", "qrels", "judgment", "topic",
              "judged_row")
    return [wh.con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0] for t in tables]


@pytest.fixture(scope="module")
def stocked():
    """One warehouse for the module: each test leaves it as it was (what the tests check)."""
    with Warehouse(None) as wh:
        wh.ingest_qrels(QRELS, "c")
        wh.ingest_run(RUN, "c")
        yield wh


@pytest.mark.parametrize("run,message", BAD_RUNS)
def test_a_bad_run_is_one_line_and_nothing_is_stored(stocked, run, message):
    before = _counts(stocked)
    with pytest.raises(InputError) as info:
        stocked.ingest_run(run, "c", name="bad")
    assert message in str(info.value)
    assert "\n" not in str(info.value)
    assert _counts(stocked) == before
    if not isinstance(run, pd.DataFrame) or len(run):      # an iterator is read once
        with pytest.raises(InputError) as again:
            irwarehouse.evaluate(QRELS, run, "map")
        assert str(again.value) == str(info.value)


@pytest.mark.parametrize("qrels,message", BAD_QRELS)
def test_bad_qrels_are_one_line_and_nothing_is_stored(stocked, qrels, message):
    before = _counts(stocked)
    with pytest.raises(InputError) as info:
        stocked.ingest_qrels(qrels, "c", name="bad")
    assert message in str(info.value)
    assert "\n" not in str(info.value)
    assert _counts(stocked) == before
    # a new campaign is not created either
    with pytest.raises(InputError):
        stocked.ingest_qrels(qrels, "new")
    assert _counts(stocked) == before


def test_a_name_taken_or_missing(stocked):
    frame = run_frame()
    with pytest.raises(irwarehouse.errors.WarehouseError, match="needs a name"):
        stocked.ingest_run(frame, "c")
    with pytest.raises(irwarehouse.errors.WarehouseError, match="already in campaign"):
        stocked.ingest_run(frame, "c", name="STANDARD")
    with pytest.raises(InputError, match="fmt='diversity' in memory needs a subtopic column"):
        stocked.ingest_qrels(qrels_frame(), "c", fmt="diversity")
    rid = stocked.ingest_run(run_frame(doc_id=["D1", "D1", "D1"]), "kept", name="first",
                             keep_first=True)
    assert stocked.con.execute("SELECT count(*) FROM run_row WHERE run_id = ?",
                               [rid]).fetchall()[0][0] == 2


def test_an_empty_iterable_and_no_pandas(monkeypatch):
    with pytest.raises(InputError, match=r"run \(generator\): no rows \(an empty iterable\)"):
        irwarehouse.evaluate(QRELS, (x for x in ()), "map")
    import sys
    monkeypatch.setitem(sys.modules, "pandas", None)        # as if pandas were not installed
    with pytest.raises(irwarehouse.errors.IrwError, match="pip install pandas"):
        irwarehouse.evaluate(QRELS, RUN, "map")
