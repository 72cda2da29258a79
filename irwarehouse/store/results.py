"""Results written into the warehouse: per-topic scores (`score`) and significance tests
(`significance`), each in one transaction."""

from __future__ import annotations

from . import digests
from .ingest import transaction


def store_scores(con, result, qrels_id: int) -> None:
    """Materialise an evaluation's per-topic values (an irwarehouse.engine.evaluate.EvalResult,
    whose values are the TEMP table ev_scores) into `score`, replacing
    earlier values of the same measures, runs, qrels and options; `family` is the measure's
    catalog row, `definition_hash` the hash of its SQL file."""
    # The measures' catalog rows as bound lists (no pyarrow: its import costs 0.1 s).
    meta = {"measure": [r.name for r in result.requests],
            "family": [r.mdef.name for r in result.requests],       # its measure_catalog row
            "params": [r.params_text for r in result.requests],
            "definition_hash": [r.definition_hash() for r in result.requests]}
    con.execute("""
        CREATE OR REPLACE TEMP TABLE ev_store_meta AS
        SELECT unnest($measure) AS measure, unnest($family) AS family,
               unnest($params) AS params, unnest($definition_hash) AS definition_hash""", meta)
    options = result.options.describe()
    try:
        with transaction(con, f"{len(result.requests)} measure(s) in table score"):
            digests.touch(con, "score", "run_id IN (SELECT run_id FROM ev_runs)")
            con.execute("""
                DELETE FROM score WHERE qrels_id = ? AND options = ?
                  AND run_id IN (SELECT run_id FROM ev_runs)
                  AND measure IN (SELECT measure FROM ev_store_meta)""", [qrels_id, options])
            con.execute("""
                INSERT INTO score (run_id, qrels_id, topic, measure, family, params, options,
                                   value, text, definition_hash)
                SELECT s.run_id, ?, s.topic, s.measure, m.family, m.params, ?, s.value,
                       s.text, m.definition_hash
                FROM ev_scores s JOIN ev_store_meta m ON m.measure = s.measure""",
                        [qrels_id, options])
            digests.touch(con, "score", "run_id IN (SELECT run_id FROM ev_runs)")
    finally:
        con.execute("DROP TABLE IF EXISTS ev_store_meta")


def store_significance(con, comparison, campaign: str, measure: str) -> None:
    """`irw compare --store`: one row per run pair in `significance`, with the test, B and seed."""
    rows = [(campaign, measure, comparison.test, comparison.correction, comparison.B,
             comparison.seed, comparison.alpha, comparison.n_topics, p.run_a, p.run_b, p.mean_a,
             p.mean_b, p.delta, p.statistic, p.p, p.p_adjusted, comparison.tie_rule)
            for p in comparison.pairs]
    with transaction(con):
        con.executemany("""
            INSERT INTO significance (campaign, measure, test, correction, B, seed, alpha,
                n_topics, run_a, run_b, mean_a, mean_b, delta, statistic, p, p_adjusted,
                tie_rule)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""", rows)
        digests.touch(con, "significance")
