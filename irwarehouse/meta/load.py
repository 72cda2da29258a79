"""Score matrices of several metrics for a campaign: the stored per-topic scores (the
`topic_score` view, irwarehouse.matrix.score_matrix) or, for a metric never stored, an evaluation
on the fly (nothing is written)."""

from __future__ import annotations

import numpy as np

from ..errors import MeasureError, WarehouseError
from ..evaluate import EvalOptions
from ..matrix import MISSING_POLICIES, ScoreMatrix, score_matrix
from ..measures import parse_measures
from ._common import MetricSet


def canonical_name(measure: str, version: int = 9) -> str:
    try:
        requests = parse_measures([measure], version=version)
    except MeasureError:
        from ..online.measures import is_online, parse  # session/click measures (issue 16)
        if is_online(measure):
            return parse(measure).name
        raise
    if len(requests) != 1:
        raise MeasureError(f"{measure!r} names {len(requests)} measures; give one per -m")
    return requests[0].name


def matrix_from_rows(rows, measure: str, missing: str = "error",
                     summary: str = "mean") -> ScoreMatrix:
    """(run, topic, value) rows -> topics x runs matrix, with score_matrix's missing policy."""
    if missing not in MISSING_POLICIES:
        raise WarehouseError(f"missing-topic policy must be one of {', '.join(MISSING_POLICIES)}")
    cells = {(run, topic): value for run, topic, value in rows}
    runs = sorted({r for r, _ in cells})
    topics = sorted({t for _, t in cells})
    complete = [t for t in topics if all((r, t) in cells for r in runs)]
    if missing == "error" and len(complete) != len(topics):
        gap = next((r, t) for t in topics for r in runs if (r, t) not in cells)
        raise WarehouseError(f"run {gap[0]!r} has no {measure} score for topic {gap[1]!r} "
                             "(use --missing drop or --missing zero)")
    if missing == "drop":
        topics = complete
    values = np.array([[cells.get((r, t), 0.0) for r in runs] for t in topics], dtype=float)
    return ScoreMatrix(values, topics, runs, measure, summary)


def _one_stored_qrels(con, campaign: str, measure: str) -> None:
    """score_matrix does not look at the qrels: refuse to mix scores stored with several."""
    qrels = con.execute("SELECT DISTINCT qrels FROM topic_score WHERE campaign = ? AND "
                        "measure = ? ORDER BY qrels", [campaign, measure]).fetchall()
    if len(qrels) > 1:
        raise WarehouseError(f"scores of {measure!r} are stored for several qrels "
                             f"({', '.join(q[0] for q in qrels)}); choose one with --qrels")


def load_metrics(wh, campaign: str, measures: list[str], *, runs: list[str] | None = None,
                 qrels: str | None = None, missing: str = "error",
                 options: EvalOptions | None = None, stored: bool = True) -> MetricSet:
    """One matrix per measure (labelled as the user wrote it), aligned on runs and topics."""
    if not measures:
        raise MeasureError("give at least one measure (-m)")
    if len(set(measures)) != len(measures):
        raise MeasureError("a measure is given twice")
    options = options or EvalOptions()
    matrices: dict[str, ScoreMatrix] = {}
    to_evaluate = []
    for label in measures:
        name = canonical_name(label, options.version)
        if stored and qrels is None:
            _one_stored_qrels(wh.con, campaign, name)
            try:
                matrices[label] = score_matrix(wh.con, campaigns=[campaign], measure=name,
                                               runs=runs, missing=missing)
                continue
            except WarehouseError as exc:
                if "no stored scores of" not in str(exc):
                    raise
        to_evaluate.append((label, name))
    if to_evaluate:
        result = wh.evaluate([label for label, _ in to_evaluate], campaign=campaign, runs=runs,
                             qrels=qrels, store=False, options=options)
        table = result.per_topic.to_pydict()
        summaries = {r.name: r.mdef.summary for r in result.requests}
        for label, name in to_evaluate:
            rows = [(r, t, v) for r, t, m, v, inside in
                    zip(table["run"], table["topic"], table["measure"], table["value"],
                        table["in_run"])
                    if m == name and (inside or options.complete) and v is not None]
            if not rows:
                raise WarehouseError(f"no {label} scores for campaign {campaign!r}")
            matrices[label] = matrix_from_rows(rows, label, missing, summaries[name])
    ordered = []
    for label in measures:
        sm = matrices[label]
        # Scores are compared at 12 decimals: the last bits of a SQL float sum can depend on
        # the order of a parallel aggregation, and such noise must not turn a tie between two
        # runs into a difference (concordance, swaps, rankings).
        ordered.append(ScoreMatrix(np.round(sm.values, 12), sm.topics, sm.runs, label,
                                   sm.summary))
    return MetricSet.from_score_matrices(ordered)
