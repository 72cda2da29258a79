"""Evaluating qrels and a run held in memory, the answer as a pandas DataFrame.

    import irwarehouse
    irwarehouse.evaluate(qrels_df, run_df, ["map", "P@10"])          # query_id, measure, value
    irwarehouse.evaluate(qrels, run, "all_trec", aggregate=True)     # measure, value

Both inputs go into a private in-memory warehouse through the ingest every file takes (the
same checks, the same stored trec_eval order: score desc, docno desc), and the measures through
the one evaluation request (request.evaluation, by Warehouse.evaluate): the values are the bits
`irw eval` gives on the same data."""

from __future__ import annotations

import math
from typing import Any

from .argcheck import checked

CAMPAIGN = "memory"         # the private warehouse's one campaign


@checked
def evaluate(qrels: Any, run: Any, measures: str | list[str], *, aggregate: bool = False,
             qrels_format: str | None = None, keep_first: bool = False, options=None,
             **option_values):
    """Evaluate one run against qrels, each a pandas or polars DataFrame, a pyarrow Table, a
    dict of dicts (pytrec_eval's {query_id: {doc_id: value}}), an iterable of ir_measures'
    Qrel / ScoredDoc, a ranx Qrels / Run, or a file path (formats.inmemory names the columns
    read). `measures`: names as `irw eval -m` takes them (one string or a list).

    Returns a pandas DataFrame: query_id, measure, value, one row per topic and measure (the
    rows `irw eval -q` prints per topic; a text-valued measure such as relstring adds a `text`
    column); with `aggregate`, measure and value, one row per measure (the `all` rows).
    Options: as Warehouse.evaluate takes them (`threshold=2`, `complete=True`, `depth=100`,
    `judged_only=True`, `order="file"`, `version=10`, `gains="1:1,2:3"`, or an EvalOptions /
    EvalSettings as `options=`); `qrels_format`: a qrels file's format (default: read from its
    first lines, as `irw eval` does); `keep_first`: keep the first of duplicate documents."""
    from .api import Warehouse, _settings
    from .formats import is_path
    _pandas()                       # the answer's type: said before any work is done
    names = [measures] if isinstance(measures, str) else list(measures)
    settings = _settings(options, None, option_values)
    with Warehouse(None, macros=False, lean=True) as wh:
        if is_path(qrels):
            wh.ingest_qrels(qrels, CAMPAIGN, fmt=qrels_format or _sniffed(qrels, names))
        else:
            wh.ingest_qrels(qrels, CAMPAIGN, fmt=qrels_format)
        if is_path(run):
            wh.ingest_run(run, CAMPAIGN, keep_first=keep_first)
        else:
            from .analyst.tables import ingest_run_table
            ingest_run_table(wh.con, run, CAMPAIGN, keep_first=keep_first, default_name="run")
        result = wh.evaluate(names, campaign=CAMPAIGN, options=settings, arrow=False)
        from .engine.checks import check_evaluation
        check_evaluation(result, empty_is_error=True)
    return summary_frame(result) if aggregate else topic_frame(result)


def _pandas():
    """pandas, which the answer is (not a dependency of irw: one line says how to get it)."""
    try:
        import pandas
    except ImportError:
        from .errors import IrwError
        raise IrwError("irwarehouse.evaluate answers with a pandas DataFrame: pip install "
                       "pandas (or use irwarehouse.evaluate_files, which answers with Arrow "
                       "tables)") from None
    return pandas


def _sniffed(path, names: list[str]) -> str:
    """A qrels file's format as `irw eval` reads it (cli.eval_body._eval_files)."""
    from .formats.sniff import sniff_qrels_format
    from .request.layouts import LAYOUTS, wants_diversity
    return sniff_qrels_format(path, diversity=wants_diversity(LAYOUTS["trec_eval"], names, None))


def topic_frame(result):
    """An evaluation's per-topic rows as printed by `irw eval -q` (trec_eval's rules: the
    measures that have per-topic values; with trec_eval 9, topics the run has), long form."""
    pd = _pandas()
    kinds = {r.name: r.mdef for r in result.requests}
    rows = []
    text = False
    for t in result.per_topic.to_pylist():
        mdef = kinds.get(t["measure"])
        if mdef is not None and not mdef.per_topic:
            continue
        if not (t["in_run"] or result.options.version >= 10):
            continue
        text = text or t["text"] is not None
        rows.append((t["topic"], t["measure"], _number(t["value"]), t["text"]))
    frame = pd.DataFrame(rows, columns=["query_id", "measure", "value", "text"])
    frame["value"] = frame["value"].astype("float64")
    return frame if text else frame.drop(columns="text")


def summary_frame(result):
    """An evaluation's `all` rows: measure, value (integer measures such as num_rel as their
    float value, as in the per-topic frame)."""
    pd = _pandas()
    rows = [(s["measure"], _number(s["value"])) for s in result.summary.to_pylist()]
    frame = pd.DataFrame(rows, columns=["measure", "value"])
    frame["value"] = frame["value"].astype("float64")
    return frame


def _number(value) -> float:
    return math.nan if value is None else float(value)
