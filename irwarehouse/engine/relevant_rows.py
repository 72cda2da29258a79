"""Stored campaigns re-evaluated from their relevant rows (issue 32, target 5).

AP, P@k, recall@k, nDCG@k (gain = level) and RR read, of a ranking, only its relevant
documents: their ranks, levels and C(r), the number of relevant documents at ranks <= r.
At trec_eval's default -l 1, in trec_eval 9's score order, without -J, those are the rows of
relevant_row (sql/schema.sql), which ingestion writes once per (qrels, run) pair beside
judged_row. For such an evaluation ev_ranked and ev_relevant are views of relevant_row, so
nothing copies, ranks or counts judged_row again (100-run campaign bench: a third of
judged_row's rows; the two relations cost 0.28 s built, nothing as views). The measures are
the same macros (sql/metrics) over the same rows: their values are the same bits
(tests/engine/test_relevant_rows.py compares every kernel below with the general path).

The other judged rows are left out of ev_ranked, so only kernels that read nothing of a
ranking but its rows of level >= 1 take this path:
    m_map, m_map_cut     ev_relevant (is_rel rows, rel_so_far; AP's running sum precision_sum)
    m_P, m_recall        ev_ranked WHERE is_rel AND rank <= cutoff (ev_hits_at)
    m_recip_rank         min(rank) of ev_ranked WHERE is_rel
    m_ndcg_cut           ev_ranked rows of gain = level <> 0 (ev_ndcg_at with no gain map);
                         the ideal list reads ev_judgment, which stays whole
Every other relation (ev_judgment, ev_topic, ev_run_topic: R, N, the list lengths) is built
as before.
"""

from __future__ import annotations

from contextlib import contextmanager

import duckdb

from ..options import EvalOptions
from ..store.connection import configuration_locked
from ..store.relevant import FAST_KERNELS

# the relations this module replaces by views (every other one is built as before)
VIEWS = ("ev_ranked", "ev_relevant")

_RANKED = """
CREATE OR REPLACE TEMP VIEW ev_ranked AS
SELECT run_id, topic, score_rank AS rank, rel, true AS is_rel
FROM relevant_row
WHERE qrels_id = {qrels_id} AND run_id IN (SELECT run_id FROM ev_runs)
  AND ({max_docs} IS NULL OR score_rank <= {max_docs})"""
_RELEVANT = """
CREATE OR REPLACE TEMP VIEW ev_relevant AS
SELECT run_id, topic, score_rank AS rank, rel, rel_so_far, precision_sum
FROM relevant_row
WHERE qrels_id = {qrels_id} AND run_id IN (SELECT run_id FROM ev_runs)
  AND ({max_docs} IS NULL OR score_rank <= {max_docs})"""


def fits(opts: EvalOptions, kernels) -> bool:
    """The options and kernels relevant_row's rows stand in for: -l 1, no -J, FAST_KERNELS
    (kernels that read, of a ranking, only its relevant documents; the file plan then ranks
    only those: engine.evaluate)."""
    return (not opts.judged_only and opts.threshold == 1 and bool(kernels)
            and set(kernels) <= FAST_KERNELS)


def usable(con: duckdb.DuckDBPyConnection, opts: EvalOptions, kernels, plan: str | None,
           qrels_id: int) -> bool:
    """Whether this evaluation's ev_ranked and ev_relevant can be relevant_row's: the stored
    plan (trec_eval 9's score order, every run's judged rows stored), -l 1, no -J, only
    FAST_KERNELS, and every evaluated run's relevant rows stored for the qrels (ev_runs)."""
    if plan != "stored" or not fits(opts, kernels):
        return False
    missing = con.execute("""
        SELECT count(*) FROM ev_runs
        WHERE run_id NOT IN (SELECT run_id FROM relevant_pair WHERE qrels_id = ?)""",
                          [qrels_id]).fetchone()[0]
    return not missing


