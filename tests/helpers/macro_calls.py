"""The metric macros called as an analyst calls them (irw_<name>(campaign, ...) with every
parameter bound), collected into the EvalResult every writer prints: tests compare them with
irw eval's values, which share their SQL."""

from __future__ import annotations

import duckdb

from irwarehouse.engine.evaluate import EvalOptions, EvalResult, Rows, _option_values, placeholder
from irwarehouse.measures import MeasureRequest


def macro_call(req: MeasureRequest, opts: EvalOptions) -> tuple[str, dict]:
    """The SELECT that computes one measure through its metric macro (irw_<name>, the macro
    an analyst calls; irwarehouse.store.macros), with every parameter bound: (sql, parameters)."""
    from irwarehouse.store.macros import callable_params
    names = [n for n, _, _ in callable_params(req.mdef)]
    # a measure's own parameters win over the options of the same name (NTCIREVAL's `gains`)
    values = {**_option_values(req.eval_options(opts)),
              **dict(zip([p.name for p in req.mdef.params], req.args))}
    texts, bound = [], {"campaign": None}
    for n in names:
        if n in values and n not in ("qrels", "run"):
            text, value = placeholder(values[n], n)     # a gains MAP from its two lists
            texts.append(f"{n} := {text}")
            bound.update(value)
    args = ", ".join(texts)
    text = ", text" if req.mdef.kind == "text" else ", CAST(NULL AS VARCHAR) AS text"
    sql = (f"SELECT run, topic, value{text} FROM {req.mdef.macro}($campaign, qrels := $qrels, "
           f"run := $run{', ' + args if args else ''})")
    return sql, bound


def evaluate_macros(con: duckdb.DuckDBPyConnection, campaign: str, requests: list[MeasureRequest],
                    opts: EvalOptions = EvalOptions(), *, qrels: str | None = None,
                    run: str | None = None) -> EvalResult:
    """Evaluate through the metric macros of a warehouse (one SELECT per measure, as an analyst
    or another engine would), into the EvalResult every writer prints: the same values as
    evaluate(), which shares their SQL. The run values come from irw_summarise."""
    rows, summary = [], []
    complete_judged = None
    if opts.complete:
        complete_judged = con.execute("""
            SELECT count(*) FROM (SELECT topic, doc FROM judgment
                                  WHERE qrels_id = (SELECT qrels_id FROM ev_make_scope(?, ?))
                                  GROUP BY topic, doc HAVING max(rel) > 0)""",
                                      [campaign, qrels]).fetchone()[0]
    ids = dict(con.execute("SELECT name, run_id FROM run WHERE campaign_id = "
                           "(SELECT campaign_id FROM campaign WHERE name = ?)",
                           [campaign]).fetchall())
    for req in requests:
        sql, values = macro_call(req, opts)
        values.update(campaign=campaign, qrels=qrels, run=run)
        topic_rows = con.execute(f"{sql} ORDER BY run, topic", values).fetchall()
        rows += [(ids[r], r, t, req.name, v, x, True) for r, t, v, x in topic_rows]
        if req.mdef.summary != "none" and topic_rows:
            runs, topics, values_ = zip(*[r[:3] for r in topic_rows])
            by_run = con.execute("""
                SELECT run, irw_summarise(?, list(value ORDER BY topic), ?)
                FROM (SELECT unnest(?) AS run, unnest(?) AS topic, unnest(?) AS value)
                GROUP BY run""", [req.mdef.summary, complete_judged, list(runs), list(topics),
                                  list(values_)]).fetchall()
            summary += [(ids[r], r, req.name, v) for r, v in by_run]
    order = {r.name: i for i, r in enumerate(requests)}
    rows.sort(key=lambda r: (r[0], r[2], order[r[3]]))
    summary.sort(key=lambda s: (s[0], order[s[2]]))
    per_topic = Rows(names=["run_id", "run", "topic", "measure", "value", "text", "in_run"],
                     types=["INTEGER", "VARCHAR", "VARCHAR", "VARCHAR", "DOUBLE", "VARCHAR",
                            "BOOLEAN"], rows=rows)
    run_values = Rows(names=["run_id", "run", "measure", "value"],
                      types=["INTEGER", "VARCHAR", "VARCHAR", "DOUBLE"], rows=summary)
    return EvalResult(per_topic, run_values, list(requests), opts).with_arrow()
