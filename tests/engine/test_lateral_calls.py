"""The requests of one kernel that differ only by numeric parameters (P at several cutoffs,
iprec_at_recall at several levels) are evaluated by one LATERAL call of the kernel over the list
of their arguments (engine.evaluate.macro_calls): the same bits, per topic and per run, as each
measure evaluated in a call of its own. And the thread count of a private warehouse follows the
size of its input files (store.connection.fit_threads)."""

from __future__ import annotations

import struct
from pathlib import Path

import duckdb
import pytest

from irwarehouse.api import evaluate_files
from irwarehouse.engine import evaluate as ev
from irwarehouse.measures import parse_measures
from irwarehouse.store.connection import ONE_THREAD_BELOW_BYTES, fit_threads

DATA = Path(__file__).resolve().parents[2] / "data"
QRELS = DATA / "qrels.test"
RUNS = [DATA / "runs" / "STANDARD.results.test", DATA / "runs" / "STANDARD.results.trunc"]
# numeric families at several values, a measure with a gains MAP (never grouped), measures of no
# parameter and a text measure between them
MEASURES = ["P.5", "map", "P.10", "iprec_at_recall.0.10", "ndcg_cut.10", "P.1000",
            "iprec_at_recall.0.50", "relstring", "ndcg_cut.20", "G.1=3", "Rprec_mult.0.5",
            "Rprec_mult.2.0", "success.1", "success.10"]


def _bits(rows):
    return [tuple(struct.pack("<d", v).hex() if isinstance(v, float) else v for v in row)
            for row in rows]


def test_calls_group_the_requests_of_one_kernel():
    requests = parse_measures(MEASURES)
    calls = ev.macro_calls(requests)
    names = [[r.name for r in call] for call in calls]
    assert ["iprec_at_recall_0.10", "iprec_at_recall_0.50"] in names
    assert ["ndcg_cut_10", "ndcg_cut_20"] in names
    assert ["Rprec_mult_0.50", "Rprec_mult_2.00"] in names
    # P and success share a table macro (ev_hits_values): one call LATERAL over the cutoffs of
    # both (tests/engine/test_shared_calls.py)
    assert ["P_5", "P_10", "P_1000", "success_1", "success_10"] in names
    # no parameter, a text value, a gains MAP (not a number): each is a call of its own
    assert ["map"] in names and ["relstring"] in names and ["G_1=3"] in names
    # every request once, the calls in the order of their first request
    assert sorted(n for call in names for n in call) == sorted(r.name for r in requests)
    firsts = [requests.index(call[0]) for call in calls]
    assert firsts == sorted(firsts)


@pytest.mark.parametrize("options", [{}, {"complete": True}, {"judged_only": True}])
def test_lateral_calls_give_the_bits_of_one_call_per_measure(monkeypatch, options):
    from irwarehouse.options import EvalOptions
    opts = EvalOptions(**options)
    together = evaluate_files(QRELS, RUNS, MEASURES, options=opts)
    monkeypatch.setattr(ev, "macro_calls", lambda requests: [[r] for r in requests])
    apart = evaluate_files(QRELS, RUNS, MEASURES, options=opts)
    assert together.per_topic.num_rows >= len(MEASURES) * 2
    assert _bits([tuple(r.values()) for r in together.per_topic.to_pylist()]) == \
        _bits([tuple(r.values()) for r in apart.per_topic.to_pylist()])
    assert _bits([tuple(r.values()) for r in together.summary.to_pylist()]) == \
        _bits([tuple(r.values()) for r in apart.summary.to_pylist()])


def _threads(con) -> int:
    return con.execute("SELECT current_setting('threads')").fetchone()[0]


def test_small_inputs_take_one_thread_large_ones_every_core(tmp_path):
    con = duckdb.connect()
    every = _threads(con)
    fit_threads(con, [QRELS, *RUNS])
    assert _threads(con) == 1
    con = duckdb.connect()
    big = tmp_path / "big"
    with open(big, "wb") as f:                 # a sparse file: its size, not its bytes
        f.truncate(ONE_THREAD_BELOW_BYTES)
    fit_threads(con, [QRELS, big])
    assert _threads(con) == every
    # not a file (an ir_datasets ID): the readers report it; the threads are left alone
    fit_threads(con, ["irds:msmarco-passage/dev", RUNS[0]])
    assert _threads(con) == every
