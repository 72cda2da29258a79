"""Results written into the warehouse: per-topic scores (`score`) and significance tests
(`significance`), each in one transaction."""

from __future__ import annotations

from ..options import SQL_OPTIONS
from . import digests
from .ingest import transaction

# score's key columns beyond run, qrels and topic: the measure and its options (declared in
# irwarehouse.options; validated names, never user input)
_OPTION_COLUMNS = [o.sql for o in SQL_OPTIONS]


def score_rows_meta(result) -> dict[str, list]:
    """Per requested measure: the name it is stored under (its canonical name), the spelling
    asked for, its catalog measure, parameters, cutoff, definition hash, and its options as
    score's columns (the evaluation's, with the measure's own: AP(rel=2) at -l 2)."""
    gains = dict(result.options.gains)
    meta: dict[str, list] = {k: [] for k in (
        "spelling", "measure", "family", "params", "cutoff", "definition_hash", "options",
        *_OPTION_COLUMNS, "gain_levels", "gain_values")}
    seen = set()
    for req in result.requests:
        opts = req.eval_options(result.options)
        key = (req.stored_name(gains), opts)
        if key in seen:                 # two spellings of one measure (-m AP -m map)
            continue
        seen.add(key)
        values = opts.sql_values()
        cutoff = req.cutoff_value
        meta["spelling"].append(req.name)
        meta["measure"].append(req.stored_name(gains))
        meta["family"].append(req.mdef.name)
        meta["params"].append(req.params_text)
        meta["cutoff"].append(float(cutoff) if isinstance(cutoff, (int, float)) else None)
        meta["definition_hash"].append(req.definition_hash())
        meta["options"].append(opts.describe())
        for column in _OPTION_COLUMNS:
            if column != "gains":
                meta[column].append(values[column])
        meta["gain_levels"].append(list(values["gains"]))
        meta["gain_values"].append(list(values["gains"].values()))
    del meta["gains"]
    return meta


def store_scores(con, result, qrels_id: int) -> None:
    """Materialise an evaluation's per-topic values (an irwarehouse.engine.evaluate.EvalResult,
    whose values are the TEMP table ev_scores) into `score`, replacing earlier values of the
    same key (run, qrels, measure, options), whatever spelling stored them."""
    meta = score_rows_meta(result)
    columns = [c for c in meta if c not in ("gain_levels", "gain_values")]
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE ev_store_meta AS
        SELECT {', '.join(f'unnest(${c}) AS {c}' for c in columns)},
               map(unnest($gain_levels), unnest($gain_values)) AS gains""", meta)
    key = " AND ".join(f"s.{c} IS NOT DISTINCT FROM m.{c}" for c in ["measure", *_OPTION_COLUMNS])
    option_columns = ", ".join(_OPTION_COLUMNS)
    try:
        with transaction(con, f"{len(result.requests)} measure(s) in table score"):
            digests.touch(con, "score", "run_id IN (SELECT run_id FROM ev_runs)")
            con.execute(f"""
                DELETE FROM score s USING ev_store_meta m
                WHERE s.qrels_id = ? AND {key}
                  AND s.run_id IN (SELECT run_id FROM ev_runs)""", [qrels_id])
            con.execute(f"""
                INSERT INTO score (run_id, qrels_id, topic, measure, spelling, family, params,
                                   cutoff, options, value, text, definition_hash,
                                   {option_columns})
                SELECT s.run_id, ?, s.topic, m.measure, m.spelling, m.family, m.params,
                       m.cutoff, m.options, s.value, s.text, m.definition_hash,
                       {', '.join('m.' + c for c in _OPTION_COLUMNS)}
                FROM ev_scores s JOIN ev_store_meta m ON m.spelling = s.measure""",
                        [qrels_id])
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
