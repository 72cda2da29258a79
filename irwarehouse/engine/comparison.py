"""`irw compare`'s engine: the score matrix of a measure (stored, or evaluated and stored when
missing) and every pair of runs under one significance test (irwarehouse.stats)."""

from __future__ import annotations

from ..errors import IrwError
from .matrix import NoStoredScores, ScoreMatrix, score_matrix


def matrix_for(wh, campaigns: list[str], measure: str, runs: list[str] | None, missing: str,
               qrels: str | None = None) -> ScoreMatrix:
    """The stored scores of `measure` (any spelling of it); when none are stored yet, evaluate
    and store them first."""
    try:
        return score_matrix(wh.con, campaigns=campaigns, measure=measure, runs=runs,
                            qrels=qrels, missing=missing)
    except NoStoredScores:
        pass
    for campaign in campaigns:
        wh.evaluate([measure], campaign=campaign, qrels=qrels, store=True)
    return score_matrix(wh.con, campaigns=campaigns, measure=measure, runs=runs, qrels=qrels,
                        missing=missing)


def run_tests(matrix: ScoreMatrix, *, test: str, correction: str | None, alpha: float,
              B: int | None, seed: int | None, progress=None, tie_rule: str = "ge"):
    from ..stats import compare_all
    try:
        return compare_all(matrix.values, matrix.runs, test=test, correction=correction,
                           alpha=alpha, B=B, rng=seed, progress=progress, tie_rule=tie_rule)
    except ValueError as exc:          # the engine validates its options
        raise IrwError(str(exc)) from None
