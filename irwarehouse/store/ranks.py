"""trec_eval 9's rank of every staged run row (run_row.score_rank) without sorting every list.

trec_eval ranks a topic's documents by score read as a C float, descending, then by docno,
descending (comp_sim_docno; sql/context.sql: ev_sort_num, ev_sort_doc). Most run files are
written in that order already, so sorting every list (a window over all the rows: about as much
CPU as reading the files, issue 32) repeats work the file has done. Here the file order is
checked instead, in numpy over the float32 scores, and only what the file leaves open is sorted
by SQL:

* a list whose scores never rise in file order: each row's rank is its position in the list,
  except within a run of tied scores (consecutive equal float32 scores), ordered by docno
  descending among themselves: a window over the tied rows only;
* a list whose score rises somewhere, and every list of a file whose lists are not contiguous
  (a topic's lines in several places): a window over the whole list, as before.

The result equals the window over every list (tests/store/test_ranks.py compares both with an
independent sort by trec_eval's rule)."""

from __future__ import annotations

from typing import NamedTuple

import duckdb

from ..errors import WarehouseError

# trec_eval 9's order, the macros of sql/context.sql (a bare staging connection has them:
# store.connection.install_sort_macros)
SCORE_ORDER = ("ev_sort_num('score', true, s.score, s.rank, s.rowid) DESC, "
               "ev_sort_doc('score', s.doc) DESC")


class Lists(NamedTuple):
    """The lists (file, topic) of TEMP table stage_runs, numpy arrays in no particular order:
    their file (fi), topic, number of rows and first and last rowid."""
    fi: object
    topic: object
    n: object
    first: object
    last: object


def staged_lists(stage: duckdb.DuckDBPyConnection) -> Lists:
    """The Lists of TEMP table stage_runs on connection `stage` (one GROUP BY)."""
    got = stage.execute("""
        SELECT fi, topic, count(*) AS n, min(rowid) AS first, max(rowid) AS last
        FROM stage_runs GROUP BY fi, topic""").fetchnumpy()
    return Lists(got["fi"], got["topic"], got["n"], got["first"], got["last"])


def score_ranks(stage: duckdb.DuckDBPyConnection, lists: Lists):
    """The score_rank of every row of TEMP table stage_runs (fi, topic, doc, score; its rowids
    0..N-1 in file order, each file's rows contiguous), as a numpy int64 array in rowid order.
    `stage` has trec_eval's order (SORT_MACROS): a warehouse's connection, or a bare one given
    them by store.connection.install_sort_macros."""
    import numpy as np

    n_rows = int(lists.n.sum())
    if n_rows == 0:
        return np.zeros(0, np.int64)
    # float32 scores in rowid order (a plain scan keeps the table's order), read as
    # ev_sort_num reads them (ev_float32: infinity beyond float's range)
    score = stage.execute("SELECT ev_float32(score) AS s FROM stage_runs").fetchnumpy()["s"]
    if len(score) != n_rows or int(lists.first.min()) != 0 or int(lists.last.max()) != n_rows - 1:
        raise WarehouseError("internal error: the staged rows are not numbered 0..N-1")
    # 32-bit positions while they fit (a batch is far below 2^31 rows): half the memory traffic
    rows = np.arange(n_rows, dtype=np.int32 if n_rows < 2**31 else np.int64)
    start = np.zeros(n_rows, bool)
    start[lists.first] = True
    list_start = np.maximum.accumulate(np.where(start, rows, 0))
    rank = rows - list_start + 1                 # the position in the list, in file order
    rises = np.zeros(n_rows, bool)
    rises[1:] = score[1:] > score[:-1]
    rises &= ~start
    whole = np.zeros(n_rows, bool)               # the first rows of lists sorted whole
    whole[list_start[rises]] = True
    by_window = whole[list_start]
    # a file with a list in several places (its rows not contiguous): every list of the file
    # sorted whole (a file's rows are contiguous, so its first list starts at its first row)
    for fi in np.unique(lists.fi[lists.last - lists.first + 1 != lists.n]):
        mine = lists.fi == fi
        by_window[int(lists.first[mine].min()):int(lists.last[mine].max()) + 1] = True
    tied = np.zeros(n_rows, bool)
    tied[1:] = score[1:] == score[:-1]
    tied &= ~start & ~by_window
    in_tie = tied.copy()
    in_tie[:-1] |= tied[1:]                       # the first row of each run of ties too
    rid = np.flatnonzero(in_tie | by_window)
    if len(rid):
        # a run of ties starts at its first row, the last row of the selection not tied to
        # the one before it (a run's rows are contiguous and all selected)
        group = np.maximum.accumulate(np.where(tied[rid], 0, rid))
        whole_list = by_window[rid]
        found = _window_ranks(stage, rid, np.where(whole_list, -1, group),
                              np.where(whole_list, 1, rank[group]))
        rank[found["rid"]] = found["r"]
    return rank


def _window_ranks(stage: duckdb.DuckDBPyConnection, rid, group, base) -> dict:
    """{rid, r}: the ranks the file order leaves open, of rows `rid` (numpy arrays). A row of
    a run of ties has the run's first rowid as `group` and the run's first position in its
    list as `base`: its rank is base plus its place in trec_eval's order within the run, which
    is docno descending (its rows' float32 scores are equal). A row of a list sorted whole has
    group -1 and base 1: its place in its list by trec_eval's whole order. (The ties ordered
    by docno alone: 0.14 s CPU -> 0.09 for bench_campaign.py's 262,000
    tied rows of 5M.)"""
    import numpy as np

    stage.register("irw_open_rank", int64_table(rid=rid, grp=group, base=base))
    try:
        # each kind of row ranked by its own window (a CASE between two windows would
        # compute both over every row)
        ties = stage.execute("""
            SELECT t.rid, t.base + row_number() OVER (PARTITION BY t.grp
                                                      ORDER BY s.doc DESC) - 1 AS r
            FROM stage_runs s JOIN irw_open_rank t ON t.rid = s.rowid
            WHERE t.grp >= 0""").fetchnumpy()
        if not (group < 0).any():
            return ties
        whole = stage.execute(f"""
            SELECT t.rid, t.base + row_number() OVER (PARTITION BY s.fi, s.topic
                                                      ORDER BY {SCORE_ORDER}) - 1 AS r
            FROM stage_runs s JOIN irw_open_rank t ON t.rid = s.rowid
            WHERE t.grp < 0""").fetchnumpy()
        return {k: np.concatenate([ties[k], whole[k]]) for k in ("rid", "r")}
    finally:
        stage.unregister("irw_open_rank")


def int64_table(**columns) -> dict:
    """Numpy integer arrays as int64 columns that DuckDB scans when registered (a dict of
    arrays: no copy, and no pyarrow, whose import costs 0.03-0.05 s CPU)."""
    import numpy as np

    return {name: np.ascontiguousarray(a, dtype=np.int64) for name, a in columns.items()}
