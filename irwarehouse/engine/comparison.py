"""`irw compare`'s engine: the score matrix of a measure (stored, or evaluated and stored when
missing) and every pair of runs under one significance test (irwarehouse.stats)."""

from __future__ import annotations

from dataclasses import replace

from ..errors import IrwError
from .matrix import NoStoredScores, ScoreMatrix, has_scores, score_matrix


def matrix_for(wh, campaigns: list[str], measure: str, runs: list[str] | None, missing: str,
               given=None, report=None) -> ScoreMatrix:
    """The stored scores of `measure` (any spelling of it), each campaign's read under its
    option set (engine.settings.option_set: the given settings over the campaign's profile,
    else the one stored set); a campaign without them is evaluated and stored first.
    `report(text)` is told which set each campaign's scores come from."""
    from .checks import matrix_campaigns
    from .settings import option_set
    unknown = _grammar_error(measure)
    if unknown is not None:
        # online (sessions, clicks) and text (ROUGE, nuggets) scores are stored under their own
        # option strings by their own commands and never evaluated here: read them as stored;
        # a name stored nowhere gets the grammar's error (with its did-you-mean)
        try:
            matrix = score_matrix(wh.con, campaigns=campaigns, measure=measure, runs=runs,
                                  qrels=given.qrels if given else None, missing=missing)
        except NoStoredScores:
            raise unknown from None
        matrix_campaigns(campaigns, matrix)
        return matrix
    chosen = [option_set(wh.con, c, [measure], given) for c in campaigns]
    for s in chosen:
        if not has_scores(wh.con, s.campaign, measure, s.qrels, s.options.describe()):
            wh.evaluate([measure], campaign=s.campaign, qrels=s.qrels, store=True,
                        options=s.options, ntcir=s.ntcir())
            s = type(s)(s.campaign, s.qrels, s.options, s.source + "; evaluated and stored now")
        if report is not None and s.worth_naming:
            report(f"{measure} scores of {s.describe()}")
    matrix = score_matrix(wh.con, campaigns=campaigns, measure=measure, runs=runs,
                          qrels={s.campaign: s.qrels for s in chosen},
                          options={s.campaign: s.options.describe() for s in chosen},
                          missing=missing)
    matrix_campaigns(campaigns, matrix)

    def named(values):
        return values[0][1] if len(values) == 1 else "; ".join(f"{c}: {v}" for c, v in values)
    return replace(matrix, qrels=named([(s.campaign, s.qrels or "") for s in chosen]),
                   options=named([(s.campaign, s.options.describe()) for s in chosen]))


def _grammar_error(measure: str) -> IrwError | None:
    """None when `measure` is a name of the ranked-list grammar (measures.parse_measures),
    whose scores have evaluation option sets; else the grammar's error."""
    from ..measures import parse_measures
    try:
        parse_measures([measure])
    except IrwError as exc:
        return exc
    return None


def run_tests(matrix: ScoreMatrix, *, test: str, correction: str | None, alpha: float,
              B: int | None, seed: int | None, progress=None, tie_rule: str = "ge",
              plus_one: bool = False):
    from ..stats import compare_all
    try:
        return compare_all(matrix.values, matrix.runs, test=test, correction=correction,
                           alpha=alpha, B=B, rng=seed, progress=progress, tie_rule=tie_rule,
                           plus_one=plus_one)
    except ValueError as exc:          # the engine validates its options
        raise IrwError(str(exc)) from None
