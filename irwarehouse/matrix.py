"""Topics x runs score matrices pulled from the warehouse's `topic_score` view by SQL, the input
of the statistics (irwarehouse.stats) and of meta-evaluation."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import WarehouseError

MISSING_POLICIES = ("error", "drop", "zero")


@dataclass(frozen=True)
class ScoreMatrix:
    values: np.ndarray            # shape (topics, runs)
    topics: list[str]
    runs: list[str]               # "campaign/run" when several campaigns are involved
    measure: str

    def column(self, run: str) -> np.ndarray:
        return self.values[:, self.runs.index(run)]


def score_matrix(con, *, campaigns: list[str], measure: str, runs: list[str] | None = None,
                 options: str | None = None, missing: str = "error") -> ScoreMatrix:
    """The stored per-topic values of `measure` for the runs of `campaigns` (all runs, or those
    named in `runs`), one column per run. Topics a run lacks are an error, dropped, or scored 0
    according to `missing`."""
    if missing not in MISSING_POLICIES:
        raise WarehouseError(f"missing-topic policy must be one of {', '.join(MISSING_POLICIES)}")
    rows = con.execute("""
        SELECT campaign, run, topic, value, options
        FROM topic_score
        WHERE list_contains($campaigns, campaign) AND measure = $measure
          AND ($runs IS NULL OR list_contains($runs, run))
          AND ($options IS NULL OR options = $options)
        ORDER BY campaign, run, topic""",
                       {"campaigns": campaigns, "measure": measure, "runs": runs,
                        "options": options}).fetchall()
    if not rows:
        raise WarehouseError(f"no stored scores of {measure!r} in {', '.join(campaigns)} "
                             "(evaluate with --store first)")
    if len({r[4] for r in rows}) > 1:
        raise WarehouseError(f"scores of {measure!r} were stored with several option sets; "
                             "choose one")
    several = len(campaigns) > 1
    cells: dict[tuple[str, str], float] = {}
    for campaign, run, topic, value, _ in rows:
        cells[(f"{campaign}/{run}" if several else run, topic)] = value
    run_names = sorted({k[0] for k in cells})
    if runs and not several:
        absent = [r for r in runs if r not in run_names]
        if absent:
            raise WarehouseError(f"no stored scores for run {absent[0]!r}")
    all_topics = sorted({k[1] for k in cells})
    complete = [t for t in all_topics if all((r, t) in cells for r in run_names)]
    if missing == "error" and len(complete) != len(all_topics):
        gap = next((r, t) for t in all_topics for r in run_names if (r, t) not in cells)
        raise WarehouseError(f"run {gap[0]!r} has no score for topic {gap[1]!r} "
                             "(use --missing drop or --missing zero)")
    topics = complete if missing == "drop" else all_topics
    values = np.array([[cells.get((r, t), 0.0) for r in run_names] for t in topics], dtype=float)
    return ScoreMatrix(values, topics, run_names, measure)
