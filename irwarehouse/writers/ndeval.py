"""ndeval's CSV layout (`irw eval --format ndeval`; ndeval.c 4.4 outputMeasures)."""

from __future__ import annotations

import math

# ndeval's columns, in its output order
NDEVAL_COLUMNS = (
    "ERR-IA@5", "ERR-IA@10", "ERR-IA@20",
    "nERR-IA@5", "nERR-IA@10", "nERR-IA@20",
    "alpha-DCG@5", "alpha-DCG@10", "alpha-DCG@20",
    "alpha-nDCG@5", "alpha-nDCG@10", "alpha-nDCG@20",
    "NRBP", "nNRBP", "MAP-IA",
    "P-IA@5", "P-IA@10", "P-IA@20",
    "strec@5", "strec@10", "strec@20",
)  # fmt: skip


NDEVAL_MEASURES = ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "NRBP", "nNRBP", "MAP-IA",
                   "P-IA", "strec")


def _topic_key(topic: str):
    return (0, int(topic), "") if topic.isdigit() else (1, 0, topic)


def _ndeval_value(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-nan"          # glibc's printf of ndeval's 0.0/0.0
    return f"{value:.6f}"


def ndeval_text(result) -> str:
    """ndeval's CSV (ndeval.c 4.4 outputMeasures): `runid,topic,<columns>`, one row per topic of
    the run in ascending topic number, then `runid,amean,...`; values `%.6f`. Columns are the
    requested measures, ndeval's in its order first. A run topic absent from the qrels gets a
    row of zeros (ndeval never evaluates it); a qrels topic absent from the run gets no row
    (with -c it counts as 0 in the amean). The amean divides the column sums by the number of
    topics in both run and qrels, or with -c by the number of qrels topics; when that number
    is 0, ndeval prints only `runid,amean` and `0.00` per column."""
    rank = {c: k for k, c in enumerate(NDEVAL_COLUMNS)}
    names = sorted((r.name for r in result.requests),
                   key=lambda n: (rank.get(n, len(rank)), n))
    lines = ["runid,topic," + ",".join(names)]
    topics = result.per_topic.to_pylist()
    summary = result.summary.to_pylist()
    listed = result.run_topics.to_pylist() if result.run_topics is not None else []
    run_names = {row["run_id"]: row["run"] for row in topics + summary + listed}
    values: dict[tuple, float] = {}
    for t in topics:
        if t["in_run"]:
            values[(t["run_id"], t["topic"], t["measure"])] = t["value"]
    run_topics: dict[int, set[str]] = {}
    for rid, topic in [(r["run_id"], r["topic"]) for r in listed] + list(
            {(rid, t) for (rid, t, _) in values}):
        run_topics.setdefault(rid, set()).add(topic)
    order = [row["run_id"] for row in summary] + [row["run_id"] for row in listed]
    for run_id in dict.fromkeys(order):
        run = run_names[run_id]
        means = {s["measure"]: s["value"] for s in summary if s["run_id"] == run_id}
        if not means:                        # no topic evaluated: ndeval's actualTopics == 0
            lines.append(",".join([run, "amean"] + ["0.00"] * len(names)))
            continue
        for topic in sorted(run_topics.get(run_id, ()), key=_topic_key):
            lines.append(",".join([run, topic] + [_ndeval_value(values.get((run_id, topic, n),
                                                                            0.0))
                                                  for n in names]))
        lines.append(",".join([run, "amean"] + [_ndeval_value(means.get(n)) for n in names]))
    return "\n".join(lines) + "\n"
