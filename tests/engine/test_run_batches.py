"""A campaign evaluated a few runs at a time (engine.evaluate.RUNS_PER_CONTEXT, which bounds the
peak memory of a large campaign) gives the same bits, per topic and per run, as one context
for every run, and `--store` stores the values of every run, not only the last batch's."""

from __future__ import annotations

import struct

from irwarehouse.api import Warehouse
from irwarehouse.engine import evaluate as ev

MEASURES = ["map", "P.10", "ndcg_cut.10", "recip_rank", "bpref", "num_ret", "Rprec"]


def _bits(rows):
    return [tuple(struct.pack("<d", v).hex() if isinstance(v, float) else v for v in row)
            for row in rows]


def _evaluate(path, monkeypatch, per_context, options=None):
    monkeypatch.setattr(ev, "RUNS_PER_CONTEXT", per_context)
    with Warehouse(path) as wh:
        result = wh.evaluate(MEASURES, campaign="sample", qrels="graded", store=True,
                             options=options)
        names = sorted({r["measure"] for r in result.per_topic.to_pylist()})
        stored = wh.con.execute("""
            SELECT r.name, s.topic, s.measure, s.value FROM score s JOIN run r USING (run_id)
            JOIN qrels q USING (qrels_id) WHERE q.name = 'graded' AND s.options = $o
              AND list_contains($m, s.measure) ORDER BY ALL""",
                                {"m": names, "o": (options or ev.EvalOptions()).describe()}
                                ).fetchall()
    return (_bits([tuple(r.values()) for r in result.per_topic.to_pylist()]),
            _bits([tuple(r.values()) for r in result.summary.to_pylist()]), _bits(stored))


def test_batches_give_the_same_bits(sample_warehouse, monkeypatch):
    assert len(ev.run_batches([1, 2, 3, 4], True)) == 1
    monkeypatch.setattr(ev, "RUNS_PER_CONTEXT", 3)
    assert ev.run_batches([1, 2, 3, 4], True) == [[1, 2, 3], [4]]
    assert ev.run_batches([1, 2, 3, 4], False) == [[1, 2, 3, 4]]
    whole = _evaluate(sample_warehouse, monkeypatch, 100)
    for per_context in (1, 3):
        assert _evaluate(sample_warehouse, monkeypatch, per_context) == whole
    # -c (every judged topic, absent ones as empty lists) and a cut-off depth, batched too
    options = ev.EvalOptions(complete=True, depth=50)
    assert _evaluate(sample_warehouse, monkeypatch, 1, options) == \
        _evaluate(sample_warehouse, monkeypatch, 100, options)
    per_topic, summary, stored = whole
    assert len({row[1] for row in summary}) == 4          # the four runs of the sample
    assert len(stored) == len(per_topic)


def test_runs_of_earlier_batches_are_not_reported_empty(sample_warehouse, monkeypatch):
    """Issue 32: over more runs than one batch, `irw eval --campaign` warned that every run of
    the earlier batches had no topic in common with the qrels (coverage read from the last
    batch's context) while printing their values."""
    from irwarehouse.engine.checks import evaluation_warnings
    monkeypatch.setattr(ev, "RUNS_PER_CONTEXT", 1)
    with Warehouse(sample_warehouse) as wh:
        result = wh.evaluate(["map"], campaign="sample", qrels="graded")
    assert len(result.coverage) == 4 and all(common > 0 for _, _, common in result.coverage)
    assert evaluation_warnings(result) == []
