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
    summary: str = "mean"         # how a run's value is formed (measure_catalog.summary)

    def column(self, run: str) -> np.ndarray:
        return self.values[:, self.runs.index(run)]

    def run_values(self) -> np.ndarray:
        """Each run's value over the matrix's topics, by the measure's summary kind."""
        return run_values(self.values, self.summary)


def run_values(values: np.ndarray, summary: str) -> np.ndarray:
    """The run value of each column of a topics x runs matrix (rows in topic order) by a
    summary kind: formed by the SQL macro irw_summarise (sql/schema.sql), the one definition
    of a run's value that `irw eval`, run_score and the metric macros use too."""
    import duckdb

    from .sqlassets import read_sql, statements
    con = duckdb.connect()
    try:
        for _, stmt in statements(read_sql("schema.sql")):
            if stmt.startswith("CREATE OR REPLACE MACRO irw_summarise("):
                con.execute(stmt)
        rows = con.execute("SELECT irw_summarise(?, column_values, NULL) "
                           "FROM unnest(?) WITH ORDINALITY AS c(column_values, i) ORDER BY i",
                           [summary, np.asarray(values, dtype=float).T.tolist()]).fetchall()
    finally:
        con.close()
    return np.array([np.nan if v is None else v for (v,) in rows], dtype=float)


def score_matrix(con, *, campaigns: list[str], measure: str, runs: list[str] | None = None,
                 options: str | None = None, missing: str = "error") -> ScoreMatrix:
    """The stored per-topic values of `measure` for the runs of `campaigns` (all runs, or those
    named in `runs`), one column per run. Topics a run lacks are an error, dropped, or scored 0
    according to `missing`."""
    if missing not in MISSING_POLICIES:
        raise WarehouseError(f"missing-topic policy must be one of {', '.join(MISSING_POLICIES)}")
    rows = con.execute("""
        SELECT campaign, run, topic, value, options, family
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
    for campaign, run, topic, value, _, _ in rows:
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
    return ScoreMatrix(values, topics, run_names, measure, summary_of(con, rows[0][5]))


def summary_of(con, family: str) -> str:
    """The summary kind of a measure family (measure_catalog), 'mean' when it is not listed."""
    row = con.execute("SELECT summary FROM measure_catalog WHERE measure = ?",
                      [family]).fetchone()
    return row[0] if row else "mean"
