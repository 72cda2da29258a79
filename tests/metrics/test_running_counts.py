"""The evaluation context's ranks and running counts (sql/context.sql: the window and counting
plans of ev_full_ranked, ev_ranked, ev_relevant, ev_counted) against a pure-Python ranking, on
random runs with ties, negative levels, and thresholds (-l) of -1, 0, 1 and 2.

ev_counted holds the relevant documents with the three running counts, taken from each
judged document's position in its list and a window over the relevant and unjudged documents
alone: these cases check each count exactly, including thresholds at or below 0, where a level
can be both relevant and negative; ev_relevant gives the same C(r) at every relevant
document."""

from __future__ import annotations

import itertools
import struct

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irwarehouse.api import Warehouse
from irwarehouse.engine.evaluate import EvalOptions, build_context
from irwarehouse.engine.files import FileRuns
from irwarehouse.store.connection import install_macros
from tests.helpers.golden import ranking_plan

_counter = itertools.count()


def float32(x: float) -> float:
    """trec_eval 9 reads scores as C floats."""
    return struct.unpack("f", struct.pack("f", x))[0]


def expected_rows(qrels, run, opts: EvalOptions) -> set[tuple]:
    """(topic, rank, rel, rel_so_far, nonrel_so_far, unjudged_so_far) of every judged
    document kept in the evaluated lists, computed from the definitions."""
    rows = set()
    for topic, docs in run.items():
        if topic not in qrels:
            continue
        listed = list(docs.items())             # file order
        if opts.order == "score":
            listed.sort(key=lambda ds: (float32(ds[1]), ds[0].encode()), reverse=True)
        ranked = [(i, d) for i, (d, _) in enumerate(listed, start=1)]
        if opts.depth is not None:
            ranked = [(i, d) for i, d in ranked if i <= opts.depth]
        judged = [(i, qrels[topic][d]) for i, d in ranked if d in qrels[topic]]
        if opts.judged_only:
            judged = [(n, rel) for n, (_, rel) in
                      enumerate([(i, rel) for i, rel in judged if rel >= 0], start=1)]
        rel_n = nonrel_n = unjudged_n = 0
        for rank, rel in judged:
            rel_n += rel >= opts.threshold
            nonrel_n += 0 <= rel < opts.threshold
            unjudged_n += rel < 0
            rows.add((topic, rank, rel, rel_n, nonrel_n, unjudged_n))
    return rows


@st.composite
def cases(draw):
    topics = [f"t{i}" for i in range(draw(st.integers(1, 3)))]
    pool = [f"d{i:02d}" for i in range(12)]
    qrels, run = {}, {}
    for t in topics:
        judged = draw(st.lists(st.sampled_from(pool), unique=True, max_size=10))
        if judged:
            qrels[t] = {d: draw(st.integers(-1, 3)) for d in judged}
        docs = draw(st.lists(st.sampled_from(pool), unique=True, max_size=12))
        # few distinct scores, so that ties (also at float32 precision) are common
        scores = st.sampled_from([1.0, 2.0, 2.5, 3.1, 3.0999999046325684, 0.1])
        run[t] = {d: draw(scores) for d in docs}
    if not qrels:
        qrels[topics[0]] = {pool[0]: 1}
    if not any(run.values()):
        run[topics[0]] = {pool[0]: 1.0}
    opts = EvalOptions(threshold=draw(st.sampled_from([-1, 0, 1, 2])),
                       judged_only=draw(st.booleans()),
                       depth=draw(st.sampled_from([None, None, 3])),
                       order=draw(st.sampled_from(["score", "file"])))
    plan = draw(st.sampled_from(["window", "counting"]))
    return qrels, run, opts, plan


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(case=cases())
def test_ranks_and_running_counts(tmp_path, case):
    qrels, run, opts, plan = case
    n = next(_counter)
    qpath, rpath = tmp_path / f"q{n}", tmp_path / f"r{n}"
    qpath.write_text("".join(f"{t} 0 {d} {rel}\n" for t, docs in qrels.items()
                             for d, rel in docs.items()))
    rpath.write_text("".join(f"{t} Q0 {d} {i} {s!r} r\n" for t, docs in run.items()
                             for i, (d, s) in enumerate(docs.items(), start=1)))
    with Warehouse(None, macros=False) as wh:
        qid = wh.ingest_qrels(qpath, "c")
        files = FileRuns(wh.con, [rpath])
        files.prepare(0)
        run_ids = files.run_ids
        install_macros(wh.con, [])
        with ranking_plan(plan):
            used = build_context(wh.con, run_ids, qid, opts, ["ev_counted", "ev_relevant"])
        got = set(wh.con.execute("""
            SELECT topic, rank, rel, rel_so_far, nonrel_so_far, unjudged_so_far
            FROM ev_counted""").fetchall())
        relevant = set(wh.con.execute("SELECT topic, rank, rel_so_far FROM ev_relevant"
                                      ).fetchall())
    assert used == plan
    want = expected_rows(qrels, run, opts)
    relevant_rows = {row for row in want if row[2] >= opts.threshold}
    assert got == relevant_rows
    assert relevant == {(t, rank, c) for t, rank, _, c, _, _ in relevant_rows}