# Below this many relevant rows read, an evaluation from them runs on one DuckDB thread: the
# 100-run campaign bench (974,019 rows) then takes 16% less CPU (0.12 s instead of 0.14) and
# no more wall time, the threads' hand-offs costing more than they save on work this small
# (as store.connection.fit_threads does for small files).
ONE_THREAD_BELOW_ROWS = 2_000_000


@contextmanager
def one_thread(con: duckdb.DuckDBPyConnection, opts: EvalOptions | None, kernels, qrels_id: int,
               run_ids):
    """For the block of an evaluation (engine.evaluate) of one group of options `opts` (None:
    several groups): one DuckDB thread when it reads its rankings from relevant_row (usable's
    conditions, for every run) and they are small (ONE_THREAD_BELOW_ROWS); the connection's
    own setting back when the block ends, by an error too. A connection whose settings are
    locked (`irw serve`'s) keeps its own."""
    threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
    if (opts is None or threads <= 1 or configuration_locked(con) or opts.order != "score"
            or opts.version >= 10 or not fits(opts, kernels)):
        yield
        return
    unstored, rows = con.execute("""
        SELECT (SELECT count(*) FROM unnest($runs::INTEGER[]) r(run_id)
                WHERE run_id NOT IN (SELECT run_id FROM relevant_pair WHERE qrels_id = $q)
                   OR run_id NOT IN (SELECT run_id FROM judged_pair WHERE qrels_id = $q)),
               (SELECT count(*) FROM relevant_row
                WHERE qrels_id = $q AND list_contains($runs::INTEGER[], run_id))""",
                                 {"runs": list(run_ids), "q": int(qrels_id)}).fetchone()
    if unstored or rows >= ONE_THREAD_BELOW_ROWS:
        yield
        return
    con.execute("SET threads = 1")
    try:
        yield
    finally:
        con.execute(f"SET threads = {int(threads)}")


def build(con: duckdb.DuckDBPyConnection, opts: EvalOptions, qrels_id: int) -> None:
    """ev_ranked and ev_relevant as views of relevant_row. DDL takes no parameters: the two
    values written into it are integers (an id and -M, checked here)."""
    qrels_id = int(qrels_id)
    max_docs = "NULL" if opts.depth is None else str(int(opts.depth))
    _drop(con)
    for sql in (_RANKED, _RELEVANT):
        con.execute(sql.format(qrels_id=qrels_id, max_docs=max_docs))


def restore(con: duckdb.DuckDBPyConnection) -> None:
    """The views gone and empty TEMP tables of those names back (their shapes: context.sql),
    so that the general path can CREATE OR REPLACE them; nothing when no view is there."""
    views = [n for (n,) in con.execute(
        "SELECT view_name FROM duckdb_views() WHERE temporary AND list_contains(?, view_name)",
        [list(VIEWS)]).fetchall()]
    if views:
        _drop(con)
        con.execute("CREATE TEMP TABLE ev_ranked (run_id INTEGER, topic VARCHAR, rank BIGINT, "
                    "rel INTEGER, is_rel BOOLEAN)")
        con.execute("CREATE TEMP TABLE ev_relevant (run_id INTEGER, topic VARCHAR, "
                    "rank BIGINT, rel INTEGER, rel_so_far BIGINT, precision_sum DOUBLE)")


def _drop(con: duckdb.DuckDBPyConnection) -> None:
    """Drop the TEMP views or tables named VIEWS (names of this module's, never user input)."""
    for name, kind in con.execute("""
            SELECT view_name, 'VIEW' FROM duckdb_views()
            WHERE temporary AND list_contains($n, view_name)
            UNION ALL
            SELECT table_name, 'TABLE' FROM duckdb_tables()
            WHERE temporary AND list_contains($n, table_name)""", {"n": list(VIEWS)}).fetchall():
        con.execute(f"DROP {kind} {name}")
