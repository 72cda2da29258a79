"""`irw eval --engine spark --store`: per-topic values computed on Spark into the warehouse's
`score` table, exactly as a DuckDB evaluation stores them (store.results.store_scores: the same
measure names, options and definition hashes), so that compare, meta and the views read them
alike. Runs are matched by name: the Spark side may have read an export of another copy."""

from __future__ import annotations

from ..engine.evaluate import EvalResult
from ..errors import WarehouseError
from ..store.connection import connect
from ..store.lookup import qrels_id
from ..store.results import store_scores


def store_result(warehouse: str, campaign: str, result: EvalResult, *,
                 qrels: str | None = None) -> int:
    """Store `result` (irwarehouse.spark.engine.evaluate_spark) for `campaign`; returns the
    number of per-topic values written."""
    import pyarrow as pa

    con = connect(warehouse, create=False)
    try:
        qid = qrels_id(con, campaign, qrels)
        ids = dict(con.execute("""
            SELECT r.name, r.run_id FROM run r JOIN campaign c USING (campaign_id)
            WHERE c.name = ?""", [campaign]).fetchall())
        rows = result.per_topic.to_pylist()
        missing = sorted({r["run"] for r in rows} - set(ids))
        if missing:
            raise WarehouseError(f"run {missing[0]!r} is not in campaign {campaign!r} of "
                                 f"{warehouse}; nothing stored")
        scores = pa.table({
            "run_id": pa.array([ids[r["run"]] for r in rows], pa.int32()),
            "topic": [r["topic"] for r in rows], "measure": [r["measure"] for r in rows],
            "value": pa.array([r["value"] for r in rows], pa.float64()),
            "text": pa.array([r["text"] for r in rows], pa.string())})
        runs = pa.table({"run_id": pa.array(sorted({ids[r["run"]] for r in rows}), pa.int32())})
        # store_scores reads the values from the TEMP tables ev_scores and ev_runs, as
        # engine.evaluate leaves them
        con.register("ev_spark_scores", scores)
        con.register("ev_spark_runs", runs)
        try:
            con.execute("CREATE OR REPLACE TEMP TABLE ev_scores AS FROM ev_spark_scores")
            con.execute("CREATE OR REPLACE TEMP TABLE ev_runs AS FROM ev_spark_runs")
        finally:
            con.unregister("ev_spark_scores")
            con.unregister("ev_spark_runs")
        store_scores(con, result, qid)
    finally:
        con.close()
    return len(rows)
