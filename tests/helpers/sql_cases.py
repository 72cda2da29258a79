"""Small hand-made cases in one shared in-memory warehouse (the user-model, NTCIREVAL and
condensed-list tests): qrels, runs, intents and document lengths stored from Python dicts, and
their values through SQL. Every case gets a campaign of its own."""

from __future__ import annotations

import itertools

import pyarrow as pa

from irwarehouse.engine.evaluate import EvalOptions, evaluate
from irwarehouse.measures import parse_measures
from irwarehouse.store.connection import connect

_CON = None
_SEQ = itertools.count()


def con():
    global _CON
    if _CON is None:
        _CON = connect(None)
    return _CON


def load(qrels, runs, *, words=None, chars=None, intents=None, rising_scores: bool = False):
    """qrels {topic: {doc: level}} (or {topic: {intent: {doc: level}}} with `intents`, which
    gives {topic: {intent: probability}}), runs {name: {topic: [docs, best first]}}, lengths
    {doc: n}. Scores fall down each list (trec_eval's order is the list's order), or rise with
    `rising_scores` (then only file order, as NTCIREVAL reads a run, gives the list's order).
    Returns (qrels_id, [run_id, ...])."""
    c = con()
    cid = c.execute("INSERT INTO campaign (name) VALUES (?) RETURNING campaign_id",
                    [f"um{next(_SEQ)}"]).fetchone()[0]
    qid = c.execute("INSERT INTO qrels (campaign_id, name) VALUES (?, 'q') RETURNING qrels_id",
                    [cid]).fetchone()[0]
    if intents is None:
        rows = [(t, "", d, lv) for t, docs in qrels.items() for d, lv in docs.items()]
    else:
        rows = [(t, i, d, lv) for t, by_intent in qrels.items()
                for i, docs in by_intent.items() for d, lv in docs.items()]
        probs = [(cid, t, i, p) for t, by_intent in intents.items() for i, p in by_intent.items()]
        if probs:
            c.executemany("INSERT INTO intent (campaign_id, topic, intent, probability) "
                          "VALUES (?, ?, ?, ?)", probs)
    c.register("t_judged", pa.table({
        "topic": [r[0] for r in rows], "intent": [r[1] for r in rows],
        "doc": [r[2] for r in rows], "rel": pa.array([r[3] for r in rows], pa.int32())}))
    c.execute("INSERT INTO judgment (qrels_id, topic, intent, doc, rel) "
              "SELECT ?, topic, intent, doc, rel FROM t_judged", [qid])
    c.unregister("t_judged")
    docs = sorted(set(words or {}) | set(chars or {}))
    if docs:
        c.executemany("INSERT INTO doc (campaign_id, doc, length_words, length_chars) "
                      "VALUES (?, ?, ?, ?)",
                      [(cid, d, (words or {}).get(d), (chars or {}).get(d)) for d in docs])
    run_ids = []
    for name, topics in runs.items():
        rid = c.execute("INSERT INTO run (campaign_id, name) VALUES (?, ?) RETURNING run_id",
                        [cid, name]).fetchone()[0]
        rows = [(t, d, i) for t, ds in topics.items() for i, d in enumerate(ds, start=1)]
        if rows:
            c.register("t_rows", pa.table({
                "topic": [r[0] for r in rows], "doc": [r[1] for r in rows],
                "pos": pa.array([r[2] for r in rows], pa.int64())}))
            score = "pos" if rising_scores else "10000.0 - pos"
            c.execute("INSERT INTO run_row (run_id, topic, doc, score, rank, file_order) "
                      f"SELECT ?, topic, doc, {score}, pos, pos FROM t_rows", [rid])
            c.unregister("t_rows")
        run_ids.append(rid)
    return qid, run_ids


def values(qrels, runs, names, *, options=None, **lengths) -> dict:
    """{(run name, topic): {measure name: value}} for measure names, through SQL."""
    qid, run_ids = load(qrels, runs, **lengths)
    result = evaluate(con(), run_ids, qid, parse_measures(names), options or EvalOptions())
    out: dict = {}
    for row in result.per_topic.to_pylist():
        out.setdefault((row["run"], row["topic"]), {})[row["measure"]] = row["value"]
    return out


def one(qrels_topic, ranking, names, **kw) -> dict:
    """Values of one topic `T` and one run."""
    return values({"T": qrels_topic}, {"run": {"T": ranking}}, names, **kw).get(("run", "T"), {})
