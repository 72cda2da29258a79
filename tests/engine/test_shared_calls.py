"""Measures that share a table macro (`-- shares:` in sql/metrics: the count and set measures,
G / ndcg_rel / Rndcg, map / gm_map, bpref / gm_bpref, P / recall / relative_P / success) are
evaluated by one call of it when several are asked with the same arguments, or LATERAL over
their arguments when those are numbers (engine.evaluate.macro_calls): the same bits, per topic
and per run, as each measure's own macro in a call of its own; and each such macro is the plain
read of its column, so that the two are the same computation."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from irwarehouse.api import evaluate_files
from irwarehouse.engine import evaluate as ev
from irwarehouse.measures import parse_measures
from irwarehouse.measures.catalog import registry
from irwarehouse.options import EvalOptions
from irwarehouse.sqlfiles import all_macros

DATA = Path(__file__).resolve().parents[2] / "data"
QRELS = DATA / "qrels.test"
RUNS = [DATA / "runs" / "STANDARD.results.test", DATA / "runs" / "STANDARD.results.trunc"]
# all_trec, plus gain tables of their own (one G alone, ndcg_rel and Rndcg sharing one), and
# cutoffs that only some of the measures sharing ev_hits_values are asked at
MEASURES = ["all_trec", "G.1=3,2=9", "ndcg_rel.-1=1,1=2", "Rndcg.-1=1,1=2", "P.3,7",
            "success.3", "recall.2000"]


def _bits(rows):
    return [tuple(struct.pack("<d", v).hex() if isinstance(v, float) else v for v in row)
            for row in rows]


def test_the_shared_measures_of_all_trec_are_five_calls():
    calls = ev.macro_calls(parse_measures(["all_trec"]))
    shared = {tuple(sorted(r.name for r in call)) for call in calls if ev.shared_call(call)}
    cutoffs = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
    assert shared == {
        ("num_nonrel_judged_ret", "num_q", "num_rel", "num_rel_ret", "num_ret", "set_P",
         "set_map", "set_recall", "set_relative_P"),
        ("G", "Rndcg", "ndcg_rel"), ("gm_map", "map"), ("bpref", "gm_bpref"),
        tuple(sorted([f"{m}_{k}" for m in ("P", "recall", "relative_P") for k in cutoffs]
                     + ["success_1", "success_5", "success_10"]))}
    macros = ev.called_macros(calls)
    assert {"ev_set_values", "ev_gain_values", "ev_map_values", "ev_bpref_values",
            "ev_hits_values"} <= set(macros)
    # the measures' own macros are not called (nor created on a private warehouse)
    assert not {"m_set_P", "m_num_q", "m_G", "m_map", "m_gm_bpref", "m_P", "m_success"} \
        & set(macros)


def test_numeric_arguments_make_one_lateral_call():
    """P at two cutoffs and success at a third: one call of ev_hits_values over three cutoffs,
    each list's row giving only the measures asked at its cutoff."""
    calls = ev.macro_calls(parse_measures(["P.5,10", "success.1"]))
    assert [[r.name for r in call] for call in calls] == [["P_5", "P_10", "success_1"]]
    query, values = ev._macro_query(calls)
    assert "LATERAL ev_hits_values(a.a0)" in query
    assert values == [["P_5", "P_10", None], [None, None, "success_1"], [5, 10, 1]]


def test_different_arguments_or_a_lone_measure_call_their_own_macro():
    calls = ev.macro_calls(parse_measures(["G.1=3", "ndcg_rel.1=3", "Rndcg", "map", "P.10"]))
    names = [[r.name for r in call] for call in calls]
    assert ["G_1=3", "ndcg_rel_1=3"] in names          # the same gain table: one call
    assert ["Rndcg"] in names and ["map"] in names       # alone: their own macro
    assert not any(ev.shared_call(call) for call in calls if len(call) == 1)
    assert "m_map" in ev.called_macros(calls) and "m_Rndcg" in ev.called_macros(calls)


@pytest.mark.parametrize("options", [{}, {"complete": True}, {"judged_only": True},
                                     {"threshold": 2, "depth": 50, "version": 10}])
def test_shared_calls_give_the_bits_of_one_call_per_measure(monkeypatch, options):
    opts = EvalOptions(**options)
    together = evaluate_files(QRELS, RUNS, MEASURES, options=opts)
    monkeypatch.setattr(ev, "macro_calls", lambda requests: [[r] for r in requests])
    apart = evaluate_files(QRELS, RUNS, MEASURES, options=opts)
    assert together.per_topic.num_rows >= 90 * 2
    assert _bits([tuple(r.values()) for r in together.per_topic.to_pylist()]) == \
        _bits([tuple(r.values()) for r in apart.per_topic.to_pylist()])
    assert _bits([tuple(r.values()) for r in together.summary.to_pylist()]) == \
        _bits([tuple(r.values()) for r in apart.summary.to_pylist()])


def test_a_shared_measure_macro_reads_its_column_and_nothing_else():
    macros = all_macros()
    shared = [m for m in registry().values() if m.shares]
    assert len(shared) >= 16
    for mdef in shared:
        params = ", ".join(p.name for p in mdef.params)
        body = " ".join(macros[mdef.kernel].sql.split())
        expected = [f"CREATE OR REPLACE MACRO {mdef.kernel}({params}) AS TABLE "
                    f"SELECT run_id, topic, {column} AS value FROM {mdef.shares}({params});"
                    for column in (mdef.name, f'"{mdef.name}"')]
        assert body in expected, mdef.name
        assert re.fullmatch(r"\w+", mdef.name)
