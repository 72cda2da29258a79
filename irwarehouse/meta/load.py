"""Score matrices of several metrics for a campaign: the stored per-topic scores (the
`topic_score` view, irwarehouse.engine.matrix.score_matrix) or, for a metric never stored, an
evaluation on the fly (nothing is written)."""

from __future__ import annotations

import numpy as np

from ..engine.evaluate import EvalOptions
from ..engine.matrix import NoStoredScores, ScoreMatrix, matrix_from_rows, score_matrix
from ..errors import MeasureError, WarehouseError
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


def stored_as_named(con, campaign: str, measure: str) -> bool:
    """Whether the campaign has per-topic scores stored under exactly this measure name."""
    return con.execute("SELECT count(*) > 0 FROM topic_score WHERE campaign = ? AND measure = ?",
                       [campaign, measure]).fetchone()[0]


def score_name(con, campaign: str, label: str, version: int = 9, *,
               as_stored: bool = True) -> tuple[str, bool]:
    """The name `label`'s scores are stored under, and whether it was read as stored: the
    grammar's canonical name, else (`as_stored`) the label itself when the campaign has scores
    stored under exactly that name -- ROUGE and nugget scores (ROUGE-1-R, nuggetF, ...) are
    filed under names the grammar does not read. The one lookup of irw meta and irw
    report."""
    try:
        return canonical_name(label, version), False
    except MeasureError:
        if not (as_stored and stored_as_named(con, campaign, label)):
            raise
        return label, True


def load_metrics(wh, campaign: str, measures: list[str], *, runs: list[str] | None = None,
                 qrels: str | None = None, missing: str = "error",
                 options: EvalOptions | None = None, stored: bool = True,
                 given=None, report=None) -> MetricSet:
    """One matrix per measure (labelled as the user wrote it), aligned on runs and topics.
    The scores are read (stored) or evaluated on the fly (nothing written) under one option
    set for all measures: `options` when given, else engine.settings.option_set's choice from
    `given` (EvalSettings) over the campaign's profile; `report(text)` is told which."""
    from dataclasses import replace

    from ..engine.settings import EvalSettings, OptionSet, option_set
    if not measures:
        raise MeasureError("give at least one measure (-m)")
    if len(set(measures)) != len(measures):
        raise MeasureError("a measure is given twice")
    given = given or EvalSettings()
    if qrels is not None:
        given = replace(given, qrels=qrels)
    version = options.version if options else (given.version or 9)
    named, as_named = [], set()       # as_named: ROUGE and nugget scores, filed by name
    for label in measures:
        name, verbatim = score_name(wh.con, campaign, label, version, as_stored=stored)
        named.append((label, name))
        if verbatim:
            as_named.add(label)
    ranked = [name for label, name in named if label not in as_named]
    if options is not None:
        chosen = OptionSet(campaign, given.qrels, options, "given")
    else:
        chosen = option_set(wh.con, campaign, ranked or [named[0][1]], given)
    if report is not None and ranked and chosen.worth_naming:
        report(f"scores of {chosen.describe()}")
    options = chosen.options
    matrices: dict[str, ScoreMatrix] = {}
    to_evaluate = []
    for label, name in named:
        if stored:
            try:
                verbatim = label in as_named      # text scores: their own sets and options
                matrices[label] = score_matrix(
                    wh.con, campaigns=[campaign], measure=name, runs=runs, missing=missing,
                    qrels=None if verbatim else chosen.qrels,
                    options=None if verbatim else options.describe())
                continue
            except NoStoredScores:
                pass
        to_evaluate.append((label, name))
    if to_evaluate:
        result = wh.evaluate([label for label, _ in to_evaluate], campaign=campaign, runs=runs,
                             qrels=chosen.qrels, store=False, options=options,
                             ntcir=chosen.ntcir())
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
