"""Topics x runs score matrices pulled from the warehouse's `topic_score` view by SQL, the input
of the statistics (irwarehouse.stats) and of meta-evaluation."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import WarehouseError

MISSING_POLICIES = ("error", "drop", "zero")


@dataclass(frozen=True)
class ScoreMatrix:
    values: np.ndarray            # shape (topics, runs)
    topics: list[str]
    runs: list[str]               # "campaign/run" when several campaigns are involved
    measure: str
    summary: str = "mean"         # how a run's value is formed (measure_catalog.summary)
    # the qrels and option set the scores were read under (request.evaluation.Scope), as
    # "campaign: ..." per campaign when there are several; None when not recorded
    qrels: str | None = None
    options: str | None = None
    # topics left out (--missing drop) and cells scored 0 (--missing zero) because a run lacks
    # them: a comparison says so, its means then differ from irw eval's
    dropped: tuple[str, ...] = ()
    zero_filled: int = 0

    def _repr_html_(self) -> str:
        """Jupyter: each run's value (its summary), then the matrix, a row per topic."""
        from ..notebook import table
        head = {"topic": self.summary, **dict(zip(self.runs, map(float, self.run_values())))}
        rows = [{"topic": t, **dict(zip(self.runs, map(float, row)))}
                for t, row in zip(self.topics, self.values)]
        return table([head, *rows], ["topic", *self.runs],
                     caption=f"{self.measure}: {len(self.topics)} topics x {len(self.runs)} "
                             f"runs" + (f" ({self.options})" if self.options else ""))

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

    from ..sqlfiles import read_sql, statements
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


def matrix_from_rows(rows, measure: str, missing: str = "error",
                     summary: str = "mean") -> ScoreMatrix:
    """(run, topic, value) rows -> topics x runs matrix (runs and topics sorted). Topics a run
    lacks are an error, dropped, or scored 0 according to `missing`: the one missing-topic
    policy of irw compare, irw meta and the reports."""
    if missing not in MISSING_POLICIES:
        raise WarehouseError(f"missing-topic policy must be one of {', '.join(MISSING_POLICIES)}")
    cells = {(run, topic): value for run, topic, value in rows}
    runs = sorted({r for r, _ in cells})
    topics = sorted({t for _, t in cells})
    complete = [t for t in topics if all((r, t) in cells for r in runs)]
    if missing == "error" and len(complete) != len(topics):
        gap = next((r, t) for t in topics for r in runs if (r, t) not in cells)
        raise WarehouseError(f"run {gap[0]!r} has no {measure} score for topic {gap[1]!r} "
                             "(--missing drop or zero; missing='drop' or 'zero' in Python)")
    dropped = tuple(t for t in topics if t not in set(complete)) if missing == "drop" else ()
    if missing == "drop":
        topics = complete
    values = np.array([[cells.get((r, t), 0.0) for r in runs] for t in topics], dtype=float)
    filled = sum((r, t) not in cells for t in topics for r in runs) if missing == "zero" else 0
    return ScoreMatrix(values, topics, runs, measure, summary, dropped=dropped,
                       zero_filled=filled)


def summary_of(con, family: str) -> str:
    """The summary kind of a measure family (measure_catalog), 'mean' when it is not listed."""
    rows = con.execute("SELECT summary FROM measure_catalog WHERE measure = ?",
                       [family]).fetchall()
    return rows[0][0] if rows else "mean"
