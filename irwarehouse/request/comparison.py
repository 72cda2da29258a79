"""`irw compare`'s engine: the score matrices of the measures (the one request's scores: stored,
or evaluated with the request's options) and every pair of runs under one significance test
(irwarehouse.stats)."""

from __future__ import annotations

from dataclasses import replace

from ..engine.matrix import ScoreMatrix, matrix_from_rows
from ..errors import IrwError


def matrices_for(wh, campaigns: list[str], measures: list[str], runs: list[str] | None,
                 missing: str, given=None, report=None, *, store: bool = False
                 ) -> list[ScoreMatrix]:
    """One topics x runs matrix per measure (any spelling), over the campaigns' runs ("C/run"
    when there are several campaigns, compared on the topics they share). Each campaign's
    scores are the request's (request.evaluation.scores: the given settings over its profile;
    stored, or evaluated and, with `store`, stored). `report(text)` is told which qrels and
    options each campaign's scores are of, and which were evaluated now."""
    from ..engine.checks import matrix_campaigns
    from .evaluation import scope, scores
    if not measures:
        raise IrwError("give at least one measure (-m)")
    several = len(campaigns) > 1
    per_campaign = []
    for campaign in campaigns:
        where = scope(wh.con, campaign, given, measures=measures)
        wanted = _runs_of(wh.con, campaign, runs) if several else runs
        found = scores(wh.con, where, measures, runs=wanted, store=store)
        evaluated = [m.label for m in found if m.source.startswith("evaluated")]
        if report is not None and (where.worth_naming or several):
            report(f"scores of {where.describe()}")
        if report is not None and evaluated:
            report(f"{campaign}: {', '.join(evaluated)} evaluated now"
                   + (" and stored" if store else " (not stored; --store keeps them)"))
        per_campaign.append((where, found))
    out = []
    for i, label in enumerate(measures):
        rows = [(f"{where.campaign}/{run}" if several else run, topic, value)
                for where, found in per_campaign for run, topic, value in found[i].rows]
        if not rows:
            raise IrwError(f"no {label} scores for the runs of {', '.join(campaigns)}")
        matrix = matrix_from_rows(rows, label, missing, per_campaign[0][1][i].summary)
        matrix_campaigns(campaigns, matrix)
        out.append(replace(matrix, qrels=_named([(w.campaign, w.qrels) for w, _ in per_campaign]),
                           options=_named([(w.campaign, w.options.describe())
                                           for w, _ in per_campaign])))
    return out


def matrix_for(wh, campaigns: list[str], measure: str, runs: list[str] | None, missing: str,
               given=None, report=None, *, store: bool = False) -> ScoreMatrix:
    """matrices_for of one measure."""
    return matrices_for(wh, campaigns, [measure], runs, missing, given, report, store=store)[0]


def _runs_of(con, campaign: str, runs: list[str] | None) -> list[str] | None:
    """The named runs that the campaign has (a cross-campaign comparison names runs of any)."""
    if not runs:
        return None
    have = {r for (r,) in con.execute("SELECT r.name FROM run r JOIN campaign c "
                                      "USING (campaign_id) WHERE c.name = ?",
                                      [campaign]).fetchall()}
    chosen = [r for r in runs if r in have]
    if not chosen:
        raise IrwError(f"campaign {campaign} has none of the runs named ({', '.join(runs)})")
    return chosen


def _named(values: list[tuple[str, str]]) -> str:
    return values[0][1] if len(values) == 1 else "; ".join(f"{c}: {v}" for c, v in values)


def run_tests(matrix: ScoreMatrix, *, test: str | None, correction: str | None, alpha: float,
              B: int | None, seed: int | None, progress=None, tie_rule: str = "ge",
              plus_one: bool = False):
    """Every pair of the matrix's runs under `test` (None: stats.compare.default_test, the one
    rule: randomised Tukey HSD over more than two runs, the paired bootstrap for two)."""
    from ..stats import compare_all
    try:
        return compare_all(matrix.values, matrix.runs, test=test, correction=correction,
                           alpha=alpha, B=B, rng=seed, progress=progress, tie_rule=tie_rule,
                           plus_one=plus_one)
    except ValueError as exc:          # the engine validates its options
        raise IrwError(str(exc)) from None
