"""Score matrices of several metrics for a campaign, as the one request gives them
(irwarehouse.request.evaluation.scores): stored, or evaluated on the fly for the runs that have
none (nothing written unless asked)."""

from __future__ import annotations

import numpy as np

from ..engine.matrix import ScoreMatrix, matrix_from_rows
from ..errors import MeasureError
from ..request.evaluation import score_name  # noqa: F401  (the one lookup, used here before)
from ..options import EvalOptions, EvalSettings
from ._common import MetricSet


def load_metrics(wh, campaign: str, measures: list[str], *, runs: list[str] | None = None,
                 qrels: str | None = None, missing: str = "error",
                 options: EvalOptions | None = None, stored: bool = True,
                 given: EvalSettings | None = None, report=None,
                 store: bool = False) -> MetricSet:
    """One matrix per measure (labelled as the user wrote it), aligned on runs and topics.
    The request: `given` (or every option of `options`) and `qrels` over the campaign's profile;
    `stored=False` evaluates every measure afresh (nothing written); `store` keeps what was
    evaluated; `report(text)` is told which qrels and options were used."""
    from ..request.evaluation import scope, scores
    if not measures:
        raise MeasureError("give at least one measure (-m)")
    if len(set(measures)) != len(measures):
        raise MeasureError("a measure is given twice")
    request = request_settings(given, options, qrels)
    where = scope(wh.con, campaign, request, measures=measures)
    found = scores(wh.con, where, measures, runs=runs, store=store, use_stored=stored)
    if report is not None and where.worth_naming and any(
            not m.source.endswith("(text)") for m in found):
        report(f"scores of {where.describe()}")
    # Scores are compared at 12 decimals: the last bits of a SQL float sum can depend on the
    # order of a parallel aggregation, and such noise must not turn a tie between two runs into
    # a difference (concordance, swaps, rankings).
    ordered = []
    for m in found:
        matrix = matrix_from_rows(m.rows, m.label, missing, m.summary)
        ordered.append(ScoreMatrix(np.round(matrix.values, 12), matrix.topics, matrix.runs,
                                   m.label, matrix.summary))
    return MetricSet.from_score_matrices(ordered)


def request_settings(given: EvalSettings | None = None, options: EvalOptions | None = None,
                     qrels: str | None = None) -> EvalSettings:
    """The settings of a request made in Python: `given` (EvalSettings), or every option of an
    EvalOptions, and a qrels name over them."""
    from dataclasses import replace
    request = options.as_settings() if options is not None else (given or EvalSettings())
    return replace(request, qrels=qrels) if qrels is not None else request
