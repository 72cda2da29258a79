"""relevant_row and relevant_pair (sql/schema.sql): the relevant documents of judged_row with
their running count, written beside judged_row so that a stored campaign's re-evaluation reads
them instead of ranking and counting judged_row again (irwarehouse/engine/relevant_rows.py)."""

from __future__ import annotations

import duckdb

from . import digests

# the tables written here, and deleted with the run or qrels they hang on (--replace, irw rm)
TABLES = ("relevant_row", "relevant_pair")
# the kernels that read nothing of a ranking but its relevant documents, which these tables
# hold (engine/relevant_rows.py says why each qualifies; store/macros.py reads them too)
FAST_KERNELS = frozenset({"m_map", "m_map_cut", "m_P", "m_recall", "m_recip_rank",
                          "m_ndcg_cut"})


def store_relevant_rows(con: duckdb.DuckDBPyConnection, qrels_ids: list[int],
                        run_ids: list[int]) -> None:
    """The relevant rows of these (qrels, run) pairs, from their judged_row rows (written
    first, in the same transaction: store.ingest.store_judged_rows)."""
    if not qrels_ids or not run_ids:
        return
    ids = {"q": list(qrels_ids), "r": list(run_ids)}
    con.execute("INSERT INTO relevant_row SELECT * FROM ev_make_relevant_rows($q, $r)", ids)
    con.execute("INSERT INTO relevant_pair SELECT q, r FROM unnest($q) a(q), unnest($r) b(r)",
                ids)
    for table in TABLES:
        digests.touch(con, table, "list_contains($q, qrels_id) AND list_contains($r, run_id)",
                      ids)


def backfill_relevant_rows(con: duckdb.DuckDBPyConnection) -> None:
    """A warehouse made before relevant_row existed: the relevant rows of every pair judged_row
    holds and relevant_pair lacks (store.connection's upgrade, inside its transaction). Rows
    stored before AP's running sum existed (precision_sum NULL: the column added by the
    schema) are stored again, with their pairs."""
    stale = "(qrels_id, run_id) IN (SELECT (qrels_id, run_id) FROM relevant_row " \
            "WHERE precision_sum IS NULL)"
    if con.execute(f"SELECT count(*) FROM relevant_row WHERE {stale}").fetchone()[0]:
        for table in TABLES:
            digests.touch(con, table, stale)
        con.execute(f"DELETE FROM relevant_pair WHERE {stale}")
        con.execute(f"DELETE FROM relevant_row WHERE {stale}")
    for (qrels_id, run_ids) in con.execute("""
            SELECT qrels_id, list(run_id ORDER BY run_id) FROM judged_pair
            WHERE (qrels_id, run_id) NOT IN (SELECT (qrels_id, run_id) FROM relevant_pair)
            GROUP BY qrels_id ORDER BY qrels_id""").fetchall():
        store_relevant_rows(con, [qrels_id], run_ids)
