"""Writing evaluation results: trec_eval's layout, TSV, CSV and JSON."""

from __future__ import annotations

import csv
import io
import math
from operator import itemgetter

from ..engine.evaluate import EvalResult, Rows


def _format_value(value: float, integer: bool) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "  -nan"                 # C printf("%6.4f") of trec_eval's -nan
    if integer:
        return str(int(round(value)))
    return f"{value:6.4f}"


def _line(name: str, topic: str, text: str) -> str:
    return f"{name:<22}\t{topic}\t{text}"


class _Kind:
    """How a measure prints: per topic or not, a text value, an integer (num_q, num_ret, ...).
    A session, click or text measure (request.domains) prints as a number per topic."""

    def __init__(self, req=None):
        mdef = req.mdef if req is not None else None
        self.per_topic = mdef.per_topic if mdef else True
        self.text = bool(mdef and mdef.kind == "text")
        self.integer = bool(mdef and (mdef.integer or mdef.name == "num_q"))


def _kinds(result: EvalResult) -> dict:
    kinds = {r.name: _Kind(r) for r in result.requests}
    return {**{m: _Kind() for m in result.extra_measures}, **kinds}


def trec_eval_text(result: EvalResult, *, per_topic: bool) -> str:
    """trec_eval's output: per-topic rows (with -q), then the `all` rows of each run, starting
    with runid (for the measures that print it, and for every run when there are several);
    topics in byte order; 9.x does not print rows of topics absent from a run."""
    kinds = _kinds(result)
    lines: list[str] = []
    # the per-topic rows as tuples of the columns printed, only when printed (all_trec on one
    # TREC run: 9,400 rows; a dict per row cost 0.005 s more); runs and names from the columns
    topics = _tuples(result.per_topic, ("run_id", "topic", "measure", "value", "text",
                                        "in_run")) if per_topic else []
    summary = result.summary.to_pylist()
    topic_runs = _column(result.per_topic, "run_id")
    runs = list(dict.fromkeys([row["run_id"] for row in summary] + topic_runs))
    names = {**dict(zip(topic_runs, _column(result.per_topic, "run"))),
             **{row["run_id"]: row["run"] for row in summary}}
    # trec_eval evaluates one run per call; with several runs each block says whose it is by
    # the `runid` line trec_eval prints for -m all_trec (where all_trec puts it: after the
    # run's per-topic rows, before its `all` rows). One run: trec_eval's bytes exactly.
    runid = result.runid or len(runs) > 1
    absent_too = result.options.version >= 10
    for run_id in runs:
        if per_topic:
            rows = [t for t in topics if t[0] == run_id and kinds[t[2]].per_topic
                    and (t[5] or absent_too)]
            rows.sort(key=lambda t: t[1].encode())      # stable: measure order kept
            for _, topic, measure, value, text, _ in rows:
                kind = kinds[measure]
                if kind.text:
                    text = f"'{text}'"
                elif kind.integer or value is None or math.isnan(value):
                    text = _format_value(value, kind.integer)
                else:
                    text = f"{value:6.4f}"          # _format_value of a number, inline
                lines.append(f"{measure:<22}\t{topic}\t{text}")
        if runid:
            lines.append(_line("runid", "all", names[run_id]))
        for s in summary:
            if s["run_id"] == run_id:
                lines.append(_line(s["measure"], "all",
                                   _format_value(s["value"], kinds[s["measure"]].integer)))
    return "\n".join(lines) + "\n"


def _tuples(table, names: tuple[str, ...]) -> list[tuple]:
    """The rows of a result table (Rows or a pyarrow Table) as tuples of these columns."""
    if isinstance(table, Rows):
        return list(map(itemgetter(*(table.names.index(n) for n in names)), table.rows))
    return list(zip(*(table.column(n).to_pylist() for n in names)))


def _column(table, name: str) -> list:
    """One column of a result table (Rows or a pyarrow Table) as a list."""
    if isinstance(table, Rows):
        i = table.names.index(name)
        return [row[i] for row in table.rows]
    return table.column(name).to_pylist()


def _rows(result: EvalResult, per_topic: bool, ci: str | None = None) -> list[dict]:
    """The tsv/csv/json rows: an integer measure (num_q, num_ret, ...) as an integer; with `ci`
    (t or bootstrap), ci_low and ci_high on each run's `all` row of a measure whose run value
    is the mean of its per-topic values (empty elsewhere)."""
    kinds = _kinds(result)
    intervals = run_intervals(result, ci) if ci else {}
    extra = {"ci_low": None, "ci_high": None} if ci else {}

    def value(measure, v):
        if v is not None and kinds[measure].integer and not math.isnan(v):
            return round(v)
        return v
    rows = []
    if per_topic:
        for t in result.per_topic.to_pylist():
            rows.append({"run": t["run"], "topic": t["topic"], "measure": t["measure"],
                         "value": value(t["measure"], t["value"]) if t["text"] is None
                         else t["text"], **extra})
    for s in result.summary.to_pylist():
        row = {"run": s["run"], "topic": "all", "measure": s["measure"],
               "value": value(s["measure"], s["value"]), **extra}
        low_high = intervals.get((s["run_id"], s["measure"]))
        if low_high is not None and _same(low_high[2], s["value"]):
            row["ci_low"], row["ci_high"] = low_high[:2]
        rows.append(row)
    return rows


def _same(mean: float, value) -> bool:
    """An interval is printed only beside the mean it is the interval of."""
    return value is not None and math.isclose(mean, value, rel_tol=1e-9, abs_tol=1e-12)


def run_intervals(result: EvalResult, method: str) -> dict:
    """(run_id, measure) -> (low, high, mean) of every measure whose run value is the mean of
    its per-topic values (irw_summarise's `mean`; session, click and text measures too); gm_
    and the sums have none."""
    from ..stats.intervals import interval
    means = {r.name for r in result.requests if r.mdef.summary == "mean"}
    means |= set(result.extra_measures)
    values: dict[tuple, list] = {}
    for t in result.per_topic.to_pylist():
        if t["measure"] in means and t["text"] is None and t["value"] is not None \
                and not math.isnan(t["value"]):
            values.setdefault((t["run_id"], t["measure"]), []).append(t["value"])
    out = {}
    for key, sample in values.items():
        bounds = interval(sample, method)
        if bounds is not None:
            out[key] = (*bounds, math.fsum(sample) / len(sample))
    return out


def delimited_text(result: EvalResult, *, per_topic: bool, delimiter: str,
                   ci: str | None = None) -> str:
    out = io.StringIO()
    columns = ["run", "topic", "measure", "value"] + (["ci_low", "ci_high"] if ci else [])
    writer = csv.DictWriter(out, fieldnames=columns, delimiter=delimiter, lineterminator="\n")
    writer.writeheader()
    for row in _rows(result, per_topic, ci):
        bounds = {k: ("" if row[k] is None else repr(row[k])) for k in columns[4:]}
        writer.writerow({**row, **bounds, "value": repr(row["value"])})
    return out.getvalue()


def json_text(result: EvalResult, *, per_topic: bool, ci: str | None = None) -> str:
    """JSON has no NaN (trec_eval's -nan of an empty list): it is written as null."""
    import json  # (only here: the everyday trec_eval layout does not import it)
    rows = [{**row, "value": None if isinstance(row["value"], float) and math.isnan(row["value"])
             else row["value"]} for row in _rows(result, per_topic, ci)]
    return json.dumps(rows, indent=1, allow_nan=False) + "\n"
